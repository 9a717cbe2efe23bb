/**
 * The log page's time range: all time, the last 15 minutes / hour / day (relative to the server's
 * clock when chosen), or custom bounds. In the URL a relative range stays relative (`last=1h`), so a
 * shared link means "the last hour" whenever it is opened.
 */
export type Last = '15m' | '1h' | '1d';

export type LogRange = { kind: 'all' } | { kind: 'last'; last: Last; from: string } | { kind: 'custom'; from?: string; to?: string };

export const LAST_SECONDS: Record<Last, number> = { '15m': 900, '1h': 3600, '1d': 86_400 };

export const RANGE_LABEL: Record<Last | 'all' | 'custom', string> = { all: 'All time', '15m': 'Last 15 min', '1h': 'Last hour', '1d': 'Last day', custom: 'Custom…' };

export function isLast(v: string | undefined): v is Last {
  return v === '15m' || v === '1h' || v === '1d';
}

/** ISO-8601 to the second, as protocol.log writes it. */
export function isoAt(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The range's bounds, as the log query takes them. */
export function rangeBounds(r: LogRange): { from?: string; to?: string } {
  if (r.kind === 'last') return { from: r.from };
  if (r.kind === 'custom') return { ...(r.from ? { from: r.from } : {}), ...(r.to ? { to: r.to } : {}) };
  return {};
}

/** The range as URL parameters. */
export function rangeParams(r: LogRange): Record<string, string> {
  if (r.kind === 'last') return { last: r.last };
  return rangeBounds(r) as Record<string, string>;
}

/** The range a URL asks for, resolved against the server's clock. */
export function rangeFromParams(p: { last?: string; from?: string; to?: string }, nowMs: number): LogRange {
  if (isLast(p.last)) return { kind: 'last', last: p.last, from: isoAt(nowMs - LAST_SECONDS[p.last] * 1000) };
  if (p.from || p.to) return { kind: 'custom', ...(p.from ? { from: p.from } : {}), ...(p.to ? { to: p.to } : {}) };
  return { kind: 'all' };
}
