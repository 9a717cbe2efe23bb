/**
 * Coordination semantics, one describe per rule of issue 4, on the projector and the pure reducers.
 * Time in these tests is the log's consensus time (records one second apart from T0 unless set).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { T0, iso, newProjector, project, records, resetIds, resetStreamSeqs, wire } from './fixtures.test-helpers.js';
import { heartbeatStatus } from './liveness.js';
import { viewAgent } from './reducers/agent.js';
import { evolveTask, taskStatus, viewTask } from './reducers/task.js';
import { planRelease } from './release.js';
import type { LogRecord } from './types.js';

const MIN = 60_000;
const task = (id: string) => `task:${id}:attempt:1`;

/** Records at explicit consensus times (ms after T0). */
function at(list: [number, unknown][], startSeq = 1): LogRecord[] {
  return list.map(([ms, body], i) => ({ topic: 'main', sequence_number: startSeq + i, consensus_timestamp: iso(T0 + ms), body }));
}

beforeEach(() => {
  resetIds();
  resetStreamSeqs();
});

describe('task lifecycle: available -> claimed -> started -> plan created -> blocked / complete', () => {
  it('walks the whole lifecycle and records each status', () => {
    const p = newProjector();
    const s = task('T1');
    const steps: [unknown, string][] = [
      [wire('task.created', s, { task_id: 'T1', title: 'auth contract', role: 'developer' }), 'pending'],
      [wire('task.available', s, { task_id: 'T1' }), 'available'],
      [wire('task.claimed', s, { task_id: 'T1', agent: 'quinn-07', lease_expires_at: iso(T0 + 30 * MIN) }, { sender: 'agent:quinn-07' }), 'claimed'],
      [wire('task.started', s, { task_id: 'T1' }, { sender: 'agent:quinn-07' }), 'started'],
      [wire('task.plan.created', s, { task_id: 'T1', plan_ref: 'git://plans/T1.md' }, { sender: 'agent:quinn-07' }), 'planned'],
      [wire('task.blocked', s, { task_id: 'T1', blocker: 'needs the schema decision' }, { sender: 'agent:quinn-07' }), 'blocked'],
      [wire('task.started', s, { task_id: 'T1' }, { sender: 'agent:quinn-07' }), 'started'],
      [wire('task.complete', s, { task_id: 'T1', output_ref: 'git://repo@abc', verification_status: 'passed' }, { sender: 'agent:quinn-07' }), 'complete'],
    ];
    steps.forEach(([body, status], i) => {
      const b = project(p, records([body], { startSeq: i + 1, startMs: T0 + i * 1000 }));
      expect(b.tasks[0]?.status).toBe(status);
      expect(b.events[0]?.disposition).toBe('applied');
    });
    const t = p.task(s);
    expect(t).toMatchObject({ claim: { agent: 'quinn-07' }, output_ref: 'git://repo@abc', verification_status: 'passed', blocker: null, plan_ref: 'git://plans/T1.md' });
  });

  it('rejects transitions that do not fit, with a reason, and leaves the task as it was', () => {
    const p = newProjector();
    const s = task('T2');
    project(p, records([wire('task.available', s, { task_id: 'T2' }), wire('task.claimed', s, { task_id: 'T2' }, { sender: 'agent:ann' })]));
    const before = p.task(s);
    const b = project(
      p,
      records(
        [
          wire('task.started', s, { task_id: 'T2' }, { sender: 'agent:bob' }),
          wire('task.complete', s, { task_id: 'T2' }, { sender: 'agent:bob' }),
          wire('task.available', s, { task_id: 'T2' }),
          wire('task.started', s, { task_id: 'OTHER' }, { sender: 'agent:ann' }),
        ],
        { startSeq: 3 },
      ),
    );
    expect(b.events.map((e) => e.disposition)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    expect(b.events[0]?.reason).toMatch(/claimed by ann/);
    expect(b.events[3]?.reason).toMatch(/carries task T2/);
    const after = p.task(s);
    expect(after?.progress).toBe(before?.progress);
    expect(after?.claim).toEqual(before?.claim);
    expect(after?.rejected_count).toBe(4);
  });

  it('evolveTask is pure: it never mutates the state it is given', () => {
    const p = newProjector();
    const s = task('T3');
    project(p, records([wire('task.available', s, { task_id: 'T3' })]));
    const state = p.task(s);
    const frozen = JSON.parse(JSON.stringify(state));
    const deepFreeze = (o: unknown): unknown => {
      if (o && typeof o === 'object') {
        for (const v of Object.values(o)) deepFreeze(v);
        Object.freeze(o);
      }
      return o;
    };
    deepFreeze(state);
    const [r] = records([wire('task.claimed', s, { task_id: 'T3' }, { sender: 'agent:a' })], { startSeq: 2 });
    const e = { topic: 'main', sequence_number: 2, consensus_timestamp: (r as LogRecord).consensus_timestamp, consensus_ms: T0 + 1000, wire: (r as LogRecord).body as never, upgraded: false };
    const next = evolveTask(state ?? null, e);
    expect(next && taskStatus(next)).toBe('claimed');
    expect(state).toEqual(frozen);
  });
});

describe('leases: past lease_expires_at without heartbeat the task is stale and re-available', () => {
  const s = task('L1');
  const claimAt = (ms: number, agent: string, leaseMin = 30) => wire('task.claimed', s, { task_id: 'L1', lease_expires_at: iso(T0 + ms + leaseMin * MIN) }, { sender: `agent:${agent}` });

  it('shows the task stale and available once the lease has passed, and not before', () => {
    const p = newProjector();
    project(p, at([[0, wire('task.available', s, { task_id: 'L1' })], [MIN, claimAt(MIN, 'ann')]]));
    const t = p.task(s);
    expect(t).toBeDefined();
    if (!t) return;
    expect(viewTask(t, T0 + 30 * MIN)).toMatchObject({ status: 'claimed', available: false, claimed_by: 'ann' });
    expect(viewTask(t, T0 + 31 * MIN + 1)).toMatchObject({ status: 'stale', available: true, stale_since: iso(T0 + 31 * MIN) });
  });

  it('lets a later claim take a stale task over, and records the expired claim', () => {
    const p = newProjector();
    const b = project(p, at([[0, wire('task.available', s, { task_id: 'L1' })], [MIN, claimAt(MIN, 'ann')], [10 * MIN, claimAt(10 * MIN, 'bob')], [40 * MIN, claimAt(40 * MIN, 'cy')]]));
    expect(b.events.map((e) => e.disposition)).toEqual(['applied', 'applied', 'lost', 'applied']);
    const t = p.task(s);
    expect(t?.claim?.agent).toBe('cy');
    expect(t?.expired_claims).toEqual([{ agent: 'ann', lease_expires_ms: T0 + 31 * MIN, sequence_number: 2, taken_over_at: 4 }]);
    // Leases follow the claim: ann no longer holds it, cy does.
    expect(p.agent('ann')?.leases).toEqual([]);
    expect(p.agent('cy')?.leases.map((l) => l.task_id)).toEqual(['L1']);
  });

  it("renews the lease on the claimant's heartbeat (agent stream), not on anyone else's", () => {
    const p = newProjector();
    project(
      p,
      at([
        [0, wire('task.available', s, { task_id: 'L1' })],
        [MIN, claimAt(MIN, 'ann')],
        [20 * MIN, wire('agent.heartbeat', 'agent:bob', { task_id: 'L1' }, { sender: 'agent:bob' })],
        [25 * MIN, wire('agent.heartbeat', 'agent:ann', { task_id: 'L1', status: 'working' }, { sender: 'agent:ann' })],
        [40 * MIN, claimAt(40 * MIN, 'bob')],
      ]),
    );
    const t = p.task(s);
    // Renewed by the claim's own length (30 min) from the heartbeat at 25 min: until 55 min.
    expect(t?.claim?.agent).toBe('ann');
    expect(t?.claim?.lease_expires_ms).toBe(T0 + 55 * MIN);
    expect(t?.last_heartbeat_ms).toBe(T0 + 25 * MIN);
    expect(t?.lost_claims[0]).toMatchObject({ agent: 'bob', reason: 'claimed by ann at sequence 2' });
    expect(viewTask(t as never, T0 + 50 * MIN).status).toBe('claimed');
    expect(viewTask(t as never, T0 + 56 * MIN).status).toBe('stale');
  });

  it('takes an explicit lease_expires_at from a heartbeat, and frees the task on agent.lease.released', () => {
    const p = newProjector();
    project(
      p,
      at([
        [0, wire('task.available', s, { task_id: 'L1' })],
        [MIN, claimAt(MIN, 'ann')],
        [2 * MIN, wire('agent.heartbeat', 'agent:ann', { task_id: 'L1', lease_expires_at: iso(T0 + 90 * MIN) }, { sender: 'agent:ann' })],
      ]),
    );
    expect(p.task(s)?.claim?.lease_expires_ms).toBe(T0 + 90 * MIN);
    const b = project(p, at([[3 * MIN, wire('agent.lease.released', 'agent:ann', { task_id: 'L1', reason: 'out of budget' }, { sender: 'agent:ann' })]], 4));
    expect(b.events[0]?.disposition).toBe('applied');
    expect(viewTask(p.task(s) as never, T0 + 4 * MIN)).toMatchObject({ status: 'available', available: true, claimed_by: null });
    expect(p.agent('ann')?.leases).toEqual([]);
  });
});

describe('agent liveness from agent.heartbeat', () => {
  it('classifies agents from their last heartbeat: active, deep work, stale, unresponsive', () => {
    const p = newProjector();
    project(
      p,
      at([
        [0, wire('agent.started', 'agent:a', { role: 'developer', max_units: 4 }, { sender: 'agent:a' })],
        [MIN, wire('agent.heartbeat', 'agent:a', { status: 'working' }, { sender: 'agent:a' })],
        [2 * MIN, wire('agent.heartbeat', 'agent:b', {}, { sender: 'agent:b' })],
      ]),
    );
    const a = p.agent('a');
    expect(a?.last_heartbeat_ms).toBe(T0 + MIN);
    const live = (now: number) => viewAgent(a as never, now).liveness;
    expect(live(T0 + MIN + 119_000)).toBe('active');
    expect(live(T0 + MIN + 200_000)).toBe('deep_work');
    expect(live(T0 + MIN + 301_000)).toBe('stale');
    expect(live(T0 + MIN + 601_000)).toBe('unresponsive');
    expect(viewAgent(a as never, T0 + MIN + 30_000, { activeMs: 10_000 }).liveness).toBe('deep_work');
    // The same classification as the exported helper, by construction.
    expect(live(T0 + MIN + 400_000)).toBe(heartbeatStatus(T0 + MIN, T0 + MIN + 400_000));
  });
});

describe('early dependency release', () => {
  const R1 = task('R1');
  const R2 = task('R2');
  const R3 = task('R3');
  const deps = () => [
    wire('dependency.created', 'project:kv', { task_id: 'R2', depends_on_task: 'R1', contract: 'auth_expert_id_mapping' }),
    wire('dependency.created', 'project:kv', { task_id: 'R3', depends_on_task: 'R1' }),
  ];

  it('releases R2 on contract.ready before R1 completes; R3 (no contract) waits for task.complete', () => {
    const p = newProjector();
    project(
      p,
      records([
        ...deps(),
        wire('task.available', R1, { task_id: 'R1' }),
        wire('task.claimed', R1, { task_id: 'R1' }, { sender: 'agent:ann' }),
        wire('task.available', R2, { task_id: 'R2' }),
        wire('task.available', R3, { task_id: 'R3' }),
      ]),
    );
    expect(taskStatus(p.task(R2) as never)).toBe('waiting');
    expect(taskStatus(p.task(R3) as never)).toBe('waiting');

    // A claim on a waiting task loses.
    const lost = project(p, records([wire('task.claimed', R2, { task_id: 'R2' }, { sender: 'agent:bob' })], { startSeq: 7 }));
    expect(lost.events[0]).toMatchObject({ disposition: 'lost', reason: 'the task waits on R1 contract auth_expert_id_mapping' });

    project(p, records([wire('contract.ready', R1, { task_id: 'R1', contract: 'auth_expert_id_mapping' }, { sender: 'agent:ann' })], { startSeq: 8 }));
    expect(taskStatus(p.task(R1) as never)).toBe('claimed'); // R1 is not complete
    expect(taskStatus(p.task(R2) as never)).toBe('available');
    expect(taskStatus(p.task(R3) as never)).toBe('waiting');
    const won = project(p, records([wire('task.claimed', R2, { task_id: 'R2' }, { sender: 'agent:bob' })], { startSeq: 9 }));
    expect(won.events[0]?.disposition).toBe('applied');

    project(p, records([wire('task.complete', R1, { task_id: 'R1' }, { sender: 'agent:ann' })], { startSeq: 10 }));
    expect(taskStatus(p.task(R3) as never)).toBe('available');
  });

  it('a completion refused by the reducer releases nothing', () => {
    const p = newProjector();
    project(p, records([...deps(), wire('task.available', R1, { task_id: 'R1' }), wire('task.claimed', R1, { task_id: 'R1' }, { sender: 'agent:ann' }), wire('task.available', R3, { task_id: 'R3' })]));
    const b = project(p, records([wire('task.complete', R1, { task_id: 'R1' }, { sender: 'agent:mallory' })], { startSeq: 6 }));
    expect(b.events[0]?.disposition).toBe('rejected');
    expect(taskStatus(p.task(R3) as never)).toBe('waiting');
  });

  it('works whatever the order: contract ready before the dependency or before R2 exists', () => {
    const p = newProjector();
    project(
      p,
      records([
        wire('task.available', R1, { task_id: 'R1' }),
        wire('contract.ready', R1, { task_id: 'R1', contract: 'auth_expert_id_mapping' }),
        wire('dependency.created', 'project:kv', { task_id: 'R2', depends_on_task: 'R1', contract: 'auth_expert_id_mapping' }),
        wire('task.available', R2, { task_id: 'R2' }),
        wire('task.available', R3, { task_id: 'R3' }),
        wire('dependency.created', 'project:kv', { task_id: 'R3', depends_on_task: 'R1', contract: 'auth_expert_id_mapping' }),
        wire('dependency.created', 'project:kv', { task_id: 'R3', depends_on_task: 'R2' }),
      ]),
    );
    expect(p.task(R2)?.dependencies).toEqual([{ task_id: 'R1', contract: 'auth_expert_id_mapping', satisfied: true }]);
    expect(taskStatus(p.task(R2) as never)).toBe('available');
    expect(p.task(R3)?.dependencies).toEqual([
      { task_id: 'R1', contract: 'auth_expert_id_mapping', satisfied: true },
      { task_id: 'R2', contract: null, satisfied: false },
    ]);
    expect(taskStatus(p.task(R3) as never)).toBe('waiting');
    // The project stream keeps the graph.
    expect(p.stream('project:kv')?.graph.dependencies).toHaveLength(3);
  });
});

describe('role pools: the lowest canonical sequence number wins a claim race', () => {
  it('gives the task to the first of 15 claims in log order and records 14 lost', () => {
    const p = newProjector();
    const s = task('P1');
    const agents = Array.from({ length: 15 }, (_, i) => `dev-${String(i).padStart(2, '0')}`);
    // Appended in a shuffled order: log order, not agent name or wire_id, decides.
    const order = [7, 3, 14, 0, 9, 1, 12, 5, 2, 11, 8, 13, 4, 10, 6].map((i) => agents[i] as string);
    const b = project(
      p,
      records([
        wire('task.available', s, { task_id: 'P1', role: 'developer' }),
        ...order.map((a) => wire('task.claimed', s, { task_id: 'P1', agent: a, role: 'developer', lease_expires_at: iso(T0 + 30 * MIN) }, { sender: `agent:${a}` })),
      ]),
    );
    const t = p.task(s);
    expect(t?.claim).toMatchObject({ agent: 'dev-07', sequence_number: 2 });
    expect(t?.lost_claim_count).toBe(14);
    expect(t?.lost_claims.map((c) => c.agent)).toEqual(order.slice(1));
    expect(b.events.filter((e) => e.disposition === 'lost')).toHaveLength(14);
    expect(b.events.filter((e) => e.type === 'task.claimed' && e.disposition === 'applied').map((e) => e.sequence_number)).toEqual([2]);
  });
});

describe('capacity: agent.capacity.updated and release', () => {
  it('counts how many available tasks the live agents can take given what their claims reserve', () => {
    const p = newProjector();
    const hb = (a: string, ms: number) => [ms, wire('agent.heartbeat', `agent:${a}`, {}, { sender: `agent:${a}` })] as [number, unknown];
    project(
      p,
      at([
        [0, wire('agent.capacity.updated', 'agent:ann', { available_units: 4, max_units: 6, role: 'developer' }, { sender: 'agent:ann' })],
        [0, wire('agent.capacity.updated', 'agent:bob', { available_units: 2, max_units: 2, role: 'developer' }, { sender: 'agent:bob' })],
        [0, wire('agent.capacity.updated', 'agent:old', { available_units: 8, max_units: 8, role: 'developer' }, { sender: 'agent:old' })],
        hb('ann', MIN),
        hb('bob', MIN),
        hb('old', -20 * MIN),
        ...['A', 'B', 'C', 'D', 'E'].map((id, i) => [2 * MIN + i, wire('task.available', task(id), { task_id: id, role: 'developer', capacity_units: 2 })] as [number, unknown]),
        // ann reserves 3 units on A: 6 - 3 = 3 < 4 reported, so she has 3 free.
        [3 * MIN, wire('task.claimed', task('A'), { task_id: 'A', capacity_units_reserved: 3, lease_expires_at: iso(T0 + 60 * MIN) }, { sender: 'agent:ann' })],
      ]),
    );
    expect(p.agent('ann')?.leases).toEqual([{ stream_id: task('A'), task_id: 'A', units: 3, lease_expires_ms: T0 + 60 * MIN }]);
    const plan = planRelease(p.allTasks(), p.allAgents(), T0 + 4 * MIN);
    expect(plan).toMatchObject({ available_tasks: 4, live_agents: 2, free_units: 5, reserved_units: 3, active_leases: 1 });
    // 2-unit tasks: ann (3 free) takes one, bob (2 free) takes one; old is unresponsive and counts for nothing.
    expect(plan.releasable).toBe(2);
    expect(plan.tasks.map((t) => t.assigned_to)).toEqual(['ann', 'bob', null, null]);
    expect(plan.agents.find((a) => a.agent_id === 'old')?.liveness).toBe('unresponsive');

    // A capacity update raises bob's units: one more task fits.
    project(p, at([[5 * MIN, wire('agent.capacity.updated', 'agent:bob', { available_units: 4, max_units: 4 }, { sender: 'agent:bob' })]], 100));
    expect(planRelease(p.allTasks(), p.allAgents(), T0 + 5 * MIN).releasable).toBe(3);
    // Role filter: no task of another role.
    expect(planRelease(p.allTasks(), p.allAgents(), T0 + 5 * MIN, { role: 'reviewer' }).available_tasks).toBe(0);
  });
});

describe('stream order: gaps, duplicates, idempotency by wire_id', () => {
  it('detects gaps and stream_seq conflicts, and ignores a repeated wire_id', () => {
    const p = newProjector();
    const s = task('G1');
    const first = wire('task.available', s, { task_id: 'G1' }, { stream_seq: 1 });
    const b = project(
      p,
      records([
        first,
        wire('task.claimed', s, { task_id: 'G1' }, { sender: 'agent:a', stream_seq: 4 }),
        first,
        wire('task.started', s, { task_id: 'G1' }, { sender: 'agent:a', stream_seq: 3 }),
      ]),
    );
    const st = p.stream(s);
    expect(st).toMatchObject({ gap_count: 1, duplicate_count: 1, seq_conflict_count: 1, event_count: 3, last_stream_seq: 4 });
    expect(st?.gaps).toEqual([{ expected: 2, got: 4, sequence_number: 2 }]);
    expect(b.events.map((e) => e.disposition)).toEqual(['applied', 'applied', 'duplicate', 'applied']);
    // The duplicate changed nothing but the counter.
    expect(p.task(s)?.progress).toBe('started');
  });

  it('applying the same records twice is a no-op the second time (offsets), and a re-sent wire is a duplicate', () => {
    const p = newProjector();
    const s = task('G2');
    const recs = records([wire('task.available', s, { task_id: 'G2' }), wire('task.claimed', s, { task_id: 'G2' }, { sender: 'agent:a' })]);
    project(p, recs);
    const before = JSON.stringify(p.task(s));
    expect(p.apply(recs)).toBe(0);
    const again = project(p, records([recs[1]?.body], { startSeq: 3 }));
    expect(again.events[0]?.disposition).toBe('duplicate');
    expect(JSON.stringify(p.task(s))).toBe(before);
  });

  it('derives stream_seq for Wire 1.0 envelopes found in the log', () => {
    const p = newProjector();
    const b = project(
      p,
      records([
        { wire: '1.0', type: 'task.available', sender: 'system', payload: { task_id: 'V1' } },
        { wire: '1.0', type: 'task.claim', sender: 'agent:ann', payload: { task_id: 'V1' } },
      ]),
    );
    expect(b.events.map((e) => [e.wire_version, e.wire_id, e.stream_id, e.stream_seq, e.disposition])).toEqual([
      ['1.0', 'w10.main.1', 'task:V1:attempt:1', 1, 'applied'],
      ['1.0', 'w10.main.2', 'task:V1:attempt:1', 2, 'applied'],
    ]);
    expect(p.stream('task:V1:attempt:1')?.gap_count).toBe(0);
    expect(p.task('task:V1:attempt:1')?.claim?.agent).toBe('ann');
  });

  it('records undecodable and invalid records without touching any state', () => {
    const p = newProjector();
    const s = task('I1');
    project(p, records([wire('task.available', s, { task_id: 'I1' })]));
    const state = JSON.stringify({ t: p.task(s), st: p.stream(s) });
    const b = project(p, [
      { topic: 'main', sequence_number: 2, consensus_timestamp: iso(T0), body: undefined, decode_error: 'Unexpected token' },
      { topic: 'main', sequence_number: 3, consensus_timestamp: iso(T0), body: { wire: '1.1', type: 'task.claimed', stream_id: s, payload: {} } },
      { topic: 'main', sequence_number: 4, consensus_timestamp: iso(T0), body: wire('task.claimed', s, { task_id: 'I1' }, { sender: 'agent:x', wire_id: 'bad id with spaces' }) },
    ]);
    expect(b.events.map((e) => e.disposition)).toEqual(['invalid', 'invalid', 'invalid']);
    expect(b.events[0]?.reason).toMatch(/not JSON/);
    expect(b.events[1]?.reason).toMatch(/\/wire_id is required/);
    expect(b.offsets).toEqual([{ topic: 'main', from: 1, to: 4 }]);
    expect(JSON.stringify({ t: p.task(s), st: p.stream(s) })).toBe(state);
  });
});
