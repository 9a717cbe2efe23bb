/** The claims page's filter, read the same way by the server page and the client view. */
import type { ClaimFilter } from '@/components/trpc/types';

export const FILTERS: { id: ClaimFilter; label: string; hint: string }[] = [
  { id: 'active', label: 'Active', hint: 'held now (a retired holder’s claims no longer block)' },
  { id: 'released', label: 'Released', hint: 'released, with who released them and why' },
  { id: 'expired', label: 'Expired', hint: 'ran out of time' },
  { id: 'all', label: 'All', hint: 'every claim claims.json keeps' },
];

export function isClaimFilter(v: string | null | undefined): v is ClaimFilter {
  return FILTERS.some((f) => f.id === v);
}

/**
 * The filter a URL asks for: `status`, else `all` when a link points at a holder or a claim (it may
 * be history), else the held claims.
 */
export function filterOf(status: string | null | undefined, focused: boolean): ClaimFilter {
  return isClaimFilter(status) ? status : focused ? 'all' : 'active';
}
