/**
 * Herd state on disk, under `.planning/herd/`:
 *   agents.json    the check-in registry: {"version", "agents": {address: AgentRecord}}
 *   mailbox.jsonl  the message journal (see mailbox.ts)
 *   state.lock     one lock for both, so a check-in updates the registry and drains the mailbox in
 *                  one critical section (that is what makes @anyone go to exactly one agent)
 *
 * Every read validates; a hand-broken file is refused with its name and line and never rewritten.
 */
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type Audit, type CommitOp, appendLinesLocked, atomicWrite, commitAll, readLines, readTextFile, truncateFile, withLock } from '../planning/fsx.js';
import { readVersionedMap, versionedMapText, writeVersionedMap } from '../planning/state.js';
import { isAgentAddress } from './address.js';
import { type JournalLine, type SendLine, parseJournalLine, pendingCopies } from './mailbox.js';
import { herdDir } from './team.js';

export interface StatusEntry {
  ts: string;
  status: string;
  task: string | null;
}

export interface AgentRecord {
  address: string;
  first_seen: string;
  last_checkin: string;
  checkins: number;
  status: string;
  /** The task (capsule / plan id) the agent says it works on, or null. */
  task: string | null;
  /** Tasks that task depends on, as declared at check-in (capsules add their own `depends`). */
  depends: string[];
  /** The latest statuses, oldest first, at most HISTORY_MAX. */
  history: StatusEntry[];
}

export const HISTORY_MAX = 5;
/** The journal is rewritten to its pending lines once it grows past this many lines. */
export const COMPACT_AT_LINES = 2_000;

export function herdPaths(ctx: Ctx) {
  const p = ctx.paths;
  return { dir: herdDir(ctx), agents: p.herdAgents, mailbox: p.herdMailbox, lockTarget: p.herdLock };
}

const isStrList = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function isRecord(v: unknown): v is AgentRecord {
  const r = v as AgentRecord;
  return (
    typeof r === 'object' &&
    r !== null &&
    isAgentAddress(r.address) &&
    typeof r.first_seen === 'string' &&
    typeof r.last_checkin === 'string' &&
    Number.isFinite(Date.parse(r.last_checkin)) &&
    Number.isInteger(r.checkins) &&
    typeof r.status === 'string' &&
    (r.task === null || typeof r.task === 'string') &&
    isStrList(r.depends) &&
    Array.isArray(r.history) &&
    r.history.every((h) => typeof h === 'object' && h !== null && typeof h.ts === 'string' && typeof h.status === 'string')
  );
}

const RECORD_SHAPE = 'a check-in record {"address", "first_seen", "last_checkin" (ISO time), "checkins", "status", "task", "depends", "history"}';

export function readRegistry(ctx: Ctx): Record<string, AgentRecord> {
  const file = herdPaths(ctx).agents;
  const map = readVersionedMap(file, 'agents', isRecord, RECORD_SHAPE, {
    keyCheck: (k) => {
      if (!isAgentAddress(k)) throw new Error(`${JSON.stringify(k)} is not an agent address such as mason.1@core`);
    },
  });
  for (const [k, v] of Object.entries(map)) {
    if (k !== v.address) {
      throw new HeimdallError('environment', `${file}: key ${JSON.stringify(k)} differs from its record's address ${JSON.stringify(v.address)}; the file was left untouched`);
    }
  }
  return map;
}

/** Call only while holding the herd lock; `audit` commits the action's protocol.log line with it. */
export function writeRegistry(ctx: Ctx, map: Record<string, AgentRecord>, audit?: Audit): void {
  writeVersionedMap(herdPaths(ctx).agents, 'agents', map, audit);
}

export interface JournalRead {
  lines: JournalLine[];
  torn?: number;
}

export function readJournal(ctx: Ctx): JournalRead {
  const file = herdPaths(ctx).mailbox;
  const { lines, torn } = readLines(file);
  const out: JournalLine[] = [];
  lines.forEach((t, i) => {
    if (t.trim() !== '') out.push(parseJournalLine(t, file, i + 1));
  });
  return torn ? { lines: out, torn: torn.lineNumber } : { lines: out };
}

/**
 * Run `fn` holding the herd lock. A torn last journal line (a writer killed mid-write, which can
 * only be a dead writer since we hold the lock) is cut off first, so the next append starts on a
 * fresh line; the cut is reported to the caller through `repaired`.
 */
export function withHerdLock<T>(ctx: Ctx, fn: (repaired: number | undefined) => T): T {
  const p = herdPaths(ctx);
  return withLock(p.lockTarget, () => {
    let repaired: number | undefined;
    const text = readTextFile(p.mailbox);
    if (text !== undefined && text !== '' && !text.endsWith('\n')) {
      const keep = text.lastIndexOf('\n') + 1;
      repaired = text.slice(0, keep).split('\n').length;
      truncateFile(p.mailbox, Buffer.byteLength(text.slice(0, keep)));
    }
    return fn(repaired);
  });
}

/**
 * A check-in's two changes, the registry and its drain line, committed as one with the action's
 * protocol.log line (so a writer killed between them is finished by the next one); call only while
 * holding the herd lock.
 */
export function commitCheckin(ctx: Ctx, map: Record<string, AgentRecord>, drain: JournalLine[], audit: Audit): void {
  const p = herdPaths(ctx);
  const ops: CommitOp[] = [{ kind: 'replace', file: p.agents, content: versionedMapText('agents', map) }];
  if (drain.length) ops.push({ kind: 'append', file: p.mailbox, text: drain.map((l) => `${JSON.stringify(l)}\n`).join(''), torn: 'set-aside' });
  commitAll(ops, audit);
}

/** Append journal lines (one checked write); call only while holding the herd lock. */
export function appendJournal(ctx: Ctx, lines: JournalLine[], audit?: Audit): void {
  appendLinesLocked(herdPaths(ctx).mailbox, lines.map((l) => JSON.stringify(l)), { torn: 'set-aside', audit });
}

/** Rewrite the journal to its pending sends when it has grown; call only while holding the lock. */
export function compactJournal(ctx: Ctx, lines: JournalLine[]): boolean {
  if (lines.length < COMPACT_AT_LINES) return false;
  const pending: SendLine[] = pendingCopies(lines);
  atomicWrite(herdPaths(ctx).mailbox, pending.map((l) => `${JSON.stringify(l)}\n`).join(''));
  return true;
}
