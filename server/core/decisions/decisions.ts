/**
 * The decision log, `.planning/ledger/decisions.md`: HAID-attributed, timestamped entries appended
 * one after another. The file is only ever opened for appending, each entry in a single write under
 * the file's lock, so earlier entries are never rewritten.
 *
 *   ## D-0003: Use the v2 matching engine
 *   - at: 2026-06-11T12:07:27Z
 *   - by: h-3fa9c2e1/cursor
 *
 *   > The body, quoted line by line, so no body line can pose as an entry heading.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { type Audit, appendTextLocked, readTextFile, withLock } from '../planning/fsx.js';
import { checkValue } from '../planning/ids.js';
import { isoSeconds } from '../ports.js';
import { checkTreeHaid } from '../identity/registry.js';

export const MAX_TITLE_LENGTH = 200;
export const MAX_BODY_LENGTH = 20_000;

const HEADER = '# Decisions\n\nAppend-only: each entry is attributed to a HAID and timestamped; earlier entries are never rewritten.\n';
const HEADING = /^## (D-\d{4,}): (.*)$/;

export interface DecisionInput {
  haid: string;
  title: string;
  body: string;
}

export interface Decision {
  id: string;
  title: string;
  at: string;
  haid: string;
  body: string;
}

export function decisionsFile(ctx: Ctx): string {
  return ctx.paths.decisions;
}

/** A path relative to the folder holding the planning root, as results show it (`.planning/ledger/...`). */
export function displayPath(ctx: Ctx, file: string): string {
  return path.relative(path.dirname(ctx.paths.root), file);
}

export function checkTitle(title: unknown, kind = 'decision title'): string {
  return checkValue(kind, typeof title === 'string' ? title.trim() : (title as string), MAX_TITLE_LENGTH);
}

// eslint-disable-next-line no-control-regex
const BODY_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A multi-line text field: tabs and newlines allowed, other control characters not. */
export function checkBody(body: unknown, kind = 'decision body'): string {
  if (typeof body !== 'string' || body.trim() === '') throw new HeimdallError('invalid', `${kind} must be non-empty text`);
  const text = body.replace(/\r\n?/g, '\n').trim();
  if (text.length > MAX_BODY_LENGTH) throw new HeimdallError('invalid', `${kind} is ${text.length} characters; at most ${MAX_BODY_LENGTH} are allowed`);
  if (BODY_CONTROL.test(text)) throw new HeimdallError('invalid', `${kind} contains control characters other than tabs and newlines`);
  return text;
}

/** Quote every line so that nothing inside a body can forge a heading or a field. */
export function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

function readText(file: string): string {
  return readTextFile(file) ?? '';
}

function nextId(text: string): string {
  let max = 0;
  for (const line of text.split('\n')) {
    const m = HEADING.exec(line);
    if (m) max = Math.max(max, Number((m[1] as string).slice(2)));
  }
  return `D-${String(max + 1).padStart(4, '0')}`;
}

/** The id the next entry will get; stable only while the caller holds the decisions lock. */
export function nextDecisionIdLocked(ctx: Ctx): string {
  return nextId(readText(decisionsFile(ctx)));
}

/**
 * Append one entry while the caller holds the decisions lock. Internal building block shared with
 * conflict PRs, which must write their file and the cross-link under the same lock.
 */
export function appendDecisionLocked(ctx: Ctx, haid: string, title: string, body: string, audit?: (id: string) => Audit): Decision {
  const file = decisionsFile(ctx);
  const before = readText(file);
  const id = nextId(before);
  const at = isoSeconds(ctx.clock.now());
  const entry = `\n## ${id}: ${title}\n- at: ${at}\n- by: ${haid}\n\n${quote(body)}\n`;
  const prefix = before === '' ? HEADER : before.endsWith('\n') ? '' : '\n';
  appendTextLocked(file, prefix + entry, { audit: audit?.(id) });
  return { id, title, at, haid, body };
}

/** Append a HAID-attributed, timestamped decision. Returns its id (D-0001, D-0002, ...). */
export function appendDecision(ctx: Ctx, input: DecisionInput): Decision & { path: string } {
  const haid = checkTreeHaid(ctx, input.haid);
  const title = checkTitle(input.title);
  const body = checkBody(input.body);
  const file = decisionsFile(ctx);
  const d = withLock(file, () => appendDecisionLocked(ctx, haid, title, body, (id) => auditEntry(ctx, 'decision', 'append', `${id} by ${haid}: ${title}`)));
  return { ...d, path: displayPath(ctx, file) };
}

/** Parse decisions.md back into entries (for readers such as the Studio); unknown lines are ignored. */
export function readDecisions(ctx: Ctx): Decision[] {
  const out: Decision[] = [];
  let cur: (Decision & { lines: string[] }) | undefined;
  const flush = () => {
    if (cur) {
      const { lines, ...d } = cur;
      out.push({ ...d, body: lines.join('\n').trim() });
    }
  };
  for (const line of readText(decisionsFile(ctx)).split('\n')) {
    const m = HEADING.exec(line);
    if (m) {
      flush();
      cur = { id: m[1] as string, title: m[2] as string, at: '', haid: '', body: '', lines: [] };
    } else if (cur) {
      if (line.startsWith('- at: ') && cur.at === '') cur.at = line.slice(6);
      else if (line.startsWith('- by: ') && cur.haid === '') cur.haid = line.slice(6);
      else if (line === '>' || line.startsWith('> ')) cur.lines.push(line.slice(2));
    }
  }
  flush();
  return out;
}
