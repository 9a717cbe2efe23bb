/**
 * tRPC for Studio: one init, one error mapping. Routers parse input with zod and make one core call;
 * a `HeimdallError` thrown by the core becomes a `TRPCError` here and nowhere else, keeping the
 * core's message (it is written for a person to act on) and its code (in `data.heimdallCode`).
 * Any other error is a bug or an environment failure: its message (paths, stack fragments, driver
 * text) stays in the server output and the browser gets a fixed sentence.
 */
import { TRPCError, initTRPC } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { isHeimdallError, spawnHaid, findLockBusy, withoutBlocking, type ErrorCode } from '../core/index.js';
import { STUDIO_CLIENT } from './compose.js';
import type { TrpcContext } from './context.js';

const TRPC_CODE: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  invalid: 'BAD_REQUEST',
  usage: 'BAD_REQUEST',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  forbidden: 'FORBIDDEN',
  // A state file is not as expected (e.g. hand-corrupted JSON): the request was fine, the tree is not.
  environment: 'PRECONDITION_FAILED',
  internal: 'INTERNAL_SERVER_ERROR',
};

/** What the browser reads for an error that is not the core's: the details are in the server output. */
export const INTERNAL_MESSAGE = 'Studio hit an internal error; the details are in the server output.';

/** The one place a core error becomes a transport error. */
export function toTrpcError(e: unknown): TRPCError {
  if (e instanceof TRPCError) {
    if (isHeimdallError(e.cause)) return toTrpcError(e.cause);
    if (e.code !== 'INTERNAL_SERVER_ERROR' || e.message === INTERNAL_MESSAGE) return e;
    return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_MESSAGE, cause: e.cause ?? e });
  }
  if (isHeimdallError(e)) return new TRPCError({ code: TRPC_CODE[e.code], message: e.message, cause: e });
  const err = e instanceof Error ? e : new Error(String(e));
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: INTERNAL_MESSAGE, cause: err });
}

/** The error behind a TRPCError, for the server's own log (never sent to the browser). */
export function internalDetail(e: TRPCError): string {
  const cause = e.cause;
  return cause instanceof Error ? (cause.stack ?? cause.message) : e.message;
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    // The last line of defence: an error raised outside a procedure (context creation, input
    // parsing of a malformed batch) has not been through toTrpcError.
    const internal = error.code === 'INTERNAL_SERVER_ERROR' && !isHeimdallError(cause);
    return {
      ...shape,
      message: internal ? INTERNAL_MESSAGE : shape.message,
      data: {
        ...shape.data,
        // Stacks stay in the server log; the page shows the message.
        stack: undefined,
        heimdallCode: isHeimdallError(cause) ? cause.code : null,
      },
    };
  },
  sse: {
    // A ping every 10 s keeps proxies from closing an idle stream; the client reconnects if pings stop.
    ping: { enabled: true, intervalMs: 10_000 },
    client: { reconnectAfterInactivityMs: 25_000 },
  },
});

const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTrpcError(result.error);
  return result;
});

/** Core writes wait for a busy file lock without blocking the server (core/planning/lock.ts). */
const waitForLocks = t.middleware(({ next }) =>
  withoutBlocking(async () => {
    const result = await next();
    if (!result.ok && findLockBusy(result.error)) throw result.error;
    return result;
  }),
);

/**
 * Studio acts as its own identity, the operator HAID `{root}/studio` (context.ts): every write made
 * through it is attributed to that HAID in protocol.log (`ctx.actor`, the line's fifth field). Only
 * mutations resolve it, and before the procedure runs, so the operator's first registration never
 * happens inside another file's lock; a read never touches the identity registry.
 */
const studioActor = t.middleware(({ ctx, type, next }) => {
  if (type !== 'mutation' || ctx.core.actor) return next();
  return next({ ctx: { ...ctx, core: { ...ctx.core, actor: spawnHaid(ctx.core, STUDIO_CLIENT) } } });
});

export const router = t.router;
export const procedure = t.procedure.use(mapErrors).use(waitForLocks).use(studioActor);
export const createCallerFactory = t.createCallerFactory;
