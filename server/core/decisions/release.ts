/**
 * Releasing another agent's claim on its behalf (what a lead does from Studio) is itself a team
 * decision: the release is recorded in decisions.md under the acting HAID with the reason, and every
 * released claim keeps the id of that decision, so the claims page links one to the other.
 *
 * A decision needs a reason: a release without one is refused here, so every transport that releases
 * as a decision gets the same rule (the plain `releaseClaim` of the CLI and MCP keeps its own).
 *
 * Both happen under the decisions lock: the decision's id is taken first, the release (which may be
 * refused, recording nothing) writes it on the claims, then the entry is appended with that id.
 */
import { releaseClaim } from '../claims/index.js';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { withLock } from '../planning/fsx.js';
import { checkTreeHaid } from '../identity/registry.js';
import { appendDecisionLocked, checkBody, checkTitle, decisionsFile, displayPath, nextDecisionIdLocked } from './decisions.js';

/** Release one claim (`id`) or every claim of `haid` for its holder, by the operator `by`, and record it as `by`'s decision. */
export function releaseClaimAsDecision(ctx: Ctx, opts: { by: string; haid?: string; id?: string; reason: string }) {
  const why = typeof opts.reason === 'string' ? opts.reason.trim() : '';
  if (why === '') {
    throw new HeimdallError('invalid', 'a release needs a reason: it is recorded in decisions.md with the release, e.g. "agent went silent for an hour; the lead takes over src/matching/**"');
  }
  const by = checkTreeHaid(ctx, opts.by, 'releasing agent');
  const file = decisionsFile(ctx);
  return withLock(file, () => {
    const id = nextDecisionIdLocked(ctx);
    const { released } = releaseClaim(ctx, { by, haid: opts.haid, id: opts.id, reason: why, override: true, decision: id });
    const holders = [...new Set(released.map((c) => c.haid))].join(', ');
    const title = checkTitle(released.length === 1 ? `Released the claim of ${holders}` : `Released ${released.length} claims of ${holders}`);
    const body = checkBody(
      `${released.map((c) => `Released on behalf of ${c.haid}: ${c.surfaces.join(', ')} (claim ${c.id}, task ${c.task_ref}, ${c.was}, expiring ${c.expires_at}).`).join('\n')}\nReason: ${why}`,
    );
    const decision = appendDecisionLocked(ctx, by, title, body, (d) => auditEntry(ctx, 'decision', 'append', `${d} by ${by}: ${title}`));
    // Both ids come from the same file under the same lock; a difference would be a bug here.
    if (decision.id !== id) throw new HeimdallError('internal', `decision ${decision.id} was appended where ${id} was expected`);
    return { released, decision: { id: decision.id, path: displayPath(ctx, file) } };
  });
}
