/**
 * The claims board: every claim under one filter (held, released, expired, all), each with both names
 * of its holder (HAID and herd address, one identity) and whether the herd knows that agent, and each
 * released claim with who released it and the decisions.md entry that recorded the release.
 */
import { type ClaimStatus, type ClaimView, listClaims } from '../claims/claims.js';
import type { Ctx } from '../context.js';
import { readDecisions } from '../decisions/decisions.js';
import { HeimdallError } from '../errors.js';
import { knownAgents } from '../herd/checkin.js';
import { readRegistry as readHerd } from '../herd/store.js';
import { readTeam } from '../herd/team.js';
import { addressOfHaid } from '../identity/agent.js';
import { readRegistry as readIdentities } from '../identity/registry.js';
import { type OperatorView, operatorView } from './agents.js';

/**
 * What the claims page can show: `active` the claims still held (active, or held by a retired agent,
 * which no longer block), `released` and `expired` the history, `all` every claim claims.json keeps.
 */
export const CLAIM_FILTERS = ['active', 'released', 'expired', 'all'] as const;
export type ClaimFilter = (typeof CLAIM_FILTERS)[number];

export interface BoardDecision {
  id: string;
  title: string;
  at: string;
  haid: string;
}

export interface ClaimRow extends Omit<ClaimView, 'decision'> {
  /** The holder is an agent the herd knows (it checked in, or is a team member): its agents row exists. */
  holder_known: boolean;
  /** The releasing identity's herd address (the operator's is `studio.operator@team`), when it has one. */
  released_by_address?: string | null;
  /** The decision that recorded the release: found in decisions.md, or only its id when the entry is missing. */
  decision?: BoardDecision | { id: string; missing: true };
}

export interface ClaimBoard {
  filter: ClaimFilter;
  claims: ClaimRow[];
  /** Every claim in claims.json by status (`active` here is the blocking ones; `held` adds retired holders'). */
  counts: Record<ClaimStatus | 'held' | 'all', number>;
  operator: OperatorView;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function checkClaimFilter(filter: unknown): ClaimFilter {
  if (filter === undefined) return 'active';
  if (typeof filter === 'string' && (CLAIM_FILTERS as readonly string[]).includes(filter)) return filter as ClaimFilter;
  throw new HeimdallError('invalid', `claim filter must be one of ${CLAIM_FILTERS.join(', ')} (active: held now; released and expired: history), got ${JSON.stringify(filter)}`);
}

function inFilter(c: ClaimView, f: ClaimFilter): boolean {
  switch (f) {
    case 'active':
      return c.status === 'active' || c.status === 'retired';
    case 'released':
      return c.status === 'released';
    case 'expired':
      return c.status === 'expired';
    case 'all':
      return true;
  }
}

/** The claims under `filter`: held ones oldest first, history most recently finished first. */
export function claimBoard(ctx: Ctx, opts: { filter?: unknown } = {}): ClaimBoard {
  const filter = checkClaimFilter(opts.filter);
  const all = listClaims(ctx, { history: true }).claims;
  const root = readIdentities(ctx).root;
  const known = new Set(knownAgents(readHerd(ctx), readTeam(ctx)));
  const decisions = new Map(readDecisions(ctx).map((d) => [d.id, d]));
  const finished = (c: ClaimView) => c.released_at ?? c.expires_at;
  const chosen = all.filter((c) => inFilter(c, filter));
  if (filter === 'released' || filter === 'expired') chosen.sort((a, b) => cmp(finished(b), finished(a)) || cmp(b.id, a.id));
  const claims = chosen.map((c): ClaimRow => {
    const { decision: id, ...rest } = c;
    const d = id === undefined ? undefined : decisions.get(id);
    return {
      ...rest,
      holder_known: c.address !== null && known.has(c.address),
      ...(c.released_by !== undefined ? { released_by_address: root ? addressOfHaid(root, c.released_by) : null } : {}),
      ...(id !== undefined ? { decision: d ? { id: d.id, title: d.title, at: d.at, haid: d.haid } : { id, missing: true as const } } : {}),
    };
  });
  const n = (s: ClaimStatus) => all.filter((c) => c.status === s).length;
  return {
    filter,
    claims,
    counts: { active: n('active'), retired: n('retired'), held: n('active') + n('retired'), released: n('released'), expired: n('expired'), all: all.length },
    operator: operatorView(ctx),
  };
}
