/**
 * The canonical log port. The core talks to this interface only; the adapters (a JSONL file by
 * default, NATS JetStream at scale) live in server/stream and are chosen by server/runtime.ts.
 *
 * The seed's HCS mapping: topic = HCS topic, sequence_number = HCS sequence number (canonical
 * order within the topic), consensus_timestamp = HCS consensus timestamp (canonical time).
 */
import { HeimdallError } from '../errors.js';
import type { LogRecord, Wire, WireDraft } from './types.js';

export interface Appended {
  topic: string;
  sequence_number: number;
  consensus_timestamp: string;
  /** The envelope as stored, with the stream_seq the log assigned when the draft had none. */
  wire: Wire;
}

/** A line or message the log could not turn into a record (a hand-edited or truncated line). */
export interface LogProblem {
  topic: string;
  message: string;
  /** The last good sequence number before the problem, when known. */
  after_sequence_number?: number;
}

export interface ReadResult {
  records: LogRecord[];
  problems: LogProblem[];
  /** The sequence number to read from next time. */
  next: number;
}

export interface Subscription {
  stop(): Promise<void>;
}

export interface WireLog {
  readonly kind: 'file' | 'jetstream';
  /** Where the log lives, for messages: a folder or a nats:// URL. */
  readonly location: string;
  /**
   * Append one wire. When `stream_seq` is absent the log assigns the next one for the wire's
   * stream atomically with the append (under the file lock, or by JetStream's expected-last-subject
   * -sequence check), so concurrent producers never hand out the same number.
   */
  append(topic: string, wire: WireDraft): Promise<Appended>;
  /** Append several wires in order with one lock / one write / one fsync where the adapter can. */
  appendBatch(topic: string, wires: WireDraft[]): Promise<Appended[]>;
  /** Records with sequence_number >= fromSeq, in canonical order, at most `limit` of them. */
  read(topic: string, fromSeq: number, opts?: { limit?: number }): Promise<ReadResult>;
  /** Deliver records from `fromSeq` on as they are appended, until stopped. */
  subscribe(topic: string, fromSeq: number, onRecords: (r: ReadResult) => void | Promise<void>): Subscription;
  /** Every topic the log holds, sorted. */
  topics(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Topic names: lowercase words joined by single dots or dashes (roles.developer, project-kv, main).
 * They become file names and NATS subject tokens, so nothing else is allowed.
 */
export const TOPIC_PATTERN = /^[a-z0-9]+(?:[.-][a-z0-9]+)*$/;
export const DEFAULT_TOPIC = 'main';

export function checkTopic(topic: string): string {
  if (topic.length > 64 || !TOPIC_PATTERN.test(topic)) {
    throw new HeimdallError(
      'usage',
      `topic ${JSON.stringify(topic)} is not allowed: use lowercase letters and digits joined by single dots or dashes, at most 64 characters (e.g. main, roles.developer)`,
    );
  }
  return topic;
}
