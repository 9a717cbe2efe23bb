import { z } from 'zod';
import { listClaims, releaseClaim } from '../../core/claims/index.js';
import { appendDecision, readDecisions } from '../../core/decisions/index.js';
import { spawnHaid } from '../../core/identity/index.js';
import { procedure, router } from '../trpc.js';

/** The client segment of the HAID Studio acts as: `{root}/studio`. */
export const STUDIO_CLIENT = 'studio';

export const claimsRouter = router({
  /** Every claim with its status (active, expired, retired), as `heimdall-claim list` shows them. */
  list: procedure.query(({ ctx }) => listClaims(ctx.core)),
  /** decisions.md, parsed. */
  decisions: procedure.query(({ ctx }) => readDecisions(ctx.core)),
  /**
   * Release a claim on the holder's behalf (what `heimdall-claim release --haid H` does from a
   * shell) and record it in decisions.md as a decision of Studio's HAID, with the person's reason.
   * Two core calls, in this order so a refused release records nothing; the core has no combined
   * "release with a decision" call yet, and this is the one place it is composed.
   */
  release: procedure.input(z.object({ haid: z.string().max(600), reason: z.string().max(2000).optional() })).mutation(({ ctx, input }) => {
    const { released } = releaseClaim(ctx.core, { haid: input.haid });
    const reason = input.reason?.trim() || 'no reason given';
    const decision = appendDecision(ctx.core, {
      haid: spawnHaid(ctx.core, STUDIO_CLIENT),
      title: `Released the claim of ${released.haid}`,
      body: `Released from Studio: ${released.surfaces.join(', ')} (task ${released.task_ref}, ${released.status}, expiring ${released.expires_at}).\nReason: ${reason}`,
    });
    return { released, decision: { id: decision.id, path: decision.path } };
  }),
});
