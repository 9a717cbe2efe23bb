/**
 * `heimdall import gsd`: adopt a GSD `.planning/` tree by writing Heimdall state beside it, never
 * touching GSD's own files:
 *  - units (protocol/units.json): every decision, requirement, roadmap phase entry, section and
 *    STATE.md fact of the tree's documents, with a stable id and its exact text (units.ts);
 *  - facts of STATE.md on the blackboard (`gsd.state.<name>`);
 *  - symbols (protocol/symbols.json): an `F<n>` id per file path that recurs across the tree and
 *    `<plan>.T<n>` per must-have truth, which a brief uses where they save tokens;
 *  - one capsule per SUMMARY (protocol/capsules/<plan>.md, 10 lines at most), depending on the
 *    capsules of the plan's `depends_on`;
 *  - the task list (protocol/tasks.json, see TasksFile).
 *
 * Idempotent: every write is skipped when the content would not change, so a second run over the
 * same tree leaves every file, protocol.log included, exactly as it was. What the import wrote
 * before and the tree no longer produces (a deleted plan's capsule and truths, a deleted document's
 * units, a STATE fact that is gone) is removed; only what the import itself owns is ever removed.
 * Ids are stable across runs: an id the importer created before keeps its value; a symbol or
 * capsule someone else wrote is never overwritten (the conflict is reported and another id is used
 * or the capsule skipped).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { capsulePath, listCapsuleIds, readCapsule, renderCapsule, writeCapsule } from '../capsules/capsules.js';
import { deleteFact, readFacts, setFact } from '../blackboard/blackboard.js';
import { logAction } from '../log/protocolLog.js';
import { atomicWrite, readJsonFile, readTextFile, withLock } from '../planning/fsx.js';
import { NAME_PATTERN } from '../planning/ids.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { deleteSymbol, readSymbols, setSymbols } from '../symbols/symbols.js';
import { readUnitsFile, writeUnits } from '../units/units.js';
import type { GsdModel } from './brief.js';
import { cleanPath, oneLine, parsePlan, parseSummary } from './parse.js';
import { type GsdPlan, type GsdProject, type GsdSummary, type Issue, type PlanFileEntry, comparePlanIds, loadGsdProject, planningRelative, writeSet } from './tree.js';

export { writeSet };
import { projectUnits, storedUnit } from './units.js';

export type SymbolKind = 'path' | 'truth';

/**
 * One entry of protocol/tasks.json: a plan (or a finished summary without a plan). Issue 13's ready
 * queue and claims read these; keep the field names stable.
 */
export interface GsdTask {
  /** Plan id: `02-01`, `03-05b`, `quick-001`, `04-plan` (a bare PLAN.md). Also the capsule id. */
  id: string;
  /** `02`, `02.1`, or `quick`. */
  phase: string;
  /** Folder of the plan under phases/ (`02-persistence`) or `quick/<dir>`. */
  phase_dir: string;
  plan: string;
  kind: 'phase' | 'quick';
  wave: number;
  /** `done` when a SUMMARY exists, else `todo`. */
  status: 'done' | 'todo';
  title?: string;
  /** Plan ids this plan waits for (resolved depends_on; cycles and unknown plans dropped and reported). */
  depends: string[];
  /**
   * What the plan writes: files_modified plus the `<files>` of its tasks, as project-relative
   * paths (`./x` and `x` are one path), sorted. A claim on these is what keeps two executors apart.
   */
  write_set: string[];
  /** Requirement ids as the plan lists them. */
  requirements: string[];
  /** Relative to the planning folder; null for a summary without a plan. */
  plan_file: string | null;
  summary_file: string | null;
  capsule: string | null;
  /** Issue kinds the import reported for this plan's file (no_context, bad_frontmatter, ...). */
  issues: string[];
}

/**
 * protocol/tasks.json, written by `heimdall import gsd`:
 *
 * ```json
 * {
 *   "version": "2.0.0",
 *   "source": "gsd",
 *   "planning_dir": "/abs/project/.planning",
 *   "path_ids": { "prefix": "F", "skipped": [1] },
 *   "tasks": [ { "id": "02-02", "phase": "02", "phase_dir": "02-persistence", "plan": "02", "kind": "phase",
 *                "wave": 2, "status": "todo", "title": "...", "depends": ["02-01"],
 *                "write_set": ["backend/api.py"], "requirements": ["PERS-01"],
 *                "plan_file": "phases/02-persistence/02-02-PLAN.md", "summary_file": null,
 *                "capsule": null, "issues": [] } ],
 *   "plan_files": [ { "file": "phases/05-x/NOTES_PLAN.md", "status": "skipped", "reason": "..." } ],
 *   "owned": { "symbols": { "F1": "path", "02-02.T1": "truth" }, "capsules": ["02-01"], "facts": ["gsd.state.status"] }
 * }
 * ```
 * `tasks` is sorted by plan id; `plan_files` lists every file whose name says PLAN and what the
 * import did with it; `owned` is what the importer wrote and may later update or remove.
 */
export interface TasksFile {
  version: string;
  source: 'gsd';
  /** The GSD planning folder the tasks were read from (absolute). */
  planning_dir: string;
  /** Path symbols are `${prefix}<n>`; `skipped` numbers occur in the tree's own text and are never allocated. */
  path_ids: { prefix: string; skipped: number[] };
  tasks: GsdTask[];
  plan_files: PlanFileEntry[];
  owned: { symbols: Record<string, SymbolKind>; capsules: string[]; facts?: string[] };
}

/** Everything the brief builder needs to know about an import, besides the files it wrote. */
export interface GsdImport extends GsdModel {
  /** Every symbol the import defines, id -> value. */
  symbols: Record<string, string>;
  tasks: TasksFile;
  tasksFile: string;
}

export interface ImportReport {
  planning_dir: string;
  state_dir: string;
  plans: number;
  /** Files whose name says PLAN, and how many were imported. */
  plans_found: number;
  plans_imported: number;
  /** The files not imported, with the reason. */
  plans_skipped: PlanFileEntry[];
  summaries: number;
  phases: number;
  units: { total: number; changed: boolean; added: number; removed: number; by_kind: Record<string, number> };
  facts: { total: number; changed: number; removed: number };
  symbols: { total: number; changed: number; removed: number; paths: number; truths: number };
  capsules: { total: number; written: number; removed: number };
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

/** The task list, or undefined before the first import. */
export function readTasksFile(file: string): TasksFile | undefined {
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

/** Symbol-safe version of an id as GSD writes it ("REQ 1" -> "REQ_1"). */
function safeId(s: string): string {
  let id = s.replace(/[^A-Za-z0-9_.-]/g, '_').replace(/\.{2,}/g, '.');
  if (!/^[A-Za-z0-9]/.test(id)) id = `R${id}`;
  return id.slice(0, 64);
}

interface Allocation {
  pathIds: Map<string, string>;
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
  return { pathIds, truthIds, symbols, owned, skipped: [...natural].sort((a, b) => a - b) };
}

// ---------------------------------------------------------------------------------------------

function capsuleInput(s: GsdSummary, plan: GsdPlan | undefined, capsuleIds: Set<string>) {
  const ps = s.parsed;
  const title = ps.title?.replace(/\s*summary\s*$/i, '').trim();
  const what = ps.oneLiner || (ps.provides.length ? ps.provides.join('; ') : '') || title || `plan ${s.id} finished`;
  const files = ps.keyFiles.length ? ps.keyFiles : (plan?.parsed.filesModified ?? []);
  // Real paths, not F<n> ids: a capsule is read inside briefs that may not define those ids.
  const where = files.length ? files.join(', ') : `.planning/${s.file}`;
  const depends = (plan?.depends ?? []).filter((d) => capsuleIds.has(d));
  return {
    what: oneLine(what, 400),
    where: oneLine(where, 2000),
    ...(ps.decisions[0] ? { decision: oneLine(ps.decisions[0], 300) } : {}),
    ...(ps.gotcha ? { gotcha: oneLine(ps.gotcha, 300) } : {}),
    depends,
  };
}

/**
 * The capsule the import writes for a plan's SUMMARY (its text and input), read from that one
 * SUMMARY and the plan's own PLAN file (no walk of the tree); undefined when the SUMMARY cannot be
 * read. Dependencies are kept only when their capsule exists in `ctx`, as the import does.
 * `heimdall gsd done` writes it when an executor finishes a plan.
 */
export function summaryCapsule(ctx: Ctx, task: GsdTask, planningDir: string, summaryFile: string): { id: string; input: ReturnType<typeof capsuleInput>; text: string } | undefined {
  const raw = readOrUndefined(path.join(planningDir, summaryFile));
  if (raw === undefined) return undefined;
  const summary = { id: task.id, file: summaryFile, parsed: parseSummary(raw) } as GsdSummary;
  const planRaw = task.plan_file ? readOrUndefined(path.join(planningDir, task.plan_file)) : undefined;
  const plan = planRaw === undefined ? undefined : ({ id: task.id, depends: task.depends, parsed: parsePlan(planRaw) } as GsdPlan);
  const input = capsuleInput(summary, plan, new Set(listCapsuleIds(ctx)));
  return { id: task.id, input, text: renderCapsule(task.id, input) };
}

function taskFor(p: GsdPlan, capsules: Set<string>, issues: Issue[]): GsdTask {
  return {
    id: p.id,
    phase: p.phase,
    phase_dir: p.phaseDir,
    plan: p.plan,
    kind: p.kind,
    wave: p.wave,
    status: p.summary ? 'done' : 'todo',
    ...(p.parsed.title ? { title: p.parsed.title } : {}),
    depends: p.depends,
    write_set: writeSet(p),
    requirements: p.parsed.requirements,
    plan_file: p.file,
    summary_file: p.summary?.file ?? null,
    capsule: p.summary && capsules.has(p.id) ? p.id : null,
    issues: [...new Set(issues.filter((i) => i.file === p.file).map((i) => i.kind))],
  };
}

/** A file of the tree within the storage limits; undefined when it is missing or cannot be read. */
function readOrUndefined(file: string): string | undefined {
  try {
    return readTextFile(file);
  } catch {
    return undefined;
  }
}

/**
 * Import the GSD tree at `from` (a project folder or its .planning) into the Heimdall state of
 * `ctx`. Returns the model (for briefs) and a report of what was written, pruned and odd.
 */
export function importGsd(ctx: Ctx, opts: { from?: string } = {}): { model: GsdImport; report: ImportReport } {
  const project = loadGsdProject(opts.from ?? ctx.root);
  const issues = [...project.issues];
  const file = tasksFilePath(ctx);
  const previous = readTasksFile(file);
  // Refuse a broken units.json before writing anything else.
  readUnitsFile(ctx);
  const table = readSymbols(ctx);
  const alloc = allocate(project, table, previous, issues);
  const index = projectUnits(project);

  // 1. Units: the whole set, rewritten only when it changes.
  const units = writeUnits(ctx, 'gsd', project.planningDir, index.units.map(storedUnit));

  // 2. STATE.md facts on the blackboard, under keys the import owns.
  const facts = readFacts(ctx);
  const prevFacts = new Set(previous?.owned?.facts ?? []);
  const ownedFacts: string[] = [];
  let factsChanged = 0;
  for (const f of index.facts) {
    if (!NAME_PATTERN.test(f.key) || f.key.includes('..') || !f.value) continue;
    if (facts[f.key] !== undefined && facts[f.key] !== f.value && !prevFacts.has(f.key)) {
      issues.push({ kind: 'fact_conflict', file: 'STATE.md', detail: `blackboard ${f.key} already holds another value and was not written by an import; left as it is` });
      continue;
    }
    ownedFacts.push(f.key);
    if (facts[f.key] !== f.value) {
      setFact(ctx, f.key, f.value);
      factsChanged++;
    }
  }
  let factsRemoved = 0;
  for (const k of prevFacts) {
    if (ownedFacts.includes(k) || facts[k] === undefined) continue;
    deleteFact(ctx, k);
    factsRemoved++;
  }

  // 3. Symbols: only the entries whose value differs; the import's old ids the tree no longer produces go.
  const changedSymbols: Record<string, string> = {};
  for (const [id, v] of Object.entries(alloc.symbols)) if (table[id] !== v) changedSymbols[id] = v;
  const symbolsChanged = Object.keys(changedSymbols).length ? setSymbols(ctx, changedSymbols) : 0;
  let symbolsRemoved = 0;
  for (const id of Object.keys(previous?.owned?.symbols ?? {})) {
    if (alloc.symbols[id] !== undefined || table[id] === undefined) continue;
    deleteSymbol(ctx, id);
    symbolsRemoved++;
  }

  // 4. Capsules, dependencies first; a capsule is rewritten only when its text would change.
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
    const input = capsuleInput(s, plan, capsules);
    const text = renderCapsule(id, input);
    const current = readOrUndefined(capsulePath(ctx, id));
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
  // A capsule the import wrote for a SUMMARY that is gone: removed, unless a capsule that stays depends on it.
  let capsulesRemoved = 0;
  const staying = listCapsuleIds(ctx).filter((id) => !prevCapsules.has(id) || capsules.has(id));
  for (const id of prevCapsules) {
    if (capsules.has(id)) continue;
    const file = capsulePath(ctx, id);
    if (!fs.existsSync(file)) continue;
    const needed = staying.some((other) => {
      try {
        return readCapsule(ctx, other).depends.includes(id);
      } catch {
        return false;
      }
    });
    if (needed) {
      issues.push({ kind: 'capsule_conflict', file: `protocol/capsules/${id}.md`, detail: `its SUMMARY is gone but another capsule depends on it; kept` });
      ownedCapsules.push(id);
      continue;
    }
    withLock(file, () => fs.rmSync(file, { force: true }));
    logAction(ctx, 'capsule', 'delete', `${id} (its SUMMARY left the GSD tree)`);
    capsulesRemoved++;
  }

  // 5. The task list.
  const tasks: GsdTask[] = project.plans.map((p) => taskFor(p, capsules, issues));
  for (const s of project.summaries) {
    if (planById.has(s.id)) continue;
    tasks.push({
      id: s.id,
      phase: s.phase,
      phase_dir: s.phaseDir,
      plan: s.plan,
      kind: s.kind,
      wave: 0,
      status: 'done',
      ...(s.parsed.title ? { title: s.parsed.title } : {}),
      depends: [],
      write_set: [...new Set(s.parsed.keyFiles)].sort(),
      requirements: [],
      plan_file: null,
      summary_file: s.file,
      capsule: capsules.has(s.id) ? s.id : null,
      issues: ['summary_without_plan'],
    });
  }
  tasks.sort((a, b) => comparePlanIds(a.id, b.id));
  const tasksFile: TasksFile = {
    version: PROTOCOL_VERSION,
    source: 'gsd',
    planning_dir: project.planningDir,
    path_ids: { prefix: PATH_PREFIX, skipped: alloc.skipped },
    tasks,
    plan_files: project.planFiles,
    owned: { symbols: sortKeys(alloc.owned), capsules: [...new Set(ownedCapsules)].sort(comparePlanIds), facts: [...ownedFacts].sort() },
  };
  const content = `${JSON.stringify(tasksFile, null, 2)}\n`;
  const tasksWritten = withLock(file, () => {
    if (readOrUndefined(file) === content) return false;
    atomicWrite(file, content);
    return true;
  });
  const changed = units.changed || factsChanged > 0 || factsRemoved > 0 || symbolsChanged > 0 || symbolsRemoved > 0 || written > 0 || capsulesRemoved > 0 || tasksWritten;
  if (changed) {
    logAction(
      ctx,
      'import',
      'gsd',
      `${project.planningDir}: ${project.plans.length} plans, ${index.units.length} units, ${capsules.size} capsules (${written} written, ${capsulesRemoved} removed), ${symbolsChanged} symbols changed, ${symbolsRemoved} removed, ${issues.length} issues`,
    );
  }
  const kinds = Object.values(alloc.owned);
  const byKind: Record<string, number> = {};
  for (const u of index.units) byKind[u.kind] = (byKind[u.kind] ?? 0) + 1;
  const invariantsAbs = path.join(project.planningDir, 'PROJECT.md');
  const report: ImportReport = {
    planning_dir: project.planningDir,
    state_dir: ctx.paths.protocolDir,
    plans: project.plans.length,
    plans_found: project.planFiles.length,
    plans_imported: project.planFiles.filter((f) => f.status === 'imported').length,
    plans_skipped: project.planFiles.filter((f) => f.status === 'skipped'),
    summaries: project.summaries.length,
    phases: new Set(project.plans.map((p) => p.phase)).size,
    units: { total: index.units.length, changed: units.changed, added: units.added, removed: units.removed, by_kind: byKind },
    facts: { total: ownedFacts.length, changed: factsChanged, removed: factsRemoved },
    symbols: {
      total: kinds.length,
      changed: symbolsChanged,
      removed: symbolsRemoved,
      paths: kinds.filter((k) => k === 'path').length,
      truths: kinds.filter((k) => k === 'truth').length,
    },
    capsules: { total: capsules.size, written, removed: capsulesRemoved },
    tasks_file: file,
    tasks_written: tasksWritten,
    changed,
    issues,
  };
  const model: GsdImport = {
    project,
    index,
    pathIds: alloc.pathIds,
    truthIds: alloc.truthIds,
    symbols: alloc.symbols,
    capsules,
    ...(fs.existsSync(invariantsAbs) ? { invariants: '.planning/PROJECT.md' } : {}),
    tasks: tasksFile,
    tasksFile: file,
  };
  return { model, report };
}

/**
 * Rebuild the brief model of the tree imported into `ctx` (for `heimdall brief gsd` after an
 * import): the tree is read again from the planning folder tasks.json names; ids and capsules come
 * from what the import wrote.
 */
export function loadGsdModel(ctx: Ctx): GsdModel {
  const tasks = readTasksFile(tasksFilePath(ctx));
  if (!tasks) throw new HeimdallError('not_found', `no GSD import in ${ctx.paths.protocolDir} (no tasks.json); run: heimdall import gsd [--from DIR]`);
  if (typeof tasks.planning_dir !== 'string') {
    throw new HeimdallError('environment', `${tasksFilePath(ctx)} was written by an older import (no planning_dir); run heimdall import gsd again`);
  }
  const project = loadGsdProject(tasks.planning_dir);
  const index = projectUnits(project);
  const table = readSymbols(ctx);
  const pathIds = new Map<string, string>();
  const truthIds = new Map<string, string[]>();
  const owned = tasks.owned?.symbols ?? {};
  for (const [id, kind] of Object.entries(owned)) {
    const v = table[id];
    if (v === undefined) continue;
    if (kind === 'path') pathIds.set(v, id);
  }
  // A truth's id is <plan>.T<n>, or gsd<k>.<plan>.T<n> when the import had to step around a taken id.
  const truthsOwned = Object.entries(owned).filter(([id, kind]) => kind === 'truth' && table[id] !== undefined);
  for (const p of project.plans) {
    const ids = p.parsed.truths.filter(Boolean).map((t, i) => truthsOwned.find(([id]) => (id === `${p.id}.T${i + 1}` || id.endsWith(`.${p.id}.T${i + 1}`)) && table[id] === oneLine(t))?.[0]);
    if (ids.length && ids.every((id) => id !== undefined)) truthIds.set(p.id, ids as string[]);
  }
  const existing = new Set(listCapsuleIds(ctx));
  const capsules = new Set((tasks.owned?.capsules ?? []).filter((id) => existing.has(id)));
  const invariantsAbs = path.join(project.planningDir, 'PROJECT.md');
  return { project, index, pathIds, truthIds, capsules, ...(fs.existsSync(invariantsAbs) ? { invariants: '.planning/PROJECT.md' } : {}) };
}

function sortKeys<V>(m: Record<string, V>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k] as V;
  return out;
}
