/**
 * The phase run in process, on the real file wire log and the real SQLite read model: the ready
 * queue, start / done (claim, wire attempt, brief, typed result, capsule, ledger), the planted
 * overlap, lease expiry and retries, and the refusals that must leave the tree as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../context.js';
import { listClaims, makeClaim } from '../claims/index.js';
import { readCapsule } from '../capsules/capsules.js';
import { HeimdallError } from '../errors.js';
import { gsdBrief } from '../gsd/brief.js';
import { hashTree } from '../gsd/_testkit.js';
import { importGsd, readTasksFile, tasksFilePath } from '../gsd/importer.js';
import { readLedger } from '../ledger/ledger.js';
import { validateMessage } from '../messages/validate.js';
import { initPlanning } from '../planning/init.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { replay } from '../wire/listener.js';
import { emitWires } from '../wire/producer.js';
import { viewTask } from '../wire/reducers/task.js';
import type { WireLog } from '../wire/log.js';
import { FileWireLog } from '../../stream/fileLog.js';
import { PrismaReadModelStore, dumpReadModel } from '../../db/readModel.js';
import { phaseProject, writeSummary } from './_testkit.js';
import { type PlanState } from './model.js';
import { type WirePorts, catchUpWire, checkWave, gsdDone, gsdReady, gsdStart } from './run.js';

const T0 = Date.parse('2026-06-11T12:00:00Z');
let project: string;
let clock: ReturnType<typeof fixedClock>;
let ctx: Ctx;
let wire: WirePorts & { store: PrismaReadModelStore };
const ALICE = 'alice.1@core';
const BOB = 'bob.1@core';

beforeEach(async () => {
  project = phaseProject();
  clock = fixedClock(T0);
  ctx = makeCtx(path.join(project, '.planning'), { clock, ids: sequentialIds('t') });
  initPlanning(ctx);
  importGsd(ctx);
  wire = {
    log: new FileWireLog(ctx.paths.wireDir, { fsync: false, now: () => ctx.clock.now() }),
    store: await PrismaReadModelStore.open({ wireDir: ctx.paths.wireDir }),
  };
});

afterEach(async () => {
  await wire.store.close();
  await wire.log.close();
  fs.rmSync(project, { recursive: true, force: true });
});

/** Every file of the project except the read model (a derived mirror the catch-up may touch). */
function snapshot(): Record<string, string> {
  const all = hashTree(project);
  return Object.fromEntries(Object.entries(all).filter(([f]) => !/read-model\.db/.test(f)));
}

async function thrownAsync(p: Promise<unknown>): Promise<HeimdallError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof HeimdallError) return e;
    throw e;
  }
  throw new Error('expected a HeimdallError');
}

function plans(r: { phases: { waves: { plans: PlanState[] }[] }[] }): Record<string, PlanState> {
  return Object.fromEntries(r.phases.flatMap((p) => p.waves.flatMap((w) => w.plans)).map((s) => [s.id, s]));
}

describe('gsd ready', () => {
  it('lists the first wave and why every other plan waits: dependencies, earlier phases', async () => {
    const r = await gsdReady(ctx, wire, { haid: ALICE });
    expect(r.ready).toEqual(['01-01', '01-05', 'quick-001']);
    expect(r.complete).toBe(false);
    const s = plans(r);
    expect(s['01-02']?.reasons).toEqual([{ kind: 'dependency', plan: '01-01', status: 'ready' }]);
    expect(s['01-04']?.reasons.map((x) => x.kind === 'dependency' && x.plan)).toEqual(['01-02', '01-03']);
    // GSD runs phases in roadmap order; quick tasks stand apart.
    expect(s['02-01']?.reasons).toEqual([{ kind: 'phase', phase: '01', open: ['01-01', '01-05', '01-02', '01-03', '01-04'] }]);
    expect(s['quick-001']?.status).toBe('ready');
    expect(r.phases.map((p) => [p.phase, p.waves.map((w) => w.wave)])).toEqual([
      ['01', [1, 2, 3]],
      ['02', [1]],
      ['quick', [1]],
    ]);
    // Every plan claims its own SUMMARY, so even a plan without files has a claim of its own.
    expect(s['01-05']?.surfaces).toEqual(['.planning/phases/01-core/01-05-SUMMARY.md']);
    expect(s['01-02']?.surfaces).toEqual(['src/core/index.ts', 'src/core/parser.ts', '.planning/phases/01-core/01-02-SUMMARY.md']);
  });

  it('reports a hand-edited result file by name and leaves it as it is', async () => {
    fs.mkdirSync(ctx.paths.taskResultsDir, { recursive: true });
    const file = path.join(ctx.paths.taskResultsDir, '01-01.a1.json');
    fs.writeFileSync(file, '{"plan": "01-01", "attempt": 1, "status": "great"}');
    const e = await thrownAsync(gsdReady(ctx, wire));
    expect(e.code).toBe('environment');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(/is not a task result .*left untouched/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"plan": "01-01", "attempt": 1, "status": "great"}');
  });

  it('refuses a tree that was never imported, an unknown phase, and changes nothing', async () => {
    fs.rmSync(tasksFilePath(ctx));
    const before = snapshot();
    const e = await thrownAsync(gsdReady(ctx, wire));
    expect(e.code).toBe('environment');
    expect(e.message).toMatch(/no GSD import .*run heimdall import gsd/);
    expect(snapshot()).toEqual(before);
    importGsd(ctx);
    expect((await thrownAsync(gsdReady(ctx, wire, { phase: '07' }))).message).toMatch(/no phase "07" .*phases: 01, 02, quick/);
  });
});

describe('gsd start and done', () => {
  it('start claims the write set and the SUMMARY, opens attempt 1 on the wire with the claim as lease, and logs the brief', async () => {
    const r = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    expect(r).toMatchObject({ plan: '01-01', attempt: 1, resumed: false, stream_id: 'task:01-01:attempt:1' });
    expect(r.claim.task).toBe('01-01');
    expect(r.claim.surfaces).toEqual(['src/core/base.ts', '.planning/phases/01-core/01-01-SUMMARY.md']);
    expect(r.lease_expires_at).toBe('2026-06-11T13:00:00Z');
    // The brief is exactly what `heimdall brief gsd` gives, and the ledger counted its text.
    const brief = gsdBrief(ctx, '01-01');
    expect(r.brief.counted_text).toBe(brief.counted_text);
    const line = readLedger(ctx).entries.find((e) => e.msg_id === 'gsd.01-01.a1.brief');
    expect(line).toMatchObject({ kind: 'gsd_brief', phase: '01', plan: '01-01', source: 'tokenizer', tokens: ctx.tokenizer.count(brief.counted_text) });
    expect(line?.tokens).toBe(brief.total_tokens);
    // The wire: available, claimed (lease = the claim's expiry), started.
    await catchUpWire(ctx, wire);
    const [run] = await wire.store.tasks({ task_id: '01-01' });
    const v = viewTask(run as never, clock.now());
    expect(v).toMatchObject({ status: 'started', claimed_by: r.agent.haid, lease_expires_at: '2026-06-11T13:00:00.000Z', attempt: 1 });
    const s = plans(await gsdReady(ctx, wire, { haid: BOB }));
    expect(s['01-01']).toMatchObject({ status: 'running', holder: { haid: r.agent.haid, address: ALICE, claim: r.claim.id } });
    expect(s['01-01']?.lease_expires_at).toBe('2026-06-11T13:00:00.000Z');
  });

  it('done records a valid task_result, writes the capsule from the SUMMARY, logs both, releases the claim and frees the dependents', async () => {
    const started = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    writeSummary(project, '01-01');
    clock.advance(60_000);
    const d = await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass', commit: 'a2ef507', criteria: [1] });
    expect(d).toMatchObject({ plan: '01-01', attempt: 1, status: 'pass', event: 'task.complete', released: [started.claim.id], recovered: false });
    expect(validateMessage(d.result)).toEqual({ valid: true, errors: [] });
    expect(d.result).toMatchObject({ type: 'task_result', task: '01-01', status: 'pass', capsule: '01-01', commit: 'a2ef507', criteria: [1] });
    // The capsule is what the import writes for that SUMMARY: a re-import changes nothing.
    expect(readCapsule(ctx, '01-01').text).toMatch(/^# 01-01\nwhat: Base types done, with tests/);
    expect(readTasksFile(tasksFilePath(ctx))?.owned.capsules).toContain('01-01');
    const again = importGsd(ctx).report;
    expect(again.capsules).toMatchObject({ written: 0 });
    expect(again.issues.filter((i) => i.kind === 'capsule_conflict')).toEqual([]);
    // Both messages on the ledger, counted from their text.
    const lines = readLedger(ctx).entries.filter((e) => e.plan === '01-01' && e.kind !== 'gsd_brief');
    expect(lines.map((l) => [l.kind, l.tokens])).toEqual([
      ['task_result', ctx.tokenizer.count(JSON.stringify(d.result))],
      ['capsule', ctx.tokenizer.count(readCapsule(ctx, '01-01').text)],
    ]);
    expect(d.ledger.tokens).toBe(lines[0]!.tokens + lines[1]!.tokens);
    expect(listClaims(ctx).active).toBe(0);
    await catchUpWire(ctx, wire);
    const [run] = await wire.store.tasks({ task_id: '01-01' });
    expect(viewTask(run as never, clock.now())).toMatchObject({ status: 'complete', verification_status: 'passed', output_ref: '.planning/phases/01-core/01-01-SUMMARY.md' });
    const r = await gsdReady(ctx, wire, { haid: BOB });
    expect(r.ready).toEqual(['01-05', '01-02', '01-03', 'quick-001']);
    expect(plans(r)['01-01']).toMatchObject({ status: 'done', done_by: 'wire', last_result: { status: 'pass', attempt: 1 } });
    // A result the message schema refuses is refused before anything is written.
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-05' });
    const before = snapshot();
    const bad = await thrownAsync(gsdDone(ctx, wire, { haid: ALICE, plan: '01-05', status: 'pass', commit: 'not-hex' }));
    expect(bad.code).toBe('invalid');
    expect(bad.message).toMatch(/\/commit must match pattern/);
    expect(snapshot()).toEqual(before);
  });

  it('the planted overlap: the second wave shares a file, check-wave names it, and one start wins', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' });
    const wave = await checkWave(ctx, wire, { wave: 2 });
    expect(wave).toMatchObject({ phase: '01', wave: 2, ok: false, overlaps: [{ plans: ['01-02', '01-03'], files: [['src/core/index.ts', 'src/core/index.ts']] }] });
    expect((await checkWave(ctx, wire, { wave: 1, phase: '01' })).ok).toBe(true);
    const a = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-02' });
    // Bob sees why 01-03 waits: who holds which file, for which task.
    const s = plans(await gsdReady(ctx, wire, { haid: BOB }));
    expect(s['01-03']?.status).toBe('waiting');
    expect(s['01-03']?.reasons).toEqual([
      { kind: 'claim', holder: a.agent.haid, address: ALICE, task: '01-02', claim: a.claim.id, expires_at: a.claim.expires_at, overlaps: [['src/core/index.ts', 'src/core/index.ts']] },
    ]);
    // Alice's own claims never block her.
    expect(plans(await gsdReady(ctx, wire, { haid: ALICE }))['01-03']?.status).toBe('ready');
    const before = snapshot();
    const e = await thrownAsync(gsdStart(ctx, wire, { haid: BOB, plan: '01-03' }));
    expect(e.code).toBe('conflict');
    expect(e.message).toContain(ALICE);
    expect(e.message).toContain('for task 01-02');
    expect(e.message).toContain('src/core/index.ts');
    expect(snapshot()).toEqual(before);
    // The same plan, already started by someone else.
    const same = await thrownAsync(gsdStart(ctx, wire, { haid: BOB, plan: '01-02' }));
    expect(same.message).toMatch(/01-02 is already started by alice\.1@core .*claim c-\d+ for task 01-02/);
    expect(snapshot()).toEqual(before);
  });

  it('refuses done by an agent that does not hold the plan, an unknown plan, and a plan nobody started; nothing changes', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    const before = snapshot();
    const notHolder = await thrownAsync(gsdDone(ctx, wire, { haid: BOB, plan: '01-01', status: 'pass' }));
    expect(notHolder.code).toBe('forbidden');
    expect(notHolder.message).toMatch(/01-01 is held by alice\.1@core .*only the agent holding a plan records its result/);
    const unknown = await thrownAsync(gsdStart(ctx, wire, { haid: BOB, plan: '09-09' }));
    expect(unknown.code).toBe('not_found');
    expect(unknown.message).toMatch(/no plan "09-09" .*plans: 01-01, 01-02/);
    const nobody = await thrownAsync(gsdDone(ctx, wire, { haid: BOB, plan: '01-05', status: 'pass' }));
    expect(nobody.code).toBe('forbidden');
    expect(nobody.message).toMatch(/does not hold 01-05: start it first/);
    const waiting = await thrownAsync(gsdStart(ctx, wire, { haid: BOB, plan: '01-04' }));
    expect(waiting.code).toBe('conflict');
    expect(waiting.message).toMatch(/waits on 01-02 \(waiting\); waits on 01-03 \(waiting\)/);
    const status = await thrownAsync(gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'great' as never }));
    expect(status.code).toBe('invalid');
    expect(snapshot()).toEqual(before);
  });

  it('a lease that runs out makes the abandoned plan ready again; the retry is attempt 2 and the old holder can no longer finish it', async () => {
    const first = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01', ttlMinutes: 5 });
    clock.advance(4 * 60_000);
    expect(plans(await gsdReady(ctx, wire, { haid: BOB }))['01-01']?.status).toBe('running');
    clock.advance(2 * 60_000);
    const s = plans(await gsdReady(ctx, wire, { haid: BOB }))['01-01'] as PlanState;
    expect(s.status).toBe('ready');
    expect(s.abandoned).toEqual({ attempt: 1, by: first.agent.haid, lease_expired_at: '2026-06-11T12:05:00.000Z' });
    const retry = await gsdStart(ctx, wire, { haid: BOB, plan: '01-01' });
    expect(retry).toMatchObject({ attempt: 2, stream_id: 'task:01-01:attempt:2', resumed: false });
    const late = await thrownAsync(gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' }));
    expect(late.code).toBe('forbidden');
    await gsdDone(ctx, wire, { haid: BOB, plan: '01-01', status: 'pass' });
    await catchUpWire(ctx, wire);
    const runs = (await wire.store.tasks({ task_id: '01-01' })).map((t) => viewTask(t, clock.now()));
    expect(runs.map((v) => [v.attempt, v.status])).toEqual([
      [1, 'stale'],
      [2, 'complete'],
    ]);
  });

  it('an abandoned holder may still finish when nobody took over', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01', ttlMinutes: 1 });
    clock.advance(10 * 60_000);
    const d = await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' });
    expect(d.event).toBe('task.complete');
    expect(plans(await gsdReady(ctx, wire))['01-01']?.status).toBe('done');
  });

  it('fail leaves the plan failed (dependents wait) until a start retries it; partial puts it back in the queue', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'fail', note: 'tests red' });
    let r = await gsdReady(ctx, wire, { haid: BOB });
    expect(plans(r)['01-01']).toMatchObject({ status: 'failed', ready: false, reasons: [{ kind: 'failed', attempt: 1 }], last_result: { status: 'fail' } });
    expect(plans(r)['01-02']?.reasons).toEqual([{ kind: 'dependency', plan: '01-01', status: 'failed' }]);
    expect(r.ready).not.toContain('01-01');
    const retry = await gsdStart(ctx, wire, { haid: BOB, plan: '01-01' });
    expect(retry.attempt).toBe(2);
    await gsdDone(ctx, wire, { haid: BOB, plan: '01-01', status: 'partial', note: 'half of it' });
    r = await gsdReady(ctx, wire, { haid: ALICE });
    expect(plans(r)['01-01']).toMatchObject({ status: 'ready', attempts: 2, last_result: { status: 'partial', attempt: 2 } });
    expect((await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' })).attempt).toBe(3);
  });

  it('start again by the holder renews the claim and the wire lease together, on the same attempt', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01', ttlMinutes: 10 });
    clock.advance(8 * 60_000);
    const again = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01', ttlMinutes: 10 });
    expect(again).toMatchObject({ attempt: 1, resumed: true, lease_expires_at: '2026-06-11T12:18:00Z' });
    clock.advance(5 * 60_000);
    const s = plans(await gsdReady(ctx, wire, { haid: BOB }))['01-01'];
    expect(s).toMatchObject({ status: 'running', lease_expires_at: '2026-06-11T12:18:00.000Z' });
    expect(s?.holder?.expires_at).toBe('2026-06-11T12:18:00Z');
  });

  it('a start whose wire append fails gives the claim back', async () => {
    const broken: WireLog = Object.assign(Object.create(wire.log), {
      appendBatch: async () => {
        throw new HeimdallError('environment', 'the wire log is on a full disk');
      },
    });
    const e = await thrownAsync(gsdStart(ctx, { log: broken, store: wire.store }, { haid: ALICE, plan: '01-01' }));
    expect(e.message).toMatch(/full disk/);
    expect(listClaims(ctx).active).toBe(0);
    expect(listClaims(ctx, { history: true }).claims[0]?.reason).toMatch(/gsd start 01-01 did not complete/);
    expect(await wire.store.tasks()).toEqual([]);
    expect(plans(await gsdReady(ctx, wire, { haid: BOB }))['01-01']?.status).toBe('ready');
  });

  it('a done interrupted after its wire event can be run again and finishes the rest', async () => {
    const s = await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    // What done appends first, as if the process died right after it.
    await emitWires(ctx, wire.log, [
      { wire: '1.1', stream_id: 'task:01-01:attempt:1', type: 'task.complete', sender: `agent:${s.agent.haid}`, payload: { task_id: '01-01', attempt: 1, agent: s.agent.haid, verification_status: 'passed' } },
    ]);
    const d = await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' });
    expect(d).toMatchObject({ recovered: true, event: null, released: [s.claim.id] });
    const twice = await thrownAsync(gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' }));
    expect(twice.message).toMatch(/does not hold 01-01|already recorded/);
  });

  it('a claim made by hand on a plan file holds the plan back for everyone else', async () => {
    const root = makeClaim(ctx, { haid: BOB, surfaces: ['src/core/**'], task: 'refactor' });
    const s = plans(await gsdReady(ctx, wire, { haid: ALICE }))['01-01'];
    expect(s?.reasons).toEqual([expect.objectContaining({ kind: 'claim', task: 'refactor', claim: root.claim.id, overlaps: [['src/core/base.ts', 'src/core/**']] })]);
  });

  it('the wire replay equals the incrementally built read model', async () => {
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-01' });
    await gsdDone(ctx, wire, { haid: ALICE, plan: '01-01', status: 'pass' });
    await gsdStart(ctx, wire, { haid: ALICE, plan: '01-02' });
    await gsdStart(ctx, wire, { haid: BOB, plan: '01-05' });
    await gsdDone(ctx, wire, { haid: BOB, plan: '01-05', status: 'partial' });
    await gsdReady(ctx, wire);
    const incremental = await dumpReadModel(wire.store.db);
    expect((incremental.task_run_state as unknown[]).length).toBe(3);
    await replay(ctx, wire.log, wire.store);
    expect(await dumpReadModel(wire.store.db)).toEqual(incremental);
  });
});
