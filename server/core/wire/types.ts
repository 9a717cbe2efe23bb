/**
 * Wire 1.1 types. The JSON Schemas in ./schemas are the contract; these types mirror them for the
 * compiler. Events are past tense (house style).
 */

export const WIRE_EVENT_TYPES = [
  'task.created',
  'task.available',
  'task.claim',
  'task.claimed',
  'task.started',
  'task.plan.created',
  'task.blocked',
  'task.complete',
  'artifact.claimed',
  'artifact.ready',
  'contract.ready',
  'review.concern',
  'gate.opened',
  'gate.passed',
  'agent.started',
  'agent.heartbeat',
  'agent.capacity.updated',
  'agent.lease.accepted',
  'agent.lease.released',
  'agent.stopped',
  'project.created',
  'project.complete',
  'phase.created',
  'dependency.created',
] as const;
export type WireEventType = (typeof WIRE_EVENT_TYPES)[number];

export function isWireEventType(t: unknown): t is WireEventType {
  return typeof t === 'string' && (WIRE_EVENT_TYPES as readonly string[]).includes(t);
}

export interface TaskRef {
  task_id: string;
  attempt?: number;
}

export interface Payloads {
  'task.created': TaskRef & { title?: string; role?: string; capacity_units?: number; phase_id?: string; spec_ref?: string };
  'task.available': TaskRef & { title?: string; role?: string; capacity_units?: number; spec_ref?: string };
  /** Level 1 (Wire 1.0) name of task.claimed; reduced the same way. */
  'task.claim': TaskRef & { agent?: string; role?: string; lease_expires_at?: string; capacity_units_reserved?: number };
  'task.claimed': TaskRef & { agent?: string; role?: string; lease_expires_at?: string; capacity_units_reserved?: number };
  'task.started': TaskRef & { agent?: string };
  'task.plan.created': TaskRef & { agent?: string; plan_ref: string; sha256?: string; steps?: number };
  'task.blocked': TaskRef & { agent?: string; blocker: string; needs?: string[] };
  'task.complete': TaskRef & { agent?: string; output_ref?: string; sha256?: string; verification_status?: 'passed' | 'failed' | 'skipped' | 'pending' };
  'artifact.claimed': { artifact_id: string; task_id?: string; attempt?: number; artifact_type?: string; agent?: string };
  'artifact.ready': { artifact_ref: string; sha256: string; artifact_id?: string; artifact_type?: string; task_id?: string; attempt?: number; ready_for?: string[] };
  'contract.ready': { task_id: string; attempt?: number; contract: string; artifact_ref?: string; sha256?: string };
  'review.concern': { concern: string; task_id?: string; attempt?: number; severity?: 'info' | 'minor' | 'major' | 'blocking'; artifact_ref?: string; reviewer?: string };
  'gate.opened': { gate_id: string; phase_id?: string; project_id?: string; criteria?: string[] };
  'gate.passed': { gate_id: string; phase_id?: string; project_id?: string; report_ref?: string };
  'agent.started': { agent?: string; role?: string; max_units?: number; available_units?: number; skills?: string[]; profile?: Record<string, unknown> };
  'agent.heartbeat': { agent?: string; status?: 'working' | 'idle' | 'deep_work'; task_id?: string; attempt?: number; lease_expires_at?: string; available_units?: number };
  'agent.capacity.updated': { agent?: string; role?: string; available_units: number; max_units: number; skills?: string[] };
  'agent.lease.accepted': { task_id: string; attempt?: number; agent?: string; lease_expires_at?: string };
  'agent.lease.released': { task_id: string; attempt?: number; agent?: string; reason?: string };
  'agent.stopped': { agent?: string; reason?: string };
  'project.created': { project_id: string; name?: string };
  'project.complete': { project_id: string };
  'phase.created': { phase_id: string; project_id?: string; name?: string; gate_id?: string };
  'dependency.created': { task_id: string; depends_on_task: string; contract?: string };
}

interface EnvelopeFields {
  wire: '1.1';
  wire_id: string;
  stream_id: string;
  stream_seq: number;
  correlation_id?: string | null;
  causation_id?: string | null;
  sender: string;
  ts: string;
}

/** A Wire 1.1 envelope whose payload matches its type (a discriminated union on `type`). */
export type Wire = { [T in WireEventType]: EnvelopeFields & { type: T; payload: Payloads[T] } }[WireEventType];

/** What a producer hands to the log: the log fills stream_seq (per stream) when it is absent. */
export type WireDraft = Omit<Wire, 'stream_seq'> & { stream_seq?: number };

/** A record as the log returns it: the canonical metadata and the decoded body (not yet validated). */
export interface LogRecord {
  topic: string;
  sequence_number: number;
  /** ISO-8601 UTC; the log's clock (file adapter: the appender under the lock; JetStream: the server). */
  consensus_timestamp: string;
  /** The decoded JSON body; validated by the listener, never trusted. */
  body: unknown;
  /** Set when the body could not be decoded at all (not JSON). */
  decode_error?: string;
}

/** A validated event in canonical order: what reducers receive. */
export interface WireEvent {
  topic: string;
  sequence_number: number;
  consensus_timestamp: string;
  /** consensus_timestamp in epoch milliseconds, for lease and liveness arithmetic. */
  consensus_ms: number;
  wire: Wire;
  /** The body was a Wire 1.0 envelope, upgraded on read. */
  upgraded: boolean;
}

export type EventOf<T extends WireEventType> = WireEvent & { wire: Extract<Wire, { type: T }> };

/** Exhaustiveness check for `switch (event.wire.type)`: a new event type fails to compile here. */
export function assertNever(x: never): never {
  throw new Error(`unhandled wire event type: ${JSON.stringify(x)}`);
}
