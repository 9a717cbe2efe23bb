/**
 * `heimdall bench gsd DIR`: what an orchestrator sends the executors of a real GSD project, three
 * ways, counted with the tokenizer, with what each way leaves out.
 *
 * DIR is one GSD project (a folder holding `.planning/`, or the `.planning` folder itself) or a
 * folder of several (each child holding one): the trees. Each tree is copied to a temporary folder
 * (the original is only read) and imported there (units, symbols, capsules, the task list). Then
 * for every plan:
 *  - v1 (arms.ts): the PLAN.md plus every `@.planning/...` file its `<context>` names;
 *  - lean (arms.ts): the PLAN.md plus the whole files named in its `<read_first>` steps or holding
 *    a unit it cites by id;
 *  - v2 (brief.ts): the Heimdall brief, the closure of what the plan references resolved to units,
 *    capsules and ids, plus every file it must still read whole (counted);
 *  - the ablation: v2 without unit resolution, without capsules, without the symbol table;
 *  - recall (recall.ts) of every arm against the same items: the plan's lines, every unit it
 *    cites, every document it reads; `completeness_pct` is v2's recall;
 *  - the results side: the plan's SUMMARY.md (what GSD's orchestrator and later plans read back)
 *    against a typed task_result message plus its capsule.
 * Totals are weighted (sums over every plan of every tree) and also given as the plain mean over
 * trees. Without `record` nothing is written outside the temporary copies; with it the figures go
 * to the caller's ledger as one run (recordRun + one ledger line per plan per arm).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Ctx, makeCtx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type LogInput, logTokensBatch } from '../ledger/ledger.js';
import { recordRun } from '../ledger/runs.js';
import { validateMessage } from '../messages/validate.js';
import { checkName } from '../planning/ids.js';
import { floorText, leanText, v1Text } from './arms.js';
import { ALL_MECHANISMS, type BriefMechanisms, type BuiltBrief, buildGsdBrief, capsuleTextOf, renderReads, UNCITED_READ } from './brief.js';
import { type GsdImport, type ImportReport, importGsd } from './importer.js';
import { type RecallKind, type RecallResult, checkRecall, recallItems } from './recall.js';
import { type GsdPlan, type Issue, type PlanFileEntry, resolveGsdDir } from './tree.js';

export const BENCH_ROLE = 'orchestration';
export const BENCH_KIND = 'bench-gsd';

export const ARM_DESCRIPTIONS = {
  v1: 'what GSD sends: the PLAN.md plus every @.planning file its <context> names',
  lean: 'what a careful person sends without Heimdall: the PLAN.md plus the whole files its <read_first> steps name or that hold an id it cites',
  v2: 'the Heimdall brief: the plan, every unit it cites (exact text), capsules of its dependencies, ids where they save tokens, plus every referenced file it must still read whole',
} as const;

type AblationName = 'no_units' | 'no_capsules' | 'no_symbols';
const ABLATIONS: { name: AblationName; label: string; mech: BriefMechanisms }[] = [
  { name: 'no_units', label: 'v2 without unit resolution (referenced files read whole)', mech: { ...ALL_MECHANISMS, units: false } },
  { name: 'no_capsules', label: 'v2 without capsules (SUMMARY files read whole, no dependency capsules)', mech: { ...ALL_MECHANISMS, capsules: false } },
  { name: 'no_symbols', label: 'v2 without the symbol table (paths and truths as written)', mech: { ...ALL_MECHANISMS, symbols: false } },
];

export interface PlanRecall {
  v1: number;
  lean: number;
  v2: number;
  items: number;
  present: number;
  units: { items: number; present: number };
  reads: { items: number; present: number };
  summaries: { items: number; present: number };
  capsules: { items: number; present: number };
  task_lines: { items: number; present: number };
  plan_lines: { items: number; present: number };
  /** What v2 misses (empty when recall is 100%). */
  missing: string[];
  /** What lean misses (the first 10). */
  lean_missing: string[];
  /** Per arm and kind of item: [present, items]. */
  kinds: Record<'v1' | 'lean' | 'v2', Record<RecallKind, [number, number]>>;
}

export interface BenchPlan {
  tree: string;
  id: string;
  /** The PLAN file, relative to the tree. */
  path: string;
  phase: string;
  phase_dir: string;
  wave: number;
  v1_tokens: number;
  lean_tokens: number;
  v2_tokens: number;
  /** Of v2: the brief the orchestrator sends, and the whole-file reads the executor must make. */
  brief_tokens: number;
  read_tokens: number;
  /**
   * v2 at lean's scope: the brief plus only the whole-file reads lean also sends (read_first
   * documents), i.e. the uncited `<context>` documents left out as lean leaves them out. Not the
   * headline: it drops references, as lean does; it shows what the mechanisms earn at equal scope.
   */
  lean_scope_tokens: number;
  lean_scope_recall: number;
  /** The PLAN file as written, alone: no brief that carries the plan can cost less (bar ids). */
  plan_tokens: number;
  floor_tokens: number;
  saving_pct: number;
  saving_vs_lean_pct: number;
  completeness_pct: number;
  recall: PlanRecall;
  ablation: Record<AblationName, { tokens: number; recall: number }>;
  units: { id: string; how: string[]; cited: string[]; ambiguous?: boolean }[];
  refs: { via: string; path: string; resolution: string; units?: string[]; capsule?: string; note?: string }[];
  reads: { path: string; tokens: number; reason: string }[];
  capsules: string[];
  symbols: string[];
  /** Why v2 costs more than lean for this plan; absent when it does not. */
  over_lean?: string;
  results?: ResultsRow;
}

export interface ResultsRow {
  summary_tokens: number;
  task_result_tokens: number;
  capsule_tokens: number;
  typed_tokens: number;
  saving_pct: number;
}

export interface BenchTotals {
  plans: number;
  plans_found: number;
  plans_imported: number;
  v1_tokens: number;
  lean_tokens: number;
  v2_tokens: number;
  brief_tokens: number;
  read_tokens: number;
  /** The PLAN files as written, alone (see BenchPlan.plan_tokens). */
  plan_tokens: number;
  /** The saving v1 -> the PLAN files alone: the most any brief carrying each plan's text can save. */
  plan_only_saving_pct: number;
  floor_tokens: number;
  saving_pct: number;
  saving_vs_lean_pct: number;
  /** v2's recall over every item of every plan (see recall.ts). */
  completeness_pct: number;
  recall: { v1: number; lean: number; v2: number; items: number };
  /** Recall per arm and kind of item: [present, items]. */
  recall_kinds: Record<'v1' | 'lean' | 'v2', Record<RecallKind, [number, number]>>;
  /** v2 at lean's scope (see BenchPlan.lean_scope_tokens). */
  lean_scope: { v2_tokens: number; saving_pct: number; saving_vs_lean_pct: number; recall: number };
  /** Plans where v2 costs more than lean. */
  over_lean: number;
}

export interface BenchPhase extends BenchTotals {
  tree: string;
  phase: string;
  phase_dir: string;
}

export interface BenchTree extends BenchTotals {
  tree: string;
  /** The tree's folder as given (absolute). */
  dir: string;
  plan_files: PlanFileEntry[];
  import: Pick<ImportReport, 'units' | 'symbols' | 'capsules' | 'facts' | 'summaries'>;
  issues: Issue[];
}

export interface AblationRow {
  arm: 'lean' | AblationName | 'v2';
  label: string;
  tokens: number;
  recall: number;
  /** Tokens this arm spends beyond v2: what the mechanism it lacks saves. */
  over_v2: number;
}

export interface BenchResult {
  tokenizer: string;
  run: string;
  total: BenchTotals;
  /** The plain mean of the per-tree percentages. */
  mean_over_trees: { trees: number; saving_pct: number; saving_vs_lean_pct: number; completeness_pct: number };
  trees: BenchTree[];
  phases: BenchPhase[];
  plans: BenchPlan[];
  ablation: AblationRow[];
  results: { plans: number; summary_tokens: number; typed_tokens: number; task_result_tokens: number; capsule_tokens: number; saving_pct: number };
  /** Plans where v2 exceeds lean, with the reason. */
  over_lean: { tree: string; id: string; v2_tokens: number; lean_tokens: number; reason: string }[];
  arms: typeof ARM_DESCRIPTIONS;
  /** Set when --emit-briefs wrote the texts. */
  emitted?: string;
  /** Set when --record wrote the run into the caller's ledger. */
  recorded?: { run: string; lines: number; workspace: string };
}

export interface BenchOptions {
  run?: string;
  /** Write OUT/<plan>.v1.txt, .lean.txt, .v2.txt, .v2.resolved.txt (OUT/<tree>/... for several trees). */
  emitBriefs?: string;
  /** Write the run into the ledger of `base` (recordRun + one line per plan per arm). */
  record?: boolean;
  /** Keep the temporary copies (their paths are in trees[].dir's import). */
  keep?: boolean;
  /** Return the counted texts of every plan (tests). */
  texts?: boolean;
}

export interface PlanTexts {
  v1: string;
  lean: string;
  v2: string;
  v2_resolved: string;
  built: BuiltBrief;
}

function pct(base: number, v: number): number {
  return base === 0 ? 0 : Math.round(((base - v) / base) * 1000) / 10;
}

const KINDS: RecallKind[] = ['unit', 'read', 'summary', 'capsule', 'task_line', 'plan_line'];

function kindsOf(r: RecallResult): Record<RecallKind, [number, number]> {
  const out = {} as Record<RecallKind, [number, number]>;
  for (const k of KINDS) out[k] = [r.byKind[k].present, r.byKind[k].items];
  return out;
}

function floorPct(present: number, items: number): number {
  return items === 0 || present === items ? 100 : Math.floor((present / items) * 1000) / 10;
}

function totals(rows: BenchPlan[], found: number, imported: number): BenchTotals {
  const sum = (f: (r: BenchPlan) => number) => rows.reduce((s, r) => s + f(r), 0);
  const v1 = sum((r) => r.v1_tokens);
  const lean = sum((r) => r.lean_tokens);
  const v2 = sum((r) => r.v2_tokens);
  const items = sum((r) => r.recall.items);
  const present = sum((r) => r.recall.present);
  // Per-arm recall over all items: a plan's share is its own recall times its items.
  const armPresent = (k: 'v1' | 'lean' | 'v2') => sum((r) => Math.round((r.recall[k] / 100) * r.recall.items));
  const kinds = {} as BenchTotals['recall_kinds'];
  for (const arm of ['v1', 'lean', 'v2'] as const) {
    const k = {} as Record<RecallKind, [number, number]>;
    for (const kind of KINDS) k[kind] = [sum((r) => r.recall.kinds[arm][kind][0]), sum((r) => r.recall.kinds[arm][kind][1])];
    kinds[arm] = k;
  }
  const scope = sum((r) => r.lean_scope_tokens);
  return {
    plans: rows.length,
    plans_found: found,
    plans_imported: imported,
    v1_tokens: v1,
    lean_tokens: lean,
    v2_tokens: v2,
    brief_tokens: sum((r) => r.brief_tokens),
    read_tokens: sum((r) => r.read_tokens),
    plan_tokens: sum((r) => r.plan_tokens),
    plan_only_saving_pct: pct(v1, sum((r) => r.plan_tokens)),
    floor_tokens: sum((r) => r.floor_tokens),
    saving_pct: pct(v1, v2),
    saving_vs_lean_pct: pct(lean, v2),
    completeness_pct: floorPct(present, items),
    recall: { v1: floorPct(armPresent('v1'), items), lean: floorPct(armPresent('lean'), items), v2: floorPct(present, items), items },
    recall_kinds: kinds,
    lean_scope: {
      v2_tokens: scope,
      saving_pct: pct(v1, scope),
      saving_vs_lean_pct: pct(lean, scope),
      recall: floorPct(
        sum((r) => Math.round((r.lean_scope_recall / 100) * r.recall.items)),
        items,
      ),
    },
    over_lean: rows.filter((r) => r.over_lean).length,
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

/** The GSD trees of DIR: DIR itself when it is one, else each child folder that is one. */
function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function findTrees(dir: string): { name: string; dir: string; planning: string }[] {
  const abs = path.resolve(dir);
  try {
    const planning = resolveGsdDir(abs);
    return [{ name: path.basename(planning === abs ? path.dirname(abs) : abs) || abs, dir: abs, planning }];
  } catch (e) {
    if (!(e instanceof HeimdallError)) throw e;
  }
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(abs, { withFileTypes: true });
  } catch {
    throw new HeimdallError('not_found', `no such folder ${abs}: give a GSD project folder (holding .planning/) or a folder of them`);
  }
  const out: { name: string; dir: string; planning: string }[] = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const child = path.join(abs, e.name);
    // A project linked into the folder counts like one copied there.
    const folder = e.isDirectory() || (e.isSymbolicLink() && isFolder(child));
    if (!folder || e.name.startsWith('.')) continue;
    try {
      out.push({ name: e.name, dir: child, planning: resolveGsdDir(child) });
    } catch (err) {
      if (!(err instanceof HeimdallError)) throw err;
    }
  }
  if (out.length === 0) {
    throw new HeimdallError('not_found', `no GSD planning tree at ${abs} or in its folders: expected ${abs}/.planning/, a folder holding phases/ and ROADMAP.md, or child folders holding .planning/`);
  }
  return out;
}

/** Why v2 costs more than lean for a plan: what v2 carries that lean leaves out. */
function overLeanReason(ctx: Ctx, built: BuiltBrief, leanFiles: string[]): string {
  const parts: string[] = [];
  const read = built.reads.filter((r) => !leanFiles.includes(r.rel));
  // A read whose plan names what the file lacks, or whose note names nothing of it, says so itself.
  const extra = read.filter((r) => r.reason === UNCITED_READ);
  for (const r of read.filter((x) => x.reason !== UNCITED_READ)) {
    parts.push(`reads .planning/${r.rel} (${ctx.tokenizer.count(r.text)}) whole: ${r.reason.replace(/^referenced; /, '')}, so v2 counts the read; lean leaves it out`);
  }
  if (extra.length) {
    parts.push(
      `reads ${extra.map((r) => `.planning/${r.rel} (${ctx.tokenizer.count(r.text)})`).join(', ')} whole: the plan references ${extra.length === 1 ? 'it' : 'them'} and cites no part, so v2 counts the read; lean leaves ${extra.length === 1 ? 'it' : 'them'} out`,
    );
  }
  const leanless = built.units.filter((u) => !leanFiles.includes(u.file));
  if (leanless.length) parts.push(`carries ${leanless.length} cited unit${leanless.length === 1 ? '' : 's'} of files lean does not send (${leanless.slice(0, 4).map((u) => u.id).join(', ')}${leanless.length > 4 ? ', ...' : ''})`);
  if (built.capsules.length) parts.push(`carries ${built.capsules.length} capsule${built.capsules.length === 1 ? '' : 's'} (${built.capsules.map((c) => c.id).join(', ')})`);
  return parts.join('; ') || 'the brief framing (REFS lines, unit headers) costs more than it saves on this plan';
}

function resultsRow(ctx: Ctx, model: GsdImport, plan: GsdPlan): ResultsRow | undefined {
  const s = plan.summary;
  if (!s || !model.capsules.has(plan.id)) return undefined;
  const capsule = capsuleTextOf(ctx, plan.id);
  if (!capsule) return undefined;
  const commit = /\b(?:commit|sha)\b[^0-9a-f\n]{0,20}([0-9a-f]{7,40})\b/i.exec(s.raw)?.[1];
  const message: Record<string, unknown> = {
    type: 'task_result',
    from: 'executor',
    msg_id: `result-${plan.id}`,
    task: plan.id,
    status: 'pass',
    criteria: plan.parsed.truths.map((_, i) => i + 1),
    ...(commit ? { commit: commit.toLowerCase() } : {}),
    capsule: plan.id,
  };
  const v = validateMessage(message);
  if (!v.valid) throw new HeimdallError('internal', `the typed result of ${plan.id} is not a valid task_result: ${v.errors.join('; ')}`);
  const count = (t: string) => ctx.tokenizer.count(t);
  const summary = count(s.raw);
  const tr = count(JSON.stringify(message));
  const cap = count(capsule);
  return { summary_tokens: summary, task_result_tokens: tr, capsule_tokens: cap, typed_tokens: tr + cap, saving_pct: pct(summary, tr + cap) };
}

function recallOf(r: RecallResult): Omit<PlanRecall, 'v1' | 'lean' | 'lean_missing' | 'kinds'> {
  return {
    v2: r.pct,
    items: r.items,
    present: r.present,
    units: r.byKind.unit,
    reads: r.byKind.read,
    summaries: r.byKind.summary,
    capsules: r.byKind.capsule,
    task_lines: r.byKind.task_line,
    plan_lines: r.byKind.plan_line,
    missing: r.missing,
  };
}

function benchTree(base: Ctx, tree: { name: string; dir: string; planning: string }, opts: BenchOptions, sink: (tree: string, plan: BenchPlan, texts: PlanTexts) => void): BenchTree {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-gsd-'));
  const planning = path.join(tmp, '.planning');
  try {
    copyTree(tree.planning, planning);
    const ctx = makeCtx(planning, { clock: base.clock, ids: base.ids, tokenizer: base.tokenizer, env: base.env });
    const { model, report } = importGsd(ctx, { from: planning });
    const count = (t: string) => ctx.tokenizer.count(t);
    const rel = (p: GsdPlan) => path.relative(tree.dir, path.join(tree.planning, p.file)).split(path.sep).join('/');
    const rows: BenchPlan[] = [];
    for (const plan of model.project.plans) {
      const full = buildGsdBrief(ctx, model, plan);
      const items = recallItems(ctx, model, full);
      const v1 = v1Text(planning, plan);
      const lean = leanText(model.project, model.index, full.analysis);
      const r2 = checkRecall(full.counted, items);
      const r1 = checkRecall(v1.text, items);
      const rl = checkRecall(lean.text, items);
      const ablation = {} as BenchPlan['ablation'];
      for (const a of ABLATIONS) {
        const b = buildGsdBrief(ctx, model, plan, a.mech);
        ablation[a.name] = { tokens: count(b.counted), recall: checkRecall(b.counted, items).pct };
      }
      const v1Tokens = count(v1.text);
      const leanTokens = count(lean.text);
      const v2Tokens = count(full.counted);
      const briefTokens = count(full.text);
      const reads = full.reads.map((r) => ({ path: `.planning/${r.rel}`, tokens: count(r.text), reason: r.reason }));
      const scoped = full.text + renderReads(full.reads.filter((r) => lean.files.includes(r.rel)));
      const scopeRecall = checkRecall(scoped, items);
      const byId = new Map(full.analysis.units.map((c) => [c.id, c]));
      const row: BenchPlan = {
        tree: tree.name,
        id: plan.id,
        path: rel(plan),
        phase: plan.phase,
        phase_dir: plan.phaseDir,
        wave: plan.wave,
        v1_tokens: v1Tokens,
        lean_tokens: leanTokens,
        v2_tokens: v2Tokens,
        brief_tokens: briefTokens,
        read_tokens: reads.reduce((s, r) => s + r.tokens, 0),
        lean_scope_tokens: count(scoped),
        lean_scope_recall: scopeRecall.pct,
        plan_tokens: count(plan.raw),
        floor_tokens: count(floorText(plan)),
        saving_pct: pct(v1Tokens, v2Tokens),
        saving_vs_lean_pct: pct(leanTokens, v2Tokens),
        completeness_pct: r2.pct,
        recall: { ...recallOf(r2), v1: r1.pct, lean: rl.pct, lean_missing: rl.missing.slice(0, 10), kinds: { v1: kindsOf(r1), lean: kindsOf(rl), v2: kindsOf(r2) } },
        ablation,
        units: full.units.map((u) => {
          const c = byId.get(u.id);
          return { id: u.id, how: c?.how ?? [], cited: c?.cited ?? [], ...(c?.ambiguous ? { ambiguous: true } : {}) };
        }),
        refs: full.analysis.refs.map((r) => ({
          via: r.via,
          path: r.written,
          resolution: r.resolution,
          ...(r.units.length ? { units: r.units } : {}),
          ...(r.capsule ? { capsule: r.capsule } : {}),
          ...(r.note ? { note: r.note } : {}),
        })),
        reads,
        capsules: full.capsules.map((c) => c.id),
        symbols: full.symbols.map(([id]) => id),
      };
      if (v2Tokens > leanTokens) row.over_lean = overLeanReason(ctx, full, lean.files);
      const res = resultsRow(ctx, model, plan);
      if (res) row.results = res;
      rows.push(row);
      sink(tree.name, row, { v1: v1.text, lean: lean.text, v2: full.counted, v2_resolved: full.resolved, built: full });
    }
    const found = model.project.planFiles.length;
    const imported = model.project.planFiles.filter((f) => f.status === 'imported').length;
    return {
      tree: tree.name,
      dir: opts.keep ? tmp : tree.dir,
      ...totals(rows, found, imported),
      plan_files: model.project.planFiles,
      import: { units: report.units, symbols: report.symbols, capsules: report.capsules, facts: report.facts, summaries: report.summaries },
      issues: report.issues,
      plansRows: rows,
    } as BenchTree & { plansRows: BenchPlan[] };
  } finally {
    if (!opts.keep) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Run the benchmark on the GSD tree(s) at `dir`. `base` lends the ports (clock, ids, tokenizer);
 * its planning root is written only with `record` (the run and its ledger lines).
 */
export function benchGsd(base: Ctx, dir: string, opts: BenchOptions = {}): BenchResult & { texts?: Map<string, PlanTexts> } {
  const trees = findTrees(dir);
  const run = opts.run ?? base.ids.next('gsd-');
  if (opts.record) checkName('run', run);
  const texts = new Map<string, PlanTexts>();
  const multi = trees.length > 1;
  // Ledger fields are checked names: a folder called "my project" becomes my_project.
  const safe = (x: string) => x.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.{2,}/g, '.').replace(/^[^A-Za-z0-9]+/, '') || 'x';
  const qualify = (tree: string, s: string) => safe(multi ? `${tree}.${s}` : s);
  const ledger: LogInput[] = [];
  if (opts.emitBriefs) fs.mkdirSync(opts.emitBriefs, { recursive: true });
  const sink = (tree: string, row: BenchPlan, t: PlanTexts) => {
    if (opts.texts) texts.set(multi ? `${tree}/${row.id}` : row.id, t);
    if (opts.emitBriefs) {
      const out = multi ? path.join(opts.emitBriefs, tree) : opts.emitBriefs;
      fs.mkdirSync(out, { recursive: true });
      fs.writeFileSync(path.join(out, `${row.id}.v1.txt`), t.v1);
      fs.writeFileSync(path.join(out, `${row.id}.lean.txt`), t.lean);
      fs.writeFileSync(path.join(out, `${row.id}.v2.txt`), t.v2);
      fs.writeFileSync(path.join(out, `${row.id}.v2.resolved.txt`), t.v2_resolved);
    }
    if (opts.record) {
      const phase = qualify(tree, row.phase).slice(0, 64);
      const plan = qualify(tree, row.id).slice(0, 64);
      for (const [arm, text] of [
        ['v1', t.v1],
        ['lean', t.lean],
        ['v2', t.v2],
      ] as const) {
        ledger.push({ role: BENCH_ROLE, kind: 'gsd_brief', msgId: `${run}.${plan}.${arm}`.slice(0, 64), text, run, arm, phase, plan });
      }
    }
  };
  const treeRows = trees.map((t) => benchTree(base, t, opts, sink) as BenchTree & { plansRows: BenchPlan[] });
  const plans = treeRows.flatMap((t) => t.plansRows);
  const phases: BenchPhase[] = [];
  for (const t of treeRows) {
    const seen = new Set<string>();
    for (const r of t.plansRows) {
      if (seen.has(r.phase)) continue;
      seen.add(r.phase);
      const mine = t.plansRows.filter((x) => x.phase === r.phase);
      phases.push({ tree: t.tree, phase: r.phase, phase_dir: mine[0]?.phase_dir ?? '', ...totals(mine, mine.length, mine.length) });
    }
  }
  const treesOut: BenchTree[] = treeRows.map(({ plansRows: _rows, ...rest }) => rest);
  const found = treesOut.reduce((s, t) => s + t.plans_found, 0);
  const imported = treesOut.reduce((s, t) => s + t.plans_imported, 0);
  const total = totals(plans, found, imported);
  const mean = (f: (t: BenchTree) => number) => Math.round((treesOut.reduce((s, t) => s + f(t), 0) / Math.max(1, treesOut.length)) * 10) / 10;
  const sumAbl = (k: AblationName) => plans.reduce((s, p) => s + p.ablation[k].tokens, 0);
  const ablRecall = (k: AblationName) => {
    const items = plans.reduce((s, p) => s + p.recall.items, 0);
    return floorPct(
      plans.reduce((s, p) => s + Math.round((p.ablation[k].recall / 100) * p.recall.items), 0),
      items,
    );
  };
  const ablation: AblationRow[] = [
    { arm: 'lean', label: 'lean (no Heimdall)', tokens: total.lean_tokens, recall: total.recall.lean, over_v2: total.lean_tokens - total.v2_tokens },
    ...ABLATIONS.map((a) => ({ arm: a.name, label: a.label, tokens: sumAbl(a.name), recall: ablRecall(a.name), over_v2: sumAbl(a.name) - total.v2_tokens })),
    { arm: 'v2' as const, label: 'v2 (all mechanisms)', tokens: total.v2_tokens, recall: total.recall.v2, over_v2: 0 },
  ];
  const withResults = plans.filter((p) => p.results);
  const rsum = (f: (r: ResultsRow) => number) => withResults.reduce((s, p) => s + f(p.results as ResultsRow), 0);
  const results = {
    plans: withResults.length,
    summary_tokens: rsum((r) => r.summary_tokens),
    typed_tokens: rsum((r) => r.typed_tokens),
    task_result_tokens: rsum((r) => r.task_result_tokens),
    capsule_tokens: rsum((r) => r.capsule_tokens),
    saving_pct: pct(rsum((r) => r.summary_tokens), rsum((r) => r.typed_tokens)),
  };
  const result: BenchResult & { texts?: Map<string, PlanTexts> } = {
    tokenizer: base.tokenizer.name,
    run,
    total,
    mean_over_trees: { trees: treesOut.length, saving_pct: mean((t) => t.saving_pct), saving_vs_lean_pct: mean((t) => t.saving_vs_lean_pct), completeness_pct: mean((t) => t.completeness_pct) },
    trees: treesOut,
    phases,
    plans,
    ablation,
    results,
    over_lean: plans.filter((p) => p.over_lean).map((p) => ({ tree: p.tree, id: p.id, v2_tokens: p.v2_tokens, lean_tokens: p.lean_tokens, reason: p.over_lean as string })),
    arms: ARM_DESCRIPTIONS,
    ...(opts.emitBriefs ? { emitted: path.resolve(opts.emitBriefs) } : {}),
  };
  if (opts.record) {
    const workspace = trees.length === 1 ? (trees[0]?.name ?? path.basename(path.resolve(dir))) : path.basename(path.resolve(dir));
    const entries = logTokensBatch(base, ledger, `run ${run}: bench gsd ${workspace}, ${plans.length} plans x 3 arms`);
    const { texts: _t, ...details } = result;
    recordRun(base, { run, kind: BENCH_KIND, workspace, tokenizer: base.tokenizer.name, arms: { ...ARM_DESCRIPTIONS }, details });
    result.recorded = { run, lines: entries.length, workspace: base.root };
  }
  if (opts.texts) result.texts = texts;
  return result;
}

/** The per-phase table, totals, ablation and results side, as `heimdall bench gsd` prints them. */
export function formatBench(r: BenchResult): string[] {
  const head = ['phase', 'plans', 'v1', 'lean', 'v2', 'vs v1', 'vs lean', 'recall v2', 'lean'];
  const row = (name: string, t: BenchTotals) => [
    name,
    String(t.plans),
    String(t.v1_tokens),
    String(t.lean_tokens),
    String(t.v2_tokens),
    `${t.saving_pct.toFixed(1)}%`,
    `${t.saving_vs_lean_pct.toFixed(1)}%`,
    `${t.completeness_pct}%`,
    `${t.recall.lean}%`,
  ];
  const multi = r.trees.length > 1;
  const rows = [head, ...r.phases.map((p) => row(multi ? `${p.tree}/${p.phase_dir || p.phase}` : p.phase_dir || p.phase, p)), ...(multi ? r.trees.map((t) => row(`${t.tree} (tree)`, t)) : []), row('total', r.total)];
  const widths = head.map((_, i) => Math.max(...rows.map((x) => (x[i] as string).length)));
  const fmt = (x: string[]) => x.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ');
  const out = [
    `GSD token bench: ${r.trees.map((t) => t.tree).join(', ')} (${r.total.plans_imported} of ${r.total.plans_found} plan files imported; tokenizer ${r.tokenizer})`,
    fmt(rows[0] as string[]),
  ];
  for (const x of rows.slice(1)) out.push(fmt(x));
  if (multi) out.push(`mean over ${r.mean_over_trees.trees} trees: ${r.mean_over_trees.saving_pct}% vs v1, ${r.mean_over_trees.saving_vs_lean_pct}% vs lean`);
  out.push(`the PLAN files alone: ${r.total.plan_tokens} tokens, ${r.total.plan_only_saving_pct}% vs v1 (the most a brief that carries each plan can save)`);
  out.push(`v2 = ${r.total.brief_tokens} brief + ${r.total.read_tokens} whole-file reads; recall v1 ${r.total.recall.v1}%, lean ${r.total.recall.lean}%, v2 ${r.total.recall.v2}% of ${r.total.recall.items} items`);
  const k = (arm: 'v1' | 'lean' | 'v2') => KINDS.map((kind) => `${kind.replace('_', ' ')}s ${r.total.recall_kinds[arm][kind][0]}/${r.total.recall_kinds[arm][kind][1]}`).join(', ');
  for (const arm of ['v1', 'lean', 'v2'] as const) out.push(`  ${arm}: ${k(arm)}`);
  out.push(
    `v2 at lean's scope (uncited <context> documents left out, as lean does): ${r.total.lean_scope.v2_tokens} tokens, ${r.total.lean_scope.saving_pct}% vs v1, ${r.total.lean_scope.saving_vs_lean_pct}% vs lean, recall ${r.total.lean_scope.recall}%`,
  );
  out.push('ablation (tokens, recall, tokens above v2 = what the missing mechanism saves):');
  for (const a of r.ablation) out.push(`  ${a.label}: ${a.tokens} tokens, recall ${a.recall}%, ${a.over_v2 >= 0 ? '+' : ''}${a.over_v2}`);
  out.push(`results side: ${r.results.plans} SUMMARY.md = ${r.results.summary_tokens} tokens vs task_result + capsule = ${r.results.typed_tokens} (${r.results.saving_pct}% fewer)`);
  if (r.over_lean.length) {
    out.push(`v2 above lean on ${r.over_lean.length} plan${r.over_lean.length === 1 ? '' : 's'}:`);
    for (const o of r.over_lean.slice(0, 30)) out.push(`  ${multi ? `${o.tree}/` : ''}${o.id}: ${o.v2_tokens} > ${o.lean_tokens}: ${o.reason}`);
    if (r.over_lean.length > 30) out.push(`  ... and ${r.over_lean.length - 30} more (--json lists all)`);
  }
  const missing = r.plans.filter((p) => p.recall.missing.length);
  for (const p of missing.slice(0, 10)) out.push(`  missing in ${p.id}: ${p.recall.missing.slice(0, 3).join('; ')}`);
  const skipped = r.trees.flatMap((t) => t.plan_files.filter((f) => f.status === 'skipped').map((f) => `${multi ? `${t.tree}/` : ''}${f.file}: ${f.reason}`));
  for (const s of skipped) out.push(`  not imported: ${s}`);
  if (r.emitted) out.push(`briefs written to ${r.emitted}`);
  if (r.recorded) out.push(`recorded run ${r.recorded.run}: ${r.recorded.lines} ledger lines in ${r.recorded.workspace}`);
  return out;
}
