/**
 * The durable mailbox. The seed keeps its queue in memory and loses it on restart; ours is an
 * append-only journal, `.planning/herd/mailbox.jsonl`, written under the herd lock:
 *
 *   {"op":"send","id":"m1","copy":"m1.0","ts":...,"from":...,"to":"@everyone","type":"inform","body":...,"recipient":"mason.1@core"}
 *   {"op":"drain","ts":...,"agent":"mason.1@core","copies":["m1.0"]}
 *
 * A send writes one line per copy (`recipient` null for an @anyone copy, which the first eligible
 * agent to check in takes). A drain records the copies it handed out in the same critical section
 * that read them, so a copy is delivered exactly once, across processes and restarts.
 *
 * This file is pure: parsing, the pending set and the fan-out. I/O and the lock are in store.ts.
 */
import { HeimdallError, isHeimdallError } from '../errors.js';
import { checkJsonDepth } from '../planning/fsx.js';
import { isAgentAddress } from './address.js';
import { HERD_MESSAGE_TYPES, type HerdMessageType } from './team.js';

export interface SendLine {
  op: 'send';
  id: string;
  copy: string;
  ts: string;
  from: string;
  /** The address as the sender wrote it: an agent, @anyone or @everyone. */
  to: string;
  type: HerdMessageType;
  body: string;
  /** Who this copy is for; null for the single @anyone copy. */
  recipient: string | null;
}

export interface DrainLine {
  op: 'drain';
  ts: string;
  agent: string;
  copies: string[];
  /** Copies withdrawn rather than delivered (the recipient's tier no longer receives that type). */
  dropped?: string[];
}

export type JournalLine = SendLine | DrainLine;

/** A message as an agent receives it. */
export interface HerdMessage {
  id: string;
  from: string;
  to: string;
  type: HerdMessageType;
  body: string;
  ts: string;
}

export const MAX_BODY_CHARS = 16_000;

const isStr = (v: unknown): v is string => typeof v === 'string';

/** Parse one journal line; a hand-edited line that breaks the shape names the file and line. */
export function parseJournalLine(text: string, file: string, lineNo: number): JournalLine {
  const fail = (why: string): never => {
    throw new HeimdallError(
      'environment',
      `${file}:${lineNo}: ${why}; expected {"op":"send","id","copy","ts","from","to","type","body","recipient"} or {"op":"drain","ts","agent","copies":[...]}. The file was left untouched; fix or remove that line.`,
    );
  };
  let v: unknown;
  try {
    checkJsonDepth(text, `${file}:${lineNo}`, 'environment');
    v = JSON.parse(text);
  } catch (e) {
    return fail(isHeimdallError(e) ? e.message : 'not valid JSON');
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return fail('not a JSON object');
  if (o.op === 'send') {
    if (!isStr(o.id) || !isStr(o.copy) || !isStr(o.ts) || !isStr(o.to) || !isStr(o.body)) return fail('a send line needs string id, copy, ts, to and body');
    if (!isAgentAddress(o.from)) return fail(`"from" must be an address such as mason.1@core, got ${JSON.stringify(o.from)}`);
    if (!(HERD_MESSAGE_TYPES as readonly unknown[]).includes(o.type)) return fail(`"type" must be one of ${HERD_MESSAGE_TYPES.join(', ')}`);
    if (o.recipient !== null && !isAgentAddress(o.recipient)) return fail('"recipient" must be an address or null');
    return o as unknown as SendLine;
  }
  if (o.op === 'drain') {
    if (!isStr(o.ts) || !isAgentAddress(o.agent) || !Array.isArray(o.copies) || !o.copies.every(isStr)) return fail('a drain line needs string ts, an agent address and a list of copies');
    if (o.dropped !== undefined && (!Array.isArray(o.dropped) || !o.dropped.every(isStr))) return fail('"dropped" must be a list of copy ids');
    return o as unknown as DrainLine;
  }
  return fail(`unknown "op" ${JSON.stringify(o.op)}`);
}

/** Copies not yet drained, in journal order. */
export function pendingCopies(lines: JournalLine[]): SendLine[] {
  const done = new Set<string>();
  for (const l of lines) {
    if (l.op === 'drain') {
      for (const c of l.copies) done.add(c);
      for (const c of l.dropped ?? []) done.add(c);
    }
  }
  return lines.filter((l): l is SendLine => l.op === 'send' && !done.has(l.copy));
}

/**
 * What `agent` would take at a check-in: its own copies, plus @anyone copies it is eligible for
 * (not its own, and of a type its tier receives). Copies addressed to it that its tier no longer
 * receives (the team file changed since the send) are returned as `dropped`.
 */
export function takeFor(pending: SendLine[], agent: string, receives: readonly HerdMessageType[]): { take: SendLine[]; dropped: SendLine[] } {
  const take: SendLine[] = [];
  const dropped: SendLine[] = [];
  for (const s of pending) {
    if (s.recipient === agent) (receives.includes(s.type) ? take : dropped).push(s);
    else if (s.recipient === null && s.from !== agent && receives.includes(s.type)) take.push(s);
  }
  return { take, dropped };
}

export function toMessage(s: SendLine): HerdMessage {
  return { id: s.id, from: s.from, to: s.to, type: s.type, body: s.body, ts: s.ts };
}
