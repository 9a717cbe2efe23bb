/**
 * The wire stream (issue 4): Wire 1.1 envelopes on an append-only canonical log, reduced into a
 * derived read model. The log and the read model are ports; their adapters (server/stream,
 * server/db) are chosen and opened once per process by server/runtime.ts (`runtime.wireLog()`, `runtime.readModel()`).
 */

/** Envelope types, the event type list and the log record shape. */
export { WIRE_EVENT_TYPES, isWireEventType, assertNever, type Wire, type WireDraft, type WireEvent, type WireEventType, type Payloads, type LogRecord } from './types.js';
/** The JSON Schemas (draft-07) and their validators; 1.0 envelopes are upgraded. */
export {
  WIRE_SCHEMA,
  WIRE_10_SCHEMA,
  WIRE_PAYLOAD_SCHEMAS,
  DEFAULT_MAX_PAYLOAD_BYTES,
  wireLimits,
  validateWire,
  validateDraft,
  validateLogBody,
  checkPayloadSize,
  deriveStreamId,
  agentIdOf,
  formatErrors,
  type WireLimits,
} from './envelope.js';
/** Agent liveness from heartbeats, shared with the check-in feature and the Studio. */
export { heartbeatStatus, heartbeatThresholdsFromEnv, DEFAULT_HEARTBEAT_THRESHOLDS, type HeartbeatStatus, type HeartbeatThresholds } from './liveness.js';
/** The canonical log port. */
export { checkTopic, DEFAULT_TOPIC, TOPIC_PATTERN, type WireLog, type Appended, type ReadResult, type LogProblem, type Subscription } from './log.js';
/** The producer API: validate, append, log. */
export { emitWire, emitWires, prepareWire, parseWireJson, type Emitted, type EmitOptions } from './producer.js';
/** Reducers (pure) and their clock-dependent views. */
export { evolveTask, taskStatus, leaseExpired, viewTask, type TaskRun, type TaskStatus, type TaskView, type Dependency } from './reducers/task.js';
export { evolveAgent, viewAgent, emptyAgent, type AgentRun, type AgentView } from './reducers/agent.js';
export { evolveStream, type StreamDoc } from './reducers/stream.js';
/** The projector, the listener, replay. */
export { Projector, REDUCER_VERSION } from './projector.js';
export { WireListener, listenOnce, replay, describeRound, type CatchUpResult, type ListenerOptions } from './listener.js';
/** The read-model port. */
export type { ReadModelStore, ReadModelSnapshot, CommitBatch, WireEventRow, StreamStateRow, TaskRunRow, AgentRuntimeRow, EventDisposition } from './store.js';
/** Reading the read model: task/agent/stream state and the capacity release plan. */
export { readWireState, readReleasePlan, type WireState, type WireStateQuery } from './state.js';
export { planRelease, formatReleasePlan, type ReleasePlan } from './release.js';
