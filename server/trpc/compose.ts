/**
 * The few places Studio needs more than one core call for one answer, gathered here so the routers
 * stay one call each. None decides anything the core does not: each only sequences core calls (and
 * keeps Studio answering when one part of the tree is broken). Each is a candidate to move into
 * the core as a named operation.
 */
import { type Capsule, listCapsuleIds, readCapsule } from '../core/capsules/capsules.js';
import { releaseClaim } from '../core/claims/index.js';
import type { Ctx } from '../core/context.js';
import { appendDecision } from '../core/decisions/index.js';
import { spawnHaid } from '../core/identity/index.js';
import { heartbeatThresholdsFromEnv } from '../core/wire/liveness.js';
import type { WireLog } from '../core/wire/log.js';
import { listenOnce, replay } from '../core/wire/listener.js';
import { type AgentView as WireAgentView, viewAgent } from '../core/wire/reducers/agent.js';
import { type TaskView, viewTask } from '../core/wire/reducers/task.js';
import type { ReadModelStore, StreamStateRow } from '../core/wire/store.js';
import type { LogRecord } from '../core/wire/types.js';
import { openReadModel, openWireLog } from '../runtime.js';
import { toTrpcError } from './trpc.js';

// ---- capsules -------------------------------------------------------------------------------

/** A node of the graph: what the picture needs (the text is read when a capsule is selected). */
export type CapsuleNode = Pick<Capsule, 'id' | 'what' | 'depends'> | { id: string; error: string };

/** Every capsule, parsed; an unreadable file becomes a node carrying its error, not a failed page. */
export function readCapsuleGraph(ctx: Ctx): CapsuleNode[] {
  return listCapsuleIds(ctx).map((id) => {
    try {
      const c = readCapsule(ctx, id);
      return { id: c.id, what: c.what, depends: c.depends };
    } catch (e) {
      return { id, error: toTrpcError(e).message };
    }
  });
}

// ---- claims ---------------------------------------------------------------------------------

/** The client segment of the HAID Studio acts as: `{root}/studio`. */
export const STUDIO_CLIENT = 'studio';

/**
 * Release a claim on the holder's behalf (what `heimdall-claim release --haid H` does from a shell)
 * and record it in decisions.md as a decision of Studio's HAID with the person's reason. Released
 * first, so a refused release records nothing.
 */
export function releaseClaimAsDecision(ctx: Ctx, haid: string, reason: string | undefined) {
  const { released } = releaseClaim(ctx, { haid });
  const why = reason?.trim() || 'no reason given';
  const decision = appendDecision(ctx, {
    haid: spawnHaid(ctx, STUDIO_CLIENT),
    title: `Released the claim of ${released.haid}`,
    body: `Released from Studio: ${released.surfaces.join(', ')} (task ${released.task_ref}, ${released.status}, expiring ${released.expires_at}).\nReason: ${why}`,
  });
  return { released, decision: { id: decision.id, path: decision.path } };
}

// ---- wire stream ----------------------------------------------------------------------------

interface Wire {
  log: WireLog;
  store: ReadModelStore;
}

const wires = new Map<string, Promise<Wire>>();
/** One catch-up or replay at a time per process: two would race on the stored offsets. */
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(fn: () => Promise<T>): Promise<T> {
  const run = queue.then(fn, fn);
  queue = run.catch(() => undefined);
  return run;
}

async function wireFor(ctx: Ctx): Promise<Wire> {
  let w = wires.get(ctx.root);
  if (!w) {
    w = (async () => ({ log: await openWireLog(ctx), store: await openReadModel(ctx) }))();
    wires.set(ctx.root, w);
    // A failed open (say, the database is locked) is retried on the next request.
    w.catch(() => wires.delete(ctx.root));
  }
  return w;
}

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
  agents: WireAgentView[];
  problems: string[];
}

/**
 * The read model brought up to date with the log (what `heimdall wire state` does first), then its
 * streams, task runs (clock-dependent views: stale leases) and agents (liveness).
 */
export function wireOverview(ctx: Ctx): Promise<WireOverview> {
  return serialized(async () => {
    const { log, store } = await wireFor(ctx);
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
  });
}

export const MAX_STREAM_EVENTS = 500;

/** The canonical log records of one stream, oldest first (the last MAX_STREAM_EVENTS of them). */
export function streamEvents(ctx: Ctx, topic: string, streamId: string): Promise<{ events: LogRecord[]; total: number }> {
  return serialized(async () => {
    const { log } = await wireFor(ctx);
    const out: LogRecord[] = [];
    let total = 0;
    for (let next = 1; ; ) {
      const r = await log.read(topic, next, { limit: 5_000 });
      for (const rec of r.records) {
        if ((rec.body as { stream_id?: unknown } | null)?.stream_id !== streamId) continue;
        total++;
        out.push(rec);
        if (out.length > MAX_STREAM_EVENTS) out.shift();
      }
      if (r.records.length === 0 || r.next === next) break;
      next = r.next;
    }
    return { events: out, total };
  });
}

/** `heimdall wire replay`: drop the read model and rebuild it from the whole log. */
export function replayReadModel(ctx: Ctx) {
  return serialized(async () => {
    const { log, store } = await wireFor(ctx);
    return replay(ctx, log, store);
  });
}
