import { z } from 'zod';
import { logFacets, queryLog } from '../../core/index.js';
import { procedure, router } from '../trpc.js';

const name = z.string().max(200).optional();

export const logRouter = router({
  /** One page of protocol.log, newest first, filtered (the core checks the time bounds and the object key). */
  page: procedure
    .input(
      z.object({
        mechanism: name,
        action: name,
        text: z.string().max(1000).optional(),
        author: z.string().max(600).optional(),
        from: z.string().max(64).optional(),
        to: z.string().max(64).optional(),
        object: z.string().max(700).optional(),
        upTo: z.number().int().min(0).optional(),
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
    )
    .query(({ ctx, input }) => queryLog(ctx.core, input)),
  facets: procedure.query(({ ctx }) => logFacets(ctx.core)),
});
