/**
 * Releasing another agent's claim on its behalf (what a lead does from Studio) is itself a team
 * decision: the release is recorded in decisions.md under the acting HAID with the reason. The
 * release happens first, so a refused release records nothing.
 */
import { releaseClaim } from '../claims/index.js';
import type { Ctx } from '../context.js';
import { appendDecision } from './decisions.js';

export function releaseClaimAsDecision(ctx: Ctx, opts: { haid: string; by: string; reason?: string }) {
  const { released } = releaseClaim(ctx, { haid: opts.haid });
  const why = opts.reason?.trim() || 'no reason given';
  const decision = appendDecision(ctx, {
    haid: opts.by,
    title: `Released the claim of ${released.haid}`,
    body: `Released on behalf of ${released.haid}: ${released.surfaces.join(', ')} (task ${released.task_ref}, ${released.status}, expiring ${released.expires_at}).\nReason: ${why}`,
  });
  return { released, decision: { id: decision.id, path: decision.path } };
}
