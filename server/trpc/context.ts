/**
 * The tRPC context: the composition root's runtime for this server process, and the core context
 * Studio's calls run on. Studio acts as its operator, `{root}/studio`: every write made from the
 * dashboard is authored by it in protocol.log (resolved on the first write, so reads never write).
 * With no planning tree, `core` throws the "no planning tree" error inside the procedure, where
 * the one error mapping turns it into a message the page shows.
 */
import type { Ctx } from '../core/context.js';
import { type Runtime, createRuntime } from '../runtime.js';

/** The client segment of the HAID Studio acts as: `{root}/studio`. */
export const STUDIO_CLIENT = 'studio';

export interface TrpcContext {
  core: Ctx;
}

let runtime: Runtime | undefined;
let studio: Ctx | undefined;

export function getRuntime(): Runtime {
  runtime ??= createRuntime();
  return runtime;
}

/** The process runtime's context, its writes authored by Studio's operator. */
export function studioCtx(): Ctx {
  if (studio) return studio;
  const rt = getRuntime();
  const ctx = rt.ctxAt(rt.ctx.root);
  let actor: string | undefined;
  // Resolved when a write first asks for its author: the operator's HAID needs the root HAID, which
  // a read must not generate.
  Object.defineProperty(ctx, 'actor', {
    enumerable: true,
    get: () => (actor ??= rt.identify({ env: {}, otherwise: { fallback: STUDIO_CLIENT, known: true } }).haid),
  });
  studio = ctx;
  return ctx;
}

export function createContext(): TrpcContext {
  return {
    get core() {
      return studioCtx();
    },
  };
}
