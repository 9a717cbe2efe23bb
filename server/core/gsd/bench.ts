/**
 * `heimdall bench gsd DIR`: what an orchestrator sends to its executors for a real GSD project,
 * today and with Heimdall, counted with the tokenizer.
 *
 * Method. The tree is copied to a temporary folder (the original is only read) and imported there
 * (symbols, one capsule per SUMMARY, the task list). Then, for every plan, phase by phase and wave
 * by wave:
 *  - v1 is what a GSD executor reads for the plan: the PLAN.md text as it is on disk, plus every
 *    `@.planning/...` file its `<context>` names (globs expanded, each file once, missing files
 *    counted as nothing). Files outside .planning (`@src/x.py`) and the GSD workflow files of
 *    `<execution_context>` are not counted, so v1 is a lower bound.
 *  - v2 is the Heimdall delta brief built by `buildBrief` (briefs.ts): the plan's task spec (see
 *    spec.ts: objective, tasks, verification and success criteria verbatim, frontmatter compacted,
 *    recurring paths and restated truths as ids, context references as one line of ids), the
 *    symbol entries the spec names, the capsule closure (`hydrate`) of its dependencies and of the
 *    SUMMARYs its context names, and the invariants reference (PROJECT.md). Documents the context
 *    names (research, phase context) are given as references the executor may open, not inlined;
 *    what an executor opens on demand is not counted on either side.
 *  - the floor is the plan's own `<objective>` and `<tasks>` text alone: no brief can be smaller
 *    without dropping the work itself. v2/floor says how close v2 comes to it.
 * v1 totals are recorded as the ledger baseline (`setBaseline`, role orchestration) and every v2
 * brief as a measured ledger line (`buildBrief` -> `logTokens`); the reported v2 total is read back
 * from the ledger delta and must equal the sum counted here.
 *
 * Completeness (spec.ts `checkCompleteness`): in every v2 brief, every id is defined in the brief
 * or the symbol table, every listed entry agrees with the table, every capsule dependency is
 * present, and every path, truth and requirement the plan names is reachable (literally or through
 * an id the brief carries). The percentage is passed checks over all checks.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Ctx, makeCtx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { buildBrief } from '../briefs/briefs.js';
import { computeDelta, setBaseline } from '../ledger/ledger.js';
import { logAction } from '../log/protocolLog.js';
import { readSymbols } from '../symbols/symbols.js';
import { type ImportReport, importGsd, treePaths } from './importer.js';
import { checkCompleteness, planSpec } from './spec.js';
import { type GsdPlan, contextFiles, resolveGsdDir } from './tree.js';

export const BENCH_ROLE = 'orchestration';

export interface BenchPlan {
  id: string;
  phase: string;
  phase_dir: string;
  wave: number;
  v1_tokens: number;
  v2_tokens: number;
  saving_pct: number;
  floor_tokens: number;
  v2_floor: number;
  completeness_pct: number;
  checks: number;
  failures: string[];
  context_files: number;
  missing_context: string[];
  capsules: string[];
  symbols: number;
  /** The two texts, when asked for (`texts: true`). */
  v1_text?: string;
  v2_text?: string;
}

export interface BenchTotals {
  plans: number;
  v1_tokens: number;
  v2_tokens: number;
  saving_pct: number;
  floor_tokens: number;
  v2_floor: number;
  completeness_pct: number;
  checks: number;
}

export interface BenchPhase extends BenchTotals {
  phase: string;
  phase_dir: string;
}

export interface BenchResult {
  project: string;
  planning_dir: string;
  tokenizer: string;
  run: string;
  total: BenchTotals;
  phases: BenchPhase[];
  plans: BenchPlan[];
  /** The ledger's view: baseline (v1) -> measured (v2) for this run. */
  ledger: { role: string; baseline: number; measured: number; line: string };
  import: Pick<ImportReport, 'plans' | 'summaries' | 'symbols' | 'capsules' | 'issues'>;
  failures: string[];
}

function pct(v1: number, v2: number): number {
  return v1 === 0 ? 0 : Math.round(((v1 - v2) / v1) * 1000) / 10;
}

function ratio(a: number, b: number): number {
  return b === 0 ? 0 : Math.round((a / b) * 100) / 100;
}

function totals(rows: BenchPlan[]): BenchTotals {
  const v1 = rows.reduce((s, r) => s + r.v1_tokens, 0);
  const v2 = rows.reduce((s, r) => s + r.v2_tokens, 0);
  const floor = rows.reduce((s, r) => s + r.floor_tokens, 0);
  const checks = rows.reduce((s, r) => s + r.checks, 0);
  const passed = rows.reduce((s, r) => s + (r.checks - r.failures.length), 0);
  return {
    plans: rows.length,
    v1_tokens: v1,
    v2_tokens: v2,
    saving_pct: pct(v1, v2),
    floor_tokens: floor,
    v2_floor: ratio(v2, floor),
    completeness_pct: checks === 0 ? 100 : Math.floor((passed / checks) * 1000) / 10,
    checks,
  };
}

/** Copy a folder's regular files and folders (writable, whatever the source's modes); links are skipped. */
export function copyTree(src: string, dest: string): void {
  fs.mkdirSync(dest, { recursive: true });
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    const s = path.join(src, e.name);
    const d = path.join(dest, e.name);
    if (e.isDirectory()) copyTree(s, d);
    else if (e.isFile()) fs.writeFileSync(d, fs.readFileSync(s));
  }
}

/** What a GSD executor reads for a plan: the plan, then each context file of .planning. */
export function v1Text(planningDir: string, plan: GsdPlan): { text: string; files: number; missing: string[] } {
  const parts = [plan.raw];
  const missing: string[] = [];
  let files = 0;
  for (const c of contextFiles({ planningDir }, plan.contextRefs)) {
    if (!c.exists) {
      missing.push(`.planning/${c.rel}`);
      continue;
    }
    files++;
    parts.push(`=== .planning/${c.rel} ===\n${fs.readFileSync(c.abs, 'utf8')}`);
  }
  return { text: parts.join('\n\n'), files, missing };
}

/** The plan's own objective and tasks; the whole body when it has neither. */
export function floorText(plan: GsdPlan): string {
  const pp = plan.parsed;
  const parts = [pp.objective, pp.tasks].filter((x): x is string => !!x && x.trim() !== '');
  return parts.length ? parts.join('\n\n') : pp.frontmatter.body;
}

export interface BenchOptions {
  run?: string;
  /** Keep the temporary copy (its path is `planning_dir`); removed by default. */
  keep?: boolean;
  /** Return the v1 and v2 texts of every plan. */
  texts?: boolean;
}

/**
 * Run the benchmark on the GSD tree at `dir` (a project folder or its .planning). `base` gives the
 * ports (clock, ids, tokenizer); its planning root is not touched.
 */
export function benchGsd(base: Ctx, dir: string, opts: BenchOptions = {}): BenchResult {
  const source = resolveGsdDir(dir);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-gsd-'));
  const planning = path.join(tmp, '.planning');
  try {
    copyTree(source, planning);
    const ctx = makeCtx(planning, { clock: base.clock, ids: base.ids, tokenizer: base.tokenizer, env: base.env });
    const run = opts.run ?? ctx.ids.next('gsd-');
    const { model, report } = importGsd(ctx, { from: planning });
    if (model.project.plans.length === 0) {
      throw new HeimdallError('not_found', `no NN-MM-PLAN.md files under ${path.join(source, 'phases')}; nothing to measure`);
    }
    logAction(ctx, 'protocol', 'bench', `start run ${run} (${source}, ${model.project.plans.length} plans)`);
    const table = readSymbols(ctx);
    const skipped = new Set(model.tasks.path_ids.skipped);
    const declaredPaths = new Set(treePaths(model.project));
    const count = (t: string) => ctx.tokenizer.count(t);
    const rows: BenchPlan[] = [];
    for (const plan of model.project.plans) {
      const v1 = v1Text(planning, plan);
      const spec = planSpec(model, plan);
      const brief = buildBrief(ctx, {
        task: plan.id,
        spec: spec.spec,
        symbols: spec.symbols,
        capsules: spec.capsules,
        invariants: spec.invariants,
        role: BENCH_ROLE,
        msgId: `${run}-${plan.id}`.slice(0, 64),
        run,
      });
      const c = checkCompleteness({
        brief: brief.text,
        table,
        plan,
        skipped,
        pathPrefix: model.tasks.path_ids.prefix,
        truthIds: model.truthIds.get(plan.id) ?? [],
        requirementIds: plan.parsed.requirements.map((r) => model.requirementIds.get(r) ?? r),
        declaredPaths,
      });
      const v1Tokens = count(v1.text);
      const floor = count(floorText(plan));
      rows.push({
        id: plan.id,
        phase: plan.phase,
        phase_dir: plan.phaseDir,
        wave: plan.wave,
        v1_tokens: v1Tokens,
        v2_tokens: brief.tokens,
        saving_pct: pct(v1Tokens, brief.tokens),
        floor_tokens: floor,
        v2_floor: ratio(brief.tokens, floor),
        completeness_pct: c.checks === 0 ? 100 : Math.floor((c.passed / c.checks) * 1000) / 10,
        checks: c.checks,
        failures: c.failures,
        context_files: v1.files,
        missing_context: v1.missing,
        capsules: brief.capsules,
        symbols: spec.symbols.length,
        ...(opts.texts ? { v1_text: v1.text, v2_text: brief.text } : {}),
      });
    }
    const total = totals(rows);
    setBaseline(ctx, BENCH_ROLE, total.v1_tokens);
    const delta = computeDelta(ctx, BENCH_ROLE, { run });
    if (delta.measured !== total.v2_tokens) {
      throw new HeimdallError('internal', `the ledger measured ${delta.measured} tokens for run ${run} but the bench counted ${total.v2_tokens}`);
    }
    logAction(ctx, 'protocol', 'bench', `run ${run}: ${delta.line}`);
    const phases: BenchPhase[] = [];
    for (const r of rows) {
      if (phases.some((p) => p.phase === r.phase)) continue;
      const mine = rows.filter((x) => x.phase === r.phase);
      phases.push({ phase: r.phase, phase_dir: r.phase_dir, ...totals(mine) });
    }
    return {
      project: path.basename(path.dirname(source)) || source,
      planning_dir: opts.keep ? planning : source,
      tokenizer: ctx.tokenizer.name,
      run,
      total,
      phases,
      plans: rows,
      ledger: { role: BENCH_ROLE, baseline: delta.baseline, measured: delta.measured, line: delta.line },
      import: { plans: report.plans, summaries: report.summaries, symbols: report.symbols, capsules: report.capsules, issues: report.issues },
      failures: rows.flatMap((r) => r.failures),
    };
  } finally {
    if (!opts.keep) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The per-phase table and total, as `heimdall bench gsd` prints it. */
export function formatBench(r: BenchResult): string[] {
  const head = ['phase', 'plans', 'v1 tokens', 'v2 tokens', 'saving', 'floor', 'v2/floor', 'complete'];
  const row = (name: string, t: BenchTotals) => [
    name,
    String(t.plans),
    String(t.v1_tokens),
    String(t.v2_tokens),
    `${t.saving_pct.toFixed(1)}%`,
    String(t.floor_tokens),
    `${t.v2_floor.toFixed(2)}x`,
    `${t.completeness_pct}%`,
  ];
  const rows = [head, ...r.phases.map((p) => row(p.phase_dir || p.phase, p)), row('total', r.total)];
  const widths = head.map((_, i) => Math.max(...rows.map((x) => (x[i] as string).length)));
  const fmt = (x: string[]) => x.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  const out = [`GSD token bench: ${r.project} (${r.total.plans} plans, ${r.phases.length} phases; tokenizer ${r.tokenizer})`, fmt(rows[0] as string[])];
  for (const x of rows.slice(1)) out.push(fmt(x));
  out.push(`ledger: ${r.ledger.line}`);
  out.push(`completeness: ${r.total.completeness_pct}% of ${r.total.checks} checks`);
  for (const f of r.failures.slice(0, 20)) out.push(`  missing: ${f}`);
  if (r.failures.length > 20) out.push(`  ... and ${r.failures.length - 20} more`);
  return out;
}
