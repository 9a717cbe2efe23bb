/**
 * What Studio's routers need beyond the core's own calls: the process-wide wire log and read model
 * (opened once per planning root through the composition root) and one-at-a-time access to them,
 * because two catch-ups or replays in one process would race on the stored offsets. Every answer is
 * one core call.
 */
import { readCapsuleGraph, type CapsuleNode } from '../core/capsules/graph.js';
import type { Ctx } from '../core/context.js';
import { releaseClaimAsDecision as releaseAsDecision } from '../core/decisions/release.js';
import { spawnHaid } from '../core/identity/index.js';
import { replay } from '../core/wire/listener.js';
import type { WireLog } from '../core/wire/log.js';
import { MAX_STREAM_EVENTS, type StreamRow, type WireOverview, readStreamEvents, wireOverview as overview } from '../core/wire/overview.js';
import type { ReadModelStore } from '../core/wire/store.js';
import type { LogRecord } from '../core/wire/types.js';
import { openReadModel, openWireLog } from '../runtime.js';

export { readCapsuleGraph, MAX_STREAM_EVENTS, type CapsuleNode, type StreamRow, type WireOverview };

/** The client segment of the HAID Studio acts as: `{root}/studio`. */
export const STUDIO_CLIENT = 'studio';

/** Release a claim on the holder's behalf, recorded as a decision of Studio's HAID. */
export function releaseClaimAsDecision(ctx: Ctx, haid: string, reason: string | undefined) {
  return releaseAsDecision(ctx, { haid, by: spawnHaid(ctx, STUDIO_CLIENT), reason });
}

interface Wire {
  log: WireLog;
  store: ReadModelStore;
}

const wires = new Map<string, Promise<Wire>>();
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

export function wireOverview(ctx: Ctx): Promise<WireOverview> {
  return serialized(async () => {
    const { log, store } = await wireFor(ctx);
    return overview(ctx, log, store);
  });
}

export function streamEvents(ctx: Ctx, topic: string, streamId: string): Promise<{ events: LogRecord[]; total: number }> {
  return serialized(async () => readStreamEvents((await wireFor(ctx)).log, topic, streamId));
}

/** `heimdall wire replay`: drop the read model and rebuild it from the whole log. */
export function replayReadModel(ctx: Ctx) {
  return serialized(async () => {
    const { log, store } = await wireFor(ctx);
    return replay(ctx, log, store);
  });
}
