/**
 * The read model must not depend on how the log was cut into batches or where the listener was
 * restarted: a property test over random coordination histories. Each "restart" stores the rows
 * through JSON (as a database would) and builds a fresh projector from them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { T0, iso, resetIds, resetStreamSeqs, wire } from './fixtures.test-helpers.js';
import { Projector } from './projector.js';
import type { CommitBatch, ReadModelSnapshot } from './store.js';
import type { LogRecord } from './types.js';

const TASKS = ['T1', 'T2', 'T3', 'T4'];
const AGENTS = ['a1', 'a2', 'a3'];
const MIN = 60_000;

type Step = { kind: string; t: number; a: number; x: number; dt: number };

const stepArb = fc.record({
  kind: fc.constantFrom('available', 'claim', 'start', 'plan', 'block', 'complete', 'contract', 'dep', 'depc', 'hb', 'hbtask', 'cap', 'release', 'dup', 'garbage', 'stop'),
  t: fc.nat(TASKS.length - 1),
  a: fc.nat(AGENTS.length - 1),
  x: fc.nat(3),
  dt: fc.nat(20 * MIN),
});

function history(steps: Step[]): LogRecord[] {
  resetIds();
  resetStreamSeqs();
  const out: LogRecord[] = [];
  let now = T0;
  const sent: unknown[] = [];
  for (const s of steps) {
    now += s.dt;
    const taskId = TASKS[s.t] as string;
    const other = TASKS[(s.t + 1 + s.x) % TASKS.length] as string;
    const agent = AGENTS[s.a] as string;
    const stream = `task:${taskId}:attempt:1`;
    const by = { sender: `agent:${agent}` };
    let body: unknown;
    switch (s.kind) {
      case 'available':
        body = wire('task.available', stream, { task_id: taskId, capacity_units: 1 + s.x });
        break;
      case 'claim':
        body = wire('task.claimed', stream, { task_id: taskId, lease_expires_at: iso(now + (5 + s.x * 10) * MIN), capacity_units_reserved: s.x }, by);
        break;
      case 'start':
        body = wire('task.started', stream, { task_id: taskId }, by);
        break;
      case 'plan':
        body = wire('task.plan.created', stream, { task_id: taskId, plan_ref: `plan-${s.x}` }, by);
        break;
      case 'block':
        body = wire('task.blocked', stream, { task_id: taskId, blocker: `b${s.x}` }, by);
        break;
      case 'complete':
        body = wire('task.complete', stream, { task_id: taskId }, by);
        break;
      case 'contract':
        body = wire('contract.ready', stream, { task_id: taskId, contract: `c${s.x % 2}` }, by);
        break;
      case 'dep':
        body = wire('dependency.created', 'project:p', { task_id: taskId, depends_on_task: other });
        break;
      case 'depc':
        body = wire('dependency.created', 'project:p', { task_id: taskId, depends_on_task: other, contract: `c${s.x % 2}` });
        break;
      case 'hb':
        body = wire('agent.heartbeat', `agent:${agent}`, { status: 'working' }, by);
        break;
      case 'hbtask':
        body = wire('agent.heartbeat', `agent:${agent}`, { task_id: taskId }, by);
        break;
      case 'cap':
        body = wire('agent.capacity.updated', `agent:${agent}`, { available_units: s.x, max_units: 3 }, by);
        break;
      case 'release':
        body = wire('agent.lease.released', `agent:${agent}`, { task_id: taskId }, by);
        break;
      case 'stop':
        body = wire('agent.stopped', `agent:${agent}`, {}, by);
        break;
      case 'dup':
        body = sent.length ? sent[s.x % sent.length] : wire('task.available', stream, { task_id: taskId });
        break;
      default:
        body = { wire: '1.1', type: 'task.claimed', payload: 'nope' };
    }
    sent.push(body);
    out.push({ topic: 'main', sequence_number: out.length + 1, consensus_timestamp: iso(now), body });
  }
  return out;
}

/** A database stand-in: rows by key, stored as JSON text like a real column. */
class FakeDb {
  events = new Map<string, string>();
  streams = new Map<string, string>();
  tasks = new Map<string, string>();
  agents = new Map<string, string>();
  offsets = new Map<string, number>();

  commit(b: CommitBatch): void {
    for (const e of b.events) {
      if (this.events.has(e.id)) throw new Error(`event ${e.id} inserted twice`);
      this.events.set(e.id, JSON.stringify(e));
    }
    for (const r of b.streams) this.streams.set(r.stream_id, JSON.stringify(r));
    for (const r of b.tasks) this.tasks.set(r.stream_id, JSON.stringify(r));
    for (const r of b.agents) this.agents.set(r.agent_id, JSON.stringify(r));
    for (const o of b.offsets) {
      if ((this.offsets.get(o.topic) ?? 0) !== o.from) throw new Error('offset moved');
      this.offsets.set(o.topic, o.to);
    }
  }

  snapshot(): ReadModelSnapshot {
    const parse = (m: Map<string, string>) => [...m.values()].map((v) => JSON.parse(v));
    return {
      reducer_versions: [1],
      offsets: [...this.offsets].map(([topic, last_sequence_number]) => ({ topic, last_sequence_number })),
      streams: parse(this.streams).map((r) => r.state),
      tasks: parse(this.tasks).map((r) => r.state),
      agents: parse(this.agents).map((r) => r.state),
      wire_ids: parse(this.events)
        .filter((e) => e.disposition !== 'invalid')
        .map((e) => e.wire_id),
    };
  }

  dump(): Record<string, unknown> {
    const sorted = (m: Map<string, string>) => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, v]) => JSON.parse(v));
    return { events: sorted(this.events), streams: sorted(this.streams), tasks: sorted(this.tasks), agents: sorted(this.agents), offsets: [...this.offsets] };
  }
}

const opts = { limits: { maxPayloadBytes: 16 * 1024 } };

function runStraight(recs: LogRecord[]): FakeDb {
  const db = new FakeDb();
  const p = new Projector(opts);
  p.apply(recs);
  db.commit(p.takeBatch());
  return db;
}

function runChunked(recs: LogRecord[], cuts: number[], restartAt: Set<number>): FakeDb {
  const db = new FakeDb();
  let p = new Projector(opts);
  const bounds = [...new Set([0, ...cuts.map((c) => c % (recs.length + 1)), recs.length])].sort((a, b) => a - b);
  for (let i = 0; i + 1 < bounds.length; i++) {
    p.apply(recs.slice(bounds[i], bounds[i + 1]));
    db.commit(p.takeBatch());
    // A listener killed between batches restarts from what was committed.
    if (restartAt.has(i)) p = Projector.fromSnapshot(db.snapshot(), opts);
  }
  return db;
}

describe('the read model does not depend on batch boundaries or restarts', () => {
  it('straight run == chunked run with restarts, for random histories', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 60 }), fc.array(fc.nat(60), { maxLength: 8 }), fc.array(fc.nat(8), { maxLength: 8 }), (steps, cuts, restarts) => {
        const recs = history(steps);
        const a = runStraight(recs).dump();
        const b = runChunked(recs, cuts, new Set(restarts)).dump();
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it('a restarted projector skips records it already committed (at-least-once delivery is safe)', () => {
    const recs = history([
      { kind: 'available', t: 0, a: 0, x: 0, dt: 0 },
      { kind: 'claim', t: 0, a: 1, x: 1, dt: MIN },
      { kind: 'start', t: 0, a: 1, x: 0, dt: MIN },
    ]);
    const db = new FakeDb();
    const p = new Projector(opts);
    p.apply(recs.slice(0, 2));
    db.commit(p.takeBatch());
    const q = Projector.fromSnapshot(db.snapshot(), opts);
    expect(q.apply(recs)).toBe(1);
    db.commit(q.takeBatch());
    expect(db.dump()).toEqual(runStraight(recs).dump());
  });
});
