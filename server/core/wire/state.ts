/**
 * Reading the read model for people and tools: the clock-dependent views (stale leases, liveness)
 * are computed here from the stored documents, with the context's clock.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { heartbeatThresholdsFromEnv } from './liveness.js';
import { type AgentView, viewAgent } from './reducers/agent.js';
import { type TaskView, viewTask } from './reducers/task.js';
import { type ReleasePlan, planRelease } from './release.js';
import type { ReadModelStore, StreamStateRow } from './store.js';

export type WireStateQuery = { task?: string; agent?: string; stream?: string };

export type WireState =
  | { kind: 'task'; task: TaskView & { attempts: number }; attempts: TaskView[] }
  | { kind: 'agent'; agent: AgentView }
  | { kind: 'stream'; stream: Omit<StreamStateRow, 'last_event_at' | 'state'> & { last_event_at: string; gaps: StreamStateRow['state']['gaps']; seq_conflict_count: number; graph: StreamStateRow['state']['graph'] }; task?: TaskView; agent?: AgentView }
  | {
      kind: 'summary';
      now: string;
      offsets: { topic: string; last_sequence_number: number }[];
      streams: number;
      tasks: Record<string, number>;
      agents: Pick<AgentView, 'agent_id' | 'role' | 'liveness' | 'free_units' | 'active_leases'>[];
    };

/** One task (latest attempt, with all attempts), one agent, one stream, or a summary. */
export async function readWireState(ctx: Ctx, store: ReadModelStore, q: WireStateQuery): Promise<WireState> {
  const now = ctx.clock.now();
  const thresholds = heartbeatThresholdsFromEnv(ctx.env);
  if (q.task !== undefined) {
    const runs = await store.tasks({ task_id: q.task });
    if (runs.length === 0) throw new HeimdallError('not_found', `no task ${JSON.stringify(q.task)} in the read model (${store.location}); has the listener processed the log? (heimdall wire listen --once)`);
    const views = runs.map((t) => viewTask(t, now)).sort((a, b) => a.attempt - b.attempt);
    const latest = views[views.length - 1] as TaskView;
    return { kind: 'task', task: { ...latest, attempts: views.length }, attempts: views };
  }
  if (q.agent !== undefined) {
    const [a] = await store.agents({ agent_id: q.agent });
    if (!a) throw new HeimdallError('not_found', `no agent ${JSON.stringify(q.agent)} in the read model (${store.location})`);
    return { kind: 'agent', agent: viewAgent(a, now, thresholds) };
  }
  if (q.stream !== undefined) {
    const [s] = await store.streams({ stream_id: q.stream });
    if (!s) throw new HeimdallError('not_found', `no stream ${JSON.stringify(q.stream)} in the read model (${store.location})`);
    const [t] = await store.tasks({ stream_id: q.stream });
    const [a] = s.stream_type === 'agent' ? await store.agents({ agent_id: q.stream.slice('agent:'.length) }) : [];
    const { state, last_event_at, ...cols } = s;
    return {
      kind: 'stream',
      stream: { ...cols, last_event_at: new Date(last_event_at).toISOString(), gaps: state.gaps, seq_conflict_count: state.seq_conflict_count, graph: state.graph },
      ...(t ? { task: viewTask(t, now) } : {}),
      ...(a ? { agent: viewAgent(a, now, thresholds) } : {}),
    };
  }
  const [tasks, agents, offsets, streams] = await Promise.all([store.tasks(), store.agents(), store.offsets(), store.streams()]);
  const byStatus: Record<string, number> = {};
  for (const t of tasks) {
    const v = viewTask(t, now);
    byStatus[v.status] = (byStatus[v.status] ?? 0) + 1;
  }
  return {
    kind: 'summary',
    now: new Date(now).toISOString(),
    offsets,
    streams: streams.length,
    tasks: byStatus,
    agents: agents.map((a) => {
      const v = viewAgent(a, now, thresholds);
      return { agent_id: v.agent_id, role: v.role, liveness: v.liveness, free_units: v.free_units, active_leases: v.active_leases };
    }),
  };
}

/** `heimdall wire release`: how many available tasks can be released given claimed capacity. */
export async function readReleasePlan(ctx: Ctx, store: ReadModelStore, opts: { role?: string } = {}): Promise<ReleasePlan> {
  const [tasks, agents] = await Promise.all([store.tasks(), store.agents()]);
  return planRelease(tasks, agents, ctx.clock.now(), { role: opts.role, thresholds: heartbeatThresholdsFromEnv(ctx.env) });
}
