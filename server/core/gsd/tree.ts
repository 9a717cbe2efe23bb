/**
 * A GSD `.planning/` tree as one model: its plans (one per `NN-MM-PLAN.md` under `phases/`), the
 * summaries of finished plans, resolved dependencies, waves and context references, plus the
 * issues a person should know about (no frontmatter, no `<context>`, a context file that does not
 * exist, a dependency that names no plan, a summary without a plan, ...). Reading only.
 */
import fs from 'node:fs';
import { readTextFile } from '../planning/fsx.js';
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import {
  type ParsedPlan,
  cleanDeclaredPath,
  type ParsedSummary,
  type PlanRef,
  leadingPhase,
  parseDependency,
  parsePlan,
  parseSummary,
  planFileRef,
  refKey,
  summaryFileRef,
} from './parse.js';

export type IssueKind =
  | 'no_frontmatter'
  | 'bad_frontmatter'
  | 'no_context'
  | 'missing_context_file'
  | 'unresolved_depends'
  | 'dependency_cycle'
  | 'summary_without_plan'
  | 'phase_summary'
  | 'duplicate_plan'
  | 'ignored_file'
  | 'frontmatter_mismatch'
  | 'no_tasks'
  | 'requirement_undescribed'
  | 'symbol_conflict'
  | 'capsule_conflict'
  | 'fact_conflict';

export interface Issue {
  kind: IssueKind;
  /** Path relative to the planning folder. */
  file: string;
  detail: string;
}

export interface GsdPlan {
  /** `01-02` as the file name writes it (`03-05b`, `quick-001`, `04-plan` for a bare PLAN.md); also the capsule and task id. */
  id: string;
  /** A plan of a roadmap phase, or a quick task (`.planning/quick/`). */
  kind: 'phase' | 'quick';
  phase: string;
  plan: string;
  /** The phase folder name, e.g. `01-foundation`. */
  phaseDir: string;
  /** Relative to the planning folder, e.g. `phases/01-foundation/01-02-PLAN.md`. */
  file: string;
  /** The file exactly as read (what an executor reads). */
  raw: string;
  parsed: ParsedPlan;
  wave: number;
  /** Resolved plan ids this plan depends on, in the order written. */
  depends: string[];
  /** `@` references of the context block, as written (paths relative to the project root). */
  contextRefs: string[];
  summary?: GsdSummary;
}

export interface GsdSummary {
  id: string;
  kind: 'phase' | 'quick';
  phase: string;
  plan: string;
  phaseDir: string;
  file: string;
  raw: string;
  parsed: ParsedSummary;
}

/** One file whose name says PLAN, and what the import did with it. */
export interface PlanFileEntry {
  /** Relative to the planning folder. */
  file: string;
  /** The plan id it was imported as; absent when it was not imported. */
  id?: string;
  status: 'imported' | 'skipped';
  /** Why it was skipped (or how its id was chosen when that is not obvious). */
  reason?: string;
}

export interface GsdProject {
  /** Absolute path of the `.planning` folder. */
  planningDir: string;
  /** The project root (the folder holding `.planning`), against which `@` references resolve. */
  projectRoot: string;
  /** Sorted by phase, then wave, then plan number. */
  plans: GsdPlan[];
  /** Every summary, sorted by id, including those without a plan. */
  summaries: GsdSummary[];
  /** Every file found whose name says PLAN (`*PLAN*.md`), imported or not, with the reason. */
  planFiles: PlanFileEntry[];
  issues: Issue[];
}

/**
 * Find the `.planning` folder of DIR: DIR/.planning, or DIR itself when it holds GSD files
 * (phases/, ROADMAP.md, PROJECT.md, STATE.md).
 */
export function resolveGsdDir(dir: string): string {
  const abs = path.resolve(dir);
  const nested = path.join(abs, '.planning');
  if (isDir(nested)) return nested;
  if (isDir(abs) && ['phases', 'ROADMAP.md', 'PROJECT.md', 'STATE.md'].some((f) => fs.existsSync(path.join(abs, f)))) return abs;
  throw new HeimdallError(
    'not_found',
    `no GSD planning tree at ${abs}: expected ${nested}/ or a folder holding phases/ and ROADMAP.md (e.g. heimdall import gsd --from ~/code/my-project)`,
  );
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A file of the tree, read within the storage limits (regular files only, HEIMDALL_MAX_READ_BYTES),
 * or why it cannot be: an oversized or odd file is reported with its plan, never read unbounded.
 */
function readSafe(file: string): { text?: string; why?: string } {
  try {
    const text = readTextFile(file);
    return text === undefined ? { why: 'no such file' } : { text };
  } catch (e) {
    return { why: (e as Error).message };
  }
}

function readDirSafe(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function numericCompare(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => Number.parseInt(x, 10));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (Number.isNaN(x) || Number.isNaN(y)) return a.localeCompare(b);
    if (x !== y) return x - y;
  }
  return a.localeCompare(b);
}

/** Compare plan ids numerically ("2-10" after "2-9", "02.1-01" after "02-05"). */
export function comparePlanIds(a: string, b: string): number {
  return numericCompare(a, b);
}

/** files_modified plus the files of its tasks, normalised and sorted. */
export function writeSet(p: GsdPlan): string[] {
  const out = new Set<string>();
  for (const f of [...p.parsed.filesModified, ...p.parsed.taskFiles]) {
    const c = cleanDeclaredPath(f);
    if (c) out.add(path.posix.normalize(c).replace(/^\.\//, ''));
  }
  return [...out].sort();
}

/** Where an `@` reference points inside the planning folder, if it does (`.planning/X` -> X). */
export function planningRelative(ref: string): string | undefined {
  const i = ref.indexOf('.planning/');
  if (i === -1) return undefined;
  if (i > 0 && !ref.startsWith('/') && !/^[A-Za-z]:/.test(ref) && !ref.startsWith('~')) {
    // "foo.planning/x" is not a reference into the planning folder.
    if (ref[i - 1] !== '/') return undefined;
  }
  return ref.slice(i + '.planning/'.length);
}

/** Expand a reference with `*` or `?` against the files of the planning folder. */
function expandGlob(planningDir: string, rel: string): string[] {
  const re = new RegExp(
    `^${rel
      .split('')
      .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
  const out: string[] = [];
  const walk = (dir: string, prefix: string, depth: number) => {
    if (depth > 6) return;
    for (const e of readDirSafe(dir)) {
      const r = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r, depth + 1);
      else if (re.test(r)) out.push(r);
    }
  };
  walk(planningDir, '', 0);
  return out.sort();
}

export interface ContextFile {
  /** The reference as the plan writes it. */
  ref: string;
  /** Relative to the planning folder. */
  rel: string;
  abs: string;
  exists: boolean;
}

/** The planning files a plan's context names, globs expanded, duplicates dropped, in order. */
export function contextFiles(project: Pick<GsdProject, 'planningDir'>, refs: string[]): ContextFile[] {
  const seen = new Set<string>();
  const out: ContextFile[] = [];
  for (const ref of refs) {
    const rel = planningRelative(ref);
    if (rel === undefined || rel === '') continue;
    const rels = /[*?]/.test(rel) ? expandGlob(project.planningDir, rel) : [rel];
    for (const r of rels) {
      const norm = path.posix.normalize(r);
      if (norm.startsWith('..') || seen.has(norm)) continue;
      seen.add(norm);
      const abs = path.join(project.planningDir, norm);
      let exists = false;
      try {
        exists = fs.statSync(abs).isFile();
      } catch {
        exists = false;
      }
      out.push({ ref, rel: norm, abs, exists });
    }
  }
  return out;
}

type Found =
  | { kind: 'plan' | 'summary'; ref: PlanRef; id: string; planKind: 'phase' | 'quick'; phaseDir: string; note?: string; ownNumber?: string }
  | { kind: 'not-plan'; reason: string; namedRef?: PlanRef };

const NOT_PLAN_NAME = 'the name is not NN-MM-PLAN.md (nor a bare PLAN.md), so it is not a GSD plan';

const PLANNING_SKIP = new Set(['protocol', 'ledger', 'wire', 'capsules', 'node_modules', '.git']);

/** Two phase (or plan) numbers are one, padding aside: `04.5` and `4.05`, `01` and `1`. */
function sameNumber(a: string, b: string): boolean {
  return refKey({ phase: a, plan: '0' }) === refKey({ phase: b, plan: '0' });
}

/** The phase number a phase folder's name starts with (`03-auth` -> `03`). */
function dirPhase(dir: string): string | undefined {
  return /^(\d+(?:\.\d+)*[A-Za-z]?)(?:[-_ ]|$)/.exec(dir)?.[1];
}

/**
 * What a Markdown file of the planning tree is, from where it sits and its name: a phase plan
 * (`NN-MM[-slug]-PLAN.md`, `NN-MMb-PLAN.md`, a bare `PLAN.md` / `NN-PLAN.md` in a phase folder, or
 * `NN-PLAN.md` / `NN-MM-PLAN.md` in `phases/` itself or, with no phase folders, beside ROADMAP.md),
 * a quick task (`quick/NNN-slug/NNN-PLAN.md`, `quick/NNN-slug/PLAN.md`), their summaries, or a file
 * whose name says PLAN but that is none of these.
 */
function classify(rel: string): Found | undefined {
  const parts = rel.split('/');
  const name = parts[parts.length - 1] as string;
  const isPlanName = /(^|[-_.])PLAN\.md$/i.test(name);
  const isSummaryName = /(^|[-_.])SUMMARY\.md$/i.test(name);
  if (!isPlanName && !isSummaryName && !/PLAN/i.test(name)) return undefined;
  const kind = isPlanName ? 'plan' : isSummaryName ? 'summary' : undefined;
  const inPhases = parts[0] === 'phases' || (parts[0] === 'milestones' && parts.length >= 3 && /phases/i.test(parts[1] as string));
  const inQuick = parts[0] === 'quick';
  // A tree with no phase folders may keep its numbered plans beside ROADMAP.md (`1-PLAN.md`, `2-PLAN.md`).
  const atTop = parts.length === 1 && /^\d/.test(name);
  if (kind && (inPhases || atTop)) {
    // A tree laid out flat puts its plans in `phases/` itself, no folder (`phases/04-PLAN.md`).
    const flat = atTop || parts.length === (parts[0] === 'phases' ? 2 : 3);
    const phaseDir = flat ? '' : ((parts[0] === 'phases' ? parts[1] : parts[2]) ?? '');
    const ref = (kind === 'plan' ? planFileRef : summaryFileRef)(name);
    if (ref) return { kind, ref, id: `${ref.phase}-${ref.plan}`, planKind: 'phase', phaseDir };
    const bare = new RegExp(`^(?:(\\d+(?:\\.\\d+)*)-)?${kind === 'plan' ? 'PLAN' : 'SUMMARY'}\\.md$`, 'i').exec(name);
    const folder = dirPhase(phaseDir);
    // `01-PLAN.md` in `02-settings-ui/` is plan 01 of phase 02; in `01-core/` it is phase 01's plan.
    if (bare?.[1] && folder && parts.length >= 3 && !sameNumber(bare[1], folder) && !bare[1].includes('.')) {
      const id = `${folder}-${bare[1]}`;
      return { kind, ref: { phase: folder, plan: bare[1] }, id, planKind: 'phase', phaseDir, note: `${name} in ${phaseDir}: plan ${bare[1]} of phase ${folder}, imported as ${id}` };
    }
    const phase = bare ? (bare[1] ?? folder) : undefined;
    if (bare && phase) {
      // `01-PLAN.md` in `01-core/`: the phase's plan, unless its folder numbers plans (see loadGsdProject);
      // `phases/04-PLAN.md`, no folder: phase 04's plan.
      const ownNumber = bare[1] && folder && !bare[1].includes('.') ? bare[1] : undefined;
      return { kind, ref: { phase, plan: 'plan' }, id: `${phase}-plan`, planKind: 'phase', phaseDir, note: `a bare ${name} in ${phaseDir || path.posix.dirname(rel)}: imported as plan ${phase}-plan`, ...(ownNumber ? { ownNumber } : {}) };
    }
    // `06-gap-fixes-PLAN.md` in `06-polish/`: a plan named, not numbered, of the folder's phase. Its
    // summary is taken here; the plan is taken by loadGsdProject when its frontmatter names no other id.
    const named = new RegExp(`^(\\d+(?:\\.\\d+)*)-([a-z][a-z0-9]*(?:[-_][a-z0-9]+){0,5})-${kind === 'plan' ? 'PLAN' : 'SUMMARY'}\\.md$`, 'i').exec(name);
    if (named?.[1] && named[2] && folder && sameNumber(named[1], folder) && parts.length >= 3) {
      const ref = { phase: named[1], plan: named[2] };
      if (kind === 'summary') return { kind, ref, id: `${ref.phase}-${ref.plan}`, planKind: 'phase', phaseDir };
      return { kind: 'not-plan', reason: NOT_PLAN_NAME, namedRef: ref };
    }
  }
  if (kind && inQuick) {
    const dir = parts.length >= 3 ? (parts[1] as string) : '';
    const pre = new RegExp(`^(.+?)-${kind === 'plan' ? 'PLAN' : 'SUMMARY'}\\.md$`, 'i').exec(name)?.[1];
    const key = (pre ?? (/^(\d{6}-[a-z0-9]{3}|\d+)(?:-|$)/i.exec(dir)?.[1] ?? dir)).replace(/[^A-Za-z0-9_.-]/g, '-');
    if (key && /^[A-Za-z0-9]/.test(key)) {
      const id = `quick-${key}`.slice(0, 64);
      return { kind, ref: { phase: 'quick', plan: key }, id, planKind: 'quick', phaseDir: dir ? `quick/${dir}` : 'quick' };
    }
  }
  if (kind === 'summary') return undefined;
  return {
    kind: 'not-plan',
    reason: inPhases || inQuick ? NOT_PLAN_NAME : 'not under phases/, quick/ or an archived milestone, so not a GSD plan',
  };
}

/**
 * A plan's id from its frontmatter `plan_id` (`05-W1`, `04.5-03-W1`), when it begins with the plan's
 * phase number: the phase is that number, the plan the rest. Undefined otherwise.
 */
function idFromFrontmatter(fm: ParsedPlan, phase: string): { ref: PlanRef; id: string } | undefined {
  const m = fm.planId ? /^(\d+(?:\.\d+)*)-([A-Za-z0-9][A-Za-z0-9_.-]{0,40})$/.exec(fm.planId) : null;
  if (!m || !sameNumber(m[1] as string, phase)) return undefined;
  return { ref: { phase: m[1] as string, plan: m[2] as string }, id: fm.planId as string };
}

/**
 * The id of a plan its frontmatter numbers (`phase: 1`, `plan: 1`), with the numbers as its file name
 * writes them (`01-PLAN-01.md` -> 01-01) when they are the same numbers, else as the frontmatter does.
 */
function asFileWrites(rel: string, phase: string, plan: string): { ref: PlanRef; id: string } {
  const nums = /^(\d+(?:\.\d+)*)\D+?(\d+[a-z]?)\D*$/i.exec(path.posix.basename(rel).replace(/\.md$/i, ''));
  const split = (x: string) => /^(\d+)([a-z]?)$/i.exec(x);
  const [a, b] = [split(nums?.[2] ?? ''), split(plan)];
  const agree = nums?.[1] !== undefined && sameNumber(nums[1], phase) && a && b && sameNumber(a[1] as string, b[1] as string) && (a[2] as string).toLowerCase() === (b[2] as string).toLowerCase();
  const ref = agree ? { phase: nums?.[1] as string, plan: nums?.[2] as string } : { phase, plan };
  return { ref, id: `${ref.phase}-${ref.plan}` };
}

/**
 * Phase folders whose names say they number plans, not phases: a folder holding a `MM-PLAN.md`
 * whose MM is not the folder's phase (`01-core/02-PLAN.md`). loadGsdProject adds a folder whose
 * `NN-PLAN.md` says `plan: NN` in its frontmatter. In any other folder, `01-PLAN.md` in `01-core/`
 * is the phase's one plan.
 */
function numberingFolders(files: string[]): Set<string> {
  const out = new Set<string>();
  for (const rel of files) {
    const parts = rel.split('/');
    const m = /^(\d+)-PLAN\.md$/i.exec(parts[parts.length - 1] as string);
    const folder = parts.length >= 3 ? dirPhase(parts[parts.length - 2] as string) : undefined;
    if (m && folder && !sameNumber(m[1] as string, folder)) out.add(path.posix.dirname(rel));
  }
  return out;
}

/** Every Markdown file under the planning folder (bounded depth; Heimdall's own folders skipped), sorted. */
function markdownFiles(planningDir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > 5) return;
    for (const e of readDirSafe(abs).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth === 0 && PLANNING_SKIP.has(e.name)) continue;
        walk(path.join(abs, e.name), r, depth + 1);
      } else if (/\.md$/i.test(e.name)) out.push(r); // not only regular files: a FIFO or device named PLAN.md is reported, never skipped silently
    }
  };
  walk(planningDir, '', 0);
  // Live phases first, quick tasks next, archived milestones last: a live plan wins over an archived copy.
  const rank = (r: string) => (r.startsWith('phases/') ? 0 : r.startsWith('quick/') ? 1 : r.startsWith('milestones/') ? 2 : 3);
  return out.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Read a GSD planning folder into a model. Never writes. */
export function loadGsdProject(dir: string): GsdProject {
  const planningDir = resolveGsdDir(dir);
  const projectRoot = path.dirname(planningDir);
  const issues: Issue[] = [];
  const plansByKey = new Map<string, GsdPlan>();
  const summariesByKey = new Map<string, GsdSummary>();
  const planFiles: PlanFileEntry[] = [];

  const keyOf = (ref: PlanRef, kind: 'phase' | 'quick') => (kind === 'quick' ? `quick:${ref.plan.toLowerCase()}` : refKey(ref));

  const files = markdownFiles(planningDir);
  const numbered = numberingFolders(files);
  for (const rel of files) {
    const found = classify(rel);
    if (!found) continue;
    if (found.kind === 'not-plan') {
      const raw = readSafe(path.join(planningDir, rel)).text;
      // A file named oddly but written as a GSD plan (frontmatter phase and plan, or a plan_id that
      // begins with its phase) is still a plan.
      const fm = raw !== undefined ? parsePlan(raw) : undefined;
      const phase = fm?.phase ? leadingPhase(fm.phase) : undefined;
      const planNo = fm?.plan && /^\d+[a-z]?$/i.test(fm.plan) ? fm.plan : undefined;
      const own = fm && phase && !planNo ? idFromFrontmatter(fm, phase) : undefined;
      const byName = found.namedRef;
      const named =
        phase && planNo
          ? { ...asFileWrites(rel, phase, planNo), why: 'named oddly; its frontmatter names phase and plan' }
          : own
            ? { ...own, why: `named oddly; its frontmatter plan_id names it ${own.id}` }
            : byName && !fm?.planId
              ? { ref: byName, id: `${byName.phase}-${byName.plan}`, why: `a plan named, not numbered, in its phase's folder: imported as ${byName.phase}-${byName.plan}` }
              : undefined;
      if (raw !== undefined && named && fm?.tasks) {
        const phaseDir = rel.split('/').length >= 3 ? (rel.split('/')[rel.split('/').length - 2] as string) : '';
        if (addPlan(named.ref, named.id, 'phase', raw, rel, phaseDir)) {
          planFiles.push({ file: rel, id: named.id, status: 'imported', reason: named.why });
        } else planFiles.push({ file: rel, status: 'skipped', reason: `plan ${named.id} is also ${plansByKey.get(keyOf(named.ref, 'phase'))?.file}` });
        continue;
      }
      planFiles.push({ file: rel, status: 'skipped', reason: found.reason });
      issues.push({ kind: 'ignored_file', file: rel, detail: `${found.reason}; not read as a plan` });
      continue;
    }
    const { text: raw, why } = readSafe(path.join(planningDir, rel));
    if (raw === undefined) {
      if (found.kind === 'plan') {
        planFiles.push({ file: rel, status: 'skipped', reason: `cannot be read: ${why}` });
        issues.push({ kind: 'ignored_file', file: rel, detail: `cannot be read: ${why}` });
      }
      continue;
    }
    // `01-PLAN.md` in `01-core/` beside `02-PLAN.md` (or saying `plan: 01`) is plan 01 of phase 01;
    // `03-SUMMARY.md` there is the summary of the plan its frontmatter names, else of plan 03. A
    // folder's `NN-PLAN.md` sorts before its `NN-SUMMARY.md`, so the summary sees what the plan said.
    const dir = path.posix.dirname(rel);
    if (found.ownNumber && found.kind === 'plan' && !numbered.has(dir)) {
      const said = parsePlan(raw).plan;
      if (said !== undefined && /^\d+$/.test(said) && sameNumber(said, found.ownNumber)) numbered.add(dir);
    }
    if (found.ownNumber && numbered.has(dir)) {
      const said = found.kind === 'summary' ? parseSummary(raw).plan : undefined;
      const plan = said !== undefined && /^\d+[a-z]?$/i.test(said) ? said : found.ownNumber;
      found.ref = { phase: found.ref.phase, plan };
      found.id = `${found.ref.phase}-${plan}`;
      found.note = `${rel.slice(rel.lastIndexOf('/') + 1)} in ${found.phaseDir}, a folder that numbers its plans: plan ${plan} of phase ${found.ref.phase}, imported as ${found.id}`;
    }
    // Two phase folders with one number (`04-state-refactoring/04-PLAN.md`, `04-touch-events/PLAN.md`,
    // left by a renumbered milestone): the later folder's plan and summary are named after their folder.
    if (found.planKind === 'phase') {
      const taken = plansByKey.get(keyOf(found.ref, 'phase'));
      if (taken && taken.phaseDir !== found.phaseDir && /^\d/.test(found.phaseDir)) {
        const plan = `${found.phaseDir.replace(/^\d+(?:\.\d+)*[-_ ]*/, '').replace(/[^A-Za-z0-9_.-]+/g, '-') || 'dir'}-${found.ref.plan}`.toLowerCase();
        const id = `${found.ref.phase}-${plan}`.slice(0, 64);
        found.ref = { phase: found.ref.phase, plan };
        found.id = id;
        found.note = `phase ${found.ref.phase} has another folder (${taken.phaseDir}): imported as ${id}`;
      }
    }
    // Two files of one folder whose names give one number (`04.5-03-W0-PLAN.md`, `04.5-03-W1-PLAN.md`):
    // the later is imported under the plan_id its frontmatter gives, when that is another id.
    if (found.kind === 'plan' && found.planKind === 'phase' && plansByKey.has(keyOf(found.ref, 'phase'))) {
      const own = idFromFrontmatter(parsePlan(raw), found.ref.phase);
      if (own && !plansByKey.has(keyOf(own.ref, 'phase'))) {
        found.note = `${found.id} is also ${plansByKey.get(keyOf(found.ref, 'phase'))?.file}: imported under its frontmatter plan_id, ${own.id}`;
        found.ref = own.ref;
        found.id = own.id;
      }
    }
    if (found.kind === 'plan') {
      if (addPlan(found.ref, found.id, found.planKind, raw, rel, found.phaseDir)) {
        planFiles.push({ file: rel, id: found.id, status: 'imported', ...(found.note ? { reason: found.note } : {}) });
      } else {
        planFiles.push({ file: rel, status: 'skipped', reason: `plan ${found.id} is also ${plansByKey.get(keyOf(found.ref, found.planKind))?.file}` });
      }
    } else addSummary(found.ref, found.id, found.planKind, raw, rel, found.phaseDir);
  }

  function addPlan(ref: PlanRef, id: string, kind: 'phase' | 'quick', raw: string, file: string, phaseDir: string): boolean {
    const key = keyOf(ref, kind);
    if (plansByKey.has(key)) {
      issues.push({ kind: 'duplicate_plan', file, detail: `plan ${id} is also ${plansByKey.get(key)?.file}; this one was skipped` });
      return false;
    }
    const parsed = parsePlan(raw);
    if (!parsed.frontmatter.present) {
      issues.push({ kind: 'no_frontmatter', file, detail: parsed.frontmatter.error ?? 'no --- frontmatter: wave 1 assumed, no dependencies, files or must-haves' });
    } else if (parsed.frontmatter.error) {
      const keys = parsed.frontmatter.unreadable ?? [];
      issues.push({
        kind: 'bad_frontmatter',
        file,
        detail: `${parsed.frontmatter.error}; ${keys.length ? `nothing taken from ${keys.join(', ')}` : 'nothing taken from it'}, the other keys read as written`,
      });
    }
    if (!parsed.hasContextBlock) {
      issues.push({
        kind: 'no_context',
        file,
        detail: parsed.contextRefs.length ? `no <context> block; ${parsed.contextRefs.length} references read from a Context section` : 'no <context> block: the plan is its whole context',
      });
    }
    if (!parsed.tasks) issues.push({ kind: 'no_tasks', file, detail: 'no <tasks> block, <task> or <feature> element, or Tasks section: the floor is the whole body' });
    if (kind === 'phase') {
      for (const [k, v] of [
        ['phase', parsed.phase],
        ['plan', parsed.plan],
      ] as const) {
        if (v === undefined) continue;
        const mine = k === 'phase' ? ref.phase : ref.plan;
        const theirs = k === 'phase' ? (leadingPhase(v) ?? v) : v;
        if (/^\d+(?:\.\d+)*[a-z]?$/i.test(theirs) && /^\d/.test(mine) && !sameNumber(theirs, mine)) {
          issues.push({ kind: 'frontmatter_mismatch', file, detail: `frontmatter says ${k} ${v}, the file name says ${mine}; the file name wins` });
        }
      }
    }
    plansByKey.set(key, { id, kind, phase: ref.phase, plan: ref.plan, phaseDir, file, raw, parsed, wave: parsed.wave ?? 0, depends: [], contextRefs: parsed.contextRefs });
    return true;
  }

  function addSummary(ref: PlanRef, id: string, kind: 'phase' | 'quick', raw: string, file: string, phaseDir: string): void {
    const key = keyOf(ref, kind);
    if (summariesByKey.has(key)) return;
    summariesByKey.set(key, { id, kind, phase: ref.phase, plan: ref.plan, phaseDir, file, raw, parsed: parseSummary(raw) });
  }

  // `06-SUMMARY.md` in a folder that holds plans 06-01, 06-02 and no bare plan sums up the phase, not
  // one plan: it is read as a document (its sections citable), not imported as a finished task.
  for (const [key, s] of summariesByKey) {
    if (s.kind !== 'phase' || s.plan !== 'plan' || plansByKey.has(key)) continue;
    const dir = path.posix.dirname(s.file);
    const others = [...plansByKey.values()].filter((q) => q.kind === 'phase' && path.posix.dirname(q.file) === dir && sameNumber(q.phase, s.phase)).map((q) => q.id).sort(comparePlanIds);
    if (!others.length) continue;
    summariesByKey.delete(key);
    issues.push({ kind: 'phase_summary', file: s.file, detail: `a summary of phase ${s.phase} as a whole (its folder holds plans ${others.join(', ')}, none of them bare): read as a document, not imported as a finished task` });
  }

  // Dependencies: resolve against the plans that exist (padding-insensitive).
  // A plan's own id as written ("05-W0"; a quick task by its key, "260427-nz9"), then the numbers in the entry.
  const byId = new Map<string, GsdPlan>();
  for (const q of plansByKey.values()) if (!byId.has(q.id)) byId.set(q.id, q);
  const quick = (key: string) => {
    const q = byId.get(`quick-${key}`);
    return q?.kind === 'quick' ? q : undefined;
  };
  // A plan file of the same folder, named as written (`01-PLAN`, `02-PLAN.md`).
  const byFileName = new Map<string, GsdPlan>();
  for (const q of plansByKey.values()) byFileName.set(q.file.toLowerCase(), q);
  const sibling = (p: GsdPlan, entry: string) => {
    const name = entry.trim().replace(/^.*\//, '').toLowerCase();
    if (!/plan(\.md)?$/.test(name)) return undefined;
    return byFileName.get(`${path.posix.dirname(p.file)}/${name.endsWith('.md') ? name : `${name}.md`}`.toLowerCase());
  };
  // Every plan of a phase, and every finished task of it whose PLAN is gone, in id order: the phase a
  // folder named whole (`01-foundation-gui-bootstrap`) or a number alone (`Phase 4`; a bare `4` that
  // names no other plan of the plan's own phase, getting_into_character 05-01 `[4]`, 04-03 `[3]`) means.
  const phaseIds = (inPhase: (x: { phase: string; file: string }) => boolean): string[] => {
    const ids = [...plansByKey.values()].filter((q) => q.kind === 'phase' && inPhase(q)).map((q) => q.id);
    for (const [key, sm] of summariesByKey) if (sm.kind === 'phase' && !plansByKey.has(key) && inPhase(sm)) ids.push(sm.id);
    return [...new Set(ids)].sort(comparePlanIds);
  };
  const phaseFolder = (entry: string): string[] => {
    const name = entry.trim().replace(/\/+$/, '').replace(/^.*\//, '').toLowerCase();
    if (!/^\d+(?:\.\d+)*-[a-z]/.test(name)) return [];
    return phaseIds((x) => path.posix.basename(path.posix.dirname(x.file)).toLowerCase() === name);
  };
  const phaseNumber = (n: string): string[] => phaseIds((x) => sameNumber(x.phase, n));
  for (const p of plansByKey.values()) {
    const deps: string[] = [];
    for (const entry of p.parsed.dependsOn) {
      const ref = parseDependency(entry, p.phase);
      let target = byId.get(entry.trim()) ?? quick(entry.trim()) ?? sibling(p, entry) ?? (ref ? plansByKey.get(refKey(ref)) : undefined);
      // `Phase N` is a phase; a bare N is one when it names neither another plan of this phase nor a
      // finished task of it whose PLAN is gone.
      const bare = /^(phase\s*)?(\d+(?:\.\d+)*)$/i.exec(entry.trim());
      // A finished task whose PLAN is gone but whose SUMMARY is here.
      const finished = ref && !plansByKey.has(refKey(ref)) ? summariesByKey.get(refKey(ref)) : undefined;
      const asPhase = bare?.[2] !== undefined && (bare[1] !== undefined || target?.id === p.id || (!target && !finished));
      if (asPhase) target = undefined;
      const phase = target ? [] : [...phaseFolder(entry), ...(asPhase ? phaseNumber(bare?.[2] ?? '') : [])].filter((id) => id !== p.id);
      if (phase.length) {
        for (const id of phase) if (!deps.includes(id)) deps.push(id);
        continue;
      }
      if (!target) {
        // The finished task: the dependency stands (its capsule is carried).
        if (finished) {
          if (!deps.includes(finished.id)) deps.push(finished.id);
          continue;
        }
        issues.push({ kind: 'unresolved_depends', file: p.file, detail: `depends_on ${JSON.stringify(entry)} names no plan in this tree; ignored` });
        continue;
      }
      if (target.id === p.id) {
        issues.push({ kind: 'unresolved_depends', file: p.file, detail: 'the plan depends on itself; ignored' });
        continue;
      }
      if (!deps.includes(target.id)) deps.push(target.id);
    }
    p.depends = deps;
  }
  breakCycles([...plansByKey.values()], issues);
  assignWaves([...plansByKey.values()]);

  for (const [key, s] of summariesByKey) {
    const p = plansByKey.get(key);
    if (p) p.summary = s;
    else issues.push({ kind: 'summary_without_plan', file: s.file, detail: `no plan ${s.id} in the tree (its plan would be ${s.file.replace(/SUMMARY(\.md)$/i, 'PLAN$1')}): imported as a finished task with no plan` });
  }
  const project: GsdProject = {
    planningDir,
    projectRoot,
    plans: [...plansByKey.values()].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'quick' ? 1 : -1) || numericCompare(a.phase, b.phase) || a.wave - b.wave || numericCompare(a.plan, b.plan)),
    summaries: [...summariesByKey.values()].sort((a, b) => comparePlanIds(a.id, b.id)),
    planFiles,
    issues,
  };
  for (const p of project.plans) {
    for (const c of contextFiles(project, p.contextRefs)) {
      if (!c.exists) issues.push({ kind: 'missing_context_file', file: p.file, detail: `@${c.ref} does not exist (${c.rel})` });
    }
  }
  return project;
}

/** Drop the edges that close a cycle (each reported), so waves and capsule closures stay finite. */
function breakCycles(plans: GsdPlan[], issues: Issue[]): void {
  const byId = new Map(plans.map((p) => [p.id, p]));
  const state = new Map<string, 1 | 2>();
  const visit = (p: GsdPlan) => {
    state.set(p.id, 1);
    p.depends = p.depends.filter((d) => {
      const s = state.get(d);
      if (s === 1) {
        issues.push({ kind: 'dependency_cycle', file: p.file, detail: `depends_on ${d} closes a cycle back to ${p.id}; that edge was dropped` });
        return false;
      }
      const q = byId.get(d);
      if (q && s === undefined) visit(q);
      return true;
    });
    state.set(p.id, 2);
  };
  for (const p of [...plans].sort((a, b) => comparePlanIds(a.id, b.id))) if (!state.has(p.id)) visit(p);
}

/** A plan with no wave gets one more than its latest dependency (1 when it has none). */
function assignWaves(plans: GsdPlan[]): void {
  const byId = new Map(plans.map((p) => [p.id, p]));
  const memo = new Map<string, number>();
  const wave = (p: GsdPlan): number => {
    const known = memo.get(p.id);
    if (known !== undefined) return known;
    let w = p.parsed.wave;
    if (w === undefined || w < 1) {
      w = 1;
      for (const d of p.depends) {
        const q = byId.get(d);
        if (q && q.phase === p.phase) w = Math.max(w, wave(q) + 1);
      }
    }
    memo.set(p.id, w);
    return w;
  };
  for (const p of plans) p.wave = wave(p);
}
