/** Numbers with thousands separators, stable across server and browser (no locale surprises). */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtPct(pct: number): string {
  const r = Math.round(pct);
  return `${r > 0 ? '+' : r < 0 ? '−' : ''}${Math.abs(r)}%`;
}

/** "12 s", "7 min", "3 h", "2 d" between two instants (ms). */
export function fmtAge(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const m = Math.round(s / 60);
  if (m < 90) return `${m} min`;
  const h = Math.round(m / 60);
  if (h < 36) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}

/** 2026-06-11T12:07:27Z -> 2026-06-11 12:07:27 */
export function fmtTs(iso: string): string {
  return iso.replace('T', ' ').replace(/Z$/, '');
}
