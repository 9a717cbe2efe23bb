/**
 * agent_runtime_state: one document per agent. Pure `evolveAgent(state, event)` over the agent.*
 * events; the agent's active leases are derived from the task documents by the projector
 * (`withLeases`), since a claim is decided by the task reducer.
 */
import { agentIdOf } from '../envelope.js';
import { type HeartbeatStatus, type HeartbeatThresholds, heartbeatStatus } from '../liveness.js';
import { type WireEvent, assertNever } from '../types.js';

export interface AgentLease {
  stream_id: string;
  task_id: string;
  units: number;
  lease_expires_ms: number | null;
}

export interface AgentRun {
  agent_id: string;
  role: string | null;
  /** From agent.started / agent.stopped; "unknown" for an agent seen only through its claims. */
  status: 'running' | 'stopped' | 'unknown';
  available_units: number | null;
  max_units: number | null;
  skills: string[];
  /** The peer profile from agent.started (model, host, tools: references, not content). */
  profile: Record<string, unknown> | null;
  started_ms: number | null;
  stopped_ms: number | null;
  last_heartbeat_ms: number | null;
  /** What the agent said it was doing in its last heartbeat. */
  reported_status: string | null;
  heartbeat_count: number;
  leases: AgentLease[];
}

export function emptyAgent(agentId: string): AgentRun {
  return {
    agent_id: agentId,
    role: null,
    status: 'unknown',
    available_units: null,
    max_units: null,
    skills: [],
    profile: null,
    started_ms: null,
    stopped_ms: null,
    last_heartbeat_ms: null,
    reported_status: null,
    heartbeat_count: 0,
    leases: [],
  };
}

/** The agent an agent.* event is about: payload.agent, else the sender's id. */
export function agentOfEvent(e: WireEvent): string {
  const p = e.wire.payload as { agent?: string };
  return p.agent ?? agentIdOf(e.wire.sender);
}

export function evolveAgent(state: AgentRun | null, e: WireEvent): AgentRun | null {
  const w = e.wire;
  switch (w.type) {
    case 'agent.started': {
      const a = state ?? emptyAgent(agentOfEvent(e));
      const p = w.payload;
      return {
        ...a,
        status: 'running',
        role: p.role ?? a.role,
        max_units: p.max_units ?? a.max_units,
        available_units: p.available_units ?? p.max_units ?? a.available_units,
        skills: p.skills ?? a.skills,
        profile: p.profile ?? a.profile,
        started_ms: e.consensus_ms,
        stopped_ms: null,
      };
    }
    case 'agent.heartbeat': {
      const a = state ?? emptyAgent(agentOfEvent(e));
      const p = w.payload;
      return {
        ...a,
        status: 'running',
        stopped_ms: null,
        last_heartbeat_ms: Math.max(a.last_heartbeat_ms ?? 0, e.consensus_ms),
        reported_status: p.status ?? a.reported_status,
        available_units: p.available_units ?? a.available_units,
        heartbeat_count: a.heartbeat_count + 1,
      };
    }
    case 'agent.capacity.updated': {
      const a = state ?? emptyAgent(agentOfEvent(e));
      const p = w.payload;
      return { ...a, available_units: p.available_units, max_units: p.max_units, role: p.role ?? a.role, skills: p.skills ?? a.skills };
    }
    case 'agent.stopped': {
      const a = state ?? emptyAgent(agentOfEvent(e));
      return { ...a, status: 'stopped', stopped_ms: e.consensus_ms };
    }
    case 'agent.lease.accepted':
    case 'agent.lease.released':
      // Decided by the task reducer; the leases come back through withLeases.
      return state;
    case 'task.created':
    case 'task.available':
    case 'task.claim':
    case 'task.claimed':
    case 'task.started':
    case 'task.plan.created':
    case 'task.blocked':
    case 'task.complete':
    case 'artifact.claimed':
    case 'artifact.ready':
    case 'contract.ready':
    case 'review.concern':
    case 'gate.opened':
    case 'gate.passed':
    case 'project.created':
    case 'project.complete':
    case 'phase.created':
    case 'dependency.created':
      return state;
    default:
      return assertNever(w);
  }
}

/** The agent with its current leases (sorted, so the document does not depend on load order). */
export function withLeases(a: AgentRun, leases: AgentLease[]): AgentRun {
  return { ...a, leases: [...leases].sort((x, y) => (x.stream_id < y.stream_id ? -1 : x.stream_id > y.stream_id ? 1 : 0)) };
}

export interface AgentView {
  agent_id: string;
  role: string | null;
  status: AgentRun['status'];
  liveness: HeartbeatStatus;
  last_heartbeat_at: string | null;
  available_units: number | null;
  max_units: number | null;
  reserved_units: number;
  /** Units the agent can still take: min(available_units, max_units - reserved by live leases). */
  free_units: number;
  active_leases: number;
  leases: { stream_id: string; task_id: string; units: number; lease_expires_at: string | null; expired: boolean }[];
  skills: string[];
  profile: Record<string, unknown> | null;
  reported_status: string | null;
}

export function viewAgent(a: AgentRun, nowMs: number, thresholds?: Partial<HeartbeatThresholds>): AgentView {
  const leases = a.leases.map((l) => ({
    stream_id: l.stream_id,
    task_id: l.task_id,
    units: l.units,
    lease_expires_at: l.lease_expires_ms === null ? null : new Date(l.lease_expires_ms).toISOString(),
    expired: l.lease_expires_ms !== null && nowMs > l.lease_expires_ms,
  }));
  const live = leases.filter((l) => !l.expired);
  const reserved = live.reduce((s, l) => s + l.units, 0);
  const fromMax = a.max_units === null ? null : a.max_units - reserved;
  const candidates = [a.available_units, fromMax].filter((x): x is number => x !== null);
  const free = a.status === 'stopped' || candidates.length === 0 ? 0 : Math.max(0, Math.min(...candidates));
  return {
    agent_id: a.agent_id,
    role: a.role,
    status: a.status,
    liveness: heartbeatStatus(a.last_heartbeat_ms, nowMs, thresholds),
    last_heartbeat_at: a.last_heartbeat_ms === null ? null : new Date(a.last_heartbeat_ms).toISOString(),
    available_units: a.available_units,
    max_units: a.max_units,
    reserved_units: reserved,
    free_units: free,
    active_leases: live.length,
    leases,
    skills: a.skills,
    profile: a.profile,
    reported_status: a.reported_status,
  };
}
