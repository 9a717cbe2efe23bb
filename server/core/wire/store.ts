/**
 * The read-model port: what the listener needs from a database. The Prisma implementation lives in
 * server/db (the core imports nothing from @prisma/*); rows here are plain objects, times in epoch
 * milliseconds.
 */
import type { AgentRun } from './reducers/agent.js';
import type { StreamDoc } from './reducers/stream.js';
import type { TaskRun } from './reducers/task.js';

export type EventDisposition = 'applied' | 'lost' | 'rejected' | 'ignored' | 'duplicate' | 'invalid';

export interface WireEventRow {
  /** `<topic>:<sequence_number>`: one row per log record, whatever its content. */
  id: string;
  topic: string;
  sequence_number: number;
  consensus_timestamp: string;
  /** "1.1", or "1.0" for an envelope upgraded on read; "" when the record was not a wire at all. */
  wire_version: string;
  wire_id: string;
  stream_id: string;
  stream_seq: number | null;
  correlation_id: string | null;
  causation_id: string | null;
  type: string;
  sender: string;
  ts: string;
  payload: unknown;
  disposition: EventDisposition;
  reason: string | null;
}

export interface StreamStateRow {
  stream_id: string;
  topic: string;
  stream_type: string;
  status: string;
  last_wire_id: string;
  last_event_type: string;
  last_event_at: number;
  last_stream_seq: number | null;
  correlation_id: string | null;
  event_count: number;
  gap_count: number;
  duplicate_count: number;
  reducer_version: number;
  state: StreamDoc;
}

export interface TaskRunRow {
  stream_id: string;
  task_id: string;
  attempt: number;
  role: string | null;
  /** Event-derived status; staleness depends on the clock and is computed when read (viewTask). */
  status: string;
  claimed_by: string | null;
  claim_sequence: number | null;
  lease_expires_at: number | null;
  last_heartbeat_at: number | null;
  plan_ref: string | null;
  blocker: string | null;
  output_ref: string | null;
  verification_status: string | null;
  capacity_units: number;
  capacity_units_reserved: number | null;
  available_since: number | null;
  state: TaskRun;
}

export interface AgentRuntimeRow {
  agent_id: string;
  role: string | null;
  status: string;
  available_units: number | null;
  max_units: number | null;
  reserved_units: number;
  active_leases: number;
  last_heartbeat_at: number | null;
  state: AgentRun;
}

export interface OffsetChange {
  topic: string;
  /** The offset the batch was computed from: the store refuses the commit if it moved meanwhile. */
  from: number;
  to: number;
}

/** Everything one listener step writes, in one transaction. */
export interface CommitBatch {
  reducer_version: number;
  events: WireEventRow[];
  streams: StreamStateRow[];
  tasks: TaskRunRow[];
  agents: AgentRuntimeRow[];
  offsets: OffsetChange[];
}

export interface ReadModelSnapshot {
  /** Distinct reducer versions found in stream_state and stream_offsets. */
  reducer_versions: number[];
  offsets: { topic: string; last_sequence_number: number }[];
  streams: StreamDoc[];
  tasks: TaskRun[];
  agents: AgentRun[];
  /** wire_ids already reduced (every row except invalid ones). */
  wire_ids: string[];
}

export interface ReadModelStore {
  readonly kind: 'sqlite' | 'postgres';
  /** For messages: the file path or the database and schema. */
  readonly location: string;
  load(): Promise<ReadModelSnapshot>;
  /**
   * Write the batch in ONE transaction: raw events, projections, offsets. Throws a
   * HeimdallError('conflict') when a topic's stored offset is not `from` (another listener ran).
   */
  commit(batch: CommitBatch): Promise<void>;
  /** Drop every row of the read model (replay starts from here). */
  reset(): Promise<void>;
  tasks(filter?: { task_id?: string; stream_id?: string }): Promise<TaskRun[]>;
  agents(filter?: { agent_id?: string }): Promise<AgentRun[]>;
  streams(filter?: { stream_id?: string }): Promise<StreamStateRow[]>;
  offsets(): Promise<{ topic: string; last_sequence_number: number }[]>;
  close(): Promise<void>;
}
