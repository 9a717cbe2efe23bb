/**
 * What Studio's routers need beyond the core's own calls: the wire log and read model of the
 * composition root (opened once per process) and its one-at-a-time access to them, because two
 * catch-ups or replays in one process would race on the stored offsets. Every answer is one core call.
 */
import {
  agentBoard as board,
  readWireTasks,
  readCapsuleGraph,
  releaseClaimAsDecision as releaseAsDecision,
  spawnHaid,
  replay,
  createBriefTokenCache,
  phaseBoard as buildPhaseBoard,
  MAX_STREAM_EVENTS,
  readStreamEvents,
  wireOverview as overview,
  type AgentBoard,
  type CapsuleNode,
  type Ctx,
  type PhaseBoard,
  type StreamRow,
  type WireOverview,
  type LogRecord,
} from '../core/index.js';
import { type Runtime, createRuntime } from '../runtime.js';
import { STUDIO_CLIENT, getRuntime } from './context.js';

export { readCapsuleGraph, MAX_STREAM_EVENTS, STUDIO_CLIENT, type CapsuleNode, type StreamRow, type WireOverview, type PhaseBoard };

/** Release one claim (`id`) or all of a holder's claims on its behalf, recorded as a decision of Studio's operator; the core refuses it without a reason. */
export function releaseClaimAsDecision(ctx: Ctx, target: { haid?: string; id?: string }, reason: string) {
  // The caller is who the composition root says: Studio's context carries its operator as the actor.
  const by = ctx.actor ?? spawnHaid(ctx, STUDIO_CLIENT);
  return releaseAsDecision(ctx, { ...target, by, reason });
}

const others = new Map<string, Runtime>();

/** The process runtime when `ctx` is on its tree; otherwise (tests on a temporary tree) one per root. */
function runtimeFor(ctx: Ctx): Runtime {
  const rt = getRuntime();
  if (rt.tree.exists && rt.tree.root === ctx.root) return rt;
  let r = others.get(ctx.root);
  if (!r) {
    r = createRuntime({ ctx });
    others.set(ctx.root, r);
  }
  return r;
}

/** The agents board, with the wire's tasks read from this process's read model (one reader at a time). */
export function agentBoard(ctx: Ctx): Promise<AgentBoard> {
  return board(ctx, () => runtimeFor(ctx).exclusive(({ log, store }) => readWireTasks(ctx, log, store)));
}

export function wireOverview(ctx: Ctx): Promise<WireOverview> {
  return runtimeFor(ctx).exclusive(({ log, store }) => overview(ctx, log, store));
}

export function streamEvents(ctx: Ctx, topic: string, streamId: string): Promise<{ events: LogRecord[]; total: number }> {
  return runtimeFor(ctx).exclusive(({ log }) => readStreamEvents(log, topic, streamId));
}

/** `heimdall wire replay`: drop the read model and rebuild it from the whole log. */
export function replayReadModel(ctx: Ctx) {
  return runtimeFor(ctx).exclusive(({ log, store }) => replay(ctx, log, store));
}

/** Brief token counts of the phase board, kept for this server process (keyed by what each brief is made of). */
const briefTokens = createBriefTokenCache();

/** The board of one GSD phase: the read model caught up, then plans by status, holders, leases and brief tokens. */
export function phaseBoard(ctx: Ctx, phase?: string): Promise<PhaseBoard> {
  return runtimeFor(ctx).exclusive((w) => buildPhaseBoard(ctx, w, { phase, cache: briefTokens }));
}
