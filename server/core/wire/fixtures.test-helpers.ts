/** Builders shared by the wire tests: envelopes, log records, and a projector run. */
import { Projector } from './projector.js';
import type { CommitBatch } from './store.js';
import type { LogRecord, Payloads, Wire, WireEventType } from './types.js';

export const T0 = Date.parse('2026-05-01T16:00:00Z');
export const iso = (ms: number) => new Date(ms).toISOString();

let counter = 0;
export function resetIds(): void {
  counter = 0;
}

export interface WireOpts {
  sender?: string;
  wire_id?: string;
  stream_seq?: number;
  correlation_id?: string | null;
  ts?: string;
}

/** A valid Wire 1.1 envelope; stream_seq counts per stream unless given. */
const streamSeqs = new Map<string, number>();
export function wire<T extends WireEventType>(type: T, stream_id: string, payload: Payloads[T], o: WireOpts = {}): Wire {
  const seq = o.stream_seq ?? (streamSeqs.get(stream_id) ?? 0) + 1;
  streamSeqs.set(stream_id, Math.max(seq, streamSeqs.get(stream_id) ?? 0));
  return {
    wire: '1.1',
    wire_id: o.wire_id ?? `w${String(++counter).padStart(5, '0')}`,
    stream_id,
    stream_seq: seq,
    correlation_id: o.correlation_id ?? 'project:kv',
    causation_id: null,
    type,
    sender: o.sender ?? 'system',
    ts: o.ts ?? '2026-05-01T16:00:00Z',
    payload,
  } as Wire;
}

export function resetStreamSeqs(): void {
  streamSeqs.clear();
}

/** Log records for wires (or raw bodies), one per second from `startMs`. */
export function records(bodies: unknown[], opts: { topic?: string; startSeq?: number; startMs?: number; stepMs?: number } = {}): LogRecord[] {
  const topic = opts.topic ?? 'main';
  const start = opts.startSeq ?? 1;
  const t = opts.startMs ?? T0;
  const step = opts.stepMs ?? 1000;
  return bodies.map((body, i) => ({ topic, sequence_number: start + i, consensus_timestamp: iso(t + i * step), body }));
}

export function newProjector(): Projector {
  return new Projector({ limits: { maxPayloadBytes: 16 * 1024 } });
}

/** Apply records and return the batch they produced. */
export function project(p: Projector, recs: LogRecord[]): CommitBatch {
  p.apply(recs);
  return p.takeBatch();
}
