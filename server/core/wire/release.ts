/**
 * Capacity-aware release: how many available tasks the engine can release now, given the live
 * agents' capacity minus what their claims already reserve. Pure: the caller passes the documents
 * and the time.
 */
import type { HeartbeatThresholds } from './liveness.js';
import { type AgentRun, type AgentView, viewAgent } from './reducers/agent.js';
import { type TaskRun, viewTask } from './reducers/task.js';

export interface ReleaseTask {
  task_id: string;
  stream_id: string;
  role: string | null;
  units: number;
  stale: boolean;
  /** The agent whose free units cover it in this plan, or null when none can. */
  assigned_to: string | null;
}

export interface ReleasePlan {
  now: string;
  available_tasks: number;
  stale_tasks: number;
  waiting_tasks: number;
  live_agents: number;
  free_units: number;
  reserved_units: number;
  active_leases: number;
  releasable: number;
  tasks: ReleaseTask[];
  agents: Pick<AgentView, 'agent_id' | 'role' | 'liveness' | 'available_units' | 'max_units' | 'reserved_units' | 'free_units' | 'active_leases'>[];
}

/**
 * Plan a release. Tasks are taken oldest first; each goes to the live agent (heartbeat active or
 * deep work, not stopped) of its role, or of any role when the task has none, with the most free
 * units that covers the task's capacity_units. Agents whose heartbeat is stale or unresponsive
 * contribute nothing.
 */
export function planRelease(tasks: TaskRun[], agents: AgentRun[], nowMs: number, opts: { role?: string; thresholds?: Partial<HeartbeatThresholds> } = {}): ReleasePlan {
  const views = tasks.map((t) => ({ t, v: viewTask(t, nowMs) })).filter(({ v }) => opts.role === undefined || v.role === opts.role);
  const available = views
    .filter(({ v }) => v.available)
    .sort((a, b) => (a.t.released_ms ?? 0) - (b.t.released_ms ?? 0) || (a.t.stream_id < b.t.stream_id ? -1 : 1));
  const agentViews = agents.map((a) => viewAgent(a, nowMs, opts.thresholds)).sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1));
  const live = agentViews.filter((a) => a.status !== 'stopped' && (a.liveness === 'active' || a.liveness === 'deep_work'));
  const free = new Map(live.map((a) => [a.agent_id, a.free_units]));
  // Role-bound tasks first: they have fewer candidates.
  const order = [...available.filter(({ v }) => v.role !== null), ...available.filter(({ v }) => v.role === null)];
  const out: ReleaseTask[] = [];
  for (const { t, v } of order) {
    const units = t.capacity_units;
    let best: string | null = null;
    for (const a of live) {
      if (v.role !== null && a.role !== v.role) continue;
      const f = free.get(a.agent_id) ?? 0;
      if (f >= units && (best === null || f > (free.get(best) ?? 0))) best = a.agent_id;
    }
    if (best) free.set(best, (free.get(best) ?? 0) - units);
    out.push({ task_id: t.task_id, stream_id: t.stream_id, role: v.role, units, stale: v.status === 'stale', assigned_to: best });
  }
  return {
    now: new Date(nowMs).toISOString(),
    available_tasks: available.length,
    stale_tasks: available.filter(({ v }) => v.status === 'stale').length,
    waiting_tasks: views.filter(({ v }) => v.status === 'waiting').length,
    live_agents: live.length,
    free_units: live.reduce((s, a) => s + a.free_units, 0),
    reserved_units: live.reduce((s, a) => s + a.reserved_units, 0),
    active_leases: live.reduce((s, a) => s + a.active_leases, 0),
    releasable: out.filter((x) => x.assigned_to !== null).length,
    tasks: out,
    agents: agentViews.map((a) => ({
      agent_id: a.agent_id,
      role: a.role,
      liveness: a.liveness,
      available_units: a.available_units,
      max_units: a.max_units,
      reserved_units: a.reserved_units,
      free_units: a.free_units,
      active_leases: a.active_leases,
    })),
  };
}

export function formatReleasePlan(p: ReleasePlan): string[] {
  const lines = [
    `${p.releasable} of ${p.available_tasks} available tasks can be released now${p.stale_tasks ? ` (${p.stale_tasks} of them stale: lease expired without heartbeat)` : ''}`,
    `live agents: ${p.live_agents}, free units: ${p.free_units} (claimed capacity: ${p.reserved_units} units reserved by ${p.active_leases} leases)`,
  ];
  if (p.waiting_tasks) lines.push(`waiting on dependencies: ${p.waiting_tasks}`);
  for (const t of p.tasks) lines.push(`  ${t.task_id}\t${t.role ?? '-'}\t${t.units}u\t${t.assigned_to ? `-> ${t.assigned_to}` : 'no capacity'}${t.stale ? '\tstale' : ''}`);
  return lines;
}
