import { z } from 'zod';
import { CLAIM_FILTERS, claimBoard, listClaims, readDecisions } from '../../core/index.js';
import { releaseClaimAsDecision } from '../compose.js';
import { procedure, router } from '../trpc.js';

export const claimsRouter = router({
  /** Every claim with its status (active, expired, retired), as `heimdall-claim list` shows them (the overview's card). */
  list: procedure.query(({ ctx }) => listClaims(ctx.core)),
  /** The claims page: claims under a filter (active: held now, the default; released; expired; all), with both names of each holder and the decision of each release. */
  board: procedure.input(z.strictObject({ filter: z.enum(CLAIM_FILTERS).optional() }).optional()).query(({ ctx, input }) => claimBoard(ctx.core, { filter: input?.filter })),
  /** decisions.md, parsed. */
  decisions: procedure.query(({ ctx }) => readDecisions(ctx.core)),
  /** Release a claim (by id) or all of a holder's claims on its behalf, recorded as a decision of Studio's operator; a reason is required. */
  release: procedure
    .input(
      z.strictObject({
        haid: z.string().max(600).optional(),
        id: z.string().max(200).optional(),
        reason: z.string().max(2000).refine((r) => r.trim() !== '', 'a release needs a reason: it is recorded in decisions.md with the release'),
      }),
    )
    .mutation(({ ctx, input }) => releaseClaimAsDecision(ctx.core, { haid: input.haid, id: input.id }, input.reason)),
});
