/**
 * Mechanism 1, typed messages: one JSON-Schema draft-07 file is the contract, enforced with ajv.
 * There is no second copy of the rules.
 */
import type { Ctx } from '../context.js';
import { logAction } from '../log/protocolLog.js';
import schema from './message-schema.json';
import { type ValidationResult, compileValidator } from './ajv.js';
import { isHeimdallError } from '../errors.js';
import { checkJsonDepth } from '../planning/fsx.js';

export const MESSAGE_SCHEMA: object = schema;
export const MESSAGE_TYPES = ['task_claim', 'task_result', 'gate_report', 'escalation', 'question', 'checkpoint'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

const validator = compileValidator(schema);

/** Validate an already-parsed message. Never throws. */
export function validateMessage(message: unknown): ValidationResult {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { valid: false, errors: [{ path: '/', message: 'must be a JSON object with "type", "from" and "msg_id"' }] };
  }
  return validator(message);
}

/** Parse and validate one message's JSON text. Never throws. */
export function validateMessageText(text: string): ValidationResult & { message?: Record<string, unknown> } {
  let parsed: unknown;
  try {
    checkJsonDepth(text, 'the message');
    parsed = JSON.parse(text);
  } catch (e) {
    return { valid: false, errors: [{ path: '/', message: isHeimdallError(e) ? e.message : `not valid JSON: ${(e as Error).message}` }] };
  }
  const r = validateMessage(parsed);
  return r.valid ? { ...r, message: parsed as Record<string, unknown> } : r;
}

function describeMessage(m: Record<string, unknown> | undefined, text: string): string {
  if (m && typeof m.msg_id === 'string') return m.msg_id;
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Validate and record the verdict in protocol.log (`validate accept m1` / `validate reject ...`). */
export function validateAndLog(ctx: Ctx, text: string): ValidationResult {
  const r = validateMessageText(text);
  if (r.valid) logAction(ctx, 'validate', 'accept', describeMessage(r.message, text));
  else logAction(ctx, 'validate', 'reject', `${describeMessage(undefined, tryMsgId(text))}: ${r.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
  return { valid: r.valid, errors: r.errors };
}

function tryMsgId(text: string): string {
  try {
    const m = JSON.parse(text) as { msg_id?: unknown };
    if (m && typeof m.msg_id === 'string') return m.msg_id;
  } catch {
    /* fall through */
  }
  return text;
}

export type ReceiptOutcome =
  | { kind: 'accepted'; line: number; result: ValidationResult }
  | { kind: 'retry'; line: number; result: ValidationResult }
  | { kind: 'escalated'; line: number; result: ValidationResult };

/**
 * Validate-on-receipt: "malformed -> one retry -> escalate". An invalid message gets one retry (the
 * next line); a second consecutive failure escalates: a protocol.log line and a non-zero exit.
 * A valid message resets the retry allowance. Empty lines are skipped.
 */
export async function* onReceipt(ctx: Ctx, lines: AsyncIterable<string>): AsyncGenerator<ReceiptOutcome> {
  let failures = 0;
  let lineNo = 0;
  for await (const raw of lines) {
    lineNo++;
    const text = raw.trim();
    if (text === '') continue;
    const result = validateAndLog(ctx, text);
    if (result.valid) {
      failures = 0;
      yield { kind: 'accepted', line: lineNo, result };
      continue;
    }
    failures++;
    if (failures >= 2) {
      logAction(ctx, 'validate', 'escalate', `line ${lineNo}: second invalid message in a row; escalating (${result.errors.map((e) => `${e.path} ${e.message}`).join('; ')})`);
      yield { kind: 'escalated', line: lineNo, result };
      return;
    }
    logAction(ctx, 'validate', 'retry', `line ${lineNo}: invalid message, one retry allowed`);
    yield { kind: 'retry', line: lineNo, result };
  }
  if (failures === 1) {
    // The stream ended while a retry was still owed: the invalid message was never corrected.
    const result = { valid: false, errors: [{ path: '/', message: 'stream ended before the retry arrived' }] };
    logAction(ctx, 'validate', 'escalate', `end of input after line ${lineNo}: the retry never arrived; escalating`);
    yield { kind: 'escalated', line: lineNo, result };
  }
}
