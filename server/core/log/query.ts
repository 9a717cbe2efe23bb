/**
 * Paged, filtered reads of protocol.log for readers that cannot afford `tailLog` on every request
 * (Studio's log page, with 100,000 lines and a live tail).
 *
 * protocol.log is append-only (one write per line, under a lock), so an index of the file can be
 * brought up to date by reading only the bytes appended since the last call. The index is kept per
 * file path in this process; a truncated or replaced file (smaller, other inode, other first bytes)
 * is re-read from the start. A torn last line (a writer mid-write, or one that died) is reported and
 * not indexed, exactly like `tailLog`, and is picked up once its newline arrives.
 *
 * Filters (mechanism, action, author: exact; text: case-insensitive substring of the whole line, whose
 * timestamp also matches as people read it, `2026-06-11 12:07:27`; a time range; the object a line
 * names, see refs.ts) keep their own list of matching line numbers, extended incrementally too, so
 * paging through a filtered view costs a slice, not a scan.
 *
 * Lines are not assumed to be in time order (writers with their own clocks, a frozen test clock, a
 * hand-edited file), so a time range is a filter like the others rather than a binary search.
 */
import fs from 'node:fs';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { isoSeconds } from '../ports.js';
import { type LogEntry, parseLogLine } from './protocolLog.js';
import { type LogRef, logRefs, parseRefKey, refKey } from './refs.js';
import { storageLimits, tooLarge } from '../planning/limits.js';

export interface LogFilter {
  /** Exact mechanism, e.g. "resolve". */
  mechanism?: string;
  /** Exact action, e.g. "set". */
  action?: string;
  /**
   * Case-insensitive substring of the line (timestamp, mechanism, action, detail and author). The
   * timestamp matches as written (2026-06-11T12:07:27Z) and as shown to people (2026-06-11 12:07:27).
   */
  text?: string;
  /** Exact author HAID (the fifth field). */
  author?: string;
  /** Lines at or after this instant (ISO-8601, e.g. 2026-06-11T12:00:00Z). */
  from?: string;
  /** Lines before this instant (ISO-8601). */
  to?: string;
  /** Lines that name this object, `kind:id` (e.g. `capsule:w2`, `symbol:F12`); see refs.ts. */
  object?: string;
}

export interface LogQuery extends LogFilter {
  /**
   * Only lines numbered `upTo` or lower are considered. A reader paging through a list pins this to
   * the `total` of its first page, so lines appended meanwhile do not shift its offsets. Default: all.
   */
  upTo?: number;
  /** How many matching entries to skip, newest first. Default 0. */
  offset?: number;
  /** At most this many entries (1-1000). Default 100. */
  limit?: number;
}

/** A log entry with the objects it names. */
export interface LogPageEntry extends LogEntry {
  refs: LogRef[];
}

export interface LogPage {
  /** Matching entries, newest first. */
  entries: LogPageEntry[];
  /** Complete lines in protocol.log now. */
  total: number;
  /** The line number the page was cut at (the query's `upTo`, capped at `total`). */
  upTo: number;
  /** Lines numbered `upTo` or lower that match the filter. */
  matched: number;
  offset: number;
  /** A cut-short last line: reported, not parsed. */
  tornLine?: number;
}

export interface LogFacet {
  value: string;
  count: number;
}

export interface LogFacets {
  mechanisms: LogFacet[];
  /** Actions with their mechanism, e.g. {mechanism: "resolve", value: "set"}. */
  actions: (LogFacet & { mechanism: string })[];
  /** Authors (HAIDs) with their line counts; lines without an author are not counted. */
  authors: LogFacet[];
  total: number;
}

export const MAX_PAGE = 1000;
const HEAD_BYTES = 256;
const MAX_FILTERS = 16;

interface FilterIndex {
  key: string;
  /** Line indexes (0-based) that match, ascending. */
  matches: number[];
  /** How many lines of the index have been tested. */
  scanned: number;
}

interface LogIndex {
  file: string;
  ino: number;
  /** Bytes consumed: everything up to and including the last newline seen. */
  consumed: number;
  head: Buffer;
  ts: string[];
  /**
   * The timestamp in the canonical form (YYYY-MM-DDTHH:MM:SSZ) for range comparisons, '' when
   * unreadable. Filled on the first time-range query and kept up to date from then on, so a reader
   * who never asks for a range never pays for it.
   */
  instant: string[];
  mechanism: string[];
  action: string[];
  detail: string[];
  author: (string | undefined)[];
  /** The raw line, lower-cased, for the text filter. */
  haystack: string[];
  mechanismCounts: Map<string, number>;
  actionCounts: Map<string, number>;
  authorCounts: Map<string, number>;
  torn?: number;
  filters: Map<string, FilterIndex>;
}

const indexes = new Map<string, LogIndex>();

function emptyIndex(file: string, ino: number): LogIndex {
  return {
    file,
    ino,
    consumed: 0,
    head: Buffer.alloc(0),
    ts: [],
    instant: [],
    mechanism: [],
    action: [],
    detail: [],
    author: [],
    haystack: [],
    mechanismCounts: new Map(),
    actionCounts: new Map(),
    authorCounts: new Map(),
    filters: new Map(),
  };
}

function readRange(fd: number, start: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** Interning keeps 100,000 copies of "resolve" from becoming 100,000 strings. */
function intern(pool: Map<string, string>, s: string): string {
  const hit = pool.get(s);
  if (hit !== undefined) return hit;
  pool.set(s, s);
  return s;
}
const pool = new Map<string, string>();

const CANONICAL_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** A timestamp as an instant comparable as a string; '' when it is not a date at all. */
export function canonicalInstant(ts: string): string {
  if (CANONICAL_TS.test(ts)) return ts;
  const ms = Date.parse(ts);
  return Number.isNaN(ms) ? '' : isoSeconds(ms);
}

/** A date and an hour as people write them, `2026-06-11 12` (or the end of one, `11 12:07`). */
const READABLE_TS = /(\d) (\d{2})(?=:|$)/g;

/**
 * The text filter's second form: a timestamp typed as Studio shows it (2026-06-11 12:07:27) rewritten
 * as protocol.log writes it (2026-06-11t12:07:27, lower-cased like the haystack). Undefined when the
 * text holds no such date and time.
 */
function writtenForm(text: string): string | undefined {
  const w = text.replace(READABLE_TS, '$1t$2');
  return w === text ? undefined : w;
}

function fillInstants(idx: LogIndex): void {
  for (let i = idx.instant.length; i < idx.ts.length; i++) idx.instant.push(canonicalInstant(idx.ts[i] as string));
}

function addLine(idx: LogIndex, text: string): void {
  const e = parseLogLine(text, idx.ts.length + 1);
  const mech = intern(pool, e.mechanism);
  const act = intern(pool, e.action);
  const author = e.author === undefined ? undefined : intern(pool, e.author);
  idx.ts.push(e.ts);
  idx.mechanism.push(mech);
  idx.action.push(act);
  idx.detail.push(e.detail);
  idx.author.push(author);
  idx.haystack.push(text.toLowerCase());
  idx.mechanismCounts.set(mech, (idx.mechanismCounts.get(mech) ?? 0) + 1);
  const ak = `${mech}\t${act}`;
  idx.actionCounts.set(ak, (idx.actionCounts.get(ak) ?? 0) + 1);
  if (author !== undefined) idx.authorCounts.set(author, (idx.authorCounts.get(author) ?? 0) + 1);
}

/** Bring the index of `file` up to date with the bytes on disk; returns it. */
function refresh(file: string): LogIndex {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put in place of the log must be refused, not waited on.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      const idx = emptyIndex(file, -1);
      indexes.set(file, idx);
      return idx;
    }
    throw new HeimdallError('environment', `cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new HeimdallError('environment', `cannot read ${file}: it is ${st.isDirectory() ? 'a directory' : 'not a regular file'}, expected a file`);
    let idx = indexes.get(file);
    if (idx) {
      const replaced = idx.ino !== st.ino || st.size < idx.consumed || !readRange(fd, 0, idx.head.length).equals(idx.head);
      if (replaced) idx = undefined;
    }
    if (!idx) {
      idx = emptyIndex(file, st.ino);
      indexes.set(file, idx);
    }
    if (idx.head.length < HEAD_BYTES && st.size > idx.head.length) idx.head = readRange(fd, 0, Math.min(HEAD_BYTES, st.size));
    idx.torn = undefined;
    if (st.size > idx.consumed) {
      // Bounded like every read: what is new since the last visit must fit the read limit.
      if (st.size - idx.consumed > storageLimits().maxReadBytes) throw tooLarge(file);
      const buf = readRange(fd, idx.consumed, st.size - idx.consumed);
      // 0x0a never occurs inside a multi-byte UTF-8 sequence, so cutting at it is safe.
      const lastNl = buf.lastIndexOf(0x0a);
      if (lastNl !== -1) {
        for (const line of buf.subarray(0, lastNl).toString('utf8').split('\n')) addLine(idx, line);
        idx.consumed += lastNl + 1;
      }
    }
    if (idx.consumed < st.size) idx.torn = idx.ts.length + 1;
    return idx;
  } finally {
    fs.closeSync(fd);
  }
}

/** A filter with its bounds in canonical form and empty fields dropped. */
type NormalFilter = Omit<LogFilter, 'object'> & { object?: LogRef };

function instantArg(name: 'from' | 'to', v: string | undefined): string | undefined {
  if (!v) return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) throw new HeimdallError('usage', `${name} must be an ISO-8601 instant such as 2026-06-11T12:00:00Z, got ${JSON.stringify(v)}`);
  return isoSeconds(ms);
}

function normalise(f: LogFilter): NormalFilter {
  const out: NormalFilter = {};
  if (f.mechanism) out.mechanism = f.mechanism;
  if (f.action) out.action = f.action;
  if (f.text) out.text = f.text.toLowerCase();
  if (f.author) out.author = f.author;
  const from = instantArg('from', f.from);
  const to = instantArg('to', f.to);
  if (from) out.from = from;
  if (to) out.to = to;
  if (from && to && from >= to) throw new HeimdallError('usage', `from (${from}) must be before to (${to})`);
  if (f.object) {
    const ref = parseRefKey(f.object);
    if (!ref) throw new HeimdallError('usage', `object must be kind:id with kind one of symbol, fact, capsule, claim, agent, stream, run, peer (e.g. capsule:w2), got ${JSON.stringify(f.object)}`);
    out.object = ref;
  }
  return out;
}

function filterKey(f: NormalFilter): string {
  return JSON.stringify([f.mechanism ?? null, f.action ?? null, f.text ?? null, f.author ?? null, f.from ?? null, f.to ?? null, f.object ? refKey(f.object) : null]);
}

function isUnfiltered(f: NormalFilter): boolean {
  return Object.keys(f).length === 0;
}

function filterIndex(idx: LogIndex, f: NormalFilter): FilterIndex {
  const key = filterKey(f);
  let fi = idx.filters.get(key);
  if (fi) {
    // Most recently used last, so the oldest filter is the first to go.
    idx.filters.delete(key);
    idx.filters.set(key, fi);
  } else {
    fi = { key, matches: [], scanned: 0 };
    idx.filters.set(key, fi);
    if (idx.filters.size > MAX_FILTERS) idx.filters.delete(idx.filters.keys().next().value as string);
  }
  const { mechanism: mech, action: act, text, author, from, to, object } = f;
  const text2 = text === undefined ? undefined : writtenForm(text);
  if (from !== undefined || to !== undefined) fillInstants(idx);
  const n = idx.ts.length;
  for (let i = fi.scanned; i < n; i++) {
    if (mech !== undefined && idx.mechanism[i] !== mech) continue;
    if (act !== undefined && idx.action[i] !== act) continue;
    if (author !== undefined && idx.author[i] !== author) continue;
    if (from !== undefined && !((idx.instant[i] as string) >= from)) continue;
    if (to !== undefined && !((idx.instant[i] as string) < to && idx.instant[i] !== '')) continue;
    if (text !== undefined && !(idx.haystack[i] as string).includes(text) && !(text2 !== undefined && (idx.haystack[i] as string).includes(text2))) continue;
    // Cheapest test first: a line can only name the object if its detail contains the id.
    if (object !== undefined && !(idx.detail[i] as string).includes(object.id)) continue;
    if (object !== undefined && !namesObject(idx, i, object)) continue;
    fi.matches.push(i);
  }
  fi.scanned = n;
  return fi;
}

function fieldsAt(idx: LogIndex, i: number) {
  return { mechanism: idx.mechanism[i] as string, action: idx.action[i] as string, detail: idx.detail[i] as string };
}

function namesObject(idx: LogIndex, i: number, object: LogRef): boolean {
  return logRefs(fieldsAt(idx, i)).some((r) => r.kind === object.kind && r.id === object.id);
}

function entryAt(idx: LogIndex, i: number): LogPageEntry {
  const fields = fieldsAt(idx, i);
  const author = idx.author[i];
  return { ts: idx.ts[i] as string, ...fields, line: i + 1, ...(author !== undefined ? { author } : {}), refs: logRefs(fields) };
}

/** Number of values in ascending `arr` that are below `limit`. */
function countBelow(arr: number[], limit: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((arr[mid] as number) < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function checkInt(name: string, v: number | undefined, min: number, max: number): void {
  if (v === undefined) return;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new HeimdallError('usage', `${name} must be an integer from ${min} to ${max}, got ${v}`);
  }
}

/**
 * One page of protocol.log, newest first, filtered. Costs a read of the bytes appended since the
 * previous call on the same file, plus a slice.
 */
export function queryLog(ctx: Ctx, q: LogQuery = {}): LogPage {
  checkInt('limit', q.limit, 1, MAX_PAGE);
  checkInt('offset', q.offset, 0, Number.MAX_SAFE_INTEGER);
  checkInt('upTo', q.upTo, 0, Number.MAX_SAFE_INTEGER);
  const filter = normalise(q);
  const idx = refresh(ctx.paths.protocolLog);
  const total = idx.ts.length;
  const upTo = Math.min(q.upTo ?? total, total);
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const entries: LogPageEntry[] = [];
  let matched: number;
  if (isUnfiltered(filter)) {
    matched = upTo;
    for (let k = offset; k < Math.min(matched, offset + limit); k++) entries.push(entryAt(idx, upTo - 1 - k));
  } else {
    const fi = filterIndex(idx, filter);
    matched = countBelow(fi.matches, upTo);
    for (let k = offset; k < Math.min(matched, offset + limit); k++) entries.push(entryAt(idx, fi.matches[matched - 1 - k] as number));
  }
  return { entries, total, upTo, matched, offset, ...(idx.torn ? { tornLine: idx.torn } : {}) };
}

/** The mechanisms and actions present in protocol.log with their line counts, for filter menus. */
export function logFacets(ctx: Ctx): LogFacets {
  const idx = refresh(ctx.paths.protocolLog);
  const mechanisms = [...idx.mechanismCounts].map(([value, count]) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
  const actions = [...idx.actionCounts]
    .map(([k, count]) => {
      const [mechanism = '', value = ''] = k.split('\t');
      return { mechanism, value, count };
    })
    .sort((a, b) => a.mechanism.localeCompare(b.mechanism) || a.value.localeCompare(b.value));
  const authors = [...idx.authorCounts].map(([value, count]) => ({ value, count })).sort((a, b) => a.value.localeCompare(b.value));
  return { mechanisms, actions, authors, total: idx.ts.length };
}

/** Forget cached indexes (tests, or a caller that knows the file was rewritten in place). */
export function resetLogIndex(file?: string): void {
  if (file) indexes.delete(file);
  else indexes.clear();
}
