/**
 * Mechanism 3, context capsules: every finished task compacts to at most 10 lines (what, where,
 * decision, gotcha, depends). Hydration emits exactly the transitive depends closure, dependencies
 * first, and nothing else.
 *
 * File format (`capsules/{id}.md`), one field per line, continuation lines indented by two spaces:
 *   # w2
 *   what: added book diff
 *   where: F13
 *   depends: w1
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry, logAction } from '../log/protocolLog.js';
import { atomicWrite, readTextFile, withLock } from '../planning/fsx.js';
import { checkName } from '../planning/ids.js';

export const MAX_CAPSULE_LINES = 10;
export const CAPSULE_FIELDS = ['what', 'where', 'decision', 'gotcha'] as const;

export interface Capsule {
  id: string;
  what?: string;
  where?: string;
  decision?: string;
  gotcha?: string;
  depends: string[];
  /** The file's text, as hydration emits it. */
  text: string;
}

export interface CapsuleInput {
  what: string;
  where: string;
  decision?: string;
  gotcha?: string;
  depends?: string[];
}

export function capsulePath(ctx: Ctx, id: string): string {
  return path.join(ctx.paths.capsulesDir, `${checkName('capsule', id)}.md`);
}

function fieldLines(name: string, value: string): string[] {
  const parts = value.replace(/\r\n?/g, '\n').split('\n');
  return [`${name}: ${parts[0]}`, ...parts.slice(1).map((p) => `  ${p}`)];
}

/** Render a capsule; throws `invalid` when it would exceed the 10-line cap. */
export function renderCapsule(id: string, input: CapsuleInput): string {
  checkName('capsule', id);
  if (!input.what?.trim()) throw new HeimdallError('usage', 'a capsule needs --what (what was done)');
  if (!input.where?.trim()) throw new HeimdallError('usage', 'a capsule needs --where (a symbol id or path)');
  const lines = [`# ${id}`];
  for (const f of CAPSULE_FIELDS) {
    const v = input[f];
    if (v !== undefined && v !== '') lines.push(...fieldLines(f, v));
  }
  const deps = input.depends ?? [];
  if (deps.length > 0) lines.push(`depends: ${deps.join(', ')}`);
  if (lines.length > MAX_CAPSULE_LINES) {
    throw new HeimdallError(
      'invalid',
      `capsule ${id} would be ${lines.length} lines; the cap is ${MAX_CAPSULE_LINES}. Compact it: keep what, where, one decision and one gotcha.`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Parse a capsule file; hand-edited files that break the format get an error naming the file. */
export function parseCapsule(id: string, text: string, file = `${id}.md`): Capsule {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  if (lines.length > MAX_CAPSULE_LINES) {
    throw new HeimdallError('invalid', `${file} has ${lines.length} lines; capsules are capped at ${MAX_CAPSULE_LINES}. Compact it by hand.`);
  }
  const cap: Capsule = { id, depends: [], text: `${lines.join('\n')}\n` };
  let last: (typeof CAPSULE_FIELDS)[number] | undefined;
  lines.forEach((line, i) => {
    if (line.trim() === '' || line.startsWith('#')) return;
    if (line.startsWith('  ') && last) {
      cap[last] = `${cap[last]}\n${line.slice(2)}`;
      return;
    }
    const m = /^([a-z_]+):\s?(.*)$/.exec(line);
    if (!m) {
      throw new HeimdallError('invalid', `${file}:${i + 1}: expected "field: value" (what, where, decision, gotcha, depends), got ${JSON.stringify(line)}`);
    }
    const [, key, value] = m as unknown as [string, string, string];
    if (key === 'depends') {
      cap.depends = value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const d of cap.depends) checkName(`dependency in ${file}`, d);
      last = undefined;
    } else if ((CAPSULE_FIELDS as readonly string[]).includes(key)) {
      last = key as (typeof CAPSULE_FIELDS)[number];
      cap[last] = value;
    } else {
      last = undefined; // unknown fields are kept in the text, ignored by the model
    }
  });
  return cap;
}

export function readCapsule(ctx: Ctx, id: string): Capsule {
  const file = capsulePath(ctx, id);
  const text = readTextFile(file);
  if (text === undefined) throw new HeimdallError('not_found', `no capsule ${id} (${file})`);
  return parseCapsule(id, text, file);
}

export function capsuleExists(ctx: Ctx, id: string): boolean {
  return fs.existsSync(capsulePath(ctx, id));
}

export function listCapsuleIds(ctx: Ctx): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(ctx.paths.capsulesDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  return names
    .filter((n) => n.endsWith('.md'))
    .map((n) => n.slice(0, -3))
    .filter((n) => !n.startsWith('.'))
    .sort();
}

/**
 * The transitive depends closure of `ids`, dependencies before dependents (DFS post-order, in the
 * order the roots were given). A missing capsule or a cycle is an error that names it.
 */
export function closure(ctx: Ctx, ids: string[], load: (id: string) => Capsule = (id) => readCapsule(ctx, id)): Capsule[] {
  const done = new Map<string, Capsule>();
  const onPath: string[] = [];
  const order: Capsule[] = [];
  const visit = (id: string, from?: string) => {
    if (done.has(id)) return;
    const at = onPath.indexOf(id);
    if (at !== -1) {
      throw new HeimdallError('invalid', `capsule dependency cycle: ${[...onPath.slice(at), id].join(' -> ')}`);
    }
    let cap: Capsule;
    try {
      cap = load(id);
    } catch (e) {
      if (from && e instanceof HeimdallError && e.code === 'not_found') {
        throw new HeimdallError('not_found', `capsule ${from} depends on ${id}, which does not exist (${capsulePath(ctx, id)})`);
      }
      throw e;
    }
    onPath.push(id);
    for (const d of cap.depends) visit(d, id);
    onPath.pop();
    done.set(id, cap);
    order.push(cap);
  };
  for (const id of ids) visit(checkName('capsule', id));
  return order;
}

/** Write (or rewrite) a capsule after checking the cap, its dependencies and the absence of cycles. */
export function writeCapsule(ctx: Ctx, id: string, input: CapsuleInput): Capsule {
  const text = renderCapsule(id, input);
  const cap = parseCapsule(id, text);
  const file = capsulePath(ctx, id);
  withLock(file, () => {
    // Check the dependency graph as it would be with this capsule written.
    closure(ctx, [id], (x) => (x === id ? cap : readCapsule(ctx, x)));
    atomicWrite(file, text, auditEntry(ctx, 'capsule', 'write', `${id}${cap.depends.length ? ` depends=${cap.depends.join(',')}` : ''}`));
  });
  return cap;
}

/** The hydrated text of the closure, capsules separated by a blank line. */
export function hydrate(ctx: Ctx, ids: string[]): { ids: string[]; text: string } {
  const caps = closure(ctx, ids);
  logAction(ctx, 'capsule', 'hydrate', `${ids.join(',')} -> ${caps.map((c) => c.id).join(',')}`);
  return { ids: caps.map((c) => c.id), text: caps.map((c) => c.text).join('\n') };
}
