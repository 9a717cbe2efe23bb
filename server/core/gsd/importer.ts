/**
 * `heimdall import gsd`: adopt a GSD `.planning/` tree by writing Heimdall state beside it, never
 * touching GSD's own files:
 *  - symbols (protocol/symbols.json): an `F<n>` id per file path that recurs across the tree, the
 *    GSD requirement ids (DATA-04, FR-11, ...) with their descriptions, and `<plan>.T<n>` per
 *    must-have truth;
 *  - one capsule per SUMMARY (protocol/capsules/<plan>.md, 10 lines at most), depending on the
 *    capsules of the plan's `depends_on`;
 *  - the task list (protocol/tasks.json, versioned with PROTOCOL_VERSION): one entry per plan with
 *    wave, dependencies, files, requirements, truths and status, and the ids the importer owns.
 *
 * Idempotent: every write is skipped when the content would not change, so a second run over the
 * same tree leaves every file, protocol.log included, exactly as it was. Ids are stable across
 * runs: an id the importer created before keeps its value; a symbol or capsule someone else wrote
 * is never overwritten (the conflict is reported and another id is used or the capsule skipped).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { capsulePath, renderCapsule, writeCapsule } from '../capsules/capsules.js';
import { logAction } from '../log/protocolLog.js';
import { atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { NAME_PATTERN } from '../planning/ids.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { readSymbols, setSymbols } from '../symbols/symbols.js';
import { cleanPath, oneLine } from './parse.js';
import { type GsdPlan, type GsdProject, type GsdSummary, type Issue, comparePlanIds, loadGsdProject, planningRelative } from './tree.js';

export type SymbolKind = 'path' | 'requirement' | 'truth';

export interface GsdTask {
  id: string;
  phase: string;
  phase_dir: string;
  plan: string;
  wave: number;
  status: 'done' | 'todo';
  title?: string;
  depends: string[];
  /** files_modified, as symbol ids where the path recurs, else the path. */
  files: string[];
  requirements: string[];
  truths: string[];
  /** Relative to the planning folder; null for a summary without a plan. */
  plan_file: string | null;
  summary_file: string | null;
  capsule: string | null;
  /** The plan's context references, as written. */
  context: string[];
  issues: string[];
}

export interface TasksFile {
  version: string;
  source: 'gsd';
  /** Path symbols are `${prefix}<n>`; `skipped` numbers occur in the tree's own text and are never allocated. */
  path_ids: { prefix: string; skipped: number[] };
  tasks: GsdTask[];
  owned: { symbols: Record<string, SymbolKind>; capsules: string[] };
}

/** Everything the brief builder needs to know about an import, besides the files it wrote. */
export interface GsdImport {
  project: GsdProject;
  /** Recurring path -> symbol id. */
  pathIds: Map<string, string>;
  /** Requirement id as the plans write it -> symbol id (the same string unless it was taken or invalid). */
  requirementIds: Map<string, string>;
  /** Plan id -> truth symbol ids, in must_haves order. */
  truthIds: Map<string, string[]>;
  /** Every symbol the import defines, id -> value. */
  symbols: Record<string, string>;
  /** Capsule ids written (or already current), one per summary. */
  capsules: Set<string>;
  /** The GSD file that holds the project's invariants (PROJECT.md), relative to the project root. */
  invariants?: string;
  tasks: TasksFile;
  tasksFile: string;
}

export interface ImportReport {
  planning_dir: string;
  state_dir: string;
  plans: number;
  summaries: number;
  phases: number;
  symbols: { total: number; changed: number; paths: number; requirements: number; truths: number };
  capsules: { total: number; written: number };
  tasks_file: string;
  tasks_written: boolean;
  /** False when the run changed nothing (a repeated import). */
  changed: boolean;
  issues: Issue[];
}

export const PATH_PREFIX = 'F';

export function tasksFilePath(ctx: Ctx): string {
  return ctx.paths.gsdTasks;
}

function readTasksFile(file: string): TasksFile | undefined {
  const data = readJsonFile(file);
  if (data === undefined) return undefined;
  const t = data as Partial<TasksFile>;
  if (typeof t !== 'object' || t === null || !Array.isArray(t.tasks)) {
    throw new HeimdallError('environment', `${file} must hold {"version": "${PROTOCOL_VERSION}", "tasks": [...]}; the file was left untouched`);
  }
  checkStateVersion(file, t.version);
  return t as TasksFile;
}

// ---------------------------------------------------------------------------------------------

/** Every path the structured parts of the tree name, with how often; first-seen order kept. */
function pathOccurrences(project: GsdProject): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (list: (string | undefined)[]) => {
    for (const p of new Set(list.filter((x): x is string => !!x))) counts.set(p, (counts.get(p) ?? 0) + 1);
  };
  for (const p of project.plans) {
    const pp = p.parsed;
    add(pp.filesModified);
    add(pp.taskPaths);
    add(pp.artifacts.map((a) => a.path));
    add(pp.keyLinks.flatMap((l) => [l.from, l.to].map((x) => (x ? cleanPath(x) : undefined))));
    add(p.contextRefs.map(refPath));
  }
  for (const s of project.summaries) add(s.parsed.keyFiles);
  return counts;
}

/** Every path the tree declares in its structured parts (frontmatter, task files, summaries' key files). */
export function treePaths(project: GsdProject): string[] {
  return [...pathOccurrences(project).keys()];
}

/** A context reference as a project-relative path (`.planning/...` kept as such). */
export function refPath(ref: string): string | undefined {
  const rel = planningRelative(ref);
  if (rel !== undefined) return cleanPath(`.planning/${rel}`);
  return cleanPath(ref);
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The description of a requirement id, from REQUIREMENTS.md, milestone requirement files or a ROADMAP table. */
function requirementDescriptions(project: GsdProject, ids: string[]): Map<string, string> {
  const files: string[] = [];
  const add = (f: string) => {
    if (!files.includes(f) && fs.existsSync(f)) files.push(f);
  };
  add(path.join(project.planningDir, 'REQUIREMENTS.md'));
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isDirectory() && depth < 2 && e.name !== 'phases' && e.name !== 'protocol') walk(path.join(dir, e.name), depth + 1);
      else if (e.isFile() && /REQUIREMENTS.*\.md$/i.test(e.name)) add(path.join(dir, e.name));
    }
  };
  walk(project.planningDir, 0);
  add(path.join(project.planningDir, 'ROADMAP.md'));
  const texts = files.map((f) => fs.readFileSync(f, 'utf8').replace(/\r\n?/g, '\n'));
  const out = new Map<string, string>();
  const clean = (s: string) => oneLine(s.replace(/\*\*/g, '').replace(/^[:：—–-]\s*/, ''), 600);
  for (const id of ids) {
    const e = escapeRe(id);
    const patterns = [
      new RegExp(`\\*\\*${e}\\*\\*\\s*[:：—–-]?\\s*(.+)$`, 'm'),
      new RegExp(`^#{1,6}\\s*${e}\\s*[:：—–-]\\s*(.+)$`, 'm'),
      new RegExp(`^\\s*[-*]\\s*(?:\\[.\\]\\s*)?${e}\\s*[:：—–-]\\s*(.+)$`, 'm'),
    ];
    let found: string | undefined;
    for (const t of texts) {
      for (const re of patterns) {
        const m = re.exec(t);
        if (m && clean(m[1] as string)) {
          found = clean(m[1] as string);
          break;
        }
      }
      if (found) break;
    }
    if (!found) {
      const row = new RegExp(`^\\|\\s*${e}\\s*\\|(.+)\\|\\s*$`, 'm');
      for (const t of texts) {
        const m = row.exec(t);
        if (!m) continue;
        const cells = (m[1] as string)
          .split('|')
          .map((c) => c.trim())
          .filter((c) => c && !/^(phase\s*[\d.]+|complete[d]?|pending|done|in progress|not started|\d+|[—–-]+|✓|✗|\[.\])$/i.test(c));
        const best = cells.sort((a, b) => b.length - a.length)[0];
        if (best) {
          found = clean(best);
          break;
        }
      }
    }
    if (found) out.set(id, found);
  }
  return out;
}

/** Symbol-safe version of an id as GSD writes it ("REQ 1" -> "REQ_1"). */
function safeId(s: string): string {
  let id = s.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.{2,}/g, '.');
  if (!/^[A-Za-z0-9]/.test(id)) id = `R${id}`;
  return id.slice(0, 64);
}

interface Allocation {
  pathIds: Map<string, string>;
  requirementIds: Map<string, string>;
  truthIds: Map<string, string[]>;
  symbols: Record<string, string>;
  owned: Record<string, SymbolKind>;
  skipped: number[];
}

function allocate(project: GsdProject, table: Record<string, string>, previous: TasksFile | undefined, issues: Issue[]): Allocation {
  const prevOwned = previous?.owned?.symbols ?? {};
  const symbols: Record<string, string> = {};
  const owned: Record<string, SymbolKind> = {};
  const free = (id: string, value: string) => {
    if (symbols[id] !== undefined) return symbols[id] === value;
    const cur = table[id];
    return cur === undefined || cur === value || prevOwned[id] !== undefined;
  };
  const claim = (id: string, value: string, kind: SymbolKind) => {
    symbols[id] = value;
    owned[id] = kind;
  };
  const place = (wanted: string, value: string, kind: SymbolKind, file: string): string => {
    if (NAME_PATTERN.test(wanted) && !wanted.includes('..') && free(wanted, value)) {
      claim(wanted, value, kind);
      return wanted;
    }
    for (let n = 0; n < 1000; n++) {
      const alt = safeId(`gsd${n ? n : ''}.${wanted}`);
      if (free(alt, value)) {
        issues.push({ kind: 'symbol_conflict', file, detail: `symbol ${wanted} already means something else; ${kind} stored as ${alt}` });
        claim(alt, value, kind);
        return alt;
      }
    }
    throw new HeimdallError('conflict', `cannot find a free symbol id for ${wanted}`);
  };

  // Requirements: the GSD id is the symbol id.
  const reqs: string[] = [];
  for (const p of project.plans) for (const r of p.parsed.requirements) if (!reqs.includes(r)) reqs.push(r);
  const desc = requirementDescriptions(project, reqs);
  const requirementIds = new Map<string, string>();
  for (const r of reqs) {
    let value = desc.get(r);
    if (!value) {
      value = `requirement ${oneLine(r, 200)} (no description found in .planning)`;
      issues.push({ kind: 'requirement_undescribed', file: 'REQUIREMENTS.md', detail: `no description found for requirement ${r}` });
    }
    requirementIds.set(r, place(safeId(r), value, 'requirement', 'REQUIREMENTS.md'));
  }

  // Truths: <plan>.T<n>.
  const truthIds = new Map<string, string[]>();
  for (const p of project.plans) {
    const ids = p.parsed.truths.filter(Boolean).map((t, i) => place(`${p.id}.T${i + 1}`, oneLine(t), 'truth', p.file));
    truthIds.set(p.id, ids);
  }

  // Paths: F<n>, keeping the ids of an earlier import, never a number the tree's text already uses.
  const natural = new Set<number>();
  const scan = (t: string) => {
    for (const m of t.matchAll(new RegExp(`(?<![A-Za-z0-9_.-])${PATH_PREFIX}(\\d+)(?![A-Za-z0-9_])`, 'g'))) natural.add(Number(m[1]));
  };
  for (const p of project.plans) scan(p.raw);
  for (const s of project.summaries) scan(s.raw);
  for (const v of Object.values(symbols)) scan(v);
  const counts = pathOccurrences(project);
  const recurring = [...counts].filter(([, n]) => n >= 2).map(([p]) => p);
  const pathIds = new Map<string, string>();
  const byValue = new Map<string, string>();
  for (const [id, kind] of Object.entries(prevOwned)) {
    const v = table[id];
    const m = new RegExp(`^${PATH_PREFIX}(\\d+)$`).exec(id);
    if (kind === 'path' && v !== undefined && m && !natural.has(Number(m[1]))) byValue.set(v, id);
  }
  let next = 1;
  for (const p of recurring) {
    const keep = byValue.get(p);
    if (keep && symbols[keep] === undefined) {
      claim(keep, p, 'path');
      pathIds.set(p, keep);
      continue;
    }
    for (;;) {
      const id = `${PATH_PREFIX}${next}`;
      const taken = natural.has(next) || symbols[id] !== undefined || (table[id] !== undefined && prevOwned[id] === undefined) || [...byValue.values()].includes(id);
      next++;
      if (!taken) {
        claim(id, p, 'path');
        pathIds.set(p, id);
        break;
      }
    }
  }
  return { pathIds, requirementIds, truthIds, symbols, owned, skipped: [...natural].sort((a, b) => a - b) };
}

// ---------------------------------------------------------------------------------------------

function capsuleInput(s: GsdSummary, plan: GsdPlan | undefined, pathIds: Map<string, string>, capsuleIds: Set<string>) {
  const ps = s.parsed;
  const title = ps.title?.replace(/\s*summary\s*$/i, '').trim();
  const what = ps.oneLiner || (ps.provides.length ? ps.provides.join('; ') : '') || title || `plan ${s.id} finished`;
  const files = ps.keyFiles.length ? ps.keyFiles : (plan?.parsed.filesModified ?? []);
  const where = files.length ? files.map((f) => pathIds.get(f) ?? f).join(', ') : `.planning/${s.file}`;
  const depends = (plan?.depends ?? []).filter((d) => capsuleIds.has(d));
  return {
    what: oneLine(what, 400),
    where: oneLine(where, 2000),
    ...(ps.decisions[0] ? { decision: oneLine(ps.decisions[0], 300) } : {}),
    ...(ps.gotcha ? { gotcha: oneLine(ps.gotcha, 300) } : {}),
    depends,
  };
}

function taskFor(p: GsdPlan, a: Allocation, capsules: Set<string>, issues: Issue[]): GsdTask {
  return {
    id: p.id,
    phase: p.phase,
    phase_dir: p.phaseDir,
    plan: p.plan,
    wave: p.wave,
    status: p.summary ? 'done' : 'todo',
    ...(p.parsed.title ? { title: p.parsed.title } : {}),
    depends: p.depends,
    files: p.parsed.filesModified.map((f) => a.pathIds.get(f) ?? f),
    requirements: p.parsed.requirements.map((r) => a.requirementIds.get(r) ?? r),
    truths: a.truthIds.get(p.id) ?? [],
    plan_file: p.file,
    summary_file: p.summary?.file ?? null,
    capsule: p.summary && capsules.has(p.id) ? p.id : null,
    context: p.contextRefs,
    issues: [...new Set(issues.filter((i) => i.file === p.file).map((i) => i.kind))],
  };
}

/** Build the import model without writing anything (the bench and the importer share it). */
export function planImport(ctx: Ctx, from: string): { project: GsdProject; alloc: Allocation; previous?: TasksFile; issues: Issue[] } {
  const project = loadGsdProject(from);
  const issues = [...project.issues];
  const previous = readTasksFile(tasksFilePath(ctx));
  const alloc = allocate(project, readSymbols(ctx), previous, issues);
  return { project, alloc, previous, issues };
}

/**
 * Import the GSD tree at `from` (a project folder or its .planning) into the Heimdall state of
 * `ctx`. Returns the model (for briefs) and a report of what was written and what was odd.
 */
export function importGsd(ctx: Ctx, opts: { from?: string } = {}): { model: GsdImport; report: ImportReport } {
  const { project, alloc, previous, issues } = planImport(ctx, opts.from ?? ctx.root);
  const table = readSymbols(ctx);

  // 1. Symbols: only the entries whose value differs.
  const changedSymbols: Record<string, string> = {};
  for (const [id, v] of Object.entries(alloc.symbols)) if (table[id] !== v) changedSymbols[id] = v;
  const symbolsChanged = Object.keys(changedSymbols).length ? setSymbols(ctx, changedSymbols) : 0;

  // 2. Capsules, dependencies first; a capsule is rewritten only when its text would change.
  const planById = new Map(project.plans.map((p) => [p.id, p]));
  const summaryIds = new Set(project.summaries.map((s) => s.id));
  const prevCapsules = new Set(previous?.owned?.capsules ?? []);
  const capsules = new Set<string>();
  const ownedCapsules: string[] = [];
  let written = 0;
  const done = new Set<string>();
  const summaryById = new Map(project.summaries.map((s) => [s.id, s]));
  const writeOne = (id: string) => {
    if (done.has(id)) return;
    done.add(id);
    const s = summaryById.get(id);
    if (!s) return;
    const plan = planById.get(id);
    for (const d of plan?.depends ?? []) if (summaryIds.has(d)) writeOne(d);
    const input = capsuleInput(s, plan, alloc.pathIds, capsules);
    const text = renderCapsule(id, input);
    const file = capsulePath(ctx, id);
    let current: string | undefined;
    try {
      current = fs.readFileSync(file, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== undefined && current !== text && !prevCapsules.has(id)) {
      issues.push({ kind: 'capsule_conflict', file: s.file, detail: `capsule ${id} already exists and was not written by an import; left as it is` });
      return;
    }
    if (current !== text) {
      writeCapsule(ctx, id, input);
      written++;
    }
    capsules.add(id);
    ownedCapsules.push(id);
  };
  for (const s of project.summaries) writeOne(s.id);

  // 3. The task list.
  const tasks: GsdTask[] = project.plans.map((p) => taskFor(p, alloc, capsules, issues));
  for (const s of project.summaries) {
    if (planById.has(s.id)) continue;
    tasks.push({
      id: s.id,
      phase: s.phase,
      phase_dir: s.phaseDir,
      plan: s.plan,
      wave: 0,
      status: 'done',
      ...(s.parsed.title ? { title: s.parsed.title } : {}),
      depends: [],
      files: s.parsed.keyFiles.map((f) => alloc.pathIds.get(f) ?? f),
      requirements: [],
      truths: [],
      plan_file: null,
      summary_file: s.file,
      capsule: capsules.has(s.id) ? s.id : null,
      context: [],
      issues: ['summary_without_plan'],
    });
  }
  tasks.sort((a, b) => comparePlanIds(a.id, b.id));
  const tasksFile: TasksFile = {
    version: PROTOCOL_VERSION,
    source: 'gsd',
    path_ids: { prefix: PATH_PREFIX, skipped: alloc.skipped },
    tasks,
    owned: { symbols: sortKeys(alloc.owned), capsules: [...ownedCapsules].sort(comparePlanIds) },
  };
  const file = tasksFilePath(ctx);
  const content = `${JSON.stringify(tasksFile, null, 2)}\n`;
  const tasksWritten = withLock(file, () => {
    let cur: string | undefined;
    try {
      cur = fs.readFileSync(file, 'utf8');
    } catch {
      cur = undefined;
    }
    if (cur === content) return false;
    atomicWrite(file, content);
    return true;
  });
  const changed = symbolsChanged > 0 || written > 0 || tasksWritten;
  if (changed) {
    logAction(ctx, 'import', 'gsd', `${project.planningDir}: ${project.plans.length} plans, ${capsules.size} capsules (${written} written), ${symbolsChanged} symbols changed, ${issues.length} issues`);
  }
  const invariantsAbs = path.join(project.planningDir, 'PROJECT.md');
  const kinds = Object.values(alloc.owned);
  const report: ImportReport = {
    planning_dir: project.planningDir,
    state_dir: ctx.paths.protocolDir,
    plans: project.plans.length,
    summaries: project.summaries.length,
    phases: new Set(project.plans.map((p) => p.phase)).size,
    symbols: {
      total: kinds.length,
      changed: symbolsChanged,
      paths: kinds.filter((k) => k === 'path').length,
      requirements: kinds.filter((k) => k === 'requirement').length,
      truths: kinds.filter((k) => k === 'truth').length,
    },
    capsules: { total: capsules.size, written },
    tasks_file: file,
    tasks_written: tasksWritten,
    changed,
    issues,
  };
  const model: GsdImport = {
    project,
    pathIds: alloc.pathIds,
    requirementIds: alloc.requirementIds,
    truthIds: alloc.truthIds,
    symbols: alloc.symbols,
    capsules,
    ...(fs.existsSync(invariantsAbs) ? { invariants: '.planning/PROJECT.md' } : {}),
    tasks: tasksFile,
    tasksFile: file,
  };
  return { model, report };
}

function sortKeys<V>(m: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k] as V;
  return out;
}
