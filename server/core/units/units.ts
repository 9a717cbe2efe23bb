/**
 * Addressable units: pieces of a project's planning documents (a decision, a requirement, a roadmap
 * phase entry, a section under a heading, a fact) with a stable id and their exact text, so a brief
 * can carry exactly the piece a plan cites and a person can see what an id stands for.
 *
 * `protocol/units.json` is `{"version", "source", "planning_dir", "units": {id: unit}}`, written by
 * an importer (import gsd) that owns it entirely: every import rewrites it from the tree (so a
 * deleted file's units disappear), and only when its content changes (so a repeated import writes
 * nothing). Ids are `<file key>#<label or heading slug>` (`02-CONTEXT#D-07`, `REQUIREMENTS#FR-3`,
 * `ROADMAP#phase-2`, `02-RESEARCH#pattern-2`) or `<file key>` for a whole file; the file key is the
 * file's path under the planning folder without `.md`, with the `phases/<dir>/` prefix dropped
 * because GSD already prefixes phase files with their phase number.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { logAction } from '../log/protocolLog.js';
import { atomicWrite, readJsonFile, readTextFile, withLock } from '../planning/fsx.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { labelKey } from './markdown.js';

export type UnitKind = 'file' | 'section' | 'item' | 'phase' | 'fact' | 'lines';

export interface Unit {
  id: string;
  kind: UnitKind;
  /** The file holding it, relative to the planning folder it was read from. */
  file: string;
  /** Heading text, item label or file name: what a person would call it. */
  title: string;
  /** The short label plans cite it by (`D-07`, `FR-3`, `Pattern 2`, `Phase 2`), when it has one. */
  label?: string;
  /** The phase folder's number for units of a phase's own files (`02`), used to scope labels that repeat across phases. */
  phase?: string;
  /** Exact text (a slice of the file). Whole-file units carry none: the file is the text. */
  text?: string;
}

export interface UnitsFile {
  version: string;
  source: string;
  /** The planning folder the units were read from (absolute). */
  planning_dir: string;
  units: Record<string, Omit<Unit, 'id'>>;
}

export function unitsFilePath(ctx: Ctx): string {
  return path.join(ctx.paths.protocolDir, 'units.json');
}

function isUnitsFile(v: unknown): v is UnitsFile {
  const u = v as UnitsFile;
  return typeof u === 'object' && u !== null && typeof u.units === 'object' && u.units !== null && !Array.isArray(u.units);
}

/** The stored units; undefined when nothing was imported yet. */
export function readUnitsFile(ctx: Ctx): UnitsFile | undefined {
  const file = unitsFilePath(ctx);
  const data = readJsonFile(file);
  if (data === undefined) return undefined;
  if (!isUnitsFile(data)) {
    throw new HeimdallError('environment', `${file} must hold {"version": "${PROTOCOL_VERSION}", "units": {id: {kind, file, title, text}}}; the file was left untouched`);
  }
  checkStateVersion(file, data.version);
  return data;
}

/** Render the file an importer would write (sorted ids, so equal content is equal bytes). */
export function renderUnitsFile(source: string, planningDir: string, units: Unit[]): string {
  const map: Record<string, Omit<Unit, 'id'>> = Object.create(null);
  for (const u of [...units].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const { id, ...rest } = u;
    map[id] = rest;
  }
  const body: UnitsFile = { version: PROTOCOL_VERSION, source, planning_dir: planningDir, units: map };
  return `${JSON.stringify(body, null, 1)}\n`;
}

/**
 * Replace the stored units with `units` (the importer's whole set). Returns whether the file
 * changed; an unchanged set writes nothing and logs nothing.
 */
export function writeUnits(ctx: Ctx, source: string, planningDir: string, units: Unit[]): { changed: boolean; added: number; removed: number } {
  const file = unitsFilePath(ctx);
  const content = renderUnitsFile(source, planningDir, units);
  return withLock(file, () => {
    let current: string | undefined;
    try {
      current = readTextFile(file);
    } catch {
      current = undefined;
    }
    if (current === content) return { changed: false, added: 0, removed: 0 };
    const before = current === undefined ? new Set<string>() : new Set(Object.keys(readUnitsFile(ctx)?.units ?? {}));
    const after = new Set(units.map((u) => u.id));
    const added = [...after].filter((id) => !before.has(id)).length;
    const removed = [...before].filter((id) => !after.has(id)).length;
    atomicWrite(file, content);
    logAction(ctx, 'units', 'import', `${source}: ${units.length} units (${added} new, ${removed} pruned)`);
    return { changed: true, added, removed };
  });
}

function toUnit(id: string, u: Omit<Unit, 'id'>): Unit {
  return { id, ...u };
}

/** A unit's text: its stored slice, or for a whole-file unit the file as it is now. */
export function unitText(store: UnitsFile, unit: Unit): string {
  if (unit.text !== undefined) return unit.text;
  const abs = path.join(store.planning_dir, unit.file);
  try {
    const text = readTextFile(abs);
    if (text === undefined) throw new Error('no such file');
    return text;
  } catch (e) {
    throw new HeimdallError('not_found', `unit ${unit.id} is the file ${abs}, which cannot be read (${(e as Error).message}); re-run heimdall import gsd`);
  }
}

function requireStore(ctx: Ctx): UnitsFile {
  const store = readUnitsFile(ctx);
  if (!store) throw new HeimdallError('not_found', `no units in ${unitsFilePath(ctx)}; run heimdall import gsd first`);
  return store;
}

/**
 * What an id stands for. Accepts a full id (`02-CONTEXT#D-07`) or a bare label (`D-07`, `FR-3`,
 * `Pattern 2`): a bare label returns every unit with it, narrowed to `phase` when given (a plan's
 * `D-07` means its own phase's decision), so an ambiguous label shows all its meanings.
 */
export function resolveUnit(ctx: Ctx, ref: string, opts: { phase?: string } = {}): Unit[] {
  const store = requireStore(ctx);
  const want = ref.trim();
  if (!want) throw new HeimdallError('usage', 'give a unit id (e.g. 02-CONTEXT#D-07) or a label (e.g. D-07)');
  const exact = store.units[want];
  if (exact) return [toUnit(want, exact)];
  const norm = labelKey;
  const phaseKey = (p: string) => p.split('.').map((x) => String(Number.parseInt(x, 10))).join('.');
  let hits = Object.entries(store.units)
    .filter(([, u]) => u.label !== undefined && norm(u.label) === norm(want))
    .map(([id, u]) => toUnit(id, u));
  if (opts.phase !== undefined && hits.some((u) => u.phase !== undefined && phaseKey(u.phase) === phaseKey(opts.phase as string))) {
    hits = hits.filter((u) => u.phase !== undefined && phaseKey(u.phase) === phaseKey(opts.phase as string));
  }
  if (hits.length === 0) throw new HeimdallError('not_found', `no unit ${JSON.stringify(want)} in ${unitsFilePath(ctx)} (ids look like 02-CONTEXT#D-07; list them with heimdall brief unit --list)`);
  return hits.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The ids of a text: units whose text is exactly `text` (whitespace-insensitive), else the smallest
 * units containing it, so a person can find where a sentence of a brief came from.
 */
export function reverseUnit(ctx: Ctx, text: string): { exact: boolean; units: Unit[] } {
  const store = requireStore(ctx);
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  const want = squash(text);
  if (!want) throw new HeimdallError('usage', 'give the text to look up');
  const all = Object.entries(store.units)
    .filter(([, u]) => u.text !== undefined)
    .map(([id, u]) => toUnit(id, u));
  const exact = all.filter((u) => squash(u.text as string) === want);
  if (exact.length) return { exact: true, units: exact.sort((a, b) => (a.id < b.id ? -1 : 1)) };
  const containing = all.filter((u) => squash(u.text as string).includes(want)).sort((a, b) => (a.text as string).length - (b.text as string).length || (a.id < b.id ? -1 : 1));
  if (containing.length === 0) throw new HeimdallError('not_found', `no unit holds ${JSON.stringify(want.length > 80 ? `${want.slice(0, 77)}...` : want)}`);
  const smallest = (containing[0] as Unit).text?.length;
  return { exact: false, units: containing.filter((u) => u.text?.length === smallest || containing.indexOf(u) < 5) };
}

/** Every unit, optionally of one file (relative to the planning folder), in id order. */
export function listUnits(ctx: Ctx, opts: { file?: string } = {}): Unit[] {
  const store = requireStore(ctx);
  return Object.entries(store.units)
    .filter(([, u]) => opts.file === undefined || u.file === opts.file)
    .map(([id, u]) => toUnit(id, u))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}
