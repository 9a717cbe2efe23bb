/**
 * The producer API: validate a wire (1.1, partial 1.1 or 1.0), enforce event discipline, append it
 * to the canonical log and record the action in protocol.log. stream_seq is assigned by the log,
 * atomically, when the wire does not carry one.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { checkJsonDepth, jsonErrorLocation } from '../planning/fsx.js';
import { logAction } from '../log/protocolLog.js';
import { formatErrors, validateDraft, wireLimits } from './envelope.js';
import { type Appended, DEFAULT_TOPIC, type WireLog, checkTopic } from './log.js';
import type { WireDraft } from './types.js';
import { noteWrite } from '../planning/lock.js';

export interface EmitOptions {
  /** The log topic; default "main". */
  topic?: string;
}

export interface Emitted extends Appended {
  /** The input was a Wire 1.0 envelope. */
  upgraded: boolean;
}

/** Parse JSON text into a value, with an error that says where it broke and what a wire looks like. */
export function parseWireJson(text: string, source = 'stdin'): unknown {
  if (text.trim() === '') {
    throw new HeimdallError('usage', `no wire on ${source}: give one JSON object, e.g. {"wire":"1.1","stream_id":"task:T1:attempt:1","type":"task.available","sender":"system","payload":{"task_id":"T1"}}`);
  }
  checkJsonDepth(text, `the wire on ${source}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HeimdallError('invalid', `the wire on ${source} is not valid JSON${jsonErrorLocation(text, e)} (${(e as Error).message}); nothing was appended`);
  }
}

function isoMs(ms: number): string {
  return new Date(ms).toISOString();
}

/** Validate without appending: the draft the log would receive, or a HeimdallError('invalid'). */
export function prepareWire(ctx: Ctx, body: unknown): { draft: WireDraft; upgraded: boolean } {
  const check = validateDraft(body, wireLimits(ctx.env), { wireId: ctx.ids.next('w_'), fallbackTs: isoMs(ctx.clock.now()) });
  if (!check.valid) {
    const what = typeof body === 'object' && body !== null && typeof (body as { type?: unknown }).type === 'string' ? (body as { type: string }).type : 'wire';
    logAction(ctx, 'wire', 'refuse', `${what}: ${formatErrors(check.errors)}`);
    throw new HeimdallError('invalid', `wire refused, nothing was appended:\n${check.errors.map((e) => `  ${e.path} ${e.message}`).join('\n')}`, check.errors);
  }
  return { draft: check.wire, upgraded: check.upgraded };
}

/**
 * Append one wire to the log. `body` may omit wire_id, ts and stream_seq (they are filled in), or
 * be a Wire 1.0 envelope (upgraded). Throws HeimdallError('invalid') with every schema error when
 * the wire is refused; the log is untouched then.
 */
export async function emitWire(ctx: Ctx, log: WireLog, body: unknown, opts: EmitOptions = {}): Promise<Emitted> {
  const topic = checkTopic(opts.topic ?? DEFAULT_TOPIC);
  const { draft, upgraded } = prepareWire(ctx, body);
  const a = await log.append(topic, draft);
  // Appended: a server must not re-run this call if its log line then waits for a lock (planning/lock.ts).
  noteWrite();
  logAction(ctx, 'wire', 'emit', `${topic}#${a.sequence_number} ${a.wire.type} ${a.wire.stream_id}#${a.wire.stream_seq} ${a.wire.wire_id}${upgraded ? ' (upgraded from 1.0)' : ''}`);
  return { ...a, upgraded };
}

/** Append several wires in order as one batch (one lock and one fsync on the file log). */
export async function emitWires(ctx: Ctx, log: WireLog, bodies: unknown[], opts: EmitOptions = {}): Promise<Emitted[]> {
  const topic = checkTopic(opts.topic ?? DEFAULT_TOPIC);
  const prepared = bodies.map((b) => prepareWire(ctx, b));
  if (prepared.length === 0) return [];
  const appended = await log.appendBatch(topic, prepared.map((p) => p.draft));
  noteWrite();
  const first = appended[0] as Appended;
  const last = appended[appended.length - 1] as Appended;
  logAction(ctx, 'wire', 'emit', `${topic}#${first.sequence_number}-${last.sequence_number} ${appended.length} wires`);
  return appended.map((a, i) => ({ ...a, upgraded: (prepared[i] as { upgraded: boolean }).upgraded }));
}
