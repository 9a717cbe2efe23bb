/**
 * The listener: reads each topic from its stored offset, runs the projector, and commits raw events,
 * projections and offsets in one transaction per batch. Killed at any point and restarted, it
 * resumes from the last committed batch, so it ends with the same read model as an uninterrupted
 * run. A read model built by another reducer version is dropped and rebuilt from the log.
 */
import type { Ctx } from '../context.js';
import { logAction } from '../log/protocolLog.js';
import { type WireLimits, wireLimits } from './envelope.js';
import type { LogProblem, Subscription, WireLog } from './log.js';
import { Projector, REDUCER_VERSION } from './projector.js';
import type { ReadModelStore } from './store.js';
import type { LogRecord } from './types.js';
import { noteWrite } from '../planning/lock.js';

export interface ListenerOptions {
  /** Records per read and per transaction (default 1000, or HEIMDALL_WIRE_BATCH). */
  batchSize?: number;
  /** Override for tests that simulate a reducer change. */
  reducerVersion?: number;
  limits?: WireLimits;
  /** Called for every line or message the log could not decode. */
  onProblem?: (p: LogProblem) => void;
}

export interface CatchUpResult {
  processed: number;
  byTopic: Record<string, { from: number; to: number; events: number }>;
  problems: LogProblem[];
  /** Set when the stored read model had another reducer_version and was rebuilt. */
  rebuilt?: { from: number[]; to: number };
}

interface Head {
  rec: LogRecord;
  key: [number, number];
}

interface Cursor {
  topic: string;
  buf: Head[];
  pos: number;
  next: number;
  done: boolean;
}

/** Consensus time as [epoch ms, the nanoseconds below the millisecond] (JetStream stamps carry ns). */
export function orderKey(iso: string): [number, number] {
  const ms = Date.parse(iso);
  const frac = /\.(\d+)Z$/.exec(iso)?.[1] ?? '';
  return [Number.isFinite(ms) ? ms : 0, Number(frac.padEnd(9, '0').slice(3, 9))];
}

function before(a: Head, ta: string, b: Head, tb: string): boolean {
  if (a.key[0] !== b.key[0]) return a.key[0] < b.key[0];
  if (a.key[1] !== b.key[1]) return a.key[1] < b.key[1];
  if (ta !== tb) return ta < tb;
  return a.rec.sequence_number < b.rec.sequence_number;
}

function batchSizeFrom(ctx: Ctx, explicit?: number): number {
  if (explicit !== undefined) return Math.max(1, explicit);
  const n = Number(ctx.env.HEIMDALL_WIRE_BATCH);
  return Number.isInteger(n) && n > 0 ? n : 1000;
}

export class WireListener {
  private projector: Projector | undefined;
  private readonly batchSize: number;
  private readonly version: number;
  private readonly limits: WireLimits;
  private pendingRebuild: CatchUpResult['rebuilt'];

  constructor(
    private readonly ctx: Ctx,
    private readonly log: WireLog,
    private readonly store: ReadModelStore,
    private readonly opts: ListenerOptions = {},
  ) {
    this.batchSize = batchSizeFrom(ctx, opts.batchSize);
    this.version = opts.reducerVersion ?? REDUCER_VERSION;
    this.limits = opts.limits ?? wireLimits(ctx.env);
  }

  /** Load the stored read model; rebuild it when its reducer_version is not ours. */
  private async open(): Promise<Projector> {
    const snap = await this.store.load();
    const other = snap.reducer_versions.filter((v) => v !== this.version);
    if (other.length > 0) {
      await this.store.reset();
      this.pendingRebuild = { from: snap.reducer_versions, to: this.version };
      logAction(this.ctx, 'wire', 'rebuild', `reducer_version ${snap.reducer_versions.join(',')} -> ${this.version}: read model dropped, replaying the log`);
      return new Projector({ reducerVersion: this.version, limits: this.limits });
    }
    return Projector.fromSnapshot(snap, { reducerVersion: this.version, limits: this.limits });
  }

  /** Forget the in-memory state (after a failed commit): the next step reloads it from the store. */
  reset(): void {
    this.projector = undefined;
  }

  /**
   * Process everything the log holds beyond the stored offsets, one transaction per batch. Topics
   * are merged by consensus timestamp (then topic name, then sequence number), so events on
   * different topics are reduced in the order they were stamped, on a replay as on the first run.
   */
  async catchUp(): Promise<CatchUpResult> {
    this.projector ??= await this.open();
    const p = this.projector;
    const result: CatchUpResult = { processed: 0, byTopic: {}, problems: [] };
    try {
      const cursors: Cursor[] = (await this.log.topics()).map((topic) => ({ topic, buf: [], pos: 0, next: p.offset(topic) + 1, done: false }));
      const refill = async (c: Cursor): Promise<void> => {
        const r = await this.log.read(c.topic, c.next, { limit: this.batchSize });
        for (const prob of r.problems) {
          result.problems.push(prob);
          this.opts.onProblem?.(prob);
        }
        c.buf = r.records.map((rec) => ({ rec, key: orderKey(rec.consensus_timestamp) }));
        c.pos = 0;
        if (r.records.length === 0) {
          c.done = true;
          // Past lines the log could not decode at all (their numbers are unknown but used up).
          if (r.next - 1 > p.offset(c.topic)) p.skipTo(c.topic, r.next - 1);
        }
        c.next = r.next;
      };
      await Promise.all(cursors.map(refill));
      let inBatch = 0;
      const commit = async () => {
        const batch = p.takeBatch();
        if (batch.events.length === 0 && batch.offsets.length === 0) return;
        await this.store.commit(batch);
        // A server must not re-run a call that already changed the read model (planning/lock.ts).
        noteWrite();
        inBatch = 0;
      };
      for (;;) {
        let best: Cursor | undefined;
        for (const c of cursors) {
          if (c.pos >= c.buf.length) {
            if (c.done) continue;
            await refill(c);
            if (c.pos >= c.buf.length) continue;
          }
          if (!best || before(c.buf[c.pos] as Head, c.topic, best.buf[best.pos] as Head, best.topic)) best = c;
        }
        if (!best) break;
        const { rec } = best.buf[best.pos++] as Head;
        if (p.apply([rec]) > 0) {
          const t = (result.byTopic[rec.topic] ??= { from: rec.sequence_number, to: rec.sequence_number, events: 0 });
          t.to = rec.sequence_number;
          t.events++;
          result.processed++;
          inBatch++;
        }
        if (inBatch >= this.batchSize) await commit();
      }
      await commit();
    } catch (e) {
      this.reset();
      throw e;
    }
    if (this.pendingRebuild) {
      result.rebuilt = this.pendingRebuild;
      this.pendingRebuild = undefined;
    }
    return result;
  }

  /**
   * Run until `signal` aborts: catch up, then wait for appends (the log's subscriptions wake the
   * loop; a poll every `pollMs` also finds new topics).
   */
  async run(signal: AbortSignal, opts: { pollMs?: number; onRound?: (r: CatchUpResult) => void } = {}): Promise<void> {
    const pollMs = opts.pollMs ?? 1000;
    const subs = new Map<string, Subscription>();
    let wake: (() => void) | undefined;
    // An append noticed while a round is running must not be lost: the next wait returns at once.
    let nudged = false;
    const nudge = () => {
      nudged = true;
      wake?.();
    };
    signal.addEventListener('abort', nudge);
    try {
      while (!signal.aborted) {
        nudged = false;
        const r = await this.catchUp();
        if (r.processed > 0 || r.problems.length > 0) {
          logAction(this.ctx, 'wire', 'listen', describeRound(r));
          opts.onRound?.(r);
        }
        for (const topic of await this.log.topics()) {
          if (!subs.has(topic)) subs.set(topic, this.log.subscribe(topic, (this.projector?.offset(topic) ?? 0) + 1, nudge));
        }
        if (signal.aborted) break;
        if (nudged || r.processed > 0) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', nudge);
      await Promise.all([...subs.values()].map((s) => s.stop()));
    }
  }
}

export function describeRound(r: CatchUpResult): string {
  const topics = Object.entries(r.byTopic)
    .map(([t, x]) => `${t}#${x.from}-${x.to}`)
    .join(' ');
  const parts = [`processed ${r.processed} events${topics ? ` (${topics})` : ''}`];
  if (r.rebuilt) parts.push(`rebuilt from reducer_version ${r.rebuilt.from.join(',')} to ${r.rebuilt.to}`);
  if (r.problems.length) parts.push(`${r.problems.length} unreadable log entries skipped`);
  return parts.join('; ');
}

/** `heimdall wire listen --once`: process everything pending, log it, and return what was done. */
export async function listenOnce(ctx: Ctx, log: WireLog, store: ReadModelStore, opts: ListenerOptions = {}): Promise<CatchUpResult> {
  const r = await new WireListener(ctx, log, store, opts).catchUp();
  if (r.processed > 0 || r.rebuilt || r.problems.length > 0) logAction(ctx, 'wire', 'listen', describeRound(r));
  return r;
}

/**
 * `heimdall wire replay`: drop the read model and rebuild it from the whole log. Batches default to
 * 5,000 records (a stream touched many times in a batch is written once per batch).
 */
export async function replay(ctx: Ctx, log: WireLog, store: ReadModelStore, opts: ListenerOptions = {}): Promise<CatchUpResult & { seconds: number }> {
  const started = ctx.clock.now();
  await store.reset();
  noteWrite();
  const r = await new WireListener(ctx, log, store, { batchSize: 5000, ...opts }).catchUp();
  const seconds = (ctx.clock.now() - started) / 1000;
  logAction(ctx, 'wire', 'replay', `read model dropped and rebuilt: ${describeRound(r)} in ${seconds.toFixed(1)} s`);
  return { ...r, seconds };
}
