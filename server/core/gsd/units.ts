/**
 * The addressable units of a GSD tree: every Markdown document of `.planning/` other than the plans
 * and summaries themselves (PROJECT, ROADMAP, REQUIREMENTS, STATE, research, phase CONTEXT /
 * RESEARCH / VALIDATION, milestone archives, ...), split into
 *  - labelled items wherever a document defines one (`- **D-07:** ...` in a phase CONTEXT.md,
 *    `- [ ] **FR-3**: ...` in REQUIREMENTS.md, `### DATA-2: ...`, a table row `| AUTH-01 | ... |`);
 *  - roadmap phase entries (the `Phase N` sections of ROADMAP files);
 *  - sections by heading (nested: a section runs to the next heading of its level or higher);
 *  - facts of STATE.md (one per key line, list item or table row; they also go to the blackboard);
 *  - line ranges a plan names beside a document (`02-RESEARCH.md lines 320–430`), kind `lines`;
 *  - the whole file.
 * Every unit's text is an exact slice of its file. Pure: the project in, the index out.
 */
import fs from 'node:fs';
import { readTextFile } from '../planning/fsx.js';
import path from 'node:path';
import { labelKey, mdItems, mdSections, slug } from '../units/markdown.js';
import type { Unit } from '../units/units.js';
import { citingText, locate } from './cite.js';
import { type LineRange, lineRangesIn, rangeOffsets, rangeTitle, rangesAfterNames } from './lines.js';
import { leadingPhase, normalizeText, oneLine } from './parse.js';
import type { GsdProject } from './tree.js';

/** A unit and where its text sits in its (normalised) file. */
export interface PlacedUnit extends Unit {
  start: number;
  end: number;
}

export interface StateFact {
  /** Blackboard key (`gsd.state.<slug>`). */
  key: string;
  value: string;
  unit: string;
}

export interface UnitIndex {
  /** Planning-relative path -> text (LF line ends, no BOM) of every document the units come from. */
  files: Map<string, string>;
  units: PlacedUnit[];
  byId: Map<string, PlacedUnit>;
  /** Units of one file, in text order (whole-file unit first). */
  byFile: Map<string, PlacedUnit[]>;
  /** labelKey(label) -> units carrying it (`D-7` and `D-07` are one label). */
  byLabel: Map<string, PlacedUnit[]>;
  facts: StateFact[];
}

/** `phases/02-persistence/02-CONTEXT.md` -> `02-CONTEXT`; `research/STACK.md` -> `research/STACK`. */
export function fileKey(rel: string): string {
  const noExt = rel.replace(/\.md$/i, '');
  const m = /^phases\/([^/]+)\/(.+)$/.exec(noExt);
  if (!m) return noExt;
  const dir = m[1] as string;
  const rest = m[2] as string;
  const phase = leadingPhase(dir);
  // GSD prefixes phase files with the phase number; a file without it gets the folder's number.
  if (phase && !rest.includes('/') && !rest.startsWith(`${phase}-`)) return `${phase}-${rest}`;
  return rest;
}

/**
 * The phase number of a document inside a phase folder (live or archived), or of a phase file of a
 * tree laid out flat, named with its phase's number (`phases/04-CONTEXT.md`, `2-RESEARCH.md` beside ROADMAP.md).
 */
function filePhase(rel: string): string | undefined {
  const parts = rel.split('/');
  if (parts.length === 1 || (parts[0] === 'phases' && parts.length === 2)) return /^(\d+(?:\.\d+)*)-[A-Za-z]/.exec(parts[parts.length - 1] as string)?.[1];
  if (parts[0] === 'phases' && parts.length >= 3) return leadingPhase(parts[1] as string);
  if (parts[0] === 'milestones' && parts.length >= 4) return leadingPhase(parts[2] as string);
  return undefined;
}

const ROADMAP = /(^|[-_/])ROADMAP\.md$/i;
const STATE = /^STATE\.md$/i;

/** The Markdown documents units are made of: everything but plans, summaries and Heimdall's own folders. */
function contextDocuments(project: GsdProject): string[] {
  const skip = new Set<string>([...project.plans.map((p) => p.file), ...project.summaries.map((s) => s.file), ...project.planFiles.map((f) => f.file)]);
  const out: string[] = [];
  const walk = (abs: string, rel: string, depth: number) => {
    if (depth > 5) return;
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth === 0 && ['protocol', 'ledger', 'wire', 'node_modules'].includes(e.name)) continue;
        walk(path.join(abs, e.name), r, depth + 1);
      } else if (e.isFile() && /\.md$/i.test(e.name) && !skip.has(r)) out.push(r);
    }
  };
  walk(project.planningDir, '', 0);
  return out;
}

function uniqueId(taken: Set<string>, base: string): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** One line of a STATE.md fact, or a table row, as a blackboard value. */
function factValue(text: string): string {
  return oneLine(text.replace(/\*\*/g, '').replace(/^\s*(?:[-*+]|\d+[.)])\s+/, ''), 4000);
}

function stateFacts(rel: string, key: string, text: string, taken: Set<string>): PlacedUnit[] {
  const out: PlacedUnit[] = [];
  const lines = text.split('\n');
  let at = 0;
  let heading = '';
  let n = 0;
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const start = at;
    at += line.length + 1;
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      continue;
    }
    if (fence || line.trim() === '') continue;
    const h = /^#{1,6}\s+(.*\S)/.exec(line);
    if (h) {
      heading = slug(h[1] as string);
      n = 0;
      continue;
    }
    if (/^\s*\|?\s*:?-{3,}/.test(line) || /^\s*(?:-{3,}|\*{3,})\s*$/.test(line)) continue;
    let name: string | undefined;
    const kv = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?([A-Za-z][A-Za-z0-9 /()'_-]{0,40}?)(?::(?:\*\*|__)|(?:\*\*|__)?:)\s*\S/.exec(line);
    const row = /^\s*\|(.+)\|\s*$/.exec(line);
    if (kv) name = slug(kv[1] as string);
    else if (row) {
      const cells = (row[1] as string).split('|').map((c) => c.trim());
      // The header row names the columns; it is not a fact.
      const next = lines[i + 1] ?? '';
      if (/^\s*\|?\s*:?-{3,}/.test(next)) continue;
      name = `${heading || 'table'}-${slug(cells[0] || String(++n))}`;
    } else if (/^\s*(?:[-*+]|\d+[.)])\s+/.test(line)) name = `${heading || 'item'}-${++n}`;
    else name = `${heading || 'line'}-${++n}`;
    const localId = uniqueId(taken, `${key}#${name}`);
    const bare = localId.slice(key.length + 1);
    out.push({ id: localId, kind: 'fact', file: rel, title: bare, text: line, start, end: start + line.length });
  }
  return out;
}

/** Planning-relative document -> the line ranges some plan names in it, in a read's note or right after its name (lines.ts). */
function citedRanges(project: GsdProject, documents: string[]): Map<string, LineRange[]> {
  const known = new Set(documents);
  const out = new Map<string, LineRange[]>();
  for (const plan of project.plans) {
    const cited = [...plan.parsed.reads.map((r) => ({ written: r.path, ranges: r.note ? lineRangesIn(r.note) : [] })), ...rangesAfterNames(citingText(plan))];
    for (const r of cited) {
      const found = r.ranges;
      if (found.length === 0) continue;
      const rel = locate(project, documents, plan, r.written, (x) => known.has(x)).rel;
      if (rel === undefined || !known.has(rel)) continue;
      const list = out.get(rel) ?? [];
      for (const f of found) if (!list.some((x) => x.from === f.from && x.to === f.to)) list.push(f);
      out.set(rel, list);
    }
  }
  return out;
}

/** Split every context document of the project into units. */
export function projectUnits(project: GsdProject): UnitIndex {
  const files = new Map<string, string>();
  const units: PlacedUnit[] = [];
  const facts: StateFact[] = [];
  const takenKeys = new Map<string, string>();
  const documents = contextDocuments(project);
  const ranges = citedRanges(project, documents);
  for (const rel of documents) {
    let raw: string;
    try {
      const text = readTextFile(path.join(project.planningDir, rel));
      if (text === undefined) continue;
      raw = text;
    } catch {
      continue;
    }
    const text = normalizeText(raw);
    files.set(rel, text);
    let key = fileKey(rel);
    // Two documents with one key (a phase folder number used twice): the later keeps its full path.
    if (takenKeys.has(key)) key = rel.replace(/\.md$/i, '');
    takenKeys.set(key, rel);
    const phase = filePhase(rel);
    const taken = new Set<string>([key]);
    const mine: PlacedUnit[] = [{ id: key, kind: 'file', file: rel, title: rel, ...(phase ? { phase } : {}), start: 0, end: text.length }];
    const whole = text.trim();
    const items = mdItems(text);
    const best = new Map<string, (typeof items)[number]>();
    const rank = { heading: 0, item: 1, row: 2 } as const;
    for (const it of items) {
      const prev = best.get(it.label);
      if (!prev || rank[it.form] < rank[prev.form]) best.set(it.label, it);
    }
    const itemRanges = new Set([...best.values()].map((it) => `${it.start}:${it.end}`));
    for (const it of [...best.values()].sort((a, b) => a.start - b.start)) {
      const id = uniqueId(taken, `${key}#${it.label}`);
      mine.push({ id, kind: 'item', file: rel, title: it.label, label: it.label, ...(phase ? { phase } : {}), text: text.slice(it.start, it.end), start: it.start, end: it.end });
    }
    const isRoadmap = ROADMAP.test(rel);
    for (const sec of mdSections(text)) {
      const body = text.slice(sec.start, sec.end);
      if (body.trim() === whole || itemRanges.has(`${sec.start}:${sec.end}`)) continue;
      const roadmapPhase = isRoadmap && sec.label?.startsWith('Phase ') ? sec.label.slice('Phase '.length) : undefined;
      const id = uniqueId(taken, `${key}#${slug(sec.label ?? sec.title)}`);
      mine.push({
        id,
        kind: roadmapPhase ? 'phase' : 'section',
        file: rel,
        title: sec.title,
        ...(sec.label ? { label: sec.label } : {}),
        ...(roadmapPhase ? { phase: roadmapPhase } : phase ? { phase } : {}),
        text: body,
        start: sec.start,
        end: sec.end,
      });
    }
    for (const r of ranges.get(rel) ?? []) {
      const at = rangeOffsets(text, r);
      if (!at) continue;
      const id = uniqueId(taken, `${key}#lines-${r.from}-${r.to}`);
      mine.push({ id, kind: 'lines', file: rel, title: rangeTitle(r), ...(phase ? { phase } : {}), text: text.slice(at.start, at.end), start: at.start, end: at.end });
    }
    if (STATE.test(rel)) {
      for (const f of stateFacts(rel, key, text, taken)) {
        mine.push(f);
        const k = `gsd.state.${f.id.slice(key.length + 1)}`.slice(0, 64).replace(/[.-]+$/, '');
        facts.push({ key: k, value: factValue(f.text as string), unit: f.id });
      }
    }
    mine.sort((a, b) => (a.kind === 'file' ? -1 : b.kind === 'file' ? 1 : a.start - b.start || b.end - a.end));
    units.push(...mine);
  }
  const byId = new Map(units.map((u) => [u.id, u]));
  const byFile = new Map<string, PlacedUnit[]>();
  const byLabel = new Map<string, PlacedUnit[]>();
  for (const u of units) {
    byFile.set(u.file, [...(byFile.get(u.file) ?? []), u]);
    if (u.label) {
      const k = labelKey(u.label);
      byLabel.set(k, [...(byLabel.get(k) ?? []), u]);
    }
  }
  // Blackboard keys must be unique: a clash keeps the first fact.
  const seenKeys = new Set<string>();
  const uniqueFacts = facts.filter((f) => (seenKeys.has(f.key) ? false : (seenKeys.add(f.key), true)));
  return { files, units, byId, byFile, byLabel, facts: uniqueFacts };
}

/** The stored form of a unit (no offsets; whole-file units without text). */
export function storedUnit(u: PlacedUnit): Unit {
  const { start: _s, end: _e, ...rest } = u;
  if (u.kind === 'file') {
    const { text: _t, ...noText } = rest;
    return noText;
  }
  return rest;
}
