import { z } from 'zod';
import { logFacets, queryLog } from '../../core/log/query.js';
import { procedure, router } from '../trpc.js';

const name = z.string().max(200).optional();

export const logRouter = router({
  /** One page of protocol.log, newest first, filtered. */
  page: procedure
    .input(
      z.object({
        mechanism: name,
        action: name,
        text: z.string().max(1000).optional(),
        upTo: z.number().int().min(0).optional(),
        offset: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      }),
    )
    .query(({ ctx, input }) => queryLog(ctx.core, input)),
  facets: procedure.query(({ ctx }) => logFacets(ctx.core)),
});
