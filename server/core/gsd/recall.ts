/**
 * Content recall: does a text an executor receives hold everything the plan references? For one
 * plan the expected items are
 *  - every line of the plan as the brief carries it (its tasks' `<action>`, `<verify>`, `<done>`,
 *    `<acceptance_criteria>` lines are counted apart as task lines);
 *  - the exact text of every unit the plan cites (a decision, a requirement, its roadmap phase
 *    entry, a section it names);
 *  - the whole text of every document it reads without citing a part of it;
 *  - for every finished plan's SUMMARY it reads, and every finished plan it depends on: the
 *    SUMMARY, or the capsule that stands for it.
 * A text holds an item when, ids resolved and whitespace squashed, the item's lines occur in it
 * (a unit's lines contiguously) and are not already used by another item: the text's lines are a
 * multiset, so deleting any one line an item needs (an emptied `<action>`, a dropped unit, a
 * missing read) is seen, even when the same line occurs elsewhere in the plan. The same items are
 * checked against every arm (v1, lean, v2 and its ablations), so recall says what each arm drops.
 */
import type { Ctx } from '../context.js';
import type { BuiltBrief, GsdModel } from './brief.js';
import { capsuleTextOf } from './brief.js';
import { taskElements } from './parse.js';
import { resolveIds } from './spec.js';

export type RecallKind = 'unit' | 'read' | 'summary' | 'capsule' | 'task_line' | 'plan_line';

export interface RecallItem {
  kind: RecallKind;
  /** The unit id, the file, or the line. */
  what: string;
  /** Texts any one of which satisfies the item. */
  texts: string[];
}

export interface RecallResult {
  items: number;
  present: number;
  /** Present over items, in percent, floored to one decimal (100 only when nothing is missing). */
  pct: number;
  byKind: Record<RecallKind, { items: number; present: number }>;
  /** What is missing, one line each (the first 50). */
  missing: string[];
}

function squash(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

function lines(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(squash)
    .filter((l) => l !== '');
}

/** The lines of the carried plan that lie inside its task elements (or its Tasks section). */
function taskLineSet(spec: string): Map<string, number> {
  const out = new Map<string, number>();
  const els = taskElements(spec);
  for (const el of els) for (const l of lines(el)) out.set(l, (out.get(l) ?? 0) + 1);
  return out;
}

/** The expected items of one plan, from its full v2 brief (see the module comment). */
export function recallItems(ctx: Ctx, model: GsdModel, full: BuiltBrief): RecallItem[] {
  const items: RecallItem[] = [];
  // A block of units that overlap is one item: its lines are sent once, so they can be needed once.
  for (const b of full.blocks) items.push({ kind: 'unit', what: b.ids.join(' + '), texts: [b.text] });
  const seen = new Set<string>();
  for (const r of full.analysis.refs) {
    if (!r.rel || seen.has(r.rel)) continue;
    if (r.resolution === 'read') {
      const read = full.reads.find((x) => x.rel === r.rel);
      if (read) {
        seen.add(r.rel);
        items.push({ kind: 'read', what: `.planning/${r.rel}`, texts: [read.text] });
      }
    } else if (r.resolution === 'capsule' && r.capsule) {
      seen.add(r.rel);
      const summary = model.project.summaries.find((s) => s.id === r.capsule);
      const cap = capsuleTextOf(ctx, r.capsule);
      items.push({ kind: 'summary', what: `.planning/${r.rel}`, texts: [summary?.raw ?? '', ...(cap ? [cap] : [])].filter((t) => t !== '') });
    }
  }
  // The plans it depends on (depends_on names them): their results, as a capsule or the SUMMARY itself.
  for (const d of full.plan.depends) {
    const summary = model.project.summaries.find((s) => s.id === d);
    if (!summary || items.some((i) => i.kind === 'summary' && i.what === `.planning/${summary.file}`)) continue;
    const cap = model.capsules.has(d) ? capsuleTextOf(ctx, d) : undefined;
    items.push({ kind: 'capsule', what: d, texts: [...(cap ? [cap] : []), summary.raw] });
  }
  const tasks = taskLineSet(full.spec);
  for (const l of lines(full.spec)) {
    const n = tasks.get(l) ?? 0;
    if (n > 0) tasks.set(l, n - 1);
    items.push({ kind: n > 0 ? 'task_line' : 'plan_line', what: l, texts: [l] });
  }
  return items;
}

const HEADERS = /^(SPEC|SYMBOLS|UNITS|CAPSULES|REFS)$|^INVARIANTS see |^READ \.planning\//;

/** A v2 brief with its ids replaced by their values and its SYMBOLS section dropped; other texts unchanged. */
export function resolveBrief(text: string): string {
  const ls = text.split('\n');
  const specAt = ls.indexOf('SPEC');
  const symAt = ls.indexOf('SYMBOLS');
  if (specAt === -1 || symAt === -1) return text;
  let symEnd = symAt + 1;
  while (symEnd < ls.length && !HEADERS.test(ls[symEnd] as string)) symEnd++;
  const symbols: [string, string][] = [];
  for (const l of ls.slice(symAt + 1, symEnd)) {
    const tab = l.indexOf('\t');
    if (tab > 0) symbols.push([l.slice(0, tab), l.slice(tab + 1)]);
  }
  const spec = resolveIds(ls.slice(specAt + 1, symAt).join('\n'), symbols);
  return [...ls.slice(0, specAt + 1), spec, ...ls.slice(symEnd)].join('\n');
}

const PREPARED = new WeakMap<RecallItem, { need: string[]; counts: Map<string, number> }[]>();

/** An item's texts as squashed lines and line counts, computed once per item. */
function prepared(item: RecallItem): { need: string[]; counts: Map<string, number> }[] {
  let p = PREPARED.get(item);
  if (!p) {
    p = item.texts.map((t) => {
      const need = lines(t);
      const counts = new Map<string, number>();
      for (const l of need) counts.set(l, (counts.get(l) ?? 0) + 1);
      return { need, counts };
    });
    PREPARED.set(item, p);
  }
  return p;
}

/** Check `text` (an arm's counted text; a v2 brief's ids are resolved here) against the items. */
export function checkRecall(text: string, items: RecallItem[]): RecallResult {
  const have = lines(resolveBrief(text));
  const pool = new Map<string, number>();
  for (const l of have) pool.set(l, (pool.get(l) ?? 0) + 1);
  const joined = `\n${have.join('\n')}\n`;
  const byKind: RecallResult['byKind'] = {
    unit: { items: 0, present: 0 },
    read: { items: 0, present: 0 },
    summary: { items: 0, present: 0 },
    capsule: { items: 0, present: 0 },
    task_line: { items: 0, present: 0 },
    plan_line: { items: 0, present: 0 },
  };
  const missing: string[] = [];
  let present = 0;
  const order: RecallKind[] = ['unit', 'read', 'summary', 'capsule', 'task_line', 'plan_line'];
  for (const kind of order) {
    for (const item of items) {
      if (item.kind !== kind) continue;
      byKind[kind].items++;
      let ok = false;
      for (const { need, counts } of prepared(item)) {
        if (![...counts].every(([l, n]) => (pool.get(l) ?? 0) >= n)) continue;
        if (need.length > 1 && !joined.includes(`\n${need.join('\n')}\n`)) continue;
        for (const [l, n] of counts) pool.set(l, (pool.get(l) ?? 0) - n);
        ok = true;
        break;
      }
      if (ok) {
        present++;
        byKind[kind].present++;
      } else if (missing.length < 50) missing.push(`${kind.replace('_', ' ')} ${item.what.length > 120 ? `${item.what.slice(0, 117)}...` : item.what}`);
    }
  }
  const total = items.length;
  const pct = total === 0 ? 100 : present === total ? 100 : Math.floor((present / total) * 1000) / 10;
  return { items: total, present, pct, byKind, missing };
}
