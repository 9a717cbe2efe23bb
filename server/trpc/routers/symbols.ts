import { z } from 'zod';
import { deleteSymbol, readSymbols, setSymbol } from '../../core/index.js';
import { procedure, router } from '../trpc.js';

// Only the shape is checked here: the core decides what a valid id or value is, and its reason is
// what the page shows inline.
const id = z.string().max(1000);

export const symbolsRouter = router({
  list: procedure.query(({ ctx }) => readSymbols(ctx.core)),
  set: procedure.input(z.object({ id, value: z.string().max(100_000) })).mutation(({ ctx, input }) => setSymbol(ctx.core, input.id, input.value)),
  delete: procedure.input(z.object({ id })).mutation(({ ctx, input }) => {
    deleteSymbol(ctx.core, input.id);
    return { deleted: input.id };
  }),
});
