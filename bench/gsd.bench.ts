/**
 * GSD token savings: `heimdall bench gsd` on the three real GSD trees of ../shared/fixtures/gsd.
 * For every plan, v1 is what a GSD executor reads (PLAN.md plus every `@.planning/...` file of its
 * `<context>`) and v2 is Heimdall's delta brief (task spec with ids, the symbol entries it names,
 * the capsule closure of its dependencies, the invariants reference); the method is described at
 * the top of server/core/gsd/bench.ts. Token counts come from the tokenizer, not from estimates.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeCtx } from '../server/core/context.js';
import { type BenchTotals, benchGsd } from '../server/core/gsd/bench.js';

export default async function ({ root }: { root: string }): Promise<string> {
  const fixtures = path.resolve(root, '../shared/fixtures/gsd');
  const dirs = fs
    .readdirSync(fixtures, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(fixtures, e.name, '.planning')))
    .map((e) => e.name)
    .sort();
  if (dirs.length === 0) throw new Error(`no GSD fixtures under ${fixtures}`);
  // The bench works on temporary copies; this context only lends its ports (tokenizer, clock, ids).
  const base = makeCtx(path.join(fixtures, '.unused-planning-root'));
  const results = dirs.map((d) => benchGsd(base, path.join(fixtures, d)));
  const sum = (f: (t: BenchTotals) => number) => results.reduce((s, r) => s + f(r.total), 0);
  const v1 = sum((t) => t.v1_tokens);
  const v2 = sum((t) => t.v2_tokens);
  const floor = sum((t) => t.floor_tokens);
  const checks = sum((t) => t.checks);
  const failed = results.reduce((s, r) => s + r.failures.length, 0);
  const total: BenchTotals = {
    plans: sum((t) => t.plans),
    v1_tokens: v1,
    v2_tokens: v2,
    saving_pct: Math.round(((v1 - v2) / v1) * 1000) / 10,
    floor_tokens: floor,
    v2_floor: Math.round((v2 / floor) * 100) / 100,
    completeness_pct: checks === 0 ? 100 : Math.floor(((checks - failed) / checks) * 1000) / 10,
    checks,
  };
  const tokenizer = results[0]?.tokenizer ?? base.tokenizer.name;
  const n = (x: number) => x.toLocaleString('en-US');
  const row = (name: string, t: BenchTotals) =>
    `| ${name} | ${t.plans} | ${n(t.v1_tokens)} | ${n(t.v2_tokens)} | **${t.saving_pct.toFixed(1)}%** | ${n(t.floor_tokens)} | ${t.v2_floor.toFixed(2)}x | ${t.completeness_pct}% (${n(t.checks)} checks) | ${tokenizer} |`;
  const issues = results.flatMap((r) => r.import.issues.map((i) => `${r.project}: ${i.kind} ${i.file}`));
  return [
    '## GSD token savings',
    '',
    'Per plan, wave by wave: v1 = what a GSD executor reads (PLAN.md + every `@.planning/...` file its `<context>` names);',
    'v2 = the Heimdall delta brief (`buildBrief`: task spec with paths and truths as symbol ids, the symbol entries it names,',
    'the capsule closure of its dependencies, the invariants reference). Floor = the plan\'s own objective and tasks alone.',
    'Completeness = ids defined in the brief or the symbol table, and every path, truth and requirement the plan names reachable.',
    'Measured on temporary copies of the fixture trees (`heimdall bench gsd DIR`); both sides logged in the ledger (baseline and measured).',
    '',
    '| project | plans | v1 tokens | v2 tokens | saving | floor | v2/floor | completeness | tokenizer |',
    '|---|---|---|---|---|---|---|---|---|',
    ...results.map((r) => row(r.project, r.total)),
    row('**total**', total),
    '',
    `Total: **${total.saving_pct.toFixed(1)}% fewer tokens** (${n(v1)} -> ${n(v2)}, ${tokenizer}), completeness ${total.completeness_pct}%.`,
    issues.length ? `Imported with what they have (reported by the import): ${issues.join('; ')}.` : '',
  ]
    .filter((l, i, a) => !(l === '' && a[i - 1] === ''))
    .join('\n');
}
