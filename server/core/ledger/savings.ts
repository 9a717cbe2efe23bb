/**
 * Savings: the one computation behind every savings figure Heimdall shows (Studio's card, charts
 * and tables, `heimdall-ledger report` and `delta`, the exported PNG). Nothing else divides tokens.
 *
 * A figure always compares like with like. The unit is a *scope*:
 *  - a run (its ledger lines share a `run` id): each role's measured (v2) lines against the same
 *    run's `v1` lines for that role, and against its `lean` lines when it has some;
 *  - a run written before runs had arms (it has no v1 line at all): against the workspace baseline
 *    in baselines.json, and every view says so;
 *  - the lines without a run (logged by hand, as in the spec's example): against baselines.json.
 * Summing several runs against one baseline is never done: that is how a card came to say 64%
 * while the same page's chart said 82%.
 *
 * A role with no measured line in the scope is absent (it did not run; "0 tokens, 100% saved" would
 * be a lie), and a role without a baseline shows its tokens and no percentage. Every percentage is
 * rounded by `roundPct`, half away from zero, so -72.5 and 72.5 are the same 73 on every view.
 *
 * A GSD bench run (kind `bench-gsd`) is also broken down per phase and per plan from its lines
 * alone (each line names its `phase` and `plan`); its record's `details` (the bench's JSON) add
 * what lines cannot carry: content recall and the mechanism ablation. Details are read tolerantly:
 * whatever part is missing is named in `gsd.missing`, never invented.
 */
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { checkName } from '../planning/ids.js';
import { type LedgerEntry, readBaselines, readLedger } from './ledger.js';
import { type Arm, type RunRecord, armOf, listRuns } from './runs.js';

/** The scope of the ledger lines that have no `run` (`--run -` on the command line, `?run=-` in Studio). */
export const NO_RUN = '-';

/** Where a scope's baseline comes from. */
export type BaselineSource = 'run' | 'workspace' | 'none';

/** A percentage rounded to a whole number, half away from zero (so a saving and its change agree). */
export function roundPct(x: number): number {
  const r = Math.round(Math.abs(x));
  return r === 0 ? 0 : Math.sign(x) * r;
}

/** Rounded change from `from` to `to` in percent (negative is a saving); undefined when `from` is 0. */
export function changePct(from: number, to: number): number | undefined {
  return from > 0 ? roundPct(((to - from) / from) * 100) : undefined;
}

/** `-73%`, `+25%`, `0%`: a change as the CLI prints it. */
export function formatPct(pct: number): string {
  const r = roundPct(pct);
  return `${r > 0 ? '+' : r < 0 ? '-' : ''}${Math.abs(r)}%`;
}

function savedOf(pct: number | undefined): number | undefined {
  return pct === undefined ? undefined : pct === 0 ? 0 : -pct;
}

export interface RoleSaving {
  role: string;
  /** Measured (v2) lines of the role in the scope, and their tokens. */
  entries: number;
  tokens: number;
  counted_tokens: number;
  reported_tokens: number;
  /** What the role is compared with: its v1 tokens in the run, or its baselines.json entry. */
  baseline?: number;
  /** Its lean tokens in the run, when the run has a lean arm. */
  lean?: number;
  /** Rounded change from baseline to measured, in percent; negative is a saving. */
  pct?: number;
  /** The same figure as a saving (positive is a saving): `-pct`. */
  saved_pct?: number;
  /** Rounded saving against the lean arm. */
  saved_vs_lean_pct?: number;
}

/** One scope as the run picker and the chart over time list it. */
export interface RunSummary {
  /** The run id, or NO_RUN for the lines without a run. */
  run: string;
  label: string;
  kind?: string;
  workspace?: string;
  /** When the run was measured: its record's time, else its first line's. */
  at: string;
  /** Its newest line (or its record's time); the latest scope by this is the default view. */
  last: string;
  lines: number;
  record: boolean;
  baseline: BaselineSource;
  /** Per role with measured lines and a baseline: the saving, exactly as the scope's own figures. */
  saved: Record<string, number>;
}

/** The three arms of a GSD figure (a plan, a phase or the whole run) and the savings between them. */
export interface ArmFigures {
  v1?: number;
  lean?: number;
  v2?: number;
  /** Rounded saving of v2 against v1, when both were measured. */
  saved_pct?: number;
  /** Rounded saving of v2 against lean, when both were measured. */
  saved_vs_lean_pct?: number;
}

/** Content recall as the bench measured it: v2's (the headline), and each arm's when it wrote them. */
export interface RecallFigures {
  recall_pct?: number;
  recall_arms?: Partial<Record<Arm, number>>;
}

export interface GsdPlanRow extends ArmFigures, RecallFigures {
  plan: string;
  phase: string;
  /** From the run record's details, when present. */
  path?: string;
}

export interface GsdPhaseRow extends ArmFigures, RecallFigures {
  phase: string;
  plans: number;
}

export interface GsdAblationRow {
  /** The variant's key in the details (e.g. `no_units`). */
  name: string;
  /** Its numeric figures as the bench wrote them (tokens, saving, recall, ...). */
  figures: Record<string, number>;
  /** The variant's own words, when it has a `label` or `description`. */
  label?: string;
}

export interface GsdView {
  total: ArmFigures & RecallFigures & { completeness_pct?: number; plans_found?: number; plans_imported?: number };
  phases: GsdPhaseRow[];
  plans: GsdPlanRow[];
  ablation: GsdAblationRow[];
  /** Parts of the run record's details that were absent or unreadable (shown as such, not guessed). */
  missing: string[];
}

export interface Savings {
  /** The scope shown: a run id, NO_RUN, or null when the ledger holds nothing yet. */
  run: string | null;
  label: string;
  kind?: string;
  /** The project measured: the run record's workspace, else the folder holding the planning tree. */
  workspace: string;
  /** When: the run record's time, else the scope's first line (ISO). */
  date?: string;
  /** The tokenizer that counted the scope's lines (the run record's, else the lines'). */
  tokenizer: string;
  baseline: BaselineSource;
  /** One sentence saying what every percentage of this scope compares. */
  compared_with: string;
  /** What each arm's text is, from the run record (or the plain meaning for lines without one). */
  arms: Partial<Record<Arm, string>>;
  /** Roles with measured lines in the scope, by name. */
  roles: RoleSaving[];
  /** Over the roles that have a baseline. */
  total?: { baseline: number; tokens: number; lean?: number; pct?: number; saved_pct?: number; saved_vs_lean_pct?: number };
  /** Every measured token in the scope, with or without a baseline. */
  total_tokens: number;
  /** Provider-reported (not tokenizer-counted) measured tokens in the scope. */
  reported_tokens: number;
  /** Present for a run whose lines name GSD plans (a `bench-gsd` run). */
  gsd?: GsdView;
  /** Every scope, newest first: the run picker and the chart over time. */
  runs: RunSummary[];
  tornLine?: number;
}

interface Scope {
  run: string;
  lines: LedgerEntry[];
  record?: RunRecord;
  /** Index of its last line in ledger.jsonl: breaks ties between scopes written in the same second. */
  order: number;
}

const DEFAULT_ARMS: Partial<Record<Arm, string>> = {
  v1: 'the v1 baseline recorded in baselines.json',
  v2: 'what was sent with Heimdall, as logged to the ledger',
};

function scopesOf(entries: LedgerEntry[], records: RunRecord[]): Map<string, Scope> {
  const scopes = new Map<string, Scope>();
  for (const r of records) scopes.set(r.run, { run: r.run, lines: [], record: r, order: -1 });
  entries.forEach((e, i) => {
    const id = typeof e.run === 'string' && e.run !== '' ? e.run : NO_RUN;
    let s = scopes.get(id);
    if (!s) {
      s = { run: id, lines: [], order: i };
      scopes.set(id, s);
    }
    s.lines.push(e);
    s.order = i;
  });
  return scopes;
}

function baselineSource(scope: Scope, baselines: Record<string, number>): BaselineSource {
  if (scope.run !== NO_RUN && scope.lines.some((e) => armOf(e) === 'v1')) return 'run';
  return Object.keys(baselines).length > 0 ? 'workspace' : 'none';
}

function roleFigures(scope: Scope, source: BaselineSource, baselines: Record<string, number>): RoleSaving[] {
  const measured = new Map<string, RoleSaving>();
  const v1 = new Map<string, number>();
  const lean = new Map<string, number>();
  for (const e of scope.lines) {
    const arm = armOf(e);
    if (arm === 'v1') v1.set(e.role, (v1.get(e.role) ?? 0) + e.tokens);
    else if (arm === 'lean') lean.set(e.role, (lean.get(e.role) ?? 0) + e.tokens);
    else {
      const r = measured.get(e.role) ?? { role: e.role, entries: 0, tokens: 0, counted_tokens: 0, reported_tokens: 0 };
      r.entries++;
      r.tokens += e.tokens;
      if (e.source === 'tokenizer') r.counted_tokens += e.tokens;
      else r.reported_tokens += e.tokens;
      measured.set(e.role, r);
    }
  }
  // Only roles that were measured here: a role with a baseline and no line did not run.
  const roles = [...measured.values()].sort((a, b) => a.role.localeCompare(b.role));
  for (const r of roles) {
    const base = source === 'run' ? v1.get(r.role) : source === 'workspace' ? baselines[r.role] : undefined;
    if (base !== undefined) {
      r.baseline = base;
      const pct = changePct(base, r.tokens);
      if (pct !== undefined) {
        r.pct = pct;
        r.saved_pct = savedOf(pct) as number;
      }
    }
    const l = lean.get(r.role);
    if (source === 'run' && l !== undefined) {
      r.lean = l;
      const lp = savedOf(changePct(l, r.tokens));
      if (lp !== undefined) r.saved_vs_lean_pct = lp;
    }
  }
  return roles;
}

/** The folder holding the planning tree (the project), for lines without a run record to name it. */
function workspaceName(ctx: Ctx): string {
  const root = ctx.root.replace(/[\\/]+$/, '');
  const name = path.basename(root) === '.planning' ? path.basename(path.dirname(root)) : path.basename(root);
  return name && name !== '.' ? name : root;
}

function firstTs(lines: LedgerEntry[]): string | undefined {
  let t: string | undefined;
  for (const e of lines) if (typeof e.ts === 'string' && (t === undefined || e.ts < t)) t = e.ts;
  return t;
}

function lastTs(lines: LedgerEntry[]): string | undefined {
  let t: string | undefined;
  for (const e of lines) if (typeof e.ts === 'string' && (t === undefined || e.ts > t)) t = e.ts;
  return t;
}

/** Seconds precision, so a record's `created` (with milliseconds) and a line's `ts` compare as times. */
function norm(iso: string | undefined): string {
  if (!iso) return '';
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString();
}

function labelOf(scope: Scope, at: string): string {
  if (scope.run === NO_RUN) return 'Lines without a run';
  const day = at ? `${at.slice(0, 10)} ${at.slice(11, 16)} UTC` : '';
  const r = scope.record;
  return [scope.run, r ? `${r.kind}, ${r.workspace}` : 'no run record', day].filter(Boolean).join(' · ');
}

function summarize(scope: Scope, baselines: Record<string, number>): RunSummary {
  const source = baselineSource(scope, baselines);
  const at = norm(scope.record?.created ?? firstTs(scope.lines));
  const last = [norm(lastTs(scope.lines)), at].sort().at(-1) ?? '';
  const saved: Record<string, number> = {};
  for (const r of roleFigures(scope, source, baselines)) if (r.saved_pct !== undefined) saved[r.role] = r.saved_pct;
  return {
    run: scope.run,
    label: labelOf(scope, at),
    ...(scope.record ? { kind: scope.record.kind, workspace: scope.record.workspace } : {}),
    at,
    last,
    lines: scope.lines.length,
    record: scope.record !== undefined,
    baseline: source,
    saved,
  };
}

function comparedWith(source: BaselineSource, scope: Scope | undefined): string {
  if (!scope) return 'Nothing measured yet.';
  if (source === 'run') {
    const lean = scope.lines.some((e) => armOf(e) === 'lean');
    return `Each role against the v1 lines of this run${lean ? ' (and its lean lines)' : ''}: the same work, measured both ways in one run.`;
  }
  if (source === 'workspace') {
    return scope.run === NO_RUN
      ? 'Lines logged without a run, against the workspace baseline in baselines.json (one figure per role, set by hand or by an older run).'
      : 'This run has no v1 lines of its own (it predates per-run baselines): each role against the workspace baseline in baselines.json, which may come from a different run.';
  }
  return scope.run === NO_RUN
    ? 'No baseline: baselines.json is empty, so these lines are shown without a saving.'
    : 'No baseline: this run has no v1 lines and baselines.json is empty, so it is shown without a saving.';
}

function tokenizerOf(ctx: Ctx, scope: Scope | undefined): string {
  if (scope?.record) return scope.record.tokenizer;
  const names = [...new Set((scope?.lines ?? []).filter((e) => e.source === 'tokenizer' && e.tokenizer).map((e) => e.tokenizer as string))];
  return names.length > 0 ? names.join(', ') : ctx.tokenizer.name;
}

/** All scopes and the chosen one, from one read of the ledger, baselines.json and the run records. */
function load(ctx: Ctx) {
  const { entries, tornLine } = readLedger(ctx);
  const baselines = readBaselines(ctx);
  const scopes = scopesOf(entries, listRuns(ctx));
  const order = (r: RunSummary) => scopes.get(r.run)?.order ?? -1;
  const runs = [...scopes.values()]
    .map((s) => summarize(s, baselines))
    .sort((a, b) => b.last.localeCompare(a.last) || order(b) - order(a) || b.run.localeCompare(a.run));
  return { scopes, baselines, runs, tornLine };
}

function pick(scopes: Map<string, Scope>, runs: RunSummary[], run: string | undefined): Scope | undefined {
  if (run === undefined || run === '') return runs[0] ? scopes.get(runs[0].run) : undefined;
  if (run !== NO_RUN) checkName('run', run);
  const s = scopes.get(run);
  if (!s) {
    const known = runs.slice(0, 8).map((r) => r.run);
    throw new HeimdallError(
      'not_found',
      run === NO_RUN
        ? 'the ledger has no lines without a run'
        : `no run ${JSON.stringify(run)} in the ledger${known.length ? `; runs, newest first: ${known.join(', ')}${runs.length > known.length ? ', ...' : ''}` : ' (it holds no runs yet)'}`,
    );
  }
  return s;
}

/**
 * The savings of one scope: the run `opts.run` (NO_RUN for the lines without a run), or by default
 * the latest scope. Throws not_found for a run the ledger does not know.
 */
export function savings(ctx: Ctx, opts: { run?: string } = {}): Savings {
  const { scopes, baselines, runs, tornLine } = load(ctx);
  const scope = pick(scopes, runs, opts.run);
  const source = scope ? baselineSource(scope, baselines) : 'none';
  const roles = scope ? roleFigures(scope, source, baselines) : [];
  const based = roles.filter((r) => r.baseline !== undefined);
  let total: Savings['total'];
  if (based.length > 0) {
    const baseline = based.reduce((s, r) => s + (r.baseline as number), 0);
    const tokens = based.reduce((s, r) => s + r.tokens, 0);
    const pct = changePct(baseline, tokens);
    total = { baseline, tokens, ...(pct !== undefined ? { pct, saved_pct: savedOf(pct) as number } : {}) };
    if (based.every((r) => r.lean !== undefined)) {
      const lean = based.reduce((s, r) => s + (r.lean as number), 0);
      total.lean = lean;
      const lp = savedOf(changePct(lean, tokens));
      if (lp !== undefined) total.saved_vs_lean_pct = lp;
    }
  }
  const summary = scope ? runs.find((r) => r.run === scope.run) : undefined;
  const record = scope?.record;
  const out: Savings = {
    run: scope ? scope.run : null,
    label: summary?.label ?? 'Nothing measured yet',
    ...(record ? { kind: record.kind } : {}),
    workspace: record?.workspace ?? workspaceName(ctx),
    ...(summary?.at ? { date: summary.at } : {}),
    tokenizer: tokenizerOf(ctx, scope),
    baseline: source,
    compared_with: comparedWith(source, scope),
    arms: record ? { ...record.arms } : source === 'workspace' ? { ...DEFAULT_ARMS } : {},
    roles,
    ...(total ? { total } : {}),
    total_tokens: roles.reduce((s, r) => s + r.tokens, 0),
    reported_tokens: roles.reduce((s, r) => s + r.reported_tokens, 0),
    runs,
    ...(tornLine ? { tornLine } : {}),
  };
  if (scope && scope.run !== NO_RUN && (record?.kind === 'bench-gsd' || scope.lines.some((e) => e.plan !== undefined))) {
    out.gsd = gsdView(scope);
  }
  return out;
}

/** The per-role report `heimdall-ledger report` prints: the savings of one scope. */
export type LedgerReport = Savings;

/** `heimdall-ledger report [--run R]`: the same object as `savings`. */
export function report(ctx: Ctx, opts: { run?: string } = {}): LedgerReport {
  return savings(ctx, opts);
}

/** The latest `limit` ledger lines of one scope (default: the latest), newest first. */
export function scopeLines(ctx: Ctx, opts: { run?: string; limit?: number } = {}): { run: string | null; entries: LedgerEntry[]; total: number; tornLine?: number } {
  const { scopes, runs, tornLine } = load(ctx);
  const scope = pick(scopes, runs, opts.run);
  const limit = opts.limit ?? 25;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new HeimdallError('invalid', `limit must be an integer from 1 to 1000, got ${limit}`);
  const lines = scope?.lines ?? [];
  return { run: scope?.run ?? null, entries: lines.slice(-limit).reverse(), total: lines.length, ...(tornLine ? { tornLine } : {}) };
}

export interface Delta {
  role: string;
  /** The scope compared (a run id, or NO_RUN). */
  run: string;
  baseline: number;
  baseline_source: Exclude<BaselineSource, 'none'>;
  measured: number;
  /** Rounded percentage change from baseline to measured (negative is a saving). */
  pct: number;
  line: string;
  tokenizer: string;
  tornLine?: number;
}

/**
 * `orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)` for one role in one scope
 * (by default the latest): the baseline is the run's own v1 lines, or baselines.json for lines
 * without a run and runs without v1 lines. A role with no baseline or no measured line there has
 * no delta (not_found), never "0 tokens, -100%".
 */
export function computeDelta(ctx: Ctx, role: string, opts: { run?: string } = {}): Delta {
  checkName('role', role);
  const s = savings(ctx, opts);
  const where = s.run === null ? '' : s.run === NO_RUN ? ' among the lines without a run' : ` in run ${s.run}`;
  if (s.baseline === 'none' || s.run === null) {
    throw new HeimdallError('not_found', `no baseline for role ${role}${where}; record one with: heimdall-ledger baseline --role ${role} --tokens N (or measure a run: heimdall bench gsd . --record)`);
  }
  const r = s.roles.find((x) => x.role === role);
  if (r === undefined) {
    throw new HeimdallError('not_found', `role ${role} has no measured lines${where}, so it has no saving there`);
  }
  if (r.baseline === undefined) {
    throw new HeimdallError(
      'not_found',
      s.baseline === 'run' ? `run ${s.run} has no v1 lines for role ${role}, so it has no baseline` : `no baseline for role ${role}; record one with: heimdall-ledger baseline --role ${role} --tokens N`,
    );
  }
  const pct = r.pct ?? 0;
  return {
    role,
    run: s.run,
    baseline: r.baseline,
    baseline_source: s.baseline,
    measured: r.tokens,
    pct,
    line: `${role}: ${r.baseline} -> ${r.tokens} tokens (v1 baseline -> measured; ${formatPct(pct)})`,
    tokenizer: s.tokenizer,
    ...(s.tornLine ? { tornLine: s.tornLine } : {}),
  };
}

// ---- GSD runs: arms per phase and per plan from the lines, recall and ablation from the record ----

function arms(lines: LedgerEntry[]): ArmFigures {
  const f: ArmFigures = {};
  for (const e of lines) {
    const a = armOf(e);
    f[a] = (f[a] ?? 0) + e.tokens;
  }
  return withSavings(f);
}

function withSavings(f: ArmFigures): ArmFigures {
  if (f.v1 !== undefined && f.v2 !== undefined) {
    const s = savedOf(changePct(f.v1, f.v2));
    if (s !== undefined) f.saved_pct = s;
  }
  if (f.lean !== undefined && f.v2 !== undefined) {
    const s = savedOf(changePct(f.lean, f.v2));
    if (s !== undefined) f.saved_vs_lean_pct = s;
  }
  return f;
}

const byNatural = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * A recall figure in percent, as the bench wrote it: a number, or an object with one figure per arm
 * (`{v1, lean, v2, items}`: v2's is the headline), or with `pct` / `recall_pct`.
 */
function recallFigures(v: unknown): RecallFigures {
  const n = num(v);
  if (n !== undefined) return { recall_pct: n };
  const o = obj(v);
  if (!o) return {};
  const arms: Partial<Record<Arm, number>> = {};
  for (const a of ['v1', 'lean', 'v2'] as const) {
    const x = num(o[a]);
    if (x !== undefined) arms[a] = x;
  }
  const pct = arms.v2 ?? num(o.pct) ?? num(o.recall_pct);
  return { ...(pct !== undefined ? { recall_pct: pct } : {}), ...(Object.keys(arms).length > 0 ? { recall_arms: arms } : {}) };
}

function recallOf(o: Record<string, unknown>): RecallFigures {
  const r = recallFigures(o.recall);
  if (r.recall_pct !== undefined) return r;
  const direct = num(o.recall_pct);
  return direct !== undefined ? { ...r, recall_pct: direct } : r;
}

/**
 * The keys a details entry answers to: its id, and `tree.id` (a bench over several trees names
 * its lines' phases and plans that way, and its details by tree and id).
 */
function keysOf(o: Record<string, unknown>, idKeys: string[]): string[] {
  const id = idKeys.map((k) => o[k]).find((v): v is string => typeof v === 'string');
  if (id === undefined) return [];
  return typeof o.tree === 'string' ? [`${o.tree}.${id}`, id] : [id];
}

/**
 * Arms come from the run's own lines only (a run without v1 lines shows no v1 column and no saving
 * here, whatever baselines.json says).
 */
function gsdView(scope: Scope): GsdView {
  const missing: string[] = [];
  const details = obj(scope.record?.details);
  if (!scope.record) missing.push('run record');
  else if (!details) missing.push('details');

  const planLines = scope.lines.filter((e) => e.plan !== undefined || e.phase !== undefined);
  const byPlan = new Map<string, LedgerEntry[]>();
  const byPhase = new Map<string, LedgerEntry[]>();
  for (const e of planLines) {
    const phase = e.phase ?? '(no phase)';
    const plan = e.plan ?? '(no plan)';
    const k = `${phase}\u0000${plan}`;
    byPlan.set(k, [...(byPlan.get(k) ?? []), e]);
    byPhase.set(phase, [...(byPhase.get(phase) ?? []), e]);
  }

  const detailPlans = new Map<string, Record<string, unknown>>();
  const rawPlans = details?.plans;
  if (details && !Array.isArray(rawPlans)) missing.push('plans');
  for (const p of Array.isArray(rawPlans) ? rawPlans : []) {
    const o = obj(p);
    // The qualified key first, so a plain id shared by two trees never shadows it.
    if (o) for (const k of keysOf(o, ['id', 'plan'])) if (!detailPlans.has(k)) detailPlans.set(k, o);
  }
  const detailPhases = new Map<string, Record<string, unknown>>();
  const rawPhases = details?.phases;
  if (details && !Array.isArray(rawPhases)) missing.push('phases');
  for (const p of Array.isArray(rawPhases) ? rawPhases : []) {
    const o = obj(p);
    if (o) for (const k of keysOf(o, ['phase', 'id'])) if (!detailPhases.has(k)) detailPhases.set(k, o);
  }

  const plans: GsdPlanRow[] = [...byPlan.entries()].map(([k, lines]) => {
    const [phase, plan] = k.split('\u0000') as [string, string];
    const d = detailPlans.get(plan);
    const row: GsdPlanRow = { plan, phase, ...arms(lines) };
    if (d && typeof d.path === 'string') row.path = d.path;
    return d ? Object.assign(row, recallOf(d)) : row;
  });
  plans.sort((a, b) => byNatural(a.phase, b.phase) || byNatural(a.plan, b.plan));
  if (plans.length > 0 && details && plans.every((p) => p.recall_pct === undefined)) missing.push('recall');

  const phases: GsdPhaseRow[] = [...byPhase.entries()].map(([phase, lines]) => {
    const d = detailPhases.get(phase);
    const row: GsdPhaseRow = { phase, plans: new Set(lines.map((e) => e.plan)).size, ...arms(lines) };
    return d ? Object.assign(row, recallOf(d)) : row;
  });
  phases.sort((a, b) => byNatural(a.phase, b.phase));

  const total: GsdView['total'] = arms(scope.lines);
  const t = obj(details?.total);
  if (details && !t) missing.push('total');
  if (t) {
    Object.assign(total, recallOf(t));
    for (const k of ['completeness_pct', 'plans_found', 'plans_imported'] as const) {
      const v = num(t[k]);
      if (v !== undefined) total[k] = v;
      else missing.push(`total.${k}`);
    }
  }

  const ablation = ablationRows(details?.ablation);
  if (details && ablation.length === 0) missing.push('ablation');
  return { total, phases, plans, ablation, missing };
}

function ablationRows(raw: unknown): GsdAblationRow[] {
  const items: [string, unknown][] = Array.isArray(raw)
    ? raw.map((v, i) => {
        const o = obj(v);
        const name = o && ['name', 'arm', 'id', 'variant'].map((k) => o[k]).find((x): x is string => typeof x === 'string');
        return [name ?? `variant ${i + 1}`, v];
      })
    : Object.entries(obj(raw) ?? {});
  const rows: GsdAblationRow[] = [];
  for (const [name, v] of items) {
    const o = obj(v);
    const figures: Record<string, number> = {};
    if (o) {
      for (const [k, x] of Object.entries(o)) {
        const n = num(x) ?? (k.startsWith('recall') ? recallFigures(x).recall_pct : undefined);
        if (n !== undefined) figures[k] = n;
      }
    } else if (num(v) !== undefined) figures.value = v as number;
    if (Object.keys(figures).length === 0) continue;
    const label = o && (typeof o.label === 'string' ? o.label : typeof o.description === 'string' ? o.description : undefined);
    rows.push({ name, figures, ...(label ? { label } : {}) });
  }
  return rows;
}
