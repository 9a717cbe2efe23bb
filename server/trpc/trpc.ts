/**
 * tRPC for Studio: one init, one error mapping. Routers parse input with zod and make one core call;
 * a `HeimdallError` thrown by the core becomes a `TRPCError` here and nowhere else, keeping the
 * core's message (it is written for a person to act on) and its code (in `data.heimdallCode`).
 */
import { TRPCError, initTRPC } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { type ErrorCode, isHeimdallError } from '../core/errors.js';
import { findLockBusy, withoutBlocking } from '../core/planning/fsx.js';
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

/** The one place a core error becomes a transport error. */
export function toTrpcError(e: unknown): TRPCError {
  if (e instanceof TRPCError) {
    if (isHeimdallError(e.cause)) return toTrpcError(e.cause);
    return e;
  }
  if (isHeimdallError(e)) return new TRPCError({ code: TRPC_CODE[e.code], message: e.message, cause: e });
  const err = e instanceof Error ? e : new Error(String(e));
  return new TRPCError({ code: 'INTERNAL_SERVER_ERROR', message: err.message, cause: err });
}

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
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

export const router = t.router;
export const procedure = t.procedure.use(mapErrors).use(waitForLocks);
export const createCallerFactory = t.createCallerFactory;
