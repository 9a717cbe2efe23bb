/**
 * The composition root: the only place that reads process.env and process.cwd(), and the only thing
 * a transport constructs. It owns
 *  - where the planning tree is (found like git finds `.git`; HEIMDALL_PLANNING_DIR overrides) and
 *    the core context on it, refusing to hand one out when there is no tree (only `init` makes one);
 *  - who the caller is (server/core/identity/session.ts, applied to this process's environment);
 *  - the wire log and the read model: opened once, on first use, shared by every call of the
 *    process, serialised where two catch-ups or replays would race on the stored offsets, and closed
 *    by `close()`.
 * The CLI builds one per command, the MCP server one per process (closed when stdin ends), Studio
 * one per server process.
 */
import {
  makeCtx,
  setStorageLimits,
  storageLimitsFromEnv,
  HeimdallError,
  envNamesCaller,
  locatePlanningTree,
  noTreeMessage,
  fixedClock,
  systemClock,
  type Ctx,
  type CallerIdentity,
  type CallerInput,
  type PlanningLocation,
  type Clock,
  type WireLog,
  type ReadModelStore,
} from './core/index.js';

export interface Runtime {
  /** The environment the process was started with (HEIMDALL_*, DATABASE_URL, client session ids). */
  readonly env: Record<string, string | undefined>;
  /** Where the planning tree is, how it was found, and whether it exists. */
  readonly tree: PlanningLocation;
  /** True when the environment names the caller (HEIMDALL_AGENT, HEIMDALL_HAID, a client session id). */
  readonly envNamesCaller: boolean;
  /** The core context on the tree, with no author. Throws `environment` (exit 2) when there is no tree. */
  readonly ctx: Ctx;
  /** A context on any planning root with this runtime's ports (`init` on a missing tree, the demo's own workspace). */
  ctxAt(root: string, actor?: string): Ctx;
  /**
   * Who is calling, by the one rule of identity/session.ts, in this process's environment (unless
   * `env` is given). Asynchronous because the rule (registry, hashing) is loaded on first use, so a
   * CLI command that names nobody does not pay for it at start-up.
   */
  identify(input: Omit<CallerInput, 'env'> & { env?: CallerInput['env'] }): Promise<CallerIdentity>;
  /** The context whose writes are authored by `caller` (`ctx.actor`), or the plain context for an unknown caller. */
  actingAs(caller: CallerIdentity): Ctx;
  /** The wire log the environment selects, opened on first use and kept until `close()`. */
  wireLog(): Promise<WireLog>;
  /** The wire log, or why it cannot be opened, for calls that go on without it (check-in, announce). */
  tryWireLog(): Promise<{ log?: WireLog; problem?: string }>;
  /** The read model, opened on first use and kept until `close()`. */
  readModel(): Promise<ReadModelStore>;
  /**
   * Run `fn` alone with the wire log and the read model: one catch-up, replay or overview at a time
   * per process, since two would race on the stored offsets.
   */
  exclusive<T>(fn: (w: { log: WireLog; store: ReadModelStore }) => Promise<T>): Promise<T>;
  /** Close the wire log and the read model if they were opened. Idempotent. */
  close(): Promise<void>;
}

export interface RuntimeOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** A ready context (tests, embedding): its root is the tree, taken to exist; its ports are kept. */
  ctx?: Ctx;
}

/** Lazily opened resource: a failed open is retried on the next use. */
function lazy<T>(open: () => Promise<T>): { get(): Promise<T>; peek(): Promise<T> | undefined; reset(): void } {
  let p: Promise<T> | undefined;
  return {
    get() {
      if (!p) {
        const opening = open();
        p = opening;
        opening.catch(() => {
          if (p === opening) p = undefined;
        });
      }
      return p;
    },
    peek: () => p,
    reset() {
      p = undefined;
    },
  };
}

export function createRuntime(opts: RuntimeOptions = {}): Runtime {
  const given = opts.ctx;
  const env = opts.env ?? given?.env ?? process.env;
  applyStorageLimits(env);
  const tree: PlanningLocation = given
    ? { root: given.root, exists: true, source: 'env', cwd: opts.cwd ?? given.root }
    : locatePlanningTree(env, opts.cwd ?? process.cwd());
  let clock: Clock | undefined = given?.clock;
  const ports = () => {
    clock ??= clockFrom(env);
    return { clock, ids: given?.ids, tokenizer: given?.tokenizer, env };
  };
  const ctxAt = (root: string, actor?: string): Ctx => makeCtx(root, { ...ports(), ...(actor ? { actor } : {}) });
  let base: Ctx | undefined = given;
  const ctx = (): Ctx => {
    if (!tree.exists) throw new HeimdallError('environment', noTreeMessage(tree));
    base ??= ctxAt(tree.root);
    return base;
  };

  const log = lazy(() => openWireLog(ctx()));
  const store = lazy(() => openReadModel(ctx()));
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  const runtime: Runtime = {
    env,
    tree,
    envNamesCaller: envNamesCaller(env),
    get ctx() {
      return ctx();
    },
    ctxAt,
    async identify(input) {
      const c = ctx();
      const { identifyCaller } = await import('./core/identity/session.js');
      return identifyCaller(c, { ...input, env: input.env ?? env });
    },
    actingAs(caller) {
      const c = ctx();
      return caller.known ? ctxAt(c.root, caller.haid) : c;
    },
    wireLog: () => log.get(),
    async tryWireLog() {
      try {
        return { log: await log.get() };
      } catch (e) {
        return { problem: (e as Error).message };
      }
    },
    readModel: () => store.get(),
    exclusive(fn) {
      const run = queue.then(
        async () => fn({ log: await log.get(), store: await store.get() }),
        async () => fn({ log: await log.get(), store: await store.get() }),
      );
      queue = run.catch(() => undefined);
      return run;
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue.catch(() => undefined);
      const opened = [log.peek(), store.peek()];
      log.reset();
      store.reset();
      for (const p of opened) {
        if (!p) continue;
        const r = await p.catch(() => undefined);
        await r?.close();
      }
    },
  };
  return runtime;
}

/**
 * The runtime of a server a host spawns (heimdall-ledger-mcp): hosts do not all start it in the
 * project (Claude Code says where the project is in CLAUDE_PROJECT_DIR), so the tree is looked for
 * from there when it is set, else from the working directory.
 */
export function createServerRuntime(env: Record<string, string | undefined> = process.env): Runtime {
  const project = env.CLAUDE_PROJECT_DIR?.trim();
  return createRuntime({ env, cwd: project || process.cwd() });
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
async function openWireLog(ctx: Ctx): Promise<WireLog> {
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
async function openReadModel(ctx: Ctx): Promise<ReadModelStore> {
  const { PrismaReadModelStore } = await import('./db/readModel.js');
  return PrismaReadModelStore.open({ url: ctx.env.DATABASE_URL, wireDir: ctx.paths.wireDir });
}
