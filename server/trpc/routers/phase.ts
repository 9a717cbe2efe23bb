import { z } from 'zod';
import { phaseBoard } from '../compose.js';
import { procedure, router } from '../trpc.js';

export const phaseRouter = router({
  /** One GSD phase as a board (`heimdall gsd ready` for an observer): plans by status, holders, lease left, brief tokens. Reads only. */
  board: procedure
    .input(z.object({ phase: z.string().max(40).regex(/^[A-Za-z0-9._-]+$/).optional() }).optional())
    .query(({ ctx, input }) => phaseBoard(ctx.core, input?.phase)),
});
