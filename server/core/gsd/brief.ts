/**
 * The v2 brief of a GSD plan: what an orchestrator sends the executor of one plan, and what the
 * bench counts. It carries the closure of what the plan references, resolved:
 *
 *   TASK <plan id> <plan file>
 *   SPEC
 *   <the plan as written, minus GSD's workflow block and its @-lines; ids where they save tokens>
 *   SYMBOLS                       (only when an id saves tokens in this brief)
 *   <id>\t<value>
 *   UNITS                         (every unit the plan cites: decisions, requirements, roadmap
 *   § <unit id>                    phase entry, sections it names; exact text; units of a file
 *   <text>                         that overlap are one block, `§ <id> + <id>`, each line once)
 *   CAPSULES                      (the capsule closure of its dependencies and of the SUMMARYs it reads)
 *   REFS                          (every read the plan asks for, grouped by what became of it)
 *   read whole (below): <path>; ...        to units: <path> > § <id>, ...
 *   to capsules: <path> > <id>             missing from the tree: <path>
 *   project files (read them in the repository): <path>; ...
 *   GSD's workflow (replaced by the Heimdall protocol): workflows/execute-plan.md
 *   INVARIANTS see .planning/PROJECT.md
 *
 * A read that resolves to nothing smaller (a document the plan names but cites nothing in) is not
 * dropped: the brief lists it, and the counted text (`counted`) appends the file after the brief,
 * `READ <path>` then its text, because the executor must read it. `counted` is exactly what the
 * bench and the ledger count for the plan; `resolved` is the same with every id replaced by what it
 * stands for.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type Capsule, closure, readCapsule } from '../capsules/capsules.js';
import { type PlanAnalysis, type RefResolution, analysePlan } from './cite.js';
import { loadGsdModel } from './importer.js';
import { normalizeText } from './parse.js';
import { carriedPlanText, chooseIds } from './spec.js';
import { type GsdPlan, type GsdProject, comparePlanIds } from './tree.js';
import { refKey } from './parse.js';
import type { PlacedUnit, UnitIndex } from './units.js';

/** What the brief builder needs from an import (the importer returns it; loadGsdModel rebuilds it). */
export interface GsdModel {
  project: GsdProject;
  index: UnitIndex;
  /** Recurring path -> symbol id. */
  pathIds: Map<string, string>;
  /** Plan id -> truth symbol ids, in must_haves order. */
  truthIds: Map<string, string[]>;
  /** Plans with a capsule. */
  capsules: Set<string>;
  /** The invariants reference (`.planning/PROJECT.md`), when the tree has one. */
  invariants?: string;
}

/** The mechanisms a brief may use; turning one off gives an ablation arm. */
export interface BriefMechanisms {
  /** Resolve references to the units cited (off: every referenced or cited document is read whole). */
  units: boolean;
  /** Stand a capsule for a finished plan's SUMMARY and carry dependencies' capsules (off: SUMMARYs are read whole). */
  capsules: boolean;
  /** Ids for recurring paths and restated truths where they save tokens (off: text as written). */
  symbols: boolean;
}

export const ALL_MECHANISMS: BriefMechanisms = { units: true, capsules: true, symbols: true };

export interface BriefRead {
  /** Relative to the planning folder. */
  rel: string;
  text: string;
  /** Why the file is read whole. */
  reason: string;
}

export interface BuiltBrief {
  plan: GsdPlan;
  analysis: PlanAnalysis;
  /** The brief an orchestrator sends. */
  text: string;
  /** The brief followed by the files it lists as reads: what is counted. */
  counted: string;
  /** `counted` with every id replaced by its value. */
  resolved: string;
  /** The plan text carried, before ids (what recall checks line by line). */
  spec: string;
  units: PlacedUnit[];
  /** The UNITS section as sent: `units`, with those that overlap merged (unitBlocks). */
  blocks: UnitBlock[];
  reads: BriefRead[];
  capsules: Capsule[];
  symbols: [string, string][];
  /** References outside the planning folder (project files, GSD workflow files), listed, not counted on any arm. */
  outside: string[];
}

function unitText(index: UnitIndex, u: PlacedUnit): string {
  return u.text ?? index.files.get(u.file) ?? '';
}

/** One block of the UNITS section: a unit, or units of one file whose texts overlap, sent once under all their ids. */
export interface UnitBlock {
  ids: string[];
  file: string;
  text: string;
}

/**
 * The UNITS section's blocks, in the order of `units` (a file's units together, by where they
 * start): units of one file that share text (a section and a line range reaching into it, two
 * ranges that cross) become one block, the file's text from the first one's start to the last
 * one's end, so no line is sent twice. Units nested in one another never get here (the citing step
 * keeps the outer one).
 */
export function unitBlocks(index: UnitIndex, units: PlacedUnit[]): UnitBlock[] {
  const out: (UnitBlock & { start: number; end: number })[] = [];
  for (const u of units) {
    const last = out[out.length - 1];
    const file = index.files.get(u.file);
    if (last && u.text !== undefined && file !== undefined && last.file === u.file && last.start >= 0 && u.start < last.end && u.end > last.start) {
      last.ids.push(u.id);
      last.start = Math.min(last.start, u.start);
      last.end = Math.max(last.end, u.end);
      last.text = file.slice(last.start, last.end);
      continue;
    }
    // A unit standing for a whole file (no text of its own) never merges.
    const whole = u.text === undefined;
    out.push({ ids: [u.id], file: u.file, text: unitText(index, u), start: whole ? -1 : u.start, end: whole ? -1 : u.end });
  }
  return out.map(({ ids, file, text }) => ({ ids, file, text }));
}

/** GSD's installed workflow and template files (`.claude/get-shit-done/...`), not part of the project. */
function isWorkflowPath(p: string): boolean {
  return /(^|\/)(\.claude|\.codex|\.opencode|\.gemini)\/|get-shit-done\//i.test(p);
}

/** A workflow file named from GSD's own folder on (`workflows/execute-plan.md`), not the user's home. */
function workflowName(p: string): string {
  const m = /get-shit-done\/(.+)$/i.exec(p.replace(/\\/g, '/'));
  return m ? (m[1] as string) : p;
}

/**
 * The REFS section: every read the plan asks for, grouped by what became of it, one line a group
 * (`read whole (below): a; b`). Nothing is dropped: each path is written as the plan wrote it.
 */
export function refsLines(refs: RefResolution[], workflowRefs: string[]): string[] {
  const labels = [
    'read whole (below)',
    'to units',
    'to capsules',
    'missing from the tree',
    'project files (read them in the repository)',
    "GSD's workflow (replaced by the Heimdall protocol)",
  ];
  // Group -> path as written -> the notes beside it and what it resolved to (a path named twice, in
  // <context> and in <read_first>, is listed once).
  const groups = labels.map(() => new Map<string, { notes: string[]; to: string[] }>());
  const add = (g: number, written: string, note?: string, to: string[] = []) => {
    const group = groups[g] as Map<string, { notes: string[]; to: string[] }>;
    const e = group.get(written) ?? { notes: [], to: [] };
    group.set(written, e);
    if (note && !e.notes.includes(note)) e.notes.push(note);
    for (const t of to) if (!e.to.includes(t)) e.to.push(t);
  };
  for (const r of refs) {
    // A note is repeated only from a <context> @-line, which the brief drops; a <read_first> item or a
    // path in the prose stays in SPEC with its note beside it, so REFS names the path alone.
    const note = r.via === 'context' ? r.note : undefined;
    // A planning document is named where it is (`06-VALIDATION.md` beside the plan ->
    // `.planning/phases/06-x/06-VALIDATION.md`), as the READ lines name it.
    const at = r.rel !== undefined ? `.planning/${r.rel}` : r.written;
    if (r.resolution === 'read') add(0, at, note);
    else if (r.resolution === 'units') add(1, at, note, r.units.map((u) => `§ ${u}`));
    else if (r.resolution === 'capsule') add(2, at, note, r.capsule ? [r.capsule] : []);
    else if (r.resolution === 'missing') add(3, at, note);
    else if (isWorkflowPath(r.written)) add(5, workflowName(r.written));
    else add(4, r.written, note);
  }
  for (const w of workflowRefs) add(5, workflowName(w));
  const lines: string[] = [];
  groups.forEach((group, g) => {
    if (!group.size) return;
    const items = [...group].map(([written, e]) => `${written}${e.notes.length ? ` (${e.notes.join('; ')})` : ''}${e.to.length ? ` > ${e.to.join(', ')}` : ''}`);
    lines.push(`${labels[g]}: ${items.join('; ')}`);
  });
  return lines;
}

/** Why a planning file is read whole when the plan references it and cites no part of it. */
export const UNCITED_READ = 'referenced; the plan cites no part of it';

/** Build the v2 brief of one plan (or an ablation of it). Reads the capsules of `ctx`; writes nothing. */
export function buildGsdBrief(ctx: Ctx, model: GsdModel, plan: GsdPlan, mech: BriefMechanisms = ALL_MECHANISMS): BuiltBrief {
  const analysis = analysePlan({ project: model.project, index: model.index, capsules: mech.capsules ? model.capsules : new Set() }, plan);
  const index = model.index;
  const refs = analysis.refs.map((r) => ({ ...r, units: [...r.units] }));
  let units = analysis.units.map((c) => index.byId.get(c.id)).filter((u): u is PlacedUnit => u !== undefined);
  const reads: BriefRead[] = [];
  const readRel = new Set<string>();
  const addRead = (rel: string, reason: string) => {
    if (readRel.has(rel)) return;
    const text = index.files.get(rel) ?? fileText(model.project, rel);
    if (text === undefined) return;
    readRel.add(rel);
    reads.push({ rel, text, reason });
  };
  if (!mech.units) {
    // Without units: every document referenced or holding a cited unit is read whole.
    for (const r of refs) if (r.resolution === 'units') r.resolution = 'read';
    for (const r of refs) if (r.rel && r.resolution === 'read') addRead(r.rel, 'referenced');
    for (const u of units) addRead(u.file, `holds ${u.label ?? u.id}, which the plan cites`);
    units = [];
  } else {
    for (const r of refs) {
      if (!r.rel || r.resolution !== 'read') continue;
      addRead(r.rel, r.gaps ? `referenced; the plan names ${r.gaps.join(', ')} of it, which no heading of it carries` : r.note ? `referenced; the note names no section of it: ${r.note}` : UNCITED_READ);
    }
  }

  const spec = carriedPlanText(plan);
  const truths = new Map<string, string>();
  plan.parsed.truths.forEach((t, i) => {
    const id = model.truthIds.get(plan.id)?.[i];
    if (id) truths.set(t, id);
  });
  const ids = mech.symbols ? chooseIds(spec, model.pathIds, truths, ctx.tokenizer) : { text: spec, symbols: [] as [string, string][] };

  let capsules: Capsule[] = [];
  if (mech.capsules && analysis.capsules.length) capsules = closure(ctx, analysis.capsules);

  const outside = [...plan.parsed.workflowRefs.map((w) => `workflow ${w}`), ...refs.filter((r) => r.resolution === 'outside').map((r) => `${isWorkflowPath(r.written) ? 'workflow' : r.via} ${r.written}`)];
  const head = [`TASK ${plan.id} ${plan.file}`, 'SPEC'];
  const tail: string[] = [];
  const blocks = unitBlocks(index, units);
  if (blocks.length) {
    tail.push('UNITS');
    for (const b of blocks) tail.push(`§ ${b.ids.join(' + ')}`, b.text.replace(/\s+$/, ''));
  }
  if (capsules.length) tail.push('CAPSULES', capsules.map((c) => c.text.trimEnd()).join('\n\n'));
  if (refs.length || plan.parsed.workflowRefs.length) {
    tail.push('REFS');
    tail.push(...refsLines(refs, plan.parsed.workflowRefs));
  }
  if (model.invariants) tail.push(`INVARIANTS see ${model.invariants}`);
  const symbolLines = ids.symbols.length ? ['SYMBOLS', ...ids.symbols.map(([id, v]) => `${id}\t${v}`)] : [];
  const text = `${[...head, ids.text, ...symbolLines, ...tail].join('\n')}\n`;
  const readText = renderReads(reads);
  const counted = text + readText;
  const resolvedBrief = `${[...head, spec, ...tail].join('\n')}\n`;
  return { plan, analysis: { ...analysis, refs }, text, counted, resolved: resolvedBrief + readText, spec, units, blocks, reads, capsules, symbols: ids.symbols, outside };
}

/** Reads as the counted text appends them after a brief: `READ .planning/<path>` then the file. */
export function renderReads(reads: BriefRead[]): string {
  return reads.map((r) => `READ .planning/${r.rel}\n${normalizeText(r.text).replace(/\s+$/, '')}\n`).join('');
}

function fileText(project: GsdProject, rel: string): string | undefined {
  const p = project.plans.find((x) => x.file === rel);
  if (p) return p.raw;
  const s = project.summaries.find((x) => x.file === rel);
  if (s) return s.raw;
  return undefined;
}

/** The capsule text of a plan, if it has one (for recall: a capsule stands for its SUMMARY). */
export function capsuleTextOf(ctx: Ctx, id: string): string | undefined {
  try {
    return readCapsule(ctx, id).text;
  } catch (e) {
    if (e instanceof HeimdallError && e.code === 'not_found') return undefined;
    throw e;
  }
}

/** The v2 brief of one plan, as `heimdall brief gsd PLAN-ID` prints it and the bench counts it. */
export interface GsdBrief {
  plan: string;
  phase: string;
  wave: number;
  /** The PLAN file, relative to the planning folder. */
  file: string;
  /** The brief an orchestrator sends to the plan's executor. */
  text: string;
  tokens: number;
  /** Documents the brief lists as reads the executor must make (counted), with why. */
  reads: { path: string; tokens: number; reason: string }[];
  read_tokens: number;
  /** The brief followed by its reads: exactly what the bench and the ledger count as v2. */
  counted_text: string;
  /** Tokens of counted_text. */
  total_tokens: number;
  /** Units the brief carries, with how the plan cites each. */
  units: { id: string; file: string; how: string[]; cited: string[]; ambiguous?: boolean }[];
  /** Capsule closure carried (dependencies first). */
  capsules: string[];
  /** Symbol ids the brief defines (only those that save tokens here). */
  symbols: string[];
  /** Every read the plan asks for and what became of it. */
  refs: RefResolution[];
  /** References outside .planning (project files, GSD workflow files): listed in the brief, counted on no arm. */
  outside: string[];
  tokenizer: string;
}

/** Find a plan by id as a person types it: `02-02`, `2-2`, `03-05b`, `quick-001`, or its PLAN file path. */
export function findPlan(model: GsdModel, ref: string): GsdPlan {
  const want = ref.trim().replace(/^\.planning\//, '');
  const plans = model.project.plans;
  const hit =
    plans.find((p) => p.id === want) ??
    plans.find((p) => p.file === want) ??
    plans.find((p) => p.id.toLowerCase() === want.toLowerCase()) ??
    (() => {
      const m = /^(\d+(?:\.\d+)*[a-z]?)-(\d+[a-z]?)$/i.exec(want);
      return m ? plans.find((p) => p.kind === 'phase' && refKey(p) === refKey({ phase: m[1] as string, plan: m[2] as string })) : undefined;
    })();
  if (hit) return hit;
  const ids = plans.map((p) => p.id).sort(comparePlanIds);
  throw new HeimdallError('not_found', `no plan ${JSON.stringify(ref)} in ${model.project.planningDir}; plans: ${ids.slice(0, 12).join(', ')}${ids.length > 12 ? `, ... (${ids.length})` : ''}`);
}

/** Describe a built brief with its token counts (ctx.tokenizer). */
export function describeBrief(ctx: Ctx, built: BuiltBrief): GsdBrief {
  const count = (t: string) => ctx.tokenizer.count(t);
  const byId = new Map(built.analysis.units.map((c) => [c.id, c]));
  return {
    plan: built.plan.id,
    phase: built.plan.phase,
    wave: built.plan.wave,
    file: built.plan.file,
    text: built.text,
    tokens: count(built.text),
    reads: built.reads.map((r) => ({ path: `.planning/${r.rel}`, tokens: count(r.text), reason: r.reason })),
    read_tokens: built.reads.reduce((s, r) => s + count(r.text), 0),
    counted_text: built.counted,
    total_tokens: count(built.counted),
    units: built.units.map((u) => {
      const c = byId.get(u.id);
      return { id: u.id, file: u.file, how: c?.how ?? [], cited: c?.cited ?? [], ...(c?.ambiguous ? { ambiguous: true } : {}) };
    }),
    capsules: built.capsules.map((c) => c.id),
    symbols: built.symbols.map(([id]) => id),
    refs: built.analysis.refs,
    outside: built.outside,
    tokenizer: ctx.tokenizer.name,
  };
}

/**
 * The v2 brief of plan `planId` of the GSD tree imported into `ctx` (run `heimdall import gsd`
 * first): exactly what the bench counts for it. Reads only; logs nothing (whoever sends the brief
 * logs its tokens). Pass `model` to reuse one loaded model for many plans.
 */
export function gsdBrief(ctx: Ctx, planId: string, model: GsdModel = loadGsdModel(ctx)): GsdBrief {
  return describeBrief(ctx, buildGsdBrief(ctx, model, findPlan(model, planId)));
}
