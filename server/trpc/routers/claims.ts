import { z } from 'zod';
import { listClaims } from '../../core/claims/index.js';
import { readDecisions } from '../../core/decisions/index.js';
import { releaseClaimAsDecision } from '../compose.js';
import { procedure, router } from '../trpc.js';

export const claimsRouter = router({
  /** Every claim with its status (active, expired, retired), as `heimdall-claim list` shows them. */
  list: procedure.query(({ ctx }) => listClaims(ctx.core)),
  /** decisions.md, parsed. */
  decisions: procedure.query(({ ctx }) => readDecisions(ctx.core)),
  /** Release a claim (by id) or all of a holder's claims on its behalf, recorded as a decision of Studio's HAID. */
  release: procedure
    .input(z.object({ haid: z.string().max(600).optional(), id: z.string().max(200).optional(), reason: z.string().max(2000).optional() }))
    .mutation(({ ctx, input }) => releaseClaimAsDecision(ctx.core, { haid: input.haid, id: input.id }, input.reason)),
});
