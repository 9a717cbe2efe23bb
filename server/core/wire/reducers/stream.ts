/**
 * stream_state: one document per stream_id. Tracks order (gaps, duplicates, stream_seq conflicts)
 * for every stream, and the project graph (phases, gates, dependencies) for the streams that carry
 * it. Pure: `evolveStream(state, event)` returns a new document and never mutates its input.
 */
import { type WireEvent, assertNever } from '../types.js';

export interface StreamGap {
  /** The stream_seq the reducer expected. */
  expected: number;
  /** The stream_seq that arrived instead. */
  got: number;
  /** Canonical position of the event that revealed the gap. */
  sequence_number: number;
}

export interface DependencyDecl {
  /** The dependent task (R2). */
  task_id: string;
  /** The task it waits for (R1). */
  depends_on_task: string;
  /** R1's contract that releases R2; null: R2 waits for R1's task.complete. */
  contract: string | null;
  wire_id: string;
}

export interface StreamGraph {
  project?: { project_id: string; name: string | null; status: 'open' | 'complete' };
  phases: { phase_id: string; project_id: string | null; name: string | null; gate_id: string | null }[];
  gates: { gate_id: string; phase_id: string | null; status: 'open' | 'passed'; report_ref: string | null }[];
  dependencies: DependencyDecl[];
}

export interface StreamDoc {
  stream_id: string;
  /** The prefix of the stream id: task, agent, project, phase, artifact; "other" otherwise. */
  stream_type: string;
  topic: string;
  first_sequence_number: number;
  last_wire_id: string;
  last_event_type: string;
  last_event_ms: number;
  last_event_at: string;
  /** Highest stream_seq applied. */
  last_stream_seq: number | null;
  correlation_id: string | null;
  event_count: number;
  gap_count: number;
  /** The most recent gaps (at most 20); gap_count has them all. */
  gaps: StreamGap[];
  /** Events whose wire_id was already applied: ignored (the reducer is idempotent by wire_id). */
  duplicate_count: number;
  /** Events with a new wire_id but a stream_seq at or below one already applied (reordered or forged). */
  seq_conflict_count: number;
  /** Events for this stream that arrived on another topic than its first one. */
  foreign_topic_count: number;
  graph: StreamGraph;
}

/** What the projector hands the stream reducer: the event and whether its wire_id was seen. */
export type StreamInput = WireEvent & { duplicate: boolean };

const MAX_GAPS = 20;

export function streamTypeOf(streamId: string): string {
  const prefix = streamId.split(':', 1)[0] ?? '';
  return ['task', 'agent', 'project', 'phase', 'artifact'].includes(prefix) && streamId.includes(':') ? prefix : 'other';
}

function emptyStream(e: WireEvent): StreamDoc {
  return {
    stream_id: e.wire.stream_id,
    stream_type: streamTypeOf(e.wire.stream_id),
    topic: e.topic,
    first_sequence_number: e.sequence_number,
    last_wire_id: e.wire.wire_id,
    last_event_type: e.wire.type,
    last_event_ms: e.consensus_ms,
    last_event_at: e.consensus_timestamp,
    last_stream_seq: null,
    correlation_id: null,
    event_count: 0,
    gap_count: 0,
    gaps: [],
    duplicate_count: 0,
    seq_conflict_count: 0,
    foreign_topic_count: 0,
    graph: { phases: [], gates: [], dependencies: [] },
  };
}

export function evolveStream(state: StreamDoc | null, input: StreamInput): StreamDoc {
  const prev = state ?? emptyStream(input);
  if (input.duplicate) return { ...prev, duplicate_count: prev.duplicate_count + 1 };
  const w = input.wire;
  const next: StreamDoc = {
    ...prev,
    last_wire_id: w.wire_id,
    last_event_type: w.type,
    last_event_ms: input.consensus_ms,
    last_event_at: input.consensus_timestamp,
    correlation_id: w.correlation_id ?? prev.correlation_id,
    event_count: prev.event_count + 1,
    foreign_topic_count: prev.foreign_topic_count + (input.topic === prev.topic ? 0 : 1),
  };
  const expected = (prev.last_stream_seq ?? 0) + 1;
  if (w.stream_seq > expected) {
    next.gap_count = prev.gap_count + 1;
    next.gaps = [...prev.gaps, { expected, got: w.stream_seq, sequence_number: input.sequence_number }].slice(-MAX_GAPS);
  } else if (w.stream_seq < expected) {
    next.seq_conflict_count = prev.seq_conflict_count + 1;
  }
  next.last_stream_seq = Math.max(prev.last_stream_seq ?? 0, w.stream_seq);
  next.graph = evolveGraph(prev.graph, input);
  return next;
}

function evolveGraph(g: StreamGraph, e: WireEvent): StreamGraph {
  const w = e.wire;
  switch (w.type) {
    case 'project.created':
      return { ...g, project: { project_id: w.payload.project_id, name: w.payload.name ?? null, status: g.project?.status ?? 'open' } };
    case 'project.complete':
      return { ...g, project: { project_id: w.payload.project_id, name: g.project?.name ?? null, status: 'complete' } };
    case 'phase.created': {
      const p = w.payload;
      const phases = g.phases.filter((x) => x.phase_id !== p.phase_id);
      return { ...g, phases: [...phases, { phase_id: p.phase_id, project_id: p.project_id ?? null, name: p.name ?? null, gate_id: p.gate_id ?? null }] };
    }
    case 'gate.opened': {
      const p = w.payload;
      if (g.gates.some((x) => x.gate_id === p.gate_id)) return g;
      return { ...g, gates: [...g.gates, { gate_id: p.gate_id, phase_id: p.phase_id ?? null, status: 'open', report_ref: null }] };
    }
    case 'gate.passed': {
      const p = w.payload;
      const old = g.gates.find((x) => x.gate_id === p.gate_id);
      const gate = { gate_id: p.gate_id, phase_id: p.phase_id ?? old?.phase_id ?? null, status: 'passed' as const, report_ref: p.report_ref ?? null };
      return { ...g, gates: old ? g.gates.map((x) => (x.gate_id === p.gate_id ? gate : x)) : [...g.gates, gate] };
    }
    case 'dependency.created': {
      const p = w.payload;
      const contract = p.contract ?? null;
      if (g.dependencies.some((d) => d.task_id === p.task_id && d.depends_on_task === p.depends_on_task && d.contract === contract)) return g;
      return { ...g, dependencies: [...g.dependencies, { task_id: p.task_id, depends_on_task: p.depends_on_task, contract, wire_id: w.wire_id }] };
    }
    case 'task.created':
    case 'task.available':
    case 'task.claim':
    case 'task.claimed':
    case 'task.started':
    case 'task.plan.created':
    case 'task.blocked':
    case 'task.complete':
    case 'artifact.claimed':
    case 'artifact.ready':
    case 'contract.ready':
    case 'review.concern':
    case 'agent.started':
    case 'agent.heartbeat':
    case 'agent.capacity.updated':
    case 'agent.lease.accepted':
    case 'agent.lease.released':
    case 'agent.stopped':
      return g;
    default:
      return assertNever(w);
  }
}

/** The stream's status column for streams that are not task or agent streams. */
export function graphStatus(doc: StreamDoc): string {
  if (doc.graph.project) return doc.graph.project.status;
  return 'active';
}
