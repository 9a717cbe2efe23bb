/**
 * The wire log on NATS JetStream (HEIMDALL_STREAM_URL=nats://...). One JetStream stream per topic;
 * JetStream's stream sequence and timestamp are the canonical sequence_number and
 * consensus_timestamp. Each wire stream has its own subject, `<prefix>.<topic>.<base64url(stream_id)>`,
 * so stream_seq is assigned without a lock: the producer reads the subject's last message and
 * publishes with "expected last subject sequence"; a concurrent producer that got there first makes
 * the server refuse the publish, and the producer retries with the new last message.
 */
import { randomUUID } from 'node:crypto';
import { type NatsConnection, connect } from '@nats-io/transport-node';
import { DeliverPolicy, type Consumer, type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from '@nats-io/jetstream';
import {
  HeimdallError,
  TOPIC_PATTERN,
  checkTopic,
  type Appended,
  type ReadResult,
  type Subscription,
  type WireLog,
  type LogRecord,
  type Wire,
  type WireDraft,
} from '../core/index.js';

export interface JetStreamLogOptions {
  /** Prefix of stream names and subjects (HEIMDALL_STREAM_PREFIX); default HEIMDALL_WIRE. */
  prefix?: string;
  /** Milliseconds to wait for the server before failing. Default 5000. */
  timeoutMs?: number;
}

const PREFIX_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;
const WRONG_LAST_SEQUENCE = 10071;
const WRONG_LAST_MSG_ID = 10070;

/** Nanoseconds since the epoch from JetStream's RFC 3339 timestamp (up to 9 fraction digits). */
export function nsFromIso(iso: string): bigint {
  const m = /^(.*?)(?:\.(\d{1,9}))?Z$/.exec(iso);
  const base = Date.parse(`${m ? m[1] : iso}Z`);
  if (!m || !Number.isFinite(base)) throw new HeimdallError('environment', `JetStream returned an unreadable timestamp ${JSON.stringify(iso)}`);
  const frac = (m[2] ?? '').padEnd(9, '0');
  return BigInt(base) * 1_000_000n + BigInt(frac);
}

/** The canonical text of a JetStream timestamp: UTC, nanoseconds, trailing zeros trimmed (like Go's RFC3339Nano). */
export function isoFromNs(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const secIso = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${secIso}${frac ? `.${frac}` : ''}Z`;
}

function decode(data: Uint8Array): { body: unknown; decode_error?: string } {
  const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  try {
    return { body: JSON.parse(text) };
  } catch (e) {
    return { body: undefined, decode_error: (e as Error).message };
  }
}

function isWrongLast(e: unknown): boolean {
  const err = e as { code?: unknown; api_error?: { err_code?: number }; message?: string };
  const code = err?.code ?? err?.api_error?.err_code;
  return code === WRONG_LAST_SEQUENCE || code === WRONG_LAST_MSG_ID || /wrong last (sequence|msg id)/i.test(err?.message ?? '');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SubjectState {
  /** Stream sequence of the subject's last message. */
  lastSeq: number;
  /** stream_seq carried by that message. */
  streamSeq: number;
}

export class JetStreamWireLog implements WireLog {
  readonly kind = 'jetstream' as const;
  readonly location: string;
  readonly prefix: string;
  private readonly ensured = new Map<string, Promise<void>>();
  private readonly lastBySubject = new Map<string, SubjectState>();
  /** Per topic: the stream sequence of this process's last acknowledged publish. */
  private readonly lastAck = new Map<string, number>();
  private readonly readers = new Map<string, { consumer: Consumer; next: number }>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    url: string,
    prefix: string,
  ) {
    this.location = url;
    this.prefix = prefix;
  }

  static async connect(url: string, opts: JetStreamLogOptions = {}): Promise<JetStreamWireLog> {
    const prefix = opts.prefix ?? 'HEIMDALL_WIRE';
    if (!PREFIX_PATTERN.test(prefix)) throw new HeimdallError('usage', `HEIMDALL_STREAM_PREFIX ${JSON.stringify(prefix)} must be letters, digits, _ or - (at most 32)`);
    const u = new URL(url);
    let nc: NatsConnection;
    try {
      nc = await connect({ servers: `${u.hostname}:${u.port || '4222'}`, timeout: opts.timeoutMs ?? 5000, ...(u.username ? { user: decodeURIComponent(u.username), pass: decodeURIComponent(u.password) } : {}) });
    } catch (e) {
      throw new HeimdallError('environment', `cannot reach NATS at ${url} (HEIMDALL_STREAM_URL): ${(e as Error).message}`);
    }
    try {
      const jsm = await jetstreamManager(nc, { timeout: opts.timeoutMs ?? 5000 });
      return new JetStreamWireLog(nc, jetstream(nc, { timeout: opts.timeoutMs ?? 5000 }), jsm, `${u.protocol}//${u.host}`, prefix);
    } catch (e) {
      await nc.close();
      throw new HeimdallError('environment', `NATS at ${url} has no JetStream (start nats-server with -js): ${(e as Error).message}`);
    }
  }

  streamName(topic: string): string {
    return `${this.prefix}_${checkTopic(topic).replace(/\./g, '_')}`;
  }

  subjectFor(topic: string, streamId: string): string {
    return `${this.prefix}.${topic}.${Buffer.from(streamId, 'utf8').toString('base64url')}`;
  }

  private ensure(topic: string): Promise<void> {
    let p = this.ensured.get(topic);
    if (!p) {
      const name = this.streamName(topic);
      p = this.jsm.streams
        .info(name)
        .then(() => undefined)
        .catch(async () => {
          // Adding a stream that exists with the same configuration succeeds, so racing creators are fine.
          await this.jsm.streams.add({ name, subjects: [`${this.prefix}.${topic}.*`], allow_direct: true, num_replicas: 1 });
        });
      p.catch(() => this.ensured.delete(topic));
      this.ensured.set(topic, p);
    }
    return p;
  }

  private async lastOf(name: string, subject: string): Promise<SubjectState> {
    const cached = this.lastBySubject.get(subject);
    if (cached) return cached;
    const m = await this.jsm.streams.getMessage(name, { last_by_subj: subject });
    if (!m) return { lastSeq: 0, streamSeq: 0 };
    const { body } = decode(m.data);
    const s = (body as { stream_seq?: unknown } | undefined)?.stream_seq;
    return { lastSeq: m.seq, streamSeq: Number.isSafeInteger(s) ? (s as number) : 0 };
  }

  /** Publish one wire; assigns stream_seq under the subject's expected-last-sequence check. */
  private async publishOne(topic: string, draft: WireDraft): Promise<{ seq: number; wire: Wire }> {
    const name = this.streamName(topic);
    const subject = this.subjectFor(topic, draft.stream_id);
    if (draft.stream_seq !== undefined) {
      const ack = await this.js.publish(subject, JSON.stringify(draft));
      this.lastBySubject.delete(subject);
      return { seq: ack.seq, wire: draft as Wire };
    }
    for (let attempt = 0; ; attempt++) {
      const last = await this.lastOf(name, subject);
      const wire = { ...draft, stream_seq: last.streamSeq + 1 } as Wire;
      try {
        const ack = await this.js.publish(subject, JSON.stringify(wire), { expect: { lastSubjectSequence: last.lastSeq } });
        this.lastBySubject.set(subject, { lastSeq: ack.seq, streamSeq: wire.stream_seq });
        return { seq: ack.seq, wire };
      } catch (e) {
        this.lastBySubject.delete(subject);
        if (!isWrongLast(e)) throw new HeimdallError('environment', `JetStream refused the append to ${name}: ${(e as Error).message}`);
        if (attempt >= 200) throw new HeimdallError('conflict', `gave up assigning stream_seq on ${draft.stream_id} after ${attempt} concurrent conflicts`);
        await sleep(Math.random() * Math.min(50, 1 + attempt * 2));
      }
    }
  }

  async append(topic: string, wire: WireDraft): Promise<Appended> {
    return (await this.appendBatch(topic, [wire]))[0] as Appended;
  }

  /**
   * Append in order. One wire goes through `publishOne` (checked against its own subject, so
   * producers on different wire streams never conflict). Several wires are published back to back
   * without waiting for each acknowledgement, as one chain: the first expects the topic's last
   * sequence number as read just before, each next one expects the previous one's message id. The
   * server stores a prefix of the chain contiguously and refuses the rest as soon as another
   * producer gets in between; the refused tail is retried. Contiguity is what makes the locally
   * assigned stream_seqs safe.
   */
  async appendBatch(topic: string, wires: WireDraft[]): Promise<Appended[]> {
    checkTopic(topic);
    if (wires.length === 0) return [];
    await this.ensure(topic);
    const name = this.streamName(topic);
    const published = wires.length === 1 ? [await this.publishOne(topic, wires[0] as WireDraft)] : await this.publishChain(name, topic, wires);
    const stamps = await Promise.all(
      published.map(async (p) => {
        const m = await this.jsm.streams.getMessage(name, { seq: p.seq });
        if (!m) throw new HeimdallError('environment', `JetStream lost message ${p.seq} of ${name} right after storing it`);
        return isoFromNs(nsFromIso(m.timestamp));
      }),
    );
    return published.map((p, i) => ({ topic, sequence_number: p.seq, consensus_timestamp: stamps[i] as string, wire: p.wire }));
  }

  private async publishChain(name: string, topic: string, wires: WireDraft[]): Promise<{ seq: number; wire: Wire }[]> {
    const out: { seq: number; wire: Wire }[] = [];
    let rest = wires;
    for (let attempt = 0; rest.length > 0; attempt++) {
      const base = (await this.jsm.streams.info(name)).state.last_seq;
      // Subject states cached from our own acknowledgements hold only if nobody appended since.
      if (this.lastAck.get(topic) !== base) for (const k of [...this.lastBySubject.keys()]) if (k.startsWith(`${this.prefix}.${topic}.`)) this.lastBySubject.delete(k);
      const subjects = rest.map((w) => this.subjectFor(topic, w.stream_id));
      const need = [...new Set(subjects.filter((_, i) => (rest[i] as WireDraft).stream_seq === undefined))];
      const lasts = new Map(await Promise.all(need.map(async (sub) => [sub, await this.lastOf(name, sub)] as const)));
      const local = new Map<string, SubjectState>();
      const prepared = rest.map((w, i) => {
        const sub = subjects[i] as string;
        const last = local.get(sub)?.streamSeq ?? lasts.get(sub)?.streamSeq ?? 0;
        const wire = (w.stream_seq === undefined ? { ...w, stream_seq: last + 1 } : w) as Wire;
        local.set(sub, { lastSeq: 0, streamSeq: Math.max(last, wire.stream_seq) });
        return wire;
      });
      const ids = prepared.map(() => randomUUID());
      // Issued synchronously one after the other: the connection sends them in this order.
      const results = await Promise.all(
        prepared.map((w, i) =>
          this.js
            .publish(subjects[i] as string, JSON.stringify(w), { msgID: ids[i] as string, expect: i === 0 ? { lastSequence: base } : { lastMsgID: ids[i - 1] as string } })
            .then(
              (a) => ({ ok: true as const, seq: a.seq }),
              (e: unknown) => ({ ok: false as const, error: e }),
            ),
        ),
      );
      let k = 0;
      for (; k < results.length; k++) {
        const r = results[k] as { ok: true; seq: number } | { ok: false; error: unknown };
        if (!r.ok) break;
        out.push({ seq: r.seq, wire: prepared[k] as Wire });
        this.lastAck.set(topic, r.seq);
        this.lastBySubject.set(subjects[k] as string, { lastSeq: r.seq, streamSeq: (local.get(subjects[k] as string) as SubjectState).streamSeq });
      }
      if (k === results.length) break;
      // Only the first refusal is informative: the rest of the chain fails because it did.
      const first = results[k] as { ok: false; error: unknown };
      for (let j = k; j < subjects.length; j++) this.lastBySubject.delete(subjects[j] as string);
      if (!isWrongLast(first.error)) throw new HeimdallError('environment', `JetStream refused the append to ${name}: ${(first.error as Error).message}`);
      if (attempt >= 200) throw new HeimdallError('conflict', `gave up appending to ${name} after ${attempt} concurrent conflicts`);
      rest = rest.slice(k);
      await sleep(Math.random() * Math.min(50, 1 + attempt * 2));
    }
    return out;
  }

  private toRecord(topic: string, m: { seq: number; data: Uint8Array; timestampNanos: bigint }): LogRecord {
    const d = decode(m.data);
    return { topic, sequence_number: m.seq, consensus_timestamp: isoFromNs(m.timestampNanos), body: d.body, ...(d.decode_error ? { decode_error: d.decode_error } : {}) };
  }

  async read(topic: string, fromSeq: number, opts: { limit?: number } = {}): Promise<ReadResult> {
    const name = this.streamName(topic);
    const limit = opts.limit ?? 1000;
    let lastSeq: number;
    try {
      lastSeq = (await this.jsm.streams.info(name)).state.last_seq;
    } catch {
      return { records: [], problems: [], next: fromSeq };
    }
    const want = Math.min(limit, lastSeq - fromSeq + 1);
    if (want <= 0) return { records: [], problems: [], next: fromSeq };
    let reader = this.readers.get(topic);
    if (!reader || reader.next !== fromSeq) {
      const consumer = await this.js.consumers.get(name, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(1, fromSeq) });
      reader = { consumer, next: fromSeq };
      this.readers.set(topic, reader);
    }
    const records: LogRecord[] = [];
    const it = await reader.consumer.fetch({ max_messages: want, expires: 5000 });
    for await (const m of it) {
      records.push(this.toRecord(topic, m));
      if (records.length >= want) break;
    }
    const next = records.length ? (records[records.length - 1] as LogRecord).sequence_number + 1 : fromSeq;
    reader.next = next;
    return { records, problems: [], next };
  }

  subscribe(topic: string, fromSeq: number, onRecords: (r: ReadResult) => void | Promise<void>): Subscription {
    let stopped = false;
    let stopFn: (() => void) | undefined;
    const done = (async () => {
      await this.ensure(topic);
      const consumer = await this.js.consumers.get(this.streamName(topic), { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(1, fromSeq) });
      if (stopped) return;
      const msgs = await consumer.consume();
      stopFn = () => void msgs.stop();
      for await (const m of msgs) {
        if (stopped) break;
        const r = this.toRecord(topic, m);
        await onRecords({ records: [r], problems: [], next: r.sequence_number + 1 });
      }
    })().catch(() => undefined);
    return {
      stop: async () => {
        stopped = true;
        stopFn?.();
        await Promise.race([done, sleep(1000)]);
      },
    };
  }

  async topics(): Promise<string[]> {
    const out: string[] = [];
    for await (const name of this.jsm.streams.names(`${this.prefix}.>`)) {
      if (!name.startsWith(`${this.prefix}_`)) continue;
      const topic = name.slice(this.prefix.length + 1).replace(/_/g, '.');
      if (TOPIC_PATTERN.test(topic)) out.push(topic);
    }
    return out.sort();
  }

  /** Delete every stream of this prefix (tests and benchmarks clean up with it). */
  async destroy(): Promise<void> {
    for (const t of await this.topics()) await this.jsm.streams.delete(this.streamName(t));
    this.ensured.clear();
    this.lastBySubject.clear();
    this.lastAck.clear();
    this.readers.clear();
  }

  async close(): Promise<void> {
    this.readers.clear();
    await this.nc.drain().catch(() => this.nc.close());
  }
}
