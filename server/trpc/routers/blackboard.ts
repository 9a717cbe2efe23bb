import { z } from 'zod';
import { deleteFact, readFacts, setFact } from '../../core/index.js';
import { procedure, router } from '../trpc.js';

const key = z.string().max(1000);

export const blackboardRouter = router({
  list: procedure.query(({ ctx }) => readFacts(ctx.core)),
  set: procedure.input(z.object({ key, value: z.string().max(100_000) })).mutation(({ ctx, input }) => {
    setFact(ctx.core, input.key, input.value);
    return { key: input.key };
  }),
  delete: procedure.input(z.object({ key })).mutation(({ ctx, input }) => {
    deleteFact(ctx.core, input.key);
    return { deleted: input.key };
  }),
});
