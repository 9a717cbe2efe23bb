import { z } from 'zod';
import { closure, listCapsuleIds, readCapsuleResolved } from '../../core/index.js';
import { readCapsuleGraph } from '../compose.js';
import { procedure, router } from '../trpc.js';

export type { CapsuleNode } from '../compose.js';

export const capsulesRouter = router({
  /** Capsule ids only (cheap: a directory listing), for counts. */
  ids: procedure.query(({ ctx }) => listCapsuleIds(ctx.core)),
  /** Every capsule, parsed; an unreadable one carries its error instead of failing the graph. */
  graph: procedure.query(({ ctx }) => readCapsuleGraph(ctx.core)),
  /** One capsule with its text (`heimdall-capsule show`) and its `where:` ids resolved to their values. */
  get: procedure.input(z.object({ id: z.string().max(200) })).query(({ ctx, input }) => readCapsuleResolved(ctx.core, input.id)),
  /** The hydration closure of one capsule, dependencies first (what `heimdall-capsule deps` prints). */
  closure: procedure.input(z.object({ id: z.string().max(200) })).query(({ ctx, input }) => closure(ctx.core, [input.id]).map((c) => c.id)),
});
