/**
 * Whole-picture reads of the wire for dashboards: the read model brought up to date with the log,
 * then every stream, task run (clock-dependent: stale leases) and agent (liveness); and the canonical
 * records of one stream. Both take the log and store ports, so any adapter pair works.
 */
import type { Ctx } from '../context.js';
import { listenOnce } from './listener.js';
import { heartbeatThresholdsFromEnv } from './liveness.js';
import type { WireLog } from './log.js';
import { type AgentView, viewAgent } from './reducers/agent.js';
import { type TaskView, viewTask } from './reducers/task.js';
import type { ReadModelStore, StreamStateRow } from './store.js';
import type { LogRecord } from './types.js';

export interface StreamRow extends Omit<StreamStateRow, 'state' | 'last_event_at'> {
  last_event_at: string;
}

export interface WireOverview {
  now: string;
  log: string;
  readModel: string;
  offsets: { topic: string; last_sequence_number: number }[];
  streams: StreamRow[];
  tasks: TaskView[];
  agents: AgentView[];
  problems: string[];
}

/** Catch the read model up (what `heimdall wire state` does first), then read all of it. */
export async function wireOverview(ctx: Ctx, log: WireLog, store: ReadModelStore): Promise<WireOverview> {
  const caught = await listenOnce(ctx, log, store);
  const now = ctx.clock.now();
  const thresholds = heartbeatThresholdsFromEnv(ctx.env);
  const [streams, tasks, agents, offsets] = await Promise.all([store.streams(), store.tasks(), store.agents(), store.offsets()]);
  return {
    now: new Date(now).toISOString(),
    log: log.location,
    readModel: store.location,
    offsets,
    streams: streams
      .map(({ state: _state, last_event_at, ...s }) => ({ ...s, last_event_at: new Date(last_event_at).toISOString() }))
      .sort((a, b) => b.last_event_at.localeCompare(a.last_event_at) || a.stream_id.localeCompare(b.stream_id)),
    tasks: tasks.map((t) => viewTask(t, now)).sort((a, b) => a.task_id.localeCompare(b.task_id) || a.attempt - b.attempt),
    agents: agents.map((a) => viewAgent(a, now, thresholds)).sort((a, b) => a.agent_id.localeCompare(b.agent_id)),
    problems: caught.problems.map((p) => `${p.topic}: ${p.message}`),
  };
}

export const MAX_STREAM_EVENTS = 500;

/** The canonical log records of one stream, oldest first (the last `max` of them), and how many there are. */
export async function readStreamEvents(log: WireLog, topic: string, streamId: string, max = MAX_STREAM_EVENTS): Promise<{ events: LogRecord[]; total: number }> {
  const out: LogRecord[] = [];
  let total = 0;
  for (let next = 1; ; ) {
    const r = await log.read(topic, next, { limit: 5_000 });
    for (const rec of r.records) {
      if ((rec.body as { stream_id?: unknown } | null)?.stream_id !== streamId) continue;
      total++;
      out.push(rec);
      if (out.length > max) out.shift();
    }
    if (r.records.length === 0 || r.next === next) break;
    next = r.next;
  }
  return { events: out, total };
}
