/**
 * Envelope validation, event discipline and the Wire 1.0 -> 1.1 upgrade. Validators return results
 * and never throw on bad input (house style 3); the JSON Schema files are the only copy of the rules.
 */
import { type ValidationError, type ValidationResult, type Validator, compileValidator } from '../messages/ajv.js';
import payloadSchemas from './schemas/wire-payloads.schema.json';
import wire10Schema from './schemas/wire-1.0.schema.json';
import wire11Schema from './schemas/wire-1.1.schema.json';
import { type Payloads, type Wire, type WireDraft, type WireEventType, isWireEventType } from './types.js';

export const WIRE_SCHEMA: object = wire11Schema;
export const WIRE_10_SCHEMA: object = wire10Schema;
export const WIRE_PAYLOAD_SCHEMAS: object = payloadSchemas;

/** Default payload limit: 16 KiB. Larger content belongs in an artifact store, referenced by hash. */
export const DEFAULT_MAX_PAYLOAD_BYTES = 16 * 1024;

export interface WireLimits {
  maxPayloadBytes: number;
}

/** Limits from the environment (HEIMDALL_WIRE_MAX_PAYLOAD_BYTES), else the defaults. */
export function wireLimits(env: Record<string, string | undefined> = {}): WireLimits {
  const raw = env.HEIMDALL_WIRE_MAX_PAYLOAD_BYTES;
  if (raw === undefined || raw.trim() === '') return { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 256) return { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES };
  return { maxPayloadBytes: n };
}

const envelopeValidator = compileValidator(wire11Schema);
const envelope10Validator = compileValidator(wire10Schema);
/** The producer's view: stream_seq may be absent (the log assigns it). */
const { $id: _draftId, ...draftSchema } = wire11Schema;
const draftValidator = compileValidator({ ...draftSchema, required: wire11Schema.required.filter((k) => k !== 'stream_seq') });

const payloadValidators = new Map<string, Validator>();
function payloadValidator(type: WireEventType): Validator {
  let v = payloadValidators.get(type);
  if (!v) {
    const def = (payloadSchemas.payloads as Record<string, object>)[type];
    v = compileValidator({ $schema: payloadSchemas.$schema, definitions: payloadSchemas.definitions, ...def });
    payloadValidators.set(type, v);
  }
  return v;
}

const ARTIFACT_HINT =
  'store the content elsewhere (Git, S3, a file) and send a reference with its hash, e.g. ' +
  '{"type":"artifact.ready","payload":{"artifact_type":"migration","artifact_ref":"git://repo/db/005.sql@3f2a1c","sha256":"<64 lowercase hex>"}}';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payload size rule, checked before any schema so the message points at the fix. */
export function checkPayloadSize(payload: unknown, limits: WireLimits): ValidationError | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(payload ?? null), 'utf8');
  if (bytes <= limits.maxPayloadBytes) return undefined;
  return {
    path: '/payload',
    message:
      `is ${bytes} bytes, over the ${limits.maxPayloadBytes}-byte limit for a wire event (HEIMDALL_WIRE_MAX_PAYLOAD_BYTES). ` +
      `The stream carries facts, not content: ${ARTIFACT_HINT}`,
  };
}

function checkPayload(type: WireEventType, payload: unknown): ValidationError[] {
  const r = payloadValidator(type)(payload);
  if (r.valid) return [];
  const errors = r.errors.map((e) => ({ path: `/payload${e.path === '/' ? '' : e.path}`, message: e.message }));
  if (type === 'artifact.ready' && errors.some((e) => e.path === '/payload/artifact_ref' || e.path === '/payload/sha256')) {
    errors.push({ path: '/payload', message: 'artifact.ready must carry both artifact_ref (where the artifact lives) and sha256 (64 lowercase hex of its bytes)' });
  }
  return errors;
}

export type WireCheck<T> = (ValidationResult & { valid: true; wire: T; upgraded: boolean }) | (ValidationResult & { valid: false; wire?: undefined });

function fail(errors: ValidationError[]): WireCheck<never> {
  return { valid: false, errors };
}

/** Validate a complete Wire 1.1 envelope (as stored in the log). Never throws. */
export function validateWire(body: unknown, limits: WireLimits = { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES }): WireCheck<Wire> {
  if (!isObject(body)) return fail([{ path: '/', message: 'must be a JSON object (a Wire envelope: {"wire":"1.1","wire_id":...,"type":...,"payload":{...}})' }]);
  const size = checkPayloadSize(body.payload, limits);
  if (size) return fail([size]);
  const env = envelopeValidator(body);
  if (!env.valid) return fail(env.errors);
  const errors = checkPayload(body.type as WireEventType, body.payload);
  if (errors.length) return fail(errors);
  return { valid: true, errors: [], wire: body as unknown as Wire, upgraded: false };
}

export interface UpgradeInput {
  /** The wire_id to give the upgraded envelope. */
  wireId: string;
  /** ts to use when the 1.0 envelope has none. */
  fallbackTs: string;
}

/**
 * Where a Level 1 event belongs: task events on the task's attempt stream, agent events on the
 * agent's stream, project events on the project stream, anything else on the sender's legacy stream.
 */
export function deriveStreamId(type: WireEventType, sender: string, payload: Record<string, unknown>): string {
  const str = (k: string) => (typeof payload[k] === 'string' ? (payload[k] as string) : undefined);
  const attempt = Number.isInteger(payload.attempt) ? (payload.attempt as number) : 1;
  const taskId = str('task_id');
  if (type.startsWith('agent.')) return `agent:${str('agent') ?? agentIdOf(sender)}`;
  if (type.startsWith('project.') && str('project_id')) return `project:${str('project_id')}`;
  if (type === 'phase.created' && str('phase_id')) return `phase:${str('phase_id')}`;
  if (type !== 'dependency.created' && taskId) return `task:${taskId}:attempt:${attempt}`;
  return `legacy:${sender}`;
}

/** The agent id a sender names: "agent:quinn-03" -> "quinn-03"; other senders as they are. */
export function agentIdOf(sender: string): string {
  return sender.startsWith('agent:') ? sender.slice('agent:'.length) : sender;
}

/**
 * Validate a producer's input: a complete or partial Wire 1.1 envelope (wire_id, ts and stream_seq
 * may be left out) or a Wire 1.0 envelope, which is upgraded. Missing fields are filled from
 * `fill`; stream_seq stays absent for the log to assign. Never throws.
 */
export function validateDraft(body: unknown, limits: WireLimits, fill: UpgradeInput): WireCheck<WireDraft> {
  if (!isObject(body)) return fail([{ path: '/', message: 'must be a JSON object (a Wire envelope: {"wire":"1.1","stream_id":...,"type":...,"sender":...,"payload":{...}})' }]);
  const size = checkPayloadSize(body.payload, limits);
  if (size) return fail([size]);
  if (body.wire === '1.0') return upgrade10(body, fill);
  const draft: Record<string, unknown> = { ...body };
  draft.wire_id ??= fill.wireId;
  draft.ts ??= fill.fallbackTs;
  const env = draftValidator(draft);
  if (!env.valid) return fail(env.errors);
  const errors = checkPayload(draft.type as WireEventType, draft.payload);
  if (errors.length) return fail(errors);
  return { valid: true, errors: [], wire: canonicalOrder(draft) as unknown as WireDraft, upgraded: false };
}

const FIELD_ORDER = ['wire', 'wire_id', 'stream_id', 'stream_seq', 'correlation_id', 'causation_id', 'type', 'sender', 'ts', 'payload'];

/** The envelope's fields in the schema's order, so stored lines read the same whoever wrote them. */
function canonicalOrder(w: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of FIELD_ORDER) if (w[k] !== undefined) out[k] = w[k];
  return out;
}

function upgrade10(body: Record<string, unknown>, fill: UpgradeInput): WireCheck<WireDraft> {
  const r = envelope10Validator(body);
  if (!r.valid) return fail(r.errors);
  const type = body.type;
  if (!isWireEventType(type)) {
    return fail([{ path: '/type', message: `${JSON.stringify(type)} is not a known wire event type; Level 1 uses task.available, task.claim, task.blocked, task.complete` }]);
  }
  const payload = body.payload as Record<string, unknown>;
  const errors = checkPayload(type, payload);
  if (errors.length) return fail(errors);
  const sender = body.sender as string;
  const draft = {
    wire: '1.1' as const,
    wire_id: fill.wireId,
    stream_id: deriveStreamId(type, sender, payload),
    correlation_id: null,
    causation_id: null,
    type,
    sender,
    ts: typeof body.ts === 'string' ? body.ts : fill.fallbackTs,
    payload: payload as Payloads[typeof type],
  } as WireDraft;
  const env = draftValidator(draft);
  if (!env.valid) return fail(env.errors);
  return { valid: true, errors: [], wire: draft, upgraded: true };
}

/**
 * Validate a log record's body on read: a full 1.1 envelope, or a 1.0 envelope upgraded with a
 * wire_id derived from its place in the log (so a replay derives the same one). stream_seq of an
 * upgraded event is left for the reducer to derive.
 */
export function validateLogBody(
  body: unknown,
  where: { topic: string; sequence_number: number; consensus_timestamp: string },
  limits: WireLimits,
): WireCheck<WireDraft> {
  if (isObject(body) && body.wire === '1.0') {
    return validateDraft(body, limits, { wireId: `w10.${where.topic}.${where.sequence_number}`, fallbackTs: where.consensus_timestamp });
  }
  return validateWire(body, limits);
}

/** One line per error, for CLI messages and protocol.log. */
export function formatErrors(errors: ValidationError[]): string {
  return errors.map((e) => `${e.path} ${e.message}`).join('; ');
}
