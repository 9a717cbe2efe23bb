/** How the ledger views write times, savings and arms: the figures themselves come rounded from the core. */

/** 2026-06-11T12:07:27.123Z -> "2026-06-11 12:07 UTC" */
export function fmtWhen(iso: string | undefined): string {
  if (!iso) return '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** A saving (positive) or an increase (negative), from the core's `saved_pct`. */
export function savedText(saved: number | undefined): string {
  if (saved === undefined) return 'no baseline';
  if (saved > 0) return `${saved}% saved`;
  if (saved < 0) return `${-saved}% more`;
  return 'no change';
}

/** A percentage the bench wrote (recall, completeness), as written: 97.5% */
export function fmtShare(n: number | undefined): string {
  return n === undefined ? '—' : `${n}%`;
}

export const ARM_NAMES = { v1: 'v1', lean: 'lean', v2: 'v2' } as const;

export const ARM_COLOURS = { v1: '#94a3b8', lean: '#f59e0b', v2: '#6366f1' } as const;

/** Known ablation variants, in the bench's words; any other key is shown as written. */
const ABLATION_NAMES: Record<string, string> = {
  no_units: 'v2 without unit resolution',
  without_units: 'v2 without unit resolution',
  no_unit_resolution: 'v2 without unit resolution',
  no_capsules: 'v2 without capsules',
  without_capsules: 'v2 without capsules',
  no_symbols: 'v2 without the symbol table',
  no_symbol_table: 'v2 without the symbol table',
  without_symbols: 'v2 without the symbol table',
  without_symbol_table: 'v2 without the symbol table',
};

export function ablationName(name: string, label?: string): string {
  return label ?? ABLATION_NAMES[name] ?? name.replace(/_/g, ' ');
}

const HEADINGS: Record<string, string> = { tokens: 'tokens', recall: 'recall', over_v2: 'tokens above v2' };

/** A figure key of the bench's JSON as a column heading: v2_tokens -> "v2 tokens", saving_pct -> "saving %". */
export function figureHeading(key: string): string {
  return HEADINGS[key] ?? key.replace(/_pct$/, ' %').replace(/_/g, ' ');
}

/** Recall of the other arms, when the bench measured them: "v1 100% · lean 88%". */
export function otherRecall(arms: { v1?: number; lean?: number } | undefined): string {
  if (!arms) return '';
  return (['v1', 'lean'] as const)
    .filter((a) => arms[a] !== undefined)
    .map((a) => `${a} ${arms[a]}%`)
    .join(' · ');
}

/** A figure of the bench's JSON: percentages as written, token counts with separators. */
export function fmtFigure(key: string, n: number): string {
  return key.endsWith('_pct') || key.startsWith('recall') ? `${n}%` : n.toLocaleString('en-US');
}
