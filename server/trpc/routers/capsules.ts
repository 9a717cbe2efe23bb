import { z } from 'zod';
import { type Capsule, closure, listCapsuleIds, readCapsule } from '../../core/capsules/capsules.js';
import { procedure, router, toTrpcError } from '../trpc.js';

export type CapsuleNode = Capsule | { id: string; error: string };

export const capsulesRouter = router({
  /** Capsule ids only (cheap: a directory listing), for counts. */
  ids: procedure.query(({ ctx }) => listCapsuleIds(ctx.core)),
  /**
   * Every capsule, parsed. One unreadable capsule file is reported in its node instead of failing
   * the whole graph, so the page still shows the rest. (The core has no "read all" call yet; this
   * loop is the only composition in the routers and belongs in capsules.ts when that file opens up.)
   */
  graph: procedure.query(({ ctx }): CapsuleNode[] =>
    listCapsuleIds(ctx.core).map((id) => {
      try {
        return readCapsule(ctx.core, id);
      } catch (e) {
        return { id, error: toTrpcError(e).message };
      }
    }),
  ),
  /** The hydration closure of one capsule, dependencies first (what `heimdall-capsule deps` prints). */
  closure: procedure.input(z.object({ id: z.string().max(200) })).query(({ ctx, input }) => closure(ctx.core, [input.id]).map((c) => c.id)),
});
