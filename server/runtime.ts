/**
 * Composition root: the only place that reads process.env and process.cwd() to build the core
 * context. Every transport (CLI, MCP, tRPC) constructs its context here.
 */
import { type Ctx, makeCtx } from './core/context.js';
import { resolvePlanningRoot } from './core/planning/paths.js';
import { HeimdallError } from './core/errors.js';
import { type Clock, fixedClock, systemClock } from './core/ports.js';

export interface Runtime {
  ctx: Ctx;
}

export function createRuntime(env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): Runtime {
  const root = resolvePlanningRoot(env, cwd);
  return { ctx: makeCtx(root, { env, clock: clockFrom(env) }) };
}

/**
 * HEIMDALL_NOW (ISO-8601 or epoch milliseconds) freezes the clock at that instant, so a test server
 * can show a heartbeat written 400 s "ago" as stale without waiting. Unset: the system clock.
 */
export function clockFrom(env: Record<string, string | undefined>): Clock {
  const raw = env.HEIMDALL_NOW?.trim();
  if (!raw) return systemClock;
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms)) {
    throw new HeimdallError('usage', `HEIMDALL_NOW must be an ISO-8601 time (2026-06-11T12:00:00Z) or epoch milliseconds, got ${JSON.stringify(raw)}`);
  }
  return fixedClock(ms);
}
