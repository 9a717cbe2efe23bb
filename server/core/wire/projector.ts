/**
 * The projector: the listener's in-memory shell around the pure reducers. It validates each log
 * record, detects duplicates by wire_id, routes the event to the documents it concerns (its stream,
 * its task run, its agent, and the cross-stream effects: dependents released by contract.ready or
 * task.complete, leases renewed by heartbeats), and collects the changed rows of one batch.
 *
 * Determinism: every decision comes from the record order and content, and every derived list is
 * sorted, so a replay from the log produces the same rows as the incremental run, whatever the batch
 * boundaries and restarts were.
 */
import { type WireLimits, formatErrors, validateLogBody } from './envelope.js';
import { type AgentLease, type AgentRun, emptyAgent, evolveAgent, agentOfEvent, withLeases } from './reducers/agent.js';
import { type DependencyDecl, type StreamDoc, evolveStream, graphStatus } from './reducers/stream.js';
import { type Dependency, type TaskRun, type TaskContext, evolveTask, taskStatus } from './reducers/task.js';
import type { AgentRuntimeRow, CommitBatch, EventDisposition, ReadModelSnapshot, StreamStateRow, TaskRunRow, WireEventRow } from './store.js';
import { type LogRecord, type Wire, type WireEvent, assertNever } from './types.js';

/** Bump when a reducer changes what it derives: a stored read model with another version is rebuilt. */
export const REDUCER_VERSION = 1;

export interface ProjectorOptions {
  reducerVersion?: number;
  limits: WireLimits;
}

function addTo<K, V>(m: Map<K, Set<V>>, k: K, v: V): void {
  let s = m.get(k);
  if (!s) m.set(k, (s = new Set()));
  s.add(v);
}

const byKey = <T>(key: (x: T) => string) => (a: T, b: T) => {
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

export class Projector {
  readonly reducerVersion: number;
  private readonly limits: WireLimits;
  private readonly streams = new Map<string, StreamDoc>();
  private readonly tasks = new Map<string, TaskRun>();
  private readonly agents = new Map<string, AgentRun>();
  private readonly seen = new Set<string>();
  private readonly offsets = new Map<string, number>();
  /** task_id -> the task run streams that carry it (one per attempt). */
  private readonly runsOf = new Map<string, Set<string>>();
  /** R2 task_id -> its declared dependencies. */
  private readonly depsOf = new Map<string, DependencyDecl[]>();
  /** R1 task_id -> the task_ids that depend on it. */
  private readonly dependents = new Map<string, Set<string>>();
  /** agent -> task run streams it holds a claim on. */
  private readonly leasesOf = new Map<string, Set<string>>();

  private events: WireEventRow[] = [];
  private dirtyStreams = new Set<string>();
  private dirtyTasks = new Set<string>();
  private dirtyAgents = new Set<string>();
  private batchFrom = new Map<string, number>();

  constructor(opts: ProjectorOptions) {
    this.reducerVersion = opts.reducerVersion ?? REDUCER_VERSION;
    this.limits = opts.limits;
  }

  /** Rebuild the in-memory state from a stored read model. */
  static fromSnapshot(s: ReadModelSnapshot, opts: ProjectorOptions): Projector {
    const p = new Projector(opts);
    for (const o of s.offsets) p.offsets.set(o.topic, o.last_sequence_number);
    for (const id of s.wire_ids) p.seen.add(id);
    for (const d of [...s.streams].sort(byKey((x) => x.stream_id))) {
      p.streams.set(d.stream_id, d);
      for (const dep of d.graph.dependencies) p.indexDependency(dep);
    }
    for (const t of s.tasks) {
      p.tasks.set(t.stream_id, t);
      addTo(p.runsOf, t.task_id, t.stream_id);
      if (t.claim && t.progress !== 'complete') addTo(p.leasesOf, t.claim.agent, t.stream_id);
    }
    for (const a of s.agents) p.agents.set(a.agent_id, a);
    return p;
  }

  /** Read access for views and tests. */
  task(streamId: string): TaskRun | undefined {
    return this.tasks.get(streamId);
  }

  agent(agentId: string): AgentRun | undefined {
    return this.agents.get(agentId);
  }

  stream(streamId: string): StreamDoc | undefined {
    return this.streams.get(streamId);
  }

  allTasks(): TaskRun[] {
    return [...this.tasks.values()];
  }

  allAgents(): AgentRun[] {
    return [...this.agents.values()];
  }

  /** The last sequence number applied for a topic (0 when none). */
  offset(topic: string): number {
    return this.offsets.get(topic) ?? 0;
  }

  /** Apply records of one topic, in canonical order. Records at or below the offset are skipped. */
  apply(records: LogRecord[]): number {
    let n = 0;
    for (const r of records) {
      const current = this.offset(r.topic);
      if (r.sequence_number <= current) continue;
      if (!this.batchFrom.has(r.topic)) this.batchFrom.set(r.topic, current);
      this.applyOne(r);
      this.offsets.set(r.topic, r.sequence_number);
      n++;
    }
    return n;
  }

  /** Advance a topic's offset past records the log could not return (hand-edited lines). */
  skipTo(topic: string, sequenceNumber: number): void {
    const current = this.offset(topic);
    if (sequenceNumber <= current) return;
    if (!this.batchFrom.has(topic)) this.batchFrom.set(topic, current);
    this.offsets.set(topic, sequenceNumber);
  }

  get pending(): number {
    return this.events.length;
  }

  /** The rows changed since the last call, for one transaction. */
  takeBatch(): CommitBatch {
    // Tasks and agents first: their status shows on their stream rows.
    const tasks = [...this.dirtyTasks].map((id) => this.taskRow(this.tasks.get(id) as TaskRun));
    const agents = [...this.dirtyAgents].map((id) => this.agentRow(id));
    const batch: CommitBatch = {
      reducer_version: this.reducerVersion,
      events: this.events,
      streams: [...this.dirtyStreams].map((id) => this.streamRow(this.streams.get(id) as StreamDoc)),
      tasks,
      agents,
      offsets: [...this.batchFrom].map(([topic, from]) => ({ topic, from, to: this.offset(topic) })),
    };
    this.events = [];
    this.dirtyStreams = new Set();
    this.dirtyTasks = new Set();
    this.dirtyAgents = new Set();
    this.batchFrom = new Map();
    return batch;
  }

  // ---- one record

  private applyOne(r: LogRecord): void {
    const where = { topic: r.topic, sequence_number: r.sequence_number, consensus_timestamp: r.consensus_timestamp };
    const check = r.decode_error ? undefined : validateLogBody(r.body, where, this.limits);
    if (!check || !check.valid) {
      this.recordInvalid(r, r.decode_error ? `not JSON: ${r.decode_error}` : formatErrors(check?.errors ?? []));
      return;
    }
    const prevStream = this.streams.get(check.wire.stream_id);
    const wire = { ...check.wire, stream_seq: check.wire.stream_seq ?? (prevStream?.last_stream_seq ?? 0) + 1 } as Wire;
    const consensusMs = Date.parse(r.consensus_timestamp);
    const e: WireEvent = { ...where, consensus_ms: Number.isFinite(consensusMs) ? consensusMs : 0, wire, upgraded: check.upgraded };

    const duplicate = this.seen.has(wire.wire_id);
    this.streams.set(wire.stream_id, evolveStream(prevStream ?? null, { ...e, duplicate }));
    this.dirtyStreams.add(wire.stream_id);
    if (duplicate) {
      this.recordEvent(e, 'duplicate', `wire_id ${wire.wire_id} was already applied; ignored`);
      return;
    }
    this.seen.add(wire.wire_id);
    const [disposition, reason] = this.route(e);
    this.recordEvent(e, disposition, reason ?? null);
  }

  /** Send the event to every document it concerns; returns the disposition of its main target. */
  private route(e: WireEvent): [EventDisposition, string | undefined] {
    const w = e.wire;
    const ownRun = this.tasks.get(w.stream_id);
    switch (w.type) {
      case 'task.created':
      case 'task.available':
      case 'task.claim':
      case 'task.claimed':
      case 'task.started':
      case 'task.plan.created':
      case 'task.blocked':
      case 'task.complete': {
        const context: TaskContext | undefined = ownRun ? undefined : { dependencies: this.dependenciesFor(w.payload.task_id) };
        const next = this.evolveRun(w.stream_id, e, context);
        const out = next?.last;
        if (w.type === 'task.complete' && out?.disposition === 'applied') this.releaseDependents(e, w.payload.task_id);
        return out && out.wire_id === w.wire_id ? [out.disposition, out.reason] : ['ignored', 'no task run'];
      }
      case 'contract.ready': {
        const targets = ownRun ? [w.stream_id] : this.runsFor(w.payload.task_id, w.payload.attempt);
        if (targets.length === 0) return ['ignored', `no task run for task ${w.payload.task_id} on this log yet`];
        let result: [EventDisposition, string | undefined] = ['ignored', undefined];
        for (const id of targets) {
          const out = this.evolveRun(id, e)?.last;
          if (out) result = [out.disposition, out.reason];
        }
        this.releaseDependents(e, w.payload.task_id);
        return result;
      }
      case 'artifact.claimed':
      case 'artifact.ready':
      case 'review.concern': {
        const taskId = w.payload.task_id;
        const targets = ownRun ? [w.stream_id] : taskId ? this.runsFor(taskId, w.payload.attempt) : [];
        if (targets.length === 0) return ['applied', undefined];
        let result: [EventDisposition, string | undefined] = ['ignored', undefined];
        for (const id of targets) {
          const out = this.evolveRun(id, e)?.last;
          if (out) result = [out.disposition, out.reason];
        }
        return result;
      }
      case 'dependency.created': {
        const p = w.payload;
        this.indexDependency({ task_id: p.task_id, depends_on_task: p.depends_on_task, contract: p.contract ?? null, wire_id: w.wire_id });
        const satisfied = this.factsSatisfy(p.depends_on_task, p.contract ?? null);
        for (const id of this.runsFor(p.task_id)) this.evolveRun(id, e, { satisfied });
        return ['applied', undefined];
      }
      case 'agent.started':
      case 'agent.capacity.updated':
      case 'agent.stopped':
      case 'agent.heartbeat': {
        const id = agentOfEvent(e);
        const next = evolveAgent(this.agents.get(id) ?? null, e);
        if (next) {
          this.agents.set(id, next);
          this.dirtyAgents.add(id);
        }
        if (w.type === 'agent.heartbeat' && w.payload.task_id) {
          for (const run of this.runsFor(w.payload.task_id, w.payload.attempt)) this.evolveRun(run, e);
        }
        return ['applied', undefined];
      }
      case 'agent.lease.accepted':
      case 'agent.lease.released': {
        const agent = agentOfEvent(e);
        const runs = this.runsFor(w.payload.task_id, w.payload.attempt).filter((id) => this.tasks.get(id)?.claim?.agent === agent);
        if (runs.length === 0) return ['rejected', `${agent} holds no claim on task ${w.payload.task_id}`];
        let result: [EventDisposition, string | undefined] = ['ignored', undefined];
        for (const id of runs) {
          const out = this.evolveRun(id, e)?.last;
          if (out) result = [out.disposition, out.reason];
        }
        return result;
      }
      case 'gate.opened':
      case 'gate.passed':
      case 'project.created':
      case 'project.complete':
      case 'phase.created':
        return ['applied', undefined];
      default:
        return assertNever(w);
    }
  }

  /** Run the task reducer on one run document and keep the indexes in step. */
  private evolveRun(streamId: string, e: WireEvent, context?: TaskContext): TaskRun | null {
    const before = this.tasks.get(streamId) ?? null;
    const next = evolveTask(before, context ? { ...e, context } : e);
    if (!next) return null;
    if (next === before) return next;
    this.tasks.set(streamId, next);
    this.dirtyTasks.add(streamId);
    if (!before) addTo(this.runsOf, next.task_id, streamId);
    const holderBefore = before?.claim && before.progress !== 'complete' ? before.claim.agent : null;
    const holderAfter = next.claim && next.progress !== 'complete' ? next.claim.agent : null;
    if (holderBefore !== holderAfter) {
      if (holderBefore) this.leasesOf.get(holderBefore)?.delete(streamId);
      if (holderAfter) addTo(this.leasesOf, holderAfter, streamId);
    }
    for (const agent of [holderBefore, holderAfter]) {
      if (agent && (holderBefore !== holderAfter || before?.claim?.lease_expires_ms !== next.claim?.lease_expires_ms)) {
        if (!this.agents.has(agent)) this.agents.set(agent, emptyAgent(agent));
        this.dirtyAgents.add(agent);
      }
    }
    return next;
  }

  private runsFor(taskId: string, attempt?: number): string[] {
    const ids = [...(this.runsOf.get(taskId) ?? [])].sort();
    if (attempt === undefined) return ids;
    return ids.filter((id) => this.tasks.get(id)?.attempt === attempt);
  }

  private indexDependency(d: DependencyDecl): void {
    const list = this.depsOf.get(d.task_id) ?? [];
    if (!list.some((x) => x.depends_on_task === d.depends_on_task && x.contract === d.contract)) {
      this.depsOf.set(d.task_id, [...list, d]);
    }
    addTo(this.dependents, d.depends_on_task, d.task_id);
  }

  /** Whether R1 (any attempt) already meets a dependency: its contract is ready, or it is complete. */
  private factsSatisfy(r1: string, contract: string | null): boolean {
    for (const id of this.runsOf.get(r1) ?? []) {
      const t = this.tasks.get(id) as TaskRun;
      if (t.progress === 'complete') return true;
      if (contract !== null && t.contracts_ready.includes(contract)) return true;
    }
    return false;
  }

  /** The dependencies a task run starts with: those declared before its first event. */
  private dependenciesFor(taskId: string): Dependency[] {
    return (this.depsOf.get(taskId) ?? [])
      .map((d) => ({ task_id: d.depends_on_task, contract: d.contract, satisfied: this.factsSatisfy(d.depends_on_task, d.contract) }))
      .sort(byKey((d) => `${d.task_id}\u0000${d.contract ?? ''}`));
  }

  private releaseDependents(e: WireEvent, r1: string): void {
    for (const r2 of [...(this.dependents.get(r1) ?? [])].sort()) {
      for (const id of this.runsFor(r2)) this.evolveRun(id, e);
    }
  }

  // ---- rows

  private recordEvent(e: WireEvent, disposition: EventDisposition, reason: string | null): void {
    const w = e.wire;
    this.events.push({
      id: `${e.topic}:${e.sequence_number}`,
      topic: e.topic,
      sequence_number: e.sequence_number,
      consensus_timestamp: e.consensus_timestamp,
      wire_version: e.upgraded ? '1.0' : '1.1',
      wire_id: w.wire_id,
      stream_id: w.stream_id,
      stream_seq: w.stream_seq,
      correlation_id: w.correlation_id ?? null,
      causation_id: w.causation_id ?? null,
      type: w.type,
      sender: w.sender,
      ts: w.ts,
      payload: w.payload,
      disposition,
      reason,
    });
  }

  private recordInvalid(r: LogRecord, reason: string): void {
    const b = (typeof r.body === 'object' && r.body !== null ? r.body : {}) as Record<string, unknown>;
    const s = (k: string, max = 200) => (typeof b[k] === 'string' ? (b[k] as string).slice(0, max) : '');
    this.events.push({
      id: `${r.topic}:${r.sequence_number}`,
      topic: r.topic,
      sequence_number: r.sequence_number,
      consensus_timestamp: r.consensus_timestamp,
      wire_version: s('wire', 10),
      wire_id: s('wire_id') || `invalid.${r.topic}.${r.sequence_number}`,
      stream_id: s('stream_id'),
      stream_seq: null,
      correlation_id: null,
      causation_id: null,
      type: s('type', 100),
      sender: s('sender'),
      ts: s('ts', 40),
      payload: r.decode_error ? null : (b.payload ?? null),
      disposition: 'invalid',
      reason: reason.slice(0, 2000),
    });
  }

  private streamRow(d: StreamDoc): StreamStateRow {
    let status = graphStatus(d);
    const run = this.tasks.get(d.stream_id);
    if (run) status = taskStatus(run);
    else if (d.stream_type === 'agent') {
      const a = this.agents.get(d.stream_id.slice('agent:'.length));
      if (a) status = a.status;
    }
    return {
      stream_id: d.stream_id,
      topic: d.topic,
      stream_type: d.stream_type,
      status,
      last_wire_id: d.last_wire_id,
      last_event_type: d.last_event_type,
      last_event_at: d.last_event_ms,
      last_stream_seq: d.last_stream_seq,
      correlation_id: d.correlation_id,
      event_count: d.event_count,
      gap_count: d.gap_count,
      duplicate_count: d.duplicate_count,
      reducer_version: this.reducerVersion,
      state: d,
    };
  }

  private taskRow(t: TaskRun): TaskRunRow {
    const status = taskStatus(t);
    // A task run's status shows on its stream row too.
    if (this.streams.has(t.stream_id)) this.dirtyStreams.add(t.stream_id);
    return {
      stream_id: t.stream_id,
      task_id: t.task_id,
      attempt: t.attempt,
      role: t.role,
      status,
      claimed_by: t.claim?.agent ?? null,
      claim_sequence: t.claim?.sequence_number ?? null,
      lease_expires_at: t.claim?.lease_expires_ms ?? null,
      last_heartbeat_at: t.last_heartbeat_ms,
      plan_ref: t.plan_ref,
      blocker: t.blocker,
      output_ref: t.output_ref,
      verification_status: t.verification_status,
      capacity_units: t.capacity_units,
      capacity_units_reserved: t.claim?.units_reserved ?? null,
      available_since: status === 'available' ? t.released_ms : null,
      state: t,
    };
  }

  private agentRow(id: string): AgentRuntimeRow {
    if (this.streams.has(`agent:${id}`)) this.dirtyStreams.add(`agent:${id}`);
    const leases: AgentLease[] = [...(this.leasesOf.get(id) ?? [])].map((sid) => {
      const t = this.tasks.get(sid) as TaskRun;
      return { stream_id: sid, task_id: t.task_id, units: t.claim?.units_reserved ?? t.capacity_units, lease_expires_ms: t.claim?.lease_expires_ms ?? null };
    });
    const a = withLeases(this.agents.get(id) ?? emptyAgent(id), leases);
    this.agents.set(id, a);
    return {
      agent_id: a.agent_id,
      role: a.role,
      status: a.status,
      available_units: a.available_units,
      max_units: a.max_units,
      reserved_units: leases.reduce((s, l) => s + l.units, 0),
      active_leases: leases.length,
      last_heartbeat_at: a.last_heartbeat_ms,
      state: a,
    };
  }
}
