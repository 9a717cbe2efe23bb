/**
 * Savings over time, for the chart: ledger lines grouped by run (one demo or bench run, or an agent
 * session that passes --run), in the order the runs started. Lines written without a run are grouped
 * by UTC day. Each point is one role's measured tokens in that group against the role's baseline.
 * Presentation only: the totals per role and the baselines come from the core's report.
 */
import type { LedgerEntry } from '@/components/trpc/types';

export interface SavingsPoint {
  /** Group label: the run id, or "2026-06-11 (no run)". */
  group: string;
  /** First line's time in the group, ISO. */
  at: string;
  /** Per role: measured tokens in the group. */
  measured: Record<string, number>;
  /** Per role with a baseline: percentage saved against it (positive is a saving). */
  saved: Record<string, number>;
}

export function savingsOverTime(entries: LedgerEntry[], baselines: Record<string, number | undefined>): SavingsPoint[] {
  const groups = new Map<string, SavingsPoint>();
  for (const e of entries) {
    const group = e.run ?? `${e.ts.slice(0, 10)} (no run)`;
    let g = groups.get(group);
    if (!g) {
      g = { group, at: e.ts, measured: {}, saved: {} };
      groups.set(group, g);
    }
    if (e.ts < g.at) g.at = e.ts;
    g.measured[e.role] = (g.measured[e.role] ?? 0) + e.tokens;
  }
  const points = [...groups.values()].sort((a, b) => a.at.localeCompare(b.at) || a.group.localeCompare(b.group));
  for (const p of points) {
    for (const [role, m] of Object.entries(p.measured)) {
      const b = baselines[role];
      if (b !== undefined && b > 0) p.saved[role] = Math.round(((b - m) / b) * 100);
    }
  }
  return points;
}
