/**
 * Composition root: the only place that reads process.env and process.cwd() to build the core
 * context. Every transport (CLI, MCP, tRPC) constructs its context here.
 */
import { type Ctx, makeCtx } from './core/context.js';
import { resolvePlanningRoot } from './core/planning/paths.js';
import { setStorageLimits, storageLimitsFromEnv } from './core/planning/limits.js';
import { HeimdallError } from './core/errors.js';
import { type Clock, fixedClock, systemClock } from './core/ports.js';

export interface Runtime {
  ctx: Ctx;
}

export function createRuntime(env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): Runtime {
  applyStorageLimits(env);
  const root = resolvePlanningRoot(env, cwd);
  return { ctx: makeCtx(root, { env, clock: clockFrom(env) }) };
}

/**
 * The read, JSON-depth and lock-wait limits (HEIMDALL_MAX_READ_BYTES, HEIMDALL_MAX_JSON_DEPTH,
 * HEIMDALL_LOCK_TIMEOUT_MS) are process-wide; the CLI applies them before it reads stdin.
 */
export function applyStorageLimits(env: Record<string, string | undefined> = process.env): void {
  setStorageLimits(storageLimitsFromEnv(env));
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

/**
 * The wire log the environment selects (issue 4): NATS JetStream when HEIMDALL_STREAM_URL is a
 * nats:// URL (HEIMDALL_STREAM_PREFIX names its streams), else one JSONL file per topic under
 * .planning/wire/ (HEIMDALL_WIRE_FSYNC=0 skips the fsync after each append). Adapters load lazily.
 */
export async function openWireLog(ctx: Ctx): Promise<import('./core/wire/log.js').WireLog> {
  const url = ctx.env.HEIMDALL_STREAM_URL?.trim();
  if (url) {
    if (!url.startsWith('nats://')) throw new HeimdallError('usage', `HEIMDALL_STREAM_URL must be a nats:// URL, got ${JSON.stringify(url)}; unset it to use the file log`);
    const { JetStreamWireLog } = await import('./stream/jetstreamLog.js');
    return JetStreamWireLog.connect(url, { prefix: ctx.env.HEIMDALL_STREAM_PREFIX?.trim() || undefined });
  }
  const { FileWireLog } = await import('./stream/fileLog.js');
  // The file log stamps consensus time with the context's clock (HEIMDALL_NOW freezes it in tests).
  return new FileWireLog(ctx.paths.wireDir, { fsync: ctx.env.HEIMDALL_WIRE_FSYNC !== '0', now: () => ctx.clock.now() });
}

/** The wire read model: PostgreSQL when DATABASE_URL is a postgres URL, else SQLite at .planning/wire/read-model.db. */
export async function openReadModel(ctx: Ctx): Promise<import('./core/wire/store.js').ReadModelStore> {
  const { PrismaReadModelStore } = await import('./db/readModel.js');
  return PrismaReadModelStore.open({ url: ctx.env.DATABASE_URL, wireDir: ctx.paths.wireDir });
}
