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
 * Filters (mechanism, action: exact; text: case-insensitive substring of the whole line) keep their
 * own list of matching line numbers, extended incrementally too, so paging through a filtered view
 * costs a slice, not a scan.
 */
import fs from 'node:fs';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type LogEntry, parseLogLine } from './protocolLog.js';
import { storageLimits, tooLarge } from '../planning/limits.js';

export interface LogFilter {
  /** Exact mechanism, e.g. "resolve". */
  mechanism?: string;
  /** Exact action, e.g. "set". */
  action?: string;
  /** Case-insensitive substring of the line (timestamp, mechanism, action and detail). */
  text?: string;
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

export interface LogPage {
  /** Matching entries, newest first. */
  entries: LogEntry[];
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
  mechanism: string[];
  action: string[];
  detail: string[];
  /** The raw line, lower-cased, for the text filter. */
  haystack: string[];
  mechanismCounts: Map<string, number>;
  actionCounts: Map<string, number>;
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
    mechanism: [],
    action: [],
    detail: [],
    haystack: [],
    mechanismCounts: new Map(),
    actionCounts: new Map(),
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

function addLine(idx: LogIndex, text: string): void {
  const e = parseLogLine(text, idx.ts.length + 1);
  const mech = intern(pool, e.mechanism);
  const act = intern(pool, e.action);
  idx.ts.push(e.ts);
  idx.mechanism.push(mech);
  idx.action.push(act);
  idx.detail.push(e.detail);
  idx.haystack.push(text.toLowerCase());
  idx.mechanismCounts.set(mech, (idx.mechanismCounts.get(mech) ?? 0) + 1);
  const ak = `${mech}\t${act}`;
  idx.actionCounts.set(ak, (idx.actionCounts.get(ak) ?? 0) + 1);
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

function filterKey(f: LogFilter): string {
  return JSON.stringify([f.mechanism ?? null, f.action ?? null, f.text ? f.text.toLowerCase() : null]);
}

function isUnfiltered(f: LogFilter): boolean {
  return !f.mechanism && !f.action && !f.text;
}

function filterIndex(idx: LogIndex, f: LogFilter): FilterIndex {
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
  const mech = f.mechanism || undefined;
  const act = f.action || undefined;
  const text = f.text ? f.text.toLowerCase() : undefined;
  const n = idx.ts.length;
  for (let i = fi.scanned; i < n; i++) {
    if (mech !== undefined && idx.mechanism[i] !== mech) continue;
    if (act !== undefined && idx.action[i] !== act) continue;
    if (text !== undefined && !(idx.haystack[i] as string).includes(text)) continue;
    fi.matches.push(i);
  }
  fi.scanned = n;
  return fi;
}

function entryAt(idx: LogIndex, i: number): LogEntry {
  return { ts: idx.ts[i] as string, mechanism: idx.mechanism[i] as string, action: idx.action[i] as string, detail: idx.detail[i] as string, line: i + 1 };
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
  const idx = refresh(ctx.paths.protocolLog);
  const total = idx.ts.length;
  const upTo = Math.min(q.upTo ?? total, total);
  const limit = q.limit ?? 100;
  const offset = q.offset ?? 0;
  const entries: LogEntry[] = [];
  let matched: number;
  if (isUnfiltered(q)) {
    matched = upTo;
    for (let k = offset; k < Math.min(matched, offset + limit); k++) entries.push(entryAt(idx, upTo - 1 - k));
  } else {
    const fi = filterIndex(idx, q);
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
  return { mechanisms, actions, total: idx.ts.length };
}

/** Forget cached indexes (tests, or a caller that knows the file was rewritten in place). */
export function resetLogIndex(file?: string): void {
  if (file) indexes.delete(file);
  else indexes.clear();
}
