/**
 * What one plan references, resolved against the tree's units. A plan points at context in three
 * ways, and every one is followed:
 *  - reads: `@` references (in `<context>` or inline) and `<read_first>` / `<files_to_read>` items,
 *    each a file, sometimes with a note naming parts of it (`02-RESEARCH.md (Pattern 1, anti-patterns)`);
 *  - ids: labels the plan writes anywhere in its text or frontmatter (`D-07`, `FR-3`,
 *    `requirements: [AUTH-01]`, ranges such as `D-01..D-04`), resolved to where they are defined.
 *    A label defined in several phases (every phase has its own D-07) means the plan's own phase,
 *    unless the plan names another one beside it (`D-04 from Phase 1`, `01-CONTEXT D-04`); a
 *    requirement the phase CONTEXT discusses is carried with its REQUIREMENTS entry;
 *  - sections: headings the plan names beside a file's name (`per Research Pattern 2`,
 *    `CONTEXT.md Area A`, `research pitfall #3`) or in a read's note; and a ROADMAP read means the
 *    plan's own phase entry (its frontmatter and file name say which phase it is); a read's note
 *    naming line numbers (`02-RESEARCH.md lines 320–430`) means those lines (lines.ts).
 * Each read of a planning file is then resolved: to the units of it the plan cites; to a capsule
 * when it is a finished plan's SUMMARY; otherwise it stays a whole-file read the executor must make
 * (and the bench counts). Reads outside `.planning/` (source files) are listed, never dropped.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LABEL_SOURCE, labelKey } from '../units/markdown.js';
import { lineRangesIn, rangeTitle, rangesAfterNames } from './lines.js';
import { numKey, stripXmlBlock } from './parse.js';
import { type GsdPlan, type GsdProject, planningRelative, writeSet } from './tree.js';
import type { PlacedUnit, UnitIndex } from './units.js';

export type Resolution = 'units' | 'capsule' | 'read' | 'missing' | 'outside';

/** One thing the plan tells its executor to read, and what the brief does with it. */
export interface RefResolution {
  /** The path as the plan writes it. */
  written: string;
  via: 'context' | 'inline' | 'read_first';
  note?: string;
  /** Relative to the planning folder, for a reference into it. */
  rel?: string;
  resolution: Resolution;
  /** Units of the file the plan cites, when resolved to units. */
  units: string[];
  /** Numbered sections the plan names of the file that it does not have (the file stays a whole read). */
  gaps?: string[];
  /** The capsule standing for a finished plan's SUMMARY. */
  capsule?: string;
}

export type CiteHow = 'id' | 'section' | 'phase';

export interface CitedUnit {
  id: string;
  how: CiteHow[];
  /** Labels as the plan wrote them (`D-07`, `Pattern 2`). */
  cited: string[];
  /** Set when the label has several meanings and the plan does not say which: every one is carried. */
  ambiguous?: boolean;
}

export interface PlanAnalysis {
  plan: GsdPlan;
  refs: RefResolution[];
  /** Units the brief carries, in file order, none contained in another. */
  units: CitedUnit[];
  /** Capsule roots: the plan's dependencies and the SUMMARYs it reads, where a capsule exists. */
  capsules: string[];
  /** Notes beside reads that named no section of the file (the file stays a read). */
  unresolvedNotes: string[];
}

const LABEL_RE = new RegExp(`(?<![A-Za-z0-9_-])(${LABEL_SOURCE})(?![A-Za-z0-9_-])`, 'g');
const LABEL_ONE = new RegExp(`(?<![A-Za-z0-9_-])(${LABEL_SOURCE})(?![A-Za-z0-9_-])`);
const RANGE_RE = new RegExp(`(?<![A-Za-z0-9_-])(${LABEL_SOURCE})\\s*(?:\\.\\.\\.?|–|—|\\bto\\b|\\bthrough\\b|\\bthru\\b)\\s*(${LABEL_SOURCE})(?![A-Za-z0-9_-])`, 'g');

/** Words a read's note uses for the kind of part it names ("... sections", "... table"). */
const KIND_WORDS = new Set(['section', 'subsection', 'heading', 'table']);
const STOP = new Set(['to', 'the', 'a', 'an', 'of', 'and', 'or', 'for', 'in', 'on', 'with', 'from', 'by', 'vs', 'avoid', 'common', 'key', 'recommended', 'this', 'phase', 'notes']);

function stem(w: string): string {
  return w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

function words(s: string): string[] {
  return (s.toLowerCase().match(/[a-z0-9][a-z0-9'’-]*/g) ?? []).map((w) => stem(w.replace(/['’]/g, '')));
}

const isContextDoc = (rel: string) => /(^|[-_/])CONTEXT\.md$/i.test(rel);
const isRequirementsDoc = (rel: string) => /REQUIREMENTS[^/]*\.md$/i.test(rel);
const isRoadmapDoc = (rel: string) => /(^|[-_/])ROADMAP\.md$/i.test(rel);
/** A report written after a plan ran (its VERIFICATION, UAT, a milestone audit): it restates labels, it does not define them. */
const isReportDoc = (rel: string) => /(^|[-_/])(VERIFICATION|UAT|MILESTONE-AUDIT)\.md$/i.test(rel);

/** The folder of a plan inside the planning tree (`phases/02-persistence`). */
function planDir(plan: GsdPlan): string {
  return path.posix.dirname(plan.file);
}

/** Where a read points: a planning-relative file (existing or not), or outside the planning folder. */
export function locate(project: GsdProject, documents: Iterable<string>, plan: GsdPlan, written: string, exists: (rel: string) => boolean): { rel?: string; exists: boolean } {
  const norm = written.replace(/\\/g, '/').replace(/^\.\//, '');
  const rel = planningRelative(norm);
  if (rel !== undefined) return { rel: path.posix.normalize(rel), exists: exists(path.posix.normalize(rel)) };
  if (norm.startsWith('/') || norm.startsWith('~') || norm.startsWith('..')) return { exists: false };
  // Written relative to the planning folder ("ROADMAP.md", "phases/02-x/02-CONTEXT.md").
  if (exists(norm)) return { rel: norm, exists: true };
  // A bare name of a document beside the plan ("02-RESEARCH.md").
  if (!norm.includes('/')) {
    const beside = `${planDir(plan)}/${norm}`;
    if (exists(beside)) return { rel: beside, exists: true };
    // The phase's own document, named without its number ("RESEARCH.md" for 01-RESEARCH.md beside the plan).
    const docs = [...documents];
    const own = docs.filter((f) => path.posix.dirname(f) === planDir(plan) && path.posix.basename(f).toLowerCase().endsWith(`-${norm.toLowerCase()}`));
    if (own.length === 1) return { rel: own[0] as string, exists: true };
    const matches = [...new Set([...docs, ...project.summaries.map((s) => s.file), ...project.plans.map((p) => p.file)])].filter((f) => path.posix.basename(f) === norm);
    if (matches.length === 1) return { rel: matches[0] as string, exists: true };
  }
  return { exists: false };
}

/** The labelled items a label means for this plan (see the module comment). */
function resolveLabel(index: UnitIndex, plan: GsdPlan, label: string, qualifier: string | undefined): { units: PlacedUnit[]; ambiguous: boolean } {
  const all = (index.byLabel.get(labelKey(label)) ?? []).filter((u) => u.kind === 'item');
  if (all.length === 0) return { units: [], ambiguous: false };
  const dir = planDir(plan);
  const ofPhase = (u: PlacedUnit, p: string) => u.phase !== undefined && /^\d/.test(p) && numKey(u.phase) === numKey(p);
  // In a tree laid out flat every phase's files share one folder: only the plan's own phase's are its.
  const inDir = (u: PlacedUnit) => path.posix.dirname(u.file) === dir && (plan.phaseDir !== '' || u.phase === undefined || (plan.kind === 'phase' && ofPhase(u, plan.phase)));
  const formRank = (u: PlacedUnit) => (/^\s*\|/.test(u.text ?? '') ? 1 : 0);
  const pick = (cands: PlacedUnit[], pref: (u: PlacedUnit) => number): PlacedUnit[] => {
    if (cands.length <= 1) return cands;
    // Within one preference, a definition in a report comes after one written for planning.
    const score = (u: PlacedUnit) => pref(u) * 10 + (isReportDoc(u.file) ? 2 : 0) + formRank(u);
    const best = Math.min(...cands.map(score));
    const top = cands.filter((u) => score(u) === best);
    // Several copies of one text are one meaning.
    return top.filter((u, i) => top.findIndex((v) => v.text === u.text) === i);
  };
  // 1-2. The plan's own phase CONTEXT (or the phase it names beside the label).
  const ownPhase = plan.kind === 'phase' ? plan.phase : undefined;
  for (const p of [qualifier, ownPhase]) {
    if (p === undefined) continue;
    const ctx = all.filter((u) => isContextDoc(u.file) && (p === ownPhase ? inDir(u) || ofPhase(u, p) : ofPhase(u, p)));
    if (ctx.length) {
      // A requirement id is defined by its REQUIREMENTS entry; the phase CONTEXT only discusses it
      // (`### AUTH-01: Login`): carry both (the live file before an archive).
      const req = all.filter((u) => isRequirementsDoc(u.file) && !/^(phases|milestones\/[^/]*phases[^/]*)\//.test(u.file));
      return { units: [...pick(ctx, (u) => (inDir(u) ? 0 : 1)), ...pick(req, (u) => (u.file.startsWith('milestones/') ? 1 : 0))], ambiguous: false };
    }
  }
  // 3. Project-level definitions: REQUIREMENTS files first (the live one before archives), then ROADMAP, then the rest.
  const project = all.filter((u) => u.phase === undefined || !/^(phases|milestones\/[^/]*phases[^/]*)\//.test(u.file));
  if (project.length) {
    const pref = (u: PlacedUnit) => (isRequirementsDoc(u.file) ? 0 : isRoadmapDoc(u.file) ? 2 : 4) + (u.file.startsWith('milestones/') ? 1 : 0);
    return { units: pick(project, pref), ambiguous: false };
  }
  // 4. The plan's own phase folder, other documents (a RESEARCH table row).
  const own = all.filter((u) => inDir(u) || (ownPhase !== undefined && ofPhase(u, ownPhase)));
  if (own.length) return { units: pick(own, (u) => (inDir(u) ? 0 : 1)), ambiguous: false };
  // 5. Only other phases define it: carry every meaning, and say the plan was ambiguous.
  const ctx = all.filter((u) => isContextDoc(u.file));
  const rest = ctx.length ? ctx : all;
  const byPhase = new Map<string, PlacedUnit[]>();
  for (const u of rest) byPhase.set(u.phase ?? u.file, [...(byPhase.get(u.phase ?? u.file) ?? []), u]);
  const units = [...byPhase.values()].map((us) => pick(us, () => 0)[0] as PlacedUnit);
  return { units, ambiguous: units.length > 1 };
}

/** A phase the text names right beside a label: `D-04 from Phase 1`, `Phase 01 D-04`, `01-CONTEXT D-04`. */
function qualifierNear(text: string, at: number, len: number): string | undefined {
  const before = text.slice(Math.max(0, at - 32), at);
  const after = text.slice(at + len, at + len + 24);
  const m =
    /(?:from|of|in)\s+phase\s+(\d+(?:\.\d+)*)/i.exec(after) ??
    /phase\s+(\d+(?:\.\d+)*)(?:'s)?[\s,:]*$/i.exec(before) ??
    /(\d+(?:\.\d+)*[A-Za-z]?)-CONTEXT(?:\.md)?[\s,:#]*$/i.exec(before);
  return m?.[1];
}

/** The text of the plan that is scanned for ids and section names: all of it but the GSD workflow block. */
export function citingText(plan: GsdPlan): string {
  const fmEnd = plan.raw.length - plan.parsed.frontmatter.body.length;
  const head = plan.raw.slice(0, Math.max(0, fmEnd));
  return `${head}\n${stripXmlBlock(plan.parsed.frontmatter.body, 'execution_context')}`;
}

/** The file-name words a plan uses for a document: `02-RESEARCH.md` -> research, 02-research; `research/STACK.md` -> stack. */
function fileKeywords(rel: string): string[] {
  const base = path.posix.basename(rel).replace(/\.md$/i, '');
  const bare = base.replace(/^\d+(?:\.\d+)*[A-Za-z]?-/, '');
  return [...new Set([base, bare].map((s) => s.toLowerCase()).filter((s) => s.length >= 4))];
}

/** Section handles of one document: labelled headings and short titles. */
type Handle = { unit: PlacedUnit; label?: { word: string; n: string }; name: string[]; title?: string[]; words: Set<string>; phrase?: RegExp };

/** A heading's title as lower-case words, a parenthesis (a remark on it) left out. */
function titleWords(title: string): string[] {
  return title.replace(/\([^)]*\)/g, ' ').toLowerCase().match(/[a-z0-9]+/g) ?? [];
}

/** The heading's whole title followed by the kind of part it is ("Run Log View section", "Status Labels table"). */
function titlePhrase(title: string): RegExp | undefined {
  const tw = titleWords(title);
  return tw.length ? new RegExp(`(?<![a-z0-9])${tw.join('[^a-z0-9\\n]+')}[^a-z0-9\\n]+(?:sub)?(?:sections?|tables?|headings?)(?![a-z])`) : undefined;
}

function sectionHandles(units: PlacedUnit[], text = ''): Handle[] {
  const out: Handle[] = [];
  // The first heading running to the end of the document is its title ("# Phase 5: Polish
  // Verification Report"): naming it names the document, which only a read of the file stands for.
  const isTitle = (u: PlacedUnit) => text !== '' && text.slice(u.end).trim() === '' && !/^\s{0,3}#{1,6}\s/m.test(text.slice(0, u.start));
  for (const u of units) {
    if (u.kind !== 'section' && u.kind !== 'phase') continue;
    if (u.kind === 'section' && isTitle(u)) continue;
    const lab = u.label ? /^(\S+) (.+)$/.exec(u.label) : null;
    // A parenthesis is a remark on the heading ("Open Questions (RESOLVED)"), not a word of its name.
    const sig = words(u.title.replace(/^(\S+)\s+#?(\S+?)[:.]?\s+/, lab ? '' : '$&').replace(/\([^)]*\)/g, ' ')).filter((w) => !STOP.has(w));
    const title = sig.length >= 1 && sig.length <= 4 && sig.some((w) => w.length >= 5) ? sig : undefined;
    const phrase = titlePhrase(u.title);
    out.push({ unit: u, ...(lab ? { label: { word: stem((lab[1] as string).toLowerCase()), n: (lab[2] as string).toLowerCase() } } : {}), name: sig, ...(title ? { title } : {}), words: new Set(words(u.title)), ...(phrase ? { phrase } : {}) });
  }
  return out;
}

/**
 * Whether a clause writes a one-word heading title as a name, not as a word of its prose: with its
 * capital ("Pattern 6 and Metadata"), as the clause's first word ("RESEARCH.md metadata") or right
 * before the document ("the relative-path pitfall from research"), not "includes metadata with a
 * title template". A read's note is a list of names: every word in it is one.
 */
function asName(clause: string, word: string): boolean {
  const ws = clause.match(/[A-Za-z0-9][A-Za-z0-9'’-]*/g) ?? [];
  return ws.some((w, i) => stem(w.toLowerCase().replace(/['’]/g, '')) === word && (i === 0 || /^[A-Z]/.test(w) || /^(?:from|in|of)$/i.test(ws[i + 1] ?? '')));
}

/** "Pattern 2", "patterns 3 and 4", "pitfall #3", "Pattern 1 + Pattern 2" (in lower case). */
const LABELS = /([a-z][a-z-]{1,20})\s*#?\s*((?:\d+(?:\.\d+)*[a-z]?|[a-z])\b(?:\s*(?:,|&|\+|\/|and|or)\s*#?\s*(?:\d+(?:\.\d+)*[a-z]?|[a-z])\b)*)/g;

/** The labels a lower-cased text writes: the label's word (stemmed) -> its numbers (as labelKey keeps them). */
function labelsIn(lower: string): Map<string, Set<string>> {
  const labelled = new Map<string, Set<string>>();
  for (const m of lower.matchAll(LABELS)) {
    const w = stem(m[1] as string);
    const ns = (m[2] as string).split(/\s*(?:,|&|\+|\/|and|or)\s*/).map((x) => x.replace(/^#\s*/, '').trim());
    const set = labelled.get(w) ?? new Set<string>();
    for (const n of ns) set.add(labelKey(n));
    labelled.set(w, set);
  }
  return labelled;
}

/**
 * How a clause writes the name of a section, as a regex source over lower case: its label ("pattern
 * 2", "patterns #2") or its title's words; for the start of a name (`lead`), the first two of them.
 */
function nameStart(h: Handle, lead: boolean): string {
  if (h.label) return `(?<![a-z0-9])${h.label.word}[a-z]*\\s*#?\\s*${h.label.n.replace(/\./g, '\\.')}(?![a-z0-9])`;
  const tw = titleWords(h.unit.title);
  return `(?<![a-z0-9])${(lead ? tw.slice(0, 2) : tw).join('[^a-z0-9\\n]+')}`;
}

/** The sections of one document a clause of the plan names. */
function sectionsNamed(clause: string, handles: Handle[], list = false): PlacedUnit[] {
  const hits: PlacedUnit[] = [];
  const lower = clause.toLowerCase();
  // A word used in a label ("Pitfall 1") names that section, not the parent titled with it ("Common Pitfalls").
  const clauseWords = new Set(words(lower.replace(/([a-z][a-z-]{1,20})\s*#?\s*\d+(?:\.\d+)*[a-z]?\b/g, ' ')));
  const labelled = labelsIn(lower);
  const labels = (h: Handle, written: Map<string, Set<string>>) => h.label !== undefined && (written.get(h.label.word)?.has(labelKey(h.label.n)) ?? false);
  const titled: PlacedUnit[] = [];
  // A quoted name right after a document, or one after a section sign, names the heading it
  // begins: RESEARCH.md "Complete Background Script" example -> "Complete Background Script
  // (Service Worker)"; UI-SPEC.md §SignIn Page — copywriting -> "SignIn Page (`/Auth/SignIn`)".
  const quoted = [...clause.matchAll(/["“]([^"”\n]{3,80})["”]/g)].map((q) => q[1] as string);
  const signed = [...clause.matchAll(/§\s*([^,;(—–§\n]{2,80})/g)].map((q) => (q[1] as string).replace(/\s+(?:and|or|through|to|-)\s*$/i, ''));
  for (const name of [...quoted, ...signed]) {
    const qw = words(name).filter((w) => !STOP.has(w));
    if (qw.length === 0) continue;
    for (const h of handles) {
      const title = h.unit.title.replace(/\([^)]*\)/g, ' ');
      // "Pattern 4: Full-Screen Overlay" may be quoted with or without its label.
      for (const t of [title, title.replace(/^\S+\s+#?\d+(?:\.\d+)*[a-z]?[:.]\s+/i, '')]) {
        const tw = words(t).filter((w) => !STOP.has(w));
        if (qw.length <= tw.length && qw.length >= Math.min(2, tw.length) && qw.every((w, i) => tw[i] === w) && !titled.includes(h.unit)) titled.push(h.unit);
      }
    }
  }
  // A heading's whole title followed by the kind of part it is ("Run Log View section", "Status
  // Labels table") names it, however short its words.
  for (const h of handles) if (h.phrase?.test(lower) && !titled.includes(h.unit)) titled.push(h.unit);
  // A section sign or the word before a number (`§3`, `§5, §6`, `Section 1, Section 4`, `Sections 3
  // and 5`) names the heading numbered so (`### 3. Atomic Write Pattern`).
  for (const m of clause.matchAll(/(?:§|\bsections?\s)\s*(\d+(?:\.\d+)*(?:\s*(?:,|&|\band\b)\s*\d+(?:\.\d+)*)*)/gi)) {
    for (const n of (m[1] as string).match(/\d+(?:\.\d+)*/g) ?? []) {
      const numbered = new RegExp(`^${n.replace(/\./g, '\\.')}[.):]?\\s`);
      for (const h of handles) if (numbered.test(h.unit.title) && !hits.includes(h.unit)) hits.push(h.unit);
    }
  }
  for (const h of handles) {
    if (h.label) {
      // A single letter only counts in upper case as written ("Area A", not "a").
      if (labels(h, labelled) && (!/^[a-z]$/.test(h.label.n) || new RegExp(`\\b${h.label.word}s?\\s*#?\\s*${h.label.n.toUpperCase()}\\b`, 'i').test(clause.replace(/\b[a-z]\b/g, '')))) {
        hits.push(h.unit);
        continue;
      }
    }
    if (h.title && h.title.every((w) => clauseWords.has(w)) && (h.title.length > 1 || list || asName(clause, h.title[0] as string))) titled.push(h.unit);
  }
  // A label no heading of the document carries ("open question 2", "pitfall 7" where the items are a
  // numbered list) names the section whose title holds its word: "Open Questions", "Pitfalls".
  const unheaded = [...labelled.keys()].filter((w) => !handles.some((h) => h.label?.word === w && hits.includes(h.unit)));
  if (unheaded.length) {
    const loose = new Set([...clauseWords, ...unheaded]);
    for (const h of handles) {
      if (h.title && h.title.some((w) => unheaded.includes(w)) && h.title.every((w) => loose.has(w)) && !titled.includes(h.unit) && !hits.includes(h.unit)) titled.push(h.unit);
    }
  }
  // "Area D: locked decisions" names the Locked decisions of Area D, not those of every area: a
  // title the document repeats is taken inside the labelled sections the clause names, if any.
  // A note beside a read is a list of section names, often shortened ("minimal test pattern" for
  // "Minimal AppState Unit Test Pattern"): an item whose words all occur in one heading names it.
  if (list) {
    for (const item of clause.split(/[,;]/)) {
      // "D-08 decisions" describes the id it names (resolved by the id), it names no section.
      if (LABEL_ONE.test(item)) continue;
      // "Color, Typography, Spacing sections": the word that says what the names are is not one of them.
      const ws = words(item.replace(/([a-z][a-z-]{1,20})\s*#?\s*\d+(?:\.\d+)*[a-z]?\b/gi, ' ')).filter((w) => !STOP.has(w) && !KIND_WORDS.has(w));
      if (ws.length < 2 && !(ws.length === 1 && (ws[0] as string).length >= 6)) continue;
      // "Pattern 1: I2S Audio + RTTTL Speaker": the words after a label are the title of the heading
      // the label names, not the name of another heading whose title they begin.
      const own = labelsIn(item.toLowerCase());
      if (handles.some((h) => hits.includes(h.unit) && labels(h, own) && ws.every((w) => h.words.has(w)))) continue;
      for (const h of handles) if (ws.every((w) => h.words.has(w)) && !titled.includes(h.unit) && !hits.includes(h.unit)) titled.push(h.unit);
    }
  }
  // "I2S Audio RTTTL Speaker Full Configuration" names the heading titled so, not also the one whose
  // shorter title its first words are: a title goes to a longer one holding all its words that the
  // clause writes whole.
  const handleOf = new Map(handles.map((h) => [h.unit, h]));
  const nameOf = (u: PlacedUnit) => handleOf.get(u)?.name ?? [];
  const written = ` ${words(lower).filter((w) => !STOP.has(w)).join(' ')} `;
  const longer = (u: PlacedUnit) => {
    const t = nameOf(u);
    return t.length === 0 ? undefined : handles.find((v) => v.name.length > t.length && t.every((w) => v.name.includes(w)) && (titled.includes(v.unit) || written.includes(` ${v.name.join(' ')} `)));
  };
  for (const u of [...titled]) {
    const v = longer(u);
    if (!v) continue;
    titled.splice(titled.indexOf(u), 1);
    if (!titled.includes(v.unit) && !hits.includes(v.unit)) titled.push(v.unit);
  }
  // "§Architecture Patterns Pattern 2", "Architecture Patterns — Recommended Project Structure": a
  // section written right before one of its own subsections says where to find it; the subsection is
  // what the clause cites.
  const named = [...hits, ...titled];
  const located = (outer: PlacedUnit) =>
    named.some((inner) => {
      const [o, i] = [handleOf.get(outer), handleOf.get(inner)];
      return o !== undefined && i !== undefined && inner !== outer && outer.start <= inner.start && outer.end >= inner.end && outer.end - outer.start > inner.end - inner.start && new RegExp(`${nameStart(o, false)}[^a-z0-9\\n,;.]{0,6}${nameStart(i, true)}`).test(lower);
    });
  for (const list of [hits, titled]) list.splice(0, list.length, ...list.filter((u) => !located(u)));
  const inside = (u: PlacedUnit) => hits.some((l) => l.start <= u.start && l.end >= u.end);
  const repeated = (u: PlacedUnit) => handles.filter((h) => h.unit.title.toLowerCase() === u.title.toLowerCase()).length > 1;
  return [...hits, ...titled.filter((u) => !(hits.length && repeated(u)) || inside(u))];
}

/**
 * A numbered section a clause names right after a document's name ("Pattern 6", "Open Question 2")
 * that the document does not have: its words are those of a heading of the document, yet no heading
 * carries that label and none holding the word was taken. Undefined when the clause names none, or
 * names one the document has, or its words are no heading's ("recommends React 19", "lists 3 options").
 */
function numberedGap(clause: string, handles: Handle[], found: PlacedUnit[]): string | undefined {
  const m = /^[\s`*_"“'’):,—–-]*(?:(?:per|the|its|see)\s+)?((?:[A-Za-z][A-Za-z-]*\s+){0,2}?)([A-Za-z][A-Za-z-]{1,20})\s*#?\s*(\d+(?:\.\d+)*)(?![\w.–-]*\d)/.exec(clause);
  if (!m) return undefined;
  const w = stem((m[2] as string).toLowerCase());
  if (/^(?:line|section|lines|sections)$/.test(w)) return undefined;
  const between = words(m[1] as string).filter((x) => !STOP.has(x));
  const n = labelKey(m[3] as string);
  const hasWords = (h: Handle) => h.words.has(w) && between.every((b) => h.words.has(b));
  if (!handles.some(hasWords)) return undefined;
  const byUnit = new Map(handles.map((h) => [h.unit, h]));
  const taken = found.some((u) => {
    const h = byUnit.get(u);
    return h !== undefined && ((h.label?.word === w && labelKey(h.label.n) === n) || h.words.has(w));
  });
  return taken ? undefined : `${between.length ? `${m[1]}` : ''}${m[2]} ${m[3]}`;
}

/**
 * What follows a document's name, up to the end of its sentence (a full stop before a capital), of
 * the parenthesis the name sits in ("(... per RESEARCH.md pitfall 5). Update the metadata" names
 * Pitfall 5, not the Metadata section), or the next document's name.
 */
function sentenceOf(text: string): string {
  // Another document's name ends it too: "RESEARCH.md Pattern 3 and CONTEXT.md locked decisions".
  const next = /(?<![A-Za-z0-9_./-])[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b/.exec(text);
  const after = next ? text.slice(0, next.index) : text;
  let depth = 0;
  for (let i = 0; i < after.length; i++) {
    const c = after[i];
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return after.slice(0, i);
    else if ((c === '.' || c === '!' || c === '?') && /^\s+[*_`"“]*[A-Z]/.test(after.slice(i + 1)) && depth === 0) return after.slice(0, i);
  }
  return after;
}

/** The first word of a section's name: its label's word ("pitfall" of "Pitfall 3") or its title's. */
function leadWord(u: PlacedUnit): string | undefined {
  return words(u.label ?? u.title)[0];
}

function keywordRegex(kw: string): RegExp {
  const e = kw.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_])${e}(?:\\.md)?(?![A-Za-z0-9_])`, 'gi');
}

export interface CiteInput {
  project: GsdProject;
  index: UnitIndex;
  /** Plans whose SUMMARY has a capsule (their capsule ids). */
  capsules: Set<string>;
}

/**
 * The sections a clause names, less those holding line numbers the same clause writes: "RESEARCH §
 * Code Examples lines 442-464" cites those lines of the section, not the whole of it.
 */
function narrowed(sections: PlacedUnit[], lines: PlacedUnit[]): PlacedUnit[] {
  return sections.filter((s) => !lines.some((l) => s.start <= l.start && s.end >= l.end));
}

/** The line-range units of `rel` (made at import from the plans' notes) that `note` names. */
function linesCited(index: UnitIndex, rel: string, note: string): PlacedUnit[] {
  const ranges = lineRangesIn(note).map(rangeTitle);
  if (ranges.length === 0) return [];
  return (index.byFile.get(rel) ?? []).filter((u) => u.kind === 'lines' && ranges.includes(u.title));
}

/** Everything `plan` references, resolved (see the module comment). */
export function analysePlan(input: CiteInput, plan: GsdPlan): PlanAnalysis {
  const { project, index, capsules } = input;
  const known = new Map<string, boolean>();
  const exists = (rel: string) => {
    let v = known.get(rel);
    if (v === undefined) {
      v = index.files.has(rel) || project.plans.some((p) => p.file === rel) || project.summaries.some((s) => s.file === rel) || fileOnDisk(project, rel);
      known.set(rel, v);
    }
    return v;
  };
  const text = citingText(plan);
  const cited = new Map<string, CitedUnit>();
  const cite = (u: PlacedUnit, how: CiteHow, as: string, ambiguous = false) => {
    const c = cited.get(u.id) ?? { id: u.id, how: [], cited: [] };
    if (!c.how.includes(how)) c.how.push(how);
    if (!c.cited.includes(as)) c.cited.push(as);
    if (ambiguous) c.ambiguous = true;
    cited.set(u.id, c);
  };

  // 1. Ids, ranges first (D-01..D-04 cites D-02 and D-03 too).
  const labels: { label: string; at: number; len: number }[] = [];
  for (const m of text.matchAll(RANGE_RE)) {
    const a = /^(.*-)(\d+)$/.exec(m[1] as string);
    const b = /^(.*-)(\d+)$/.exec(m[2] as string);
    if (!a || !b || a[1] !== b[1]) continue;
    const from = Number(a[2]);
    const to = Number(b[2]);
    if (!(to > from && to - from <= 50)) continue;
    const width = (a[2] as string).length;
    for (let n = from + 1; n < to; n++) labels.push({ label: `${a[1] as string}${String(n).padStart(width, '0')}`, at: m.index ?? 0, len: (m[0] as string).length });
  }
  for (const m of text.matchAll(LABEL_RE)) labels.push({ label: m[1] as string, at: m.index ?? 0, len: (m[1] as string).length });
  for (const l of labels) {
    const q = qualifierNear(text, l.at, l.len);
    const r = resolveLabel(index, plan, l.label, q && plan.kind === 'phase' && numKey(q) !== numKey(plan.phase) ? q : undefined);
    for (const u of r.units) cite(u, 'id', l.label, r.ambiguous);
  }

  // 2. Reads, located.
  const refs: RefResolution[] = [];
  const seen = new Set<string>();
  for (const r of plan.parsed.reads) {
    const loc = locate(project, index.files.keys(), plan, r.path, exists);
    // A glob, or a folder ("@.planning/research/"), stands for the files it holds.
    const globbed =
      loc.rel === undefined ? undefined : /[*?]/.test(loc.rel) ? expandGlob(project, index, loc.rel, plan.file) : isFolder(project, loc.rel) ? expandGlob(project, index, `${loc.rel.replace(/\/+$/, '')}/*`, plan.file) : undefined;
    if (globbed !== undefined && globbed.length === 0) {
      // Nothing matches: listed as missing, not dropped.
      refs.push({ written: r.path, via: r.via, ...(r.note ? { note: r.note } : {}), rel: loc.rel, resolution: 'missing', units: [] });
      continue;
    }
    for (const rel of globbed ?? [loc.rel]) {
      const key = `${r.via}\u0000${rel ?? r.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const base: RefResolution = { written: r.path, via: r.via, ...(r.note ? { note: r.note } : {}), resolution: 'outside', units: [] };
      if (rel === undefined) refs.push(base);
      else refs.push({ ...base, rel, resolution: globbed || exists(rel) ? 'read' : 'missing' });
    }
  }

  // 3. Sections the plan names beside a document's name, or in a read's note.
  const docs = new Set<string>();
  for (const r of refs) if (r.rel && index.files.has(r.rel)) docs.add(r.rel);
  for (const f of index.files.keys()) if (path.posix.dirname(f) === planDir(plan) || !f.includes('/') || f.startsWith('research/')) docs.add(f);
  const unresolvedNotes: string[] = [];
  // Documents the plan names a numbered section of that they do not have: read whole.
  const missingSections = new Map<string, string[]>();
  // A document the plan writes (files_modified, a task's <files>) is its output: the plan describing
  // its sections ("create DISCOVERY.md with ## Root Cause ...") does not cite them.
  const writes = new Set<string>();
  for (const f of writeSet(plan)) {
    const rel = planningRelative(f);
    if (rel) writes.add(rel);
  }
  for (const rel of docs) {
    const handles = sectionHandles(index.byFile.get(rel) ?? [], index.files.get(rel));
    if (handles.length === 0) continue;
    const clauses: { text: string; lead?: string; afterName?: boolean }[] = [];
    for (const kw of writes.has(rel) ? [] : fileKeywords(rel)) {
      for (const m of text.matchAll(keywordRegex(kw))) {
        // "<verification>" and "</context>" are the plan's own blocks, not the documents.
        if (text[(m.index ?? 0) - 1] === '<' || text[(m.index ?? 0) - 1] === '/' || text[(m.index ?? 0) + (m[0] as string).length] === '>') continue;
        const from = (m.index ?? 0) + (m[0] as string).length;
        const eol = text.indexOf('\n', from);
        const md = /\.md$/i.test(m[0] as string);
        // A word in capitals followed by another ("PROJECT CONTEXT", a marker in the app's prompt) is a
        // phrase in capitals, not the document.
        if (!md && /^\s+[A-Z]{2,}(?![\w-])/.test(text.slice(from, from + 40))) continue;
        // "RESEARCH.md ..." or "RESEARCH ..." names the file: the rest of the line may list its
        // sections. A prose word ("research", "state") only counts with a section right after it.
        const named = md || (m[0] as string) === (m[0] as string).toUpperCase();
        const after = text.slice(from, Math.min(eol === -1 ? text.length : eol, from + (named ? 240 : 40)));
        // "Pattern 3 from research", "locked decision from CONTEXT.md Area D": the section may come first.
        const at = m.index ?? 0;
        const bol = text.lastIndexOf('\n', at - 1) + 1;
        // A document named by its file earlier on the line governs the line: in "RESEARCH.md
        // sections: Architecture Patterns (Pattern 1)" the word "architecture" is a heading of
        // RESEARCH.md, not research/ARCHITECTURE.md.
        if (!named && /[A-Za-z0-9_-]\.md\b/i.test(text.slice(bol, at))) continue;
        const before = text.slice(Math.max(bol, at - 40), at);
        const sectionFirst = /\b(?:from|in|of)\s+(?:the\s+)?$/i.test(before);
        if (named) {
          clauses.push({ text: sectionFirst ? `${before} ${sentenceOf(after)}` : sentenceOf(after), afterName: !sectionFirst });
          continue;
        }
        // A prose word names the document only with a section at once beside it ("research Pattern
        // 3", "research (Sheet 1, ...)", "Pattern 2 from research"), not a few words on ("project
        // summary, lead sources" is not the Sources section of research/SUMMARY.md): the clause
        // ends at the first comma, semicolon or full stop, and a section after the word must begin it.
        const head = (after.split(/[,;]|\.(?:\s|$)/)[0] as string);
        if (sectionFirst) clauses.push({ text: `${before} ${head}` });
        else {
          const lead = words(head.replace(/^['’]s\b/i, '').replace(/^[\s:([§"“'`*_—–-]*(?:sections?\b)?/i, ''))[0];
          if (lead) clauses.push({ text: head, lead });
        }
      }
    }
    for (const c of clauses) {
      const found = narrowed(sectionsNamed(c.text, handles), linesCited(index, rel, c.text));
      for (const u of found) if (!c.lead || leadWord(u) === c.lead) cite(u, 'section', u.label ?? u.title);
      const gap = c.afterName ? numberedGap(c.text, handles, found) : undefined;
      const gaps = missingSections.get(rel) ?? [];
      if (gap && !gaps.includes(gap)) missingSections.set(rel, [...gaps, gap]);
    }
    for (const r of refs) {
      if (r.rel !== rel || !r.note) continue;
      const noteLines = linesCited(index, rel, r.note);
      const named = narrowed(sectionsNamed(r.note, handles, true), noteLines);
      for (const u of named) cite(u, 'section', u.label ?? u.title);
      // A note that names ids of the file (`§D-01 (quickjs API), §D-09`) is resolved by those ids.
      const namesIds = [...r.note.matchAll(LABEL_RE)].some((m) => (index.byLabel.get(labelKey(m[1] as string)) ?? []).some((u) => u.file === rel));
      const namesLines = noteLines.length > 0;
      if (named.length === 0 && !namesIds && !namesLines && /[A-Za-z]{3}/.test(r.note)) unresolvedNotes.push(`${r.written}: ${r.note}`);
    }
  }
  // Line numbers a read's note names or the text writes right after a document's name
  // (`02-RESEARCH.md lines 320–430`): exactly those lines; one line means the section holding it.
  const citeLines = (rel: string, text: string) => {
    for (const u of linesCited(index, rel, text)) {
      const holder = u.title.startsWith('line ')
        ? (index.byFile.get(rel) ?? []).filter((s) => (s.kind === 'section' || s.kind === 'phase' || s.kind === 'item') && s.start <= u.start && s.end >= u.end).sort((a, b) => a.end - a.start - (b.end - b.start))[0]
        : undefined;
      const unit = holder ?? u;
      cite(unit, 'section', holder ? u.title : unit.title);
    }
  };
  for (const r of refs) if (r.rel && r.note) citeLines(r.rel, r.note);
  for (const n of rangesAfterNames(text)) {
    const rel = locate(project, index.files.keys(), plan, n.written, exists).rel;
    if (rel && index.files.has(rel)) citeLines(rel, n.ranges.map(rangeTitle).join(', '));
  }

  // 4. A ROADMAP read means the plan's own phase entry. When ROADMAP.md keeps none because a finished
  // milestone archived it (`milestones/v1.0-ROADMAP.md`), the entry is the archive's: the one beside the
  // plan's archived phases folder, or the only archive that holds the phase.
  const standIn = new Map<string, string[]>();
  if (plan.kind === 'phase') {
    const entries = (rel: string) => (index.byFile.get(rel) ?? []).filter((u) => u.kind === 'phase' && u.phase !== undefined && numKey(u.phase) === numKey(plan.phase));
    for (const r of refs) {
      if (!r.rel || !isRoadmapDoc(r.rel)) continue;
      let own = entries(r.rel);
      if (!own.length && !r.rel.startsWith('milestones/')) {
        const archives = [...index.byFile.keys()].filter((f) => f.startsWith('milestones/') && isRoadmapDoc(f) && entries(f).length);
        const version = /^milestones\/(.+)-phases\//.exec(plan.file)?.[1];
        const beside = archives.filter((f) => version !== undefined && f === `milestones/${version}-ROADMAP.md`);
        const pickFrom = beside.length ? beside : archives;
        if (pickFrom.length === 1) {
          own = entries(pickFrom[0] as string);
          standIn.set(r.rel, own.map((u) => u.id));
        }
      }
      for (const u of own) cite(u, 'phase', u.label ?? u.title);
    }
  }

  // 5. Keep the largest of nested units, in file order.
  const order = new Map<string, number>();
  refs.forEach((r, i) => r.rel && !order.has(r.rel) && order.set(r.rel, i));
  const list = [...cited.values()]
    .map((c) => ({ c, u: index.byId.get(c.id) as PlacedUnit }))
    .filter((x) => x.u !== undefined)
    .sort((a, b) => (order.get(a.u.file) ?? 1e9) - (order.get(b.u.file) ?? 1e9) || a.u.file.localeCompare(b.u.file) || a.u.start - b.u.start || b.u.end - a.u.end);
  const kept: { c: CitedUnit; u: PlacedUnit }[] = [];
  for (const x of list) {
    const outer = kept.find((k) => k.u.file === x.u.file && k.u.start <= x.u.start && k.u.end >= x.u.end);
    if (outer) {
      for (const h of x.c.how) if (!outer.c.how.includes(h)) outer.c.how.push(h);
      for (const a of x.c.cited) if (!outer.c.cited.includes(a)) outer.c.cited.push(a);
      continue;
    }
    kept.push(x);
  }
  // A document the plan reads and names a section of that it does not have ("PATTERNS.md Pattern 6"
  // where Pattern 6 is a heading of RESEARCH.md) cannot be cut to what the plan meant: it stays a
  // whole read, and the units of it the plan cites are inside that read.
  const wholeReads = new Set<string>();
  for (const [rel, gaps] of missingSections) {
    if (!refs.some((r) => r.rel === rel && r.resolution === 'read')) continue;
    wholeReads.add(rel);
    unresolvedNotes.push(`${rel}: ${gaps.join(', ')}, which no heading of it carries`);
  }
  const units = kept.filter((k) => !wholeReads.has(k.u.file)).map((k) => k.c);

  // 6. Each read of a planning file: a capsule, the units cited in it, or the whole file.
  const summaryByFile = new Map(project.summaries.map((s) => [s.file, s.id]));
  for (const r of refs) {
    if (r.resolution !== 'read' || !r.rel) continue;
    const sid = summaryByFile.get(r.rel);
    if (sid !== undefined && capsules.has(sid)) {
      r.resolution = 'capsule';
      r.capsule = sid;
      continue;
    }
    if (wholeReads.has(r.rel)) {
      r.gaps = missingSections.get(r.rel);
      continue;
    }
    // Its own units, and the archived entry standing in for a ROADMAP read (or the unit holding it).
    const archived = (standIn.get(r.rel) ?? []).map((id) => index.byId.get(id)).filter((u): u is PlacedUnit => u !== undefined);
    const holds = (k: { u: PlacedUnit }) => archived.some((a) => k.u.file === a.file && k.u.start <= a.start && k.u.end >= a.end);
    const mine = kept.filter((k) => k.u.file === r.rel || holds(k)).map((k) => k.u.id);
    if (mine.length) {
      r.resolution = 'units';
      r.units = mine;
    }
  }

  const caps: string[] = [];
  for (const d of plan.depends) if (capsules.has(d) && !caps.includes(d)) caps.push(d);
  for (const r of refs) if (r.capsule && r.capsule !== plan.id && !caps.includes(r.capsule)) caps.push(r.capsule);
  return { plan, refs, units, capsules: caps, unresolvedNotes };
}

function isFolder(project: GsdProject, rel: string): boolean {
  try {
    return fs.statSync(path.join(project.planningDir, rel)).isDirectory();
  } catch {
    return false;
  }
}

function fileOnDisk(project: GsdProject, rel: string): boolean {
  try {
    return fs.statSync(path.join(project.planningDir, rel)).isFile();
  } catch {
    return false;
  }
}

function expandGlob(project: GsdProject, index: UnitIndex, rel: string, self?: string): string[] {
  const re = new RegExp(
    `^${rel
      .split('')
      .map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
  const all = [...index.files.keys(), ...project.summaries.map((s) => s.file), ...project.plans.map((p) => p.file)];
  return [...new Set(all.filter((f) => re.test(f) && f !== self))].sort();
}
