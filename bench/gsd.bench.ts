/**
 * GSD token savings: `heimdall bench gsd` on the real GSD trees of ../shared/fixtures/gsd (or
 * HEIMDALL_GSD_FIXTURES), all three as one DIR. Per plan: v1 (what GSD sends), lean (what a
 * careful person sends without Heimdall), v2 (the Heimdall brief plus every whole-file read it
 * still counts), recall of each arm against the same items, the ablation, the results side; then
 * the full recall mutation test (every unit, read, expected capsule and task line removed in turn).
 * The method is described at the top of server/core/gsd/bench.ts. Token counts come from the
 * tokenizer, not from estimates.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCtx } from '../server/core/context.js';
import { briefMutations } from '../server/core/gsd/_mutate.js';
import { type BenchTotals, benchGsd, copyTree, findTrees } from '../server/core/gsd/bench.js';
import { buildGsdBrief } from '../server/core/gsd/brief.js';
import { importGsd } from '../server/core/gsd/importer.js';
import { checkRecall, recallItems } from '../server/core/gsd/recall.js';

function mutationRun(dir: string): { counts: Record<string, number>; undetected: string[] } {
  const counts: Record<string, number> = { unit: 0, read: 0, capsule: 0, task_line: 0 };
  const undetected: string[] = [];
  for (const tree of findTrees(dir)) {
    const dest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-mut-')), '.planning');
    try {
      copyTree(tree.planning, dest);
      const ctx = makeCtx(dest);
      const { model } = importGsd(ctx);
      for (const plan of model.project.plans) {
        const b = buildGsdBrief(ctx, model, plan);
        const items = recallItems(ctx, model, b);
        const expected = new Set(items.filter((i) => i.kind === 'capsule' || i.kind === 'summary').flatMap((i) => b.capsules.filter((c) => i.texts.includes(c.text)).map((c) => c.id)));
        for (const m of briefMutations(b)) {
          if (m.kind === 'capsule' && !expected.has(m.what)) continue;
          counts[m.kind] = (counts[m.kind] ?? 0) + 1;
          if (checkRecall(m.text, items).pct === 100) undetected.push(`${tree.name}/${plan.id} ${m.kind} ${m.what}`);
        }
      }
    } finally {
      fs.rmSync(path.dirname(dest), { recursive: true, force: true });
    }
  }
  return { counts, undetected };
}

interface OracleReport {
  counts: { plans: number; ids: number; context_reads: number; reads: number; sections: number; line_ranges: number; task_lines: number };
  misses: { tree: string; plan: string; kind: string; what: string }[];
}

/** scripts/gsd-oracle.mjs over the briefs the bench emitted (its own process: it shares nothing with the product). */
function runOracle(root: string, r: unknown, briefs: string): OracleReport {
  const json = path.join(briefs, 'bench.json');
  fs.writeFileSync(json, JSON.stringify(r));
  const res = spawnSync(process.execPath, [path.join(root, 'scripts/gsd-oracle.mjs'), json, briefs, '--json'], { encoding: 'utf8' });
  if (res.status !== 0 && res.status !== 1) throw new Error(`scripts/gsd-oracle.mjs exited ${res.status}: ${res.stderr}`);
  return JSON.parse(res.stdout) as OracleReport;
}

export default async function ({ root }: { root: string }): Promise<string> {
  const fixtures = path.resolve(root, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
  if (!fs.existsSync(fixtures)) throw new Error(`no GSD fixtures at ${fixtures} (set HEIMDALL_GSD_FIXTURES)`);
  // The bench works on temporary copies; this context only lends its ports (tokenizer, clock, ids).
  const base = makeCtx(path.join(fixtures, '.unused-planning-root'));
  const briefs = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-briefs-'));
  let oracle: OracleReport;
  let r: ReturnType<typeof benchGsd>;
  try {
    r = benchGsd(base, fixtures, { emitBriefs: briefs });
    oracle = runOracle(root, r, briefs);
  } finally {
    fs.rmSync(briefs, { recursive: true, force: true });
  }
  const mut = mutationRun(fixtures);
  const n = (x: number) => x.toLocaleString('en-US');
  const p = (x: number) => `${x.toFixed(1)}%`;
  const row = (name: string, t: BenchTotals) =>
    `| ${name} | ${t.plans_imported}/${t.plans_found} | ${n(t.v1_tokens)} | ${n(t.lean_tokens)} | ${n(t.v2_tokens)} (${n(t.brief_tokens)} + ${n(t.read_tokens)}) | **${p(t.saving_pct)}** | ${p(t.saving_vs_lean_pct)} | ${t.recall.v1}% / ${t.recall.lean}% / **${t.recall.v2}%** | ${t.over_lean} |`;
  const k = (arm: 'v1' | 'lean' | 'v2', kind: 'unit' | 'read' | 'summary' | 'capsule' | 'task_line') => {
    const [a, b] = r.total.recall_kinds[arm][kind];
    return `${n(a)}/${n(b)}`;
  };
  const reads = new Map<string, { tokens: number; plans: number }>();
  for (const pl of r.plans) {
    for (const rd of pl.reads) {
      const kind = rd.path.replace(/^.*\//, '').replace(/^\d+(?:\.\d+)*-/, '').replace(/^\d+-/, '');
      const cur = reads.get(kind) ?? { tokens: 0, plans: 0 };
      cur.tokens += rd.tokens;
      cur.plans++;
      reads.set(kind, cur);
    }
  }
  const totalMut = Object.values(mut.counts).reduce((s, x) => s + x, 0);
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const ablation = r.ablation.map((a) => `| ${a.label} | ${n(a.tokens)} | ${a.recall}% | ${a.arm === 'v2' ? '-' : `${a.over_v2 >= 0 ? '+' : ''}${n(a.over_v2)}`} |`);
  return [
    '## GSD token savings',
    '',
    `\`heimdall bench gsd\` on the three real trees of the fixtures folder, as one DIR (${r.trees.map((t) => t.tree).join(', ')}); tokenizer ${r.tokenizer}.`,
    'Per plan: **v1** = what GSD sends (PLAN.md + every `@.planning` file of its `<context>`); **lean** = what a careful person sends without Heimdall',
    '(PLAN.md + the whole files its `<read_first>` steps name or that hold an id it cites); **v2** = the Heimdall brief (the plan, the exact text of every unit it',
    'cites: decisions, requirements, its roadmap phase entry, the sections it names; capsules of its dependencies; ids where they save tokens) **plus every',
    'referenced file it still has to read whole**, counted. Recall = share of the items a plan references (its lines, every unit it cites, every document it',
    'reads, the results of the plans it depends on) present in the arm\'s text; the same items for all three arms. Measured on temporary copies; the trees are not modified.',
    '',
    '| tree | plans imported/found | v1 | lean | v2 (brief + reads) | v2 vs v1 | v2 vs lean | recall v1 / lean / v2 | plans v2 > lean |',
    '|---|---|---|---|---|---|---|---|---|',
    ...r.trees.map((t) => row(t.tree, t)),
    row('**total (weighted)**', r.total),
    `| mean over ${r.mean_over_trees.trees} trees | | | | | ${p(r.mean_over_trees.saving_pct)} | ${p(r.mean_over_trees.saving_vs_lean_pct)} | ${r.mean_over_trees.completeness_pct}% (v2) | |`,
    '',
    `Recall by kind of item (present/expected): units v1 ${k('v1', 'unit')}, lean ${k('lean', 'unit')}, v2 ${k('v2', 'unit')}; whole documents read v1 ${k('v1', 'read')}, lean ${k('lean', 'read')}, v2 ${k('v2', 'read')};`,
    `SUMMARYs read v1 ${k('v1', 'summary')}, lean ${k('lean', 'summary')}, v2 ${k('v2', 'summary')} (as capsules); results of dependencies v1 ${k('v1', 'capsule')}, lean ${k('lean', 'capsule')}, v2 ${k('v2', 'capsule')}; task lines ${k('v2', 'task_line')} in every arm.`,
    '',
    '### What each mechanism earns',
    '',
    '| arm | tokens | recall | tokens above v2 (what the missing mechanism saves) |',
    '|---|---|---|---|',
    ...ablation,
    `| v2 at lean's scope (the uncited \`<context>\` documents left out, as lean leaves them out; recall drops with them) | ${n(r.total.lean_scope.v2_tokens)} | ${r.total.lean_scope.recall}% | ${n(r.total.lean_scope.v2_tokens - r.total.v2_tokens)} |`,
    '',
    `At lean's scope v2 is ${p(r.total.lean_scope.saving_pct)} below v1 and ${p(r.total.lean_scope.saving_vs_lean_pct)} below lean, with higher recall than lean (${r.total.lean_scope.recall}% vs ${r.total.recall.lean}%): that is what unit resolution, capsules and ids earn over a careful person at equal scope.`,
    '',
    `Whole-file reads v2 counts (referenced by the plan, no part of them cited): ${[...reads].sort((a, b) => b[1].tokens - a[1].tokens).map(([kind, v]) => `${kind} ${n(v.tokens)} (${v.plans} plans)`).join(', ')}.`,
    '',
    `Results side: ${r.results.plans} SUMMARY.md files (what GSD's orchestrator and later plans read back) = ${n(r.results.summary_tokens)} tokens; a schema-valid \`task_result\` plus the plan's capsule = ${n(r.results.typed_tokens)} (${n(r.results.task_result_tokens)} + ${n(r.results.capsule_tokens)}), **${p(r.results.saving_pct)} fewer**.`,
    '',
    `Mutation test (full, every removal): ${n(totalMut)} mutations of the real v2 briefs (${Object.entries(mut.counts).map(([kk, v]) => `${n(v)} ${kk.replace('_', ' ')}s`).join(', ')}), ${mut.undetected.length === 0 ? '**every one detected by recall**' : `**${mut.undetected.length} undetected**: ${mut.undetected.slice(0, 5).join('; ')}`}.`,
    '',
    '### Targets',
    '',
    `- recall 100% with the mutation test passing: ${met(r.total.completeness_pct === 100 && mut.undetected.length === 0)} (${r.total.completeness_pct}%).`,
    `- v2 at least 80% below v1 in total: ${met(r.total.saving_pct >= 80)} (${p(r.total.saving_pct)}; ${p(r.total.lean_scope.saving_pct)} at lean's scope).`,
    `- v2 below lean in total: ${met(r.total.v2_tokens < r.total.lean_tokens)} (${p(r.total.saving_vs_lean_pct)}; ${p(r.total.lean_scope.saving_vs_lean_pct)} at lean's scope).`,
    '- Why: the plans name whole documents in `<context>` (PROJECT.md, STATE.md, the phase RESEARCH.md) and cite no part of them; v2 must carry or count such a read,',
    '  lean leaves it out (its recall of whole documents read is the figure above). The saving that comes from not sending them needs no protocol; v2 does not claim it.',
    `- The ceiling: the PLAN files alone are ${n(r.total.plan_tokens)} tokens, ${p(r.total.plan_only_saving_pct)} below v1 (${r.trees.map((t) => `${t.tree} ${p(t.plan_only_saving_pct)}`).join(', ')}). A brief carries its plan, so`,
    `  80% below v1 leaves ${n(Math.max(0, Math.floor(r.total.v1_tokens * 0.2) - r.total.plan_tokens))} tokens for everything the ${r.total.plans} plans reference (units, capsules, reads); v2 spends ${n(r.total.v2_tokens - r.total.plan_tokens)} (${n(r.total.lean_scope.v2_tokens - r.total.plan_tokens)} at lean's scope).`,
    `  Where a plan cites no id and names no \`<read_first>\` file, lean is the plan alone, and v2, which carries the plan and what it references, can only beat it by its ids.`,
    '',
    `Independent check (\`scripts/gsd-oracle.mjs\`, which shares no code with the product, over the emitted briefs): ${n(oracle.counts.ids)} cited ids, ${n(oracle.counts.context_reads)} planning files read from \`<context>\`, ${n(oracle.counts.reads)} \`<read_first>\` files, ${n(oracle.counts.sections)} sections the plans name (with \`§\` in a \`<read_first>\` item, or numbered beside a document in prose: \`RESEARCH.md Pattern 3\`), ${n(oracle.counts.line_ranges)} line ranges, ${n(oracle.counts.task_lines)} task lines in ${oracle.counts.plans} plans; ${oracle.misses.length === 0 ? '**none missing**' : `**${oracle.misses.length} missing**: ${oracle.misses.slice(0, 5).map((m) => `${m.tree}/${m.plan} ${m.kind} ${m.what}`).join('; ')}`}.`,
    '',
    `Plans where v2 exceeds lean (${r.over_lean.length}), with the reason:`,
    '',
    ...r.over_lean.map((o) => `- ${o.tree}/${o.id}: ${n(o.v2_tokens)} > ${n(o.lean_tokens)}: ${o.reason}`),
    '',
    `PLAN files not imported: ${
      r.trees
        .flatMap((t) => t.plan_files.filter((f) => f.status === 'skipped').map((f) => `${t.tree}/${f.file} (${f.reason})`))
        .join('; ') || 'none'
    }.`,
  ].join('\n');
}
