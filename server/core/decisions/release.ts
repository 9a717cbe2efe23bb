/**
 * Releasing another agent's claim on its behalf (what a lead does from Studio) is itself a team
 * decision: the release is recorded in decisions.md under the acting HAID with the reason. The
 * release happens first, so a refused release records nothing.
 */
import { releaseClaim } from '../claims/index.js';
import type { Ctx } from '../context.js';
import { appendDecision } from './decisions.js';

/** Release one claim (`id`) or every claim of `haid` for its holder, by the operator `by`, and record it as `by`'s decision. */
export function releaseClaimAsDecision(ctx: Ctx, opts: { by: string; haid?: string; id?: string; reason?: string }) {
  const why = opts.reason?.trim() || 'no reason given';
  const { released } = releaseClaim(ctx, { by: opts.by, haid: opts.haid, id: opts.id, reason: why, override: true });
  const holders = [...new Set(released.map((c) => c.haid))].join(', ');
  const decision = appendDecision(ctx, {
    haid: opts.by,
    title: released.length === 1 ? `Released the claim of ${holders}` : `Released ${released.length} claims of ${holders}`,
    body: `${released
      .map((c) => `Released on behalf of ${c.haid}: ${c.surfaces.join(', ')} (claim ${c.id}, task ${c.task_ref}, ${c.was}, expiring ${c.expires_at}).`)
      .join('\n')}\nReason: ${why}`,
  });
  return { released, decision: { id: decision.id, path: decision.path } };
}
