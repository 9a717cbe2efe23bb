/**
 * task_run_state: one document per task attempt stream. Pure `evolveTask(state, event)` with an
 * exhaustive switch; every decision uses the event's canonical time (consensus_ms), never a clock,
 * so a replay reaches the same state.
 *
 * Lifecycle: pending (created) -> available (released, dependencies met) or waiting (released,
 * dependencies unmet) -> claimed -> started -> planned -> blocked / complete.
 * Role pools: the first claim in canonical order on an available task wins; later claims are
 * recorded as lost. Leases: a claim may carry lease_expires_at; the claimant's heartbeats and
 * lifecycle events renew it; once the lease has passed, a new claim or task.available takes the
 * task over (the old claim is recorded as expired). Early release: a dependency on R1's contract X
 * is met by R1's contract.ready(X); a dependency without a contract by R1's task.complete.
 */
import { agentIdOf } from '../envelope.js';
import { type WireEvent, assertNever } from '../types.js';

export type TaskProgress = 'claimed' | 'started' | 'planned' | 'blocked' | 'complete';
export type TaskStatus = 'pending' | 'waiting' | 'available' | TaskProgress;

export interface Dependency {
  /** R1, the task this one waits for. */
  task_id: string;
  contract: string | null;
  satisfied: boolean;
}

export interface TaskClaim {
  agent: string;
  role: string | null;
  topic: string;
  sequence_number: number;
  wire_id: string;
  at_ms: number;
  lease_expires_ms: number | null;
  /** The lease's length at claim time; a renewal extends the lease by this much. */
  lease_ms: number | null;
  units_reserved: number | null;
}

export type Disposition = 'applied' | 'lost' | 'rejected' | 'ignored';

export interface Outcome {
  wire_id: string;
  disposition: Disposition;
  reason?: string;
}

export interface TaskRun {
  stream_id: string;
  task_id: string;
  attempt: number;
  title: string | null;
  role: string | null;
  capacity_units: number;
  /** task.available was seen (and not taken back). */
  released: boolean;
  released_ms: number | null;
  progress: TaskProgress | null;
  claim: TaskClaim | null;
  last_heartbeat_ms: number | null;
  plan_ref: string | null;
  blocker: string | null;
  output_ref: string | null;
  verification_status: string | null;
  completed_by: string | null;
  dependencies: Dependency[];
  contracts_ready: string[];
  artifacts: { artifact_id: string | null; artifact_type: string | null; artifact_ref: string | null; sha256: string | null; status: 'claimed' | 'ready'; by: string }[];
  concerns: { concern: string; severity: string; by: string; artifact_ref: string | null; sequence_number: number }[];
  /** Claims that lost the race (most recent 100; lost_claim_count has them all). */
  lost_claims: { agent: string; sequence_number: number; reason: string }[];
  lost_claim_count: number;
  /** Claims whose lease ran out and that a later claim or release took over. */
  expired_claims: { agent: string; lease_expires_ms: number; sequence_number: number; taken_over_at: number }[];
  /** Events refused as invalid transitions (most recent 20). */
  rejected: { sequence_number: number; type: string; reason: string }[];
  rejected_count: number;
  last: Outcome;
}

/** Extra facts the projector supplies with an event (the only cross-stream input). */
export interface TaskContext {
  /** Dependencies of this task declared before its first event. */
  dependencies?: Dependency[];
  /** For dependency.created routed to the dependent: R1 already meets it. */
  satisfied?: boolean;
}

export type TaskInput = WireEvent & { context?: TaskContext };

const LEASED: ReadonlySet<TaskProgress> = new Set(['claimed', 'started', 'planned', 'blocked']);
const MAX_LOST = 100;
const MAX_REJECTED = 20;

export function taskStatus(t: TaskRun): TaskStatus {
  if (t.progress) return t.progress;
  if (!t.released) return 'pending';
  return t.dependencies.every((d) => d.satisfied) ? 'available' : 'waiting';
}

/** The lease has run out at `ms` (a claim without lease_expires_at never runs out). */
export function leaseExpired(t: TaskRun, ms: number): boolean {
  return t.progress !== null && LEASED.has(t.progress) && t.claim?.lease_expires_ms != null && ms > t.claim.lease_expires_ms;
}

/** The attempt a stream id names (task:<id>:attempt:<n>), else the payload's, else 1. */
export function attemptOf(streamId: string, payloadAttempt?: number): number {
  const m = /:attempt:(\d+)$/.exec(streamId);
  if (m) return Number(m[1]);
  return payloadAttempt ?? 1;
}

function newRun(e: WireEvent, taskId: string, attempt: number | undefined, ctx?: TaskContext): TaskRun {
  return {
    stream_id: e.wire.stream_id,
    task_id: taskId,
    attempt: attemptOf(e.wire.stream_id, attempt),
    title: null,
    role: null,
    capacity_units: 1,
    released: false,
    released_ms: null,
    progress: null,
    claim: null,
    last_heartbeat_ms: null,
    plan_ref: null,
    blocker: null,
    output_ref: null,
    verification_status: null,
    completed_by: null,
    dependencies: (ctx?.dependencies ?? []).map((d) => ({ ...d })),
    contracts_ready: [],
    artifacts: [],
    concerns: [],
    lost_claims: [],
    lost_claim_count: 0,
    expired_claims: [],
    rejected: [],
    rejected_count: 0,
    last: { wire_id: e.wire.wire_id, disposition: 'ignored' },
  };
}

function applied(t: TaskRun, e: WireEvent, patch: Partial<TaskRun> = {}): TaskRun {
  return { ...t, ...patch, last: { wire_id: e.wire.wire_id, disposition: 'applied' } };
}

function ignored(t: TaskRun, e: WireEvent, reason: string): TaskRun {
  return { ...t, last: { wire_id: e.wire.wire_id, disposition: 'ignored', reason } };
}

function rejected(t: TaskRun, e: WireEvent, reason: string): TaskRun {
  return {
    ...t,
    rejected: [...t.rejected, { sequence_number: e.sequence_number, type: e.wire.type, reason }].slice(-MAX_REJECTED),
    rejected_count: t.rejected_count + 1,
    last: { wire_id: e.wire.wire_id, disposition: 'rejected', reason },
  };
}

function lost(t: TaskRun, e: WireEvent, agent: string, reason: string): TaskRun {
  return {
    ...t,
    lost_claims: [...t.lost_claims, { agent, sequence_number: e.sequence_number, reason }].slice(-MAX_LOST),
    lost_claim_count: t.lost_claim_count + 1,
    last: { wire_id: e.wire.wire_id, disposition: 'lost', reason },
  };
}

/** The agent an event speaks for: payload.agent when given, else the sender's id. */
function actorOf(e: WireEvent): string {
  const p = e.wire.payload as { agent?: string };
  return p.agent ?? agentIdOf(e.wire.sender);
}

function isoMs(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/** Activity by the claimant renews the lease: to an explicit time, else by the lease's length. */
function renewed(t: TaskRun, e: WireEvent, explicitIso?: string): TaskRun {
  if (!t.claim) return t;
  const explicit = isoMs(explicitIso);
  let lease = t.claim.lease_expires_ms;
  if (explicit !== null) lease = explicit;
  else if (t.claim.lease_ms !== null && lease !== null) lease = Math.max(lease, e.consensus_ms + t.claim.lease_ms);
  return { ...t, claim: { ...t.claim, lease_expires_ms: lease }, last_heartbeat_ms: Math.max(t.last_heartbeat_ms ?? 0, e.consensus_ms) };
}

function unmet(t: TaskRun): string {
  return t.dependencies
    .filter((d) => !d.satisfied)
    .map((d) => (d.contract ? `${d.task_id} contract ${d.contract}` : `${d.task_id} complete`))
    .join(', ');
}

/** The claim's lease has run out: record it and clear the task's progress (it is available again). */
function expire(t: TaskRun, e: WireEvent): TaskRun {
  const c = t.claim as TaskClaim;
  return {
    ...t,
    progress: null,
    claim: null,
    plan_ref: null,
    blocker: null,
    expired_claims: [...t.expired_claims, { agent: c.agent, lease_expires_ms: c.lease_expires_ms as number, sequence_number: c.sequence_number, taken_over_at: e.sequence_number }],
  };
}

/** Claimant-only lifecycle events: the check, then the lease renewal the activity implies. */
function byClaimant(t: TaskRun, e: WireEvent, what: string): { ok: true; t: TaskRun } | { ok: false; t: TaskRun } {
  const actor = actorOf(e);
  if (t.progress === 'complete') return { ok: false, t: rejected(t, e, `${what} by ${actor}, but the task is complete`) };
  if (!t.claim) return { ok: false, t: rejected(t, e, `${what} by ${actor}, but the task has no claimant (status ${taskStatus(t)})`) };
  if (t.claim.agent !== actor) return { ok: false, t: rejected(t, e, `${what} by ${actor}, but the task is claimed by ${t.claim.agent}`) };
  return { ok: true, t: renewed(t, e) };
}

function claim(t: TaskRun, e: EventOfClaim): TaskRun {
  const p = e.wire.payload;
  const agent = actorOf(e);
  let cur = t;
  if (cur.claim && cur.claim.agent !== agent && leaseExpired(cur, e.consensus_ms)) cur = expire(cur, e);
  if (cur.claim && cur.claim.agent === agent && cur.progress !== 'complete') {
    // The claimant claims again: a lease renewal, not a new race.
    return applied(renewed(cur, e, p.lease_expires_at), e);
  }
  const status = taskStatus(cur);
  if (status === 'complete') return lost(cur, e, agent, 'the task is complete');
  if (status === 'pending') return lost(cur, e, agent, 'the task has not been released (no task.available)');
  if (status === 'waiting') return lost(cur, e, agent, `the task waits on ${unmet(cur)}`);
  if (status !== 'available') {
    const c = cur.claim as TaskClaim;
    return lost(cur, e, agent, `claimed by ${c.agent} at sequence ${c.sequence_number}`);
  }
  const leaseMs = isoMs(p.lease_expires_at);
  return applied(cur, e, {
    progress: 'claimed',
    role: cur.role ?? p.role ?? null,
    claim: {
      agent,
      role: p.role ?? cur.role ?? null,
      topic: e.topic,
      sequence_number: e.sequence_number,
      wire_id: e.wire.wire_id,
      at_ms: e.consensus_ms,
      lease_expires_ms: leaseMs,
      lease_ms: leaseMs === null ? null : Math.max(0, leaseMs - e.consensus_ms),
      units_reserved: p.capacity_units_reserved ?? null,
    },
    last_heartbeat_ms: e.consensus_ms,
    plan_ref: null,
    blocker: null,
  });
}

type EventOfClaim = WireEvent & { wire: Extract<WireEvent['wire'], { type: 'task.claim' | 'task.claimed' }> };

/** True when the event names this task (or names none and sits on this task's stream). */
function namesThis(t: TaskRun, e: WireEvent, taskId: string | undefined): boolean {
  if (taskId === undefined) return e.wire.stream_id === t.stream_id;
  return taskId === t.task_id;
}

function satisfy(t: TaskRun, e: WireEvent, dependsOn: string, contract: string | null): TaskRun {
  let changed = false;
  const dependencies = t.dependencies.map((d) => {
    if (d.satisfied || d.task_id !== dependsOn) return d;
    if (contract !== null && d.contract !== contract) return d;
    changed = true;
    return { ...d, satisfied: true };
  });
  return changed ? applied(t, e, { dependencies }) : ignored(t, e, 'no dependency of this task is met by it');
}

/**
 * The task reducer. `state` is null until the stream's first task event; events that do not
 * concern the task leave it unchanged (`last` records why).
 */
export function evolveTask(state: TaskRun | null, e: TaskInput): TaskRun | null {
  const w = e.wire;
  switch (w.type) {
    case 'task.created':
    case 'task.available':
    case 'task.claim':
    case 'task.claimed':
    case 'task.started':
    case 'task.plan.created':
    case 'task.blocked':
    case 'task.complete': {
      const p = w.payload;
      if (state && p.task_id !== state.task_id) {
        if (w.type === 'task.complete' && w.stream_id !== state.stream_id) return satisfy(state, e, p.task_id, null);
        if (w.stream_id !== state.stream_id) return ignored(state, e, `about task ${p.task_id}`);
        return rejected(state, e, `stream ${state.stream_id} carries task ${state.task_id}; this event names task ${p.task_id}`);
      }
      const t = state ?? newRun(e, p.task_id, p.attempt, e.context);
      switch (w.type) {
        case 'task.created':
          if (t.progress === 'complete') return rejected(t, e, 'the task is complete');
          return applied(t, e, { title: w.payload.title ?? t.title, role: w.payload.role ?? t.role, capacity_units: w.payload.capacity_units ?? t.capacity_units });
        case 'task.available': {
          if (t.progress === 'complete') return rejected(t, e, 'the task is complete');
          let cur = t;
          if (cur.claim && leaseExpired(cur, e.consensus_ms)) cur = expire(cur, e);
          if (cur.claim) return rejected(cur, e, `the task is claimed by ${cur.claim.agent} (lease ${cur.claim.lease_expires_ms === null ? 'without expiry' : `until ${new Date(cur.claim.lease_expires_ms).toISOString()}`})`);
          const q = w.payload;
          return applied(cur, e, {
            released: true,
            released_ms: cur.released ? cur.released_ms : e.consensus_ms,
            title: q.title ?? cur.title,
            role: q.role ?? cur.role,
            capacity_units: q.capacity_units ?? cur.capacity_units,
          });
        }
        case 'task.claim':
        case 'task.claimed':
          return claim(t, e as EventOfClaim);
        case 'task.started': {
          const r = byClaimant(t, e, 'task.started');
          if (!r.ok) return r.t;
          if (t.progress === 'planned') return rejected(t, e, 'the task is already started and planned');
          return applied(r.t, e, { progress: 'started', blocker: null });
        }
        case 'task.plan.created': {
          const r = byClaimant(t, e, 'task.plan.created');
          if (!r.ok) return r.t;
          return applied(r.t, e, { progress: 'planned', plan_ref: w.payload.plan_ref, blocker: null });
        }
        case 'task.blocked': {
          const r = byClaimant(t, e, 'task.blocked');
          if (!r.ok) return r.t;
          return applied(r.t, e, { progress: 'blocked', blocker: w.payload.blocker });
        }
        case 'task.complete': {
          if (t.progress === 'complete') return rejected(t, e, 'the task is already complete');
          const actor = actorOf(e);
          if (t.claim && t.claim.agent !== actor) return rejected(t, e, `task.complete by ${actor}, but the task is claimed by ${t.claim.agent}`);
          return applied(t, e, {
            progress: 'complete',
            blocker: null,
            output_ref: w.payload.output_ref ?? null,
            verification_status: w.payload.verification_status ?? null,
            completed_by: actor,
            last_heartbeat_ms: t.claim ? Math.max(t.last_heartbeat_ms ?? 0, e.consensus_ms) : t.last_heartbeat_ms,
          });
        }
        default:
          return assertNever(w);
      }
    }
    case 'contract.ready': {
      if (!state) return null;
      const p = w.payload;
      if (p.task_id !== state.task_id) return satisfy(state, e, p.task_id, p.contract);
      if (state.contracts_ready.includes(p.contract)) return ignored(state, e, `contract ${p.contract} was already ready`);
      return applied(state, e, { contracts_ready: [...state.contracts_ready, p.contract] });
    }
    case 'artifact.claimed': {
      if (!state || !namesThis(state, e, w.payload.task_id)) return state && ignored(state, e, 'not about this task');
      const p = w.payload;
      return applied(state, e, {
        artifacts: [...state.artifacts, { artifact_id: p.artifact_id, artifact_type: p.artifact_type ?? null, artifact_ref: null, sha256: null, status: 'claimed', by: actorOf(e) }],
      });
    }
    case 'artifact.ready': {
      if (!state || !namesThis(state, e, w.payload.task_id)) return state && ignored(state, e, 'not about this task');
      const p = w.payload;
      const entry = { artifact_id: p.artifact_id ?? null, artifact_type: p.artifact_type ?? null, artifact_ref: p.artifact_ref, sha256: p.sha256, status: 'ready' as const, by: agentIdOf(w.sender) };
      const i = p.artifact_id === undefined ? -1 : state.artifacts.findIndex((a) => a.artifact_id === p.artifact_id);
      const artifacts = i === -1 ? [...state.artifacts, entry] : state.artifacts.map((a, j) => (j === i ? entry : a));
      return applied(state, e, { artifacts });
    }
    case 'review.concern': {
      if (!state || !namesThis(state, e, w.payload.task_id)) return state && ignored(state, e, 'not about this task');
      const p = w.payload;
      return applied(state, e, {
        concerns: [...state.concerns, { concern: p.concern, severity: p.severity ?? 'minor', by: p.reviewer ?? agentIdOf(w.sender), artifact_ref: p.artifact_ref ?? null, sequence_number: e.sequence_number }],
      });
    }
    case 'dependency.created': {
      if (!state) return null;
      const p = w.payload;
      if (p.task_id !== state.task_id) return ignored(state, e, 'not about this task');
      const contract = p.contract ?? null;
      if (state.dependencies.some((d) => d.task_id === p.depends_on_task && d.contract === contract)) return ignored(state, e, 'dependency already known');
      return applied(state, e, { dependencies: [...state.dependencies, { task_id: p.depends_on_task, contract, satisfied: e.context?.satisfied ?? false }] });
    }
    case 'agent.heartbeat': {
      if (!state || w.payload.task_id !== state.task_id) return state;
      if (!state.claim || state.claim.agent !== actorOf(e) || state.progress === 'complete') return ignored(state, e, 'not from the claimant');
      return applied(renewed(state, e, w.payload.lease_expires_at), e);
    }
    case 'agent.lease.accepted': {
      if (!state) return null;
      const r = byClaimant(state, e, 'agent.lease.accepted');
      if (!r.ok) return r.t;
      return applied(renewed(r.t, e, w.payload.lease_expires_at), e);
    }
    case 'agent.lease.released': {
      if (!state) return null;
      const r = byClaimant(state, e, 'agent.lease.released');
      if (!r.ok) return r.t;
      return applied(r.t, e, { progress: null, claim: null, plan_ref: null, blocker: null });
    }
    case 'gate.opened':
    case 'gate.passed':
    case 'agent.started':
    case 'agent.capacity.updated':
    case 'agent.stopped':
    case 'project.created':
    case 'project.complete':
    case 'phase.created':
      return state;
    default:
      return assertNever(w);
  }
}

/** The task as of `nowMs`: a leased task whose lease has passed is stale and available again. */
export interface TaskView {
  stream_id: string;
  task_id: string;
  attempt: number;
  status: TaskStatus | 'stale';
  /** True when a claim would win now: available, or stale. */
  available: boolean;
  claimed_by: string | null;
  role: string | null;
  lease_expires_at: string | null;
  stale_since: string | null;
  last_heartbeat_at: string | null;
  plan_ref: string | null;
  blocker: string | null;
  output_ref: string | null;
  verification_status: string | null;
  capacity_units: number;
  capacity_units_reserved: number | null;
  dependencies: Dependency[];
  contracts_ready: string[];
  lost_claims: TaskRun['lost_claims'];
  lost_claim_count: number;
  expired_claims: { agent: string; lease_expired_at: string; sequence_number: number }[];
  concerns: TaskRun['concerns'];
  artifacts: TaskRun['artifacts'];
  rejected_count: number;
}

const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString());

export function viewTask(t: TaskRun, nowMs: number): TaskView {
  const stale = leaseExpired(t, nowMs);
  const status = stale ? 'stale' : taskStatus(t);
  return {
    stream_id: t.stream_id,
    task_id: t.task_id,
    attempt: t.attempt,
    status,
    available: status === 'available' || status === 'stale',
    claimed_by: t.claim?.agent ?? null,
    role: t.role,
    lease_expires_at: iso(t.claim?.lease_expires_ms),
    stale_since: stale ? iso(t.claim?.lease_expires_ms) : null,
    last_heartbeat_at: iso(t.last_heartbeat_ms),
    plan_ref: t.plan_ref,
    blocker: t.blocker,
    output_ref: t.output_ref,
    verification_status: t.verification_status,
    capacity_units: t.capacity_units,
    capacity_units_reserved: t.claim?.units_reserved ?? null,
    dependencies: t.dependencies,
    contracts_ready: t.contracts_ready,
    lost_claims: t.lost_claims,
    lost_claim_count: t.lost_claim_count,
    expired_claims: t.expired_claims.map((c) => ({ agent: c.agent, lease_expired_at: iso(c.lease_expires_ms) as string, sequence_number: c.sequence_number })),
    concerns: t.concerns,
    artifacts: t.artifacts,
    rejected_count: t.rejected_count,
  };
}
