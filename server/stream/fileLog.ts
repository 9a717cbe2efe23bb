/**
 * The default wire log: one JSONL file per topic, `.planning/wire/<topic>.jsonl`, one line per
 * record: {"seq":N,"ts":"<ISO-8601>","wire":{...}}.
 *
 * Appends take the topic file's lock (server/core/planning/fsx.ts), so any number of writer
 * processes share one gap-free sequence. Under the lock the appender first reads what other
 * processes appended since its last visit (to know the last seq, the last timestamp and every
 * stream's last stream_seq), then writes the whole batch with one write and one fsync. A torn last
 * line can only be left by a writer that died mid-write (writers hold the lock): the next appender
 * moves its bytes to `<topic>.jsonl.torn` and truncates it; readers skip a line without its newline.
 * A line that is not a record (edited by hand) is reported by `read` and skipped, never rewritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  HeimdallError,
  outsideScope,
  withLock,
  writeAll,
  writeError,
  TOPIC_PATTERN,
  checkTopic,
  type Appended,
  type LogProblem,
  type ReadResult,
  type Subscription,
  type WireLog,
  type LogRecord,
  type Wire,
  type WireDraft,
} from '../core/index.js';

export interface FileLogOptions {
  /** fsync after every append call (a batch is one call). Default true: the log is canonical. */
  fsync?: boolean;
  /** How often a subscription polls when file-system events are missed. Default 200 ms. */
  pollMs?: number;
  /** The log's clock (epoch ms); consensus timestamps never go backwards within a topic. */
  now?: () => number;
}

interface TopicCache {
  ino: number;
  /** Bytes of the file this process has read (always at a line boundary). */
  size: number;
  lastSeq: number;
  lastTsMs: number;
  streamSeqs: Map<string, number>;
}

interface Pending {
  wire: WireDraft;
  resolve: (a: Appended) => void;
  reject: (e: unknown) => void;
}

const CHUNK = 1 << 20;
const NL = 0x0a;

interface ParsedLine {
  seq: number;
  ts: string;
  wire: unknown;
}

/** Parse one stored line; a string describes what is wrong with it. */
function parseLine(text: string): ParsedLine | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `not valid JSON (${(e as Error).message})`;
  }
  const o = v as { seq?: unknown; ts?: unknown; wire?: unknown };
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not a JSON object';
  if (!Number.isSafeInteger(o.seq) || (o.seq as number) < 1) return 'has no positive integer "seq"';
  if (typeof o.ts !== 'string' || !Number.isFinite(Date.parse(o.ts))) return 'has no ISO-8601 "ts"';
  if (!('wire' in o)) return 'has no "wire"';
  return { seq: o.seq as number, ts: o.ts, wire: o.wire };
}

function excerpt(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export class FileWireLog implements WireLog {
  readonly kind = 'file' as const;
  readonly location: string;
  private readonly fsync: boolean;
  private readonly pollMs: number;
  private readonly now: () => number;
  private readonly caches = new Map<string, TopicCache>();
  /** Where the next read of a topic from a given seq can start (skips what was already scanned). */
  private readonly readHints = new Map<string, { seq: number; offset: number; ino: number }>();
  private readonly queues = new Map<string, Pending[]>();

  constructor(
    readonly dir: string,
    opts: FileLogOptions = {},
  ) {
    this.location = dir;
    this.fsync = opts.fsync ?? true;
    this.pollMs = opts.pollMs ?? 200;
    this.now = opts.now ?? Date.now;
  }

  fileOf(topic: string): string {
    return path.join(this.dir, `${checkTopic(topic)}.jsonl`);
  }

  /**
   * Append one wire. Calls made in the same tick are grouped into one batch (one lock, one write,
   * one fsync), so concurrent producers in a process get batching without asking for it.
   */
  append(topic: string, wire: WireDraft): Promise<Appended> {
    try {
      checkTopic(topic);
    } catch (e) {
      return Promise.reject(e);
    }
    return new Promise<Appended>((resolve, reject) => {
      let q = this.queues.get(topic);
      if (!q) {
        q = [];
        this.queues.set(topic, q);
        setImmediate(() => this.flush(topic));
      }
      q.push({ wire, resolve, reject });
    });
  }

  private flush(topic: string): void {
    const q = this.queues.get(topic) ?? [];
    this.queues.delete(topic);
    try {
      // A batch serves several callers: it must neither abort nor re-run any one caller's request.
      const out = outsideScope(() => this.appendSync(topic, q.map((p) => p.wire)));
      q.forEach((p, i) => p.resolve(out[i] as Appended));
    } catch (e) {
      for (const p of q) p.reject(e);
    }
  }

  async appendBatch(topic: string, wires: WireDraft[]): Promise<Appended[]> {
    return this.appendSync(topic, wires);
  }

  /** The batch append itself: synchronous, under the topic's lock. */
  appendSync(topic: string, wires: WireDraft[]): Appended[] {
    const file = this.fileOf(topic);
    if (wires.length === 0) return [];
    fs.mkdirSync(this.dir, { recursive: true });
    return withLock(file, () => {
      const fd = fs.openSync(file, 'a+');
      try {
        if (!fs.fstatSync(fd).isFile()) throw new HeimdallError('environment', `cannot append to the wire log ${file}: it is not a regular file`);
        const c = this.syncCache(topic, file, fd);
        let seq = c.lastSeq;
        let tsMs = Math.max(this.now(), c.lastTsMs);
        const ts = new Date(tsMs).toISOString();
        const lines: string[] = [];
        const out: Appended[] = [];
        const streamSeqs = new Map<string, number>();
        for (const draft of wires) {
          if (typeof draft?.stream_id !== 'string') throw new HeimdallError('internal', 'file log: a wire without stream_id reached the log (producers validate first)');
          seq += 1;
          const last = streamSeqs.get(draft.stream_id) ?? c.streamSeqs.get(draft.stream_id) ?? 0;
          const wire = { ...draft, stream_seq: draft.stream_seq ?? last + 1 } as Wire;
          streamSeqs.set(draft.stream_id, Math.max(last, wire.stream_seq));
          lines.push(`${JSON.stringify({ seq, ts, wire })}\n`);
          out.push({ topic, sequence_number: seq, consensus_timestamp: ts, wire });
        }
        const buf = Buffer.from(lines.join(''), 'utf8');
        try {
          writeAll(fd, buf, file, `${file} was left as it was (the partial batch was cut off)`);
          if (this.fsync) fs.fdatasyncSync(fd);
        } catch (e) {
          // Disk full or a file size limit: nothing of this batch stays, and no caller is told it was kept.
          try {
            fs.ftruncateSync(fd, c.size);
          } catch {
            /* the error below is what the caller sees */
          }
          throw writeError(file, e, `${file} was left as it was (the partial batch was cut off)`);
        }
        c.size += buf.length;
        c.lastSeq = seq;
        c.lastTsMs = tsMs;
        for (const [k, v] of streamSeqs) c.streamSeqs.set(k, v);
        return out;
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  /** Under the lock: catch up with what other processes appended and cut a torn tail. */
  private syncCache(topic: string, file: string, fd: number): TopicCache {
    const st = fs.fstatSync(fd);
    let c = this.caches.get(topic);
    if (!c || c.ino !== st.ino || st.size < c.size) {
      c = { ino: st.ino, size: 0, lastSeq: 0, lastTsMs: 0, streamSeqs: new Map() };
      this.caches.set(topic, c);
    }
    if (st.size > c.size) {
      const end = this.scan(
        fd,
        c.size,
        st.size,
        (p) => {
          if (p.seq > c.lastSeq) c.lastSeq = p.seq;
          const ms = Date.parse(p.ts);
          if (ms > c.lastTsMs) c.lastTsMs = ms;
          const w = p.wire as { stream_id?: unknown; stream_seq?: unknown };
          if (w && typeof w.stream_id === 'string' && Number.isSafeInteger(w.stream_seq)) {
            const prev = c.streamSeqs.get(w.stream_id) ?? 0;
            if ((w.stream_seq as number) > prev) c.streamSeqs.set(w.stream_id, w.stream_seq as number);
          }
        },
        (_why, text) => {
          // A damaged line used up a number (a listener may already have read it): never hand it out again.
          const hinted = /^\{"seq":(\d+)[,}]/.exec(text);
          c.lastSeq = Math.max(c.lastSeq, hinted ? Number(hinted[1]) : c.lastSeq + 1);
        },
      );
      if (end < st.size) {
        // A writer died mid-line: keep its bytes for inspection, then cut them off.
        const torn = Buffer.alloc(st.size - end);
        fs.readSync(fd, torn, 0, torn.length, end);
        const side = fs.openSync(`${file}.torn`, 'a');
        try {
          writeAll(side, Buffer.concat([torn, Buffer.from('\n')]), `${file}.torn`);
        } finally {
          fs.closeSync(side);
        }
        fs.ftruncateSync(fd, end);
      }
      c.size = end;
    }
    return c;
  }

  /**
   * Visit every complete, well-formed line in [from, to); returns the offset just after the last
   * complete line. Malformed lines are passed to onBad when given.
   */
  private scan(fd: number, from: number, to: number, onLine: (p: ParsedLine, start: number, end: number) => boolean | void, onBad?: (why: string, text: string, start: number) => void): number {
    let pos = from;
    let carry: Buffer = Buffer.alloc(0);
    let carryStart = from;
    const buf = Buffer.alloc(CHUNK);
    while (pos < to) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, to - pos), pos);
      if (n <= 0) break;
      const chunk = carry.length ? Buffer.concat([carry, buf.subarray(0, n)]) : buf.subarray(0, n);
      const chunkStart = carry.length ? carryStart : pos;
      pos += n;
      let lineStart = 0;
      for (;;) {
        const nl = chunk.indexOf(NL, lineStart);
        if (nl === -1) break;
        const text = chunk.toString('utf8', lineStart, nl);
        const start = chunkStart + lineStart;
        const end = chunkStart + nl + 1;
        if (text.trim() !== '') {
          const p = parseLine(text);
          if (typeof p === 'string') onBad?.(p, text, start);
          else if (onLine(p, start, end) === false) return end;
        }
        lineStart = nl + 1;
      }
      carry = Buffer.from(chunk.subarray(lineStart));
      carryStart = chunkStart + lineStart;
    }
    return carryStart;
  }

  /** Byte offset of a line start at or before the first line whose seq >= target. */
  private seek(fd: number, size: number, target: number): number {
    let lo = 0;
    let hi = size;
    const win = Buffer.alloc(256 * 1024);
    while (hi - lo > 128 * 1024) {
      const mid = Math.floor((lo + hi) / 2);
      const n = fs.readSync(fd, win, 0, Math.min(win.length, size - mid), mid);
      const nl = win.subarray(0, n).indexOf(NL);
      const next = nl === -1 ? -1 : win.subarray(0, n).indexOf(NL, nl + 1);
      if (nl === -1 || next === -1) {
        hi = mid;
        continue;
      }
      const p = parseLine(win.toString('utf8', nl + 1, next));
      if (typeof p !== 'string' && p.seq < target) lo = mid + nl + 1;
      else hi = mid;
    }
    return lo;
  }

  async read(topic: string, fromSeq: number, opts: { limit?: number } = {}): Promise<ReadResult> {
    return this.readSync(topic, fromSeq, opts.limit ?? 1000);
  }

  readSync(topic: string, fromSeq: number, limit: number): ReadResult {
    const file = this.fileOf(topic);
    let fd: number;
    try {
      // O_NONBLOCK: a FIFO in place of the log is refused below, never waited on.
      fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], problems: [], next: fromSeq };
      throw new HeimdallError('environment', `cannot read the wire log ${file}: ${(e as Error).message}`);
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile()) throw new HeimdallError('environment', `cannot read the wire log ${file}: it is ${st.isDirectory() ? 'a directory' : 'not a regular file'}, expected a file`);
      const hint = this.readHints.get(topic);
      const start = hint && hint.seq === fromSeq && hint.ino === st.ino && hint.offset <= st.size ? hint.offset : fromSeq <= 1 ? 0 : this.seek(fd, st.size, fromSeq);
      const records: LogRecord[] = [];
      const problems: LogProblem[] = [];
      let lastGood = fromSeq - 1;
      let stopAt = -1;
      const end = this.scan(
        fd,
        start,
        st.size,
        (p, _s, lineEnd) => {
          if (p.seq < fromSeq) return;
          if (p.seq <= lastGood) {
            problems.push({ topic, after_sequence_number: lastGood, message: `${file}: a line with seq ${p.seq} follows seq ${lastGood} (out of order, edited by hand?); skipped` });
            return;
          }
          records.push({ topic, sequence_number: p.seq, consensus_timestamp: p.ts, body: p.wire });
          lastGood = p.seq;
          if (records.length >= limit) {
            stopAt = lineEnd;
            return false;
          }
        },
        (why, text, at) => {
          problems.push({ topic, after_sequence_number: lastGood, message: `${file}: the line at byte ${at} (after seq ${lastGood}) ${why}; skipped: ${excerpt(text)}` });
        },
      );
      const resume = stopAt === -1 ? end : stopAt;
      const next = lastGood + 1;
      this.readHints.set(topic, { seq: next, offset: resume, ino: st.ino });
      return { records, problems, next };
    } finally {
      fs.closeSync(fd);
    }
  }

  subscribe(topic: string, fromSeq: number, onRecords: (r: ReadResult) => void | Promise<void>): Subscription {
    checkTopic(topic);
    let next = fromSeq;
    let stopped = false;
    let running = false;
    let again = false;
    const tick = async (): Promise<void> => {
      if (stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          for (;;) {
            const r = this.readSync(topic, next, 1000);
            if (r.records.length || r.problems.length) await onRecords(r);
            if (r.next === next || stopped) break;
            next = r.next;
          }
        } while (again && !stopped);
      } finally {
        running = false;
      }
    };
    const fire = () => void tick().catch(() => undefined);
    let watcher: fs.FSWatcher | undefined;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      watcher = fs.watch(this.dir, (_ev, name) => {
        if (name === `${topic}.jsonl`) fire();
      });
    } catch {
      watcher = undefined; // polling covers file systems without watch support
    }
    const timer = setInterval(fire, this.pollMs);
    fire();
    return {
      stop: async () => {
        stopped = true;
        clearInterval(timer);
        watcher?.close();
      },
    };
  }

  async topics(): Promise<string[]> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new HeimdallError('environment', `cannot list the wire log folder ${this.dir}: ${(e as Error).message}`);
    }
    return names
      .filter((n) => n.endsWith('.jsonl'))
      .map((n) => n.slice(0, -'.jsonl'.length))
      .filter((t) => t.length <= 64 && TOPIC_PATTERN.test(t))
      .sort();
  }

  async close(): Promise<void> {
    // Nothing held open between calls.
  }
}
