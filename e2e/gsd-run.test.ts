/**
 * Issue 13's proof: a real GSD phase (phase 01 of the HYDRA fixture, six plans in four waves, copied
 * from HEIMDALL_GSD_FIXTURES with its SUMMARYs taken out, as before it ran) driven by three agent
 * processes in parallel, each a real process with its own HEIMDALL_AGENT looping
 * ready -> start -> (write SUMMARY, edit STATE.md through edit-shared) -> done through bin/heimdall
 * (e2e/support/gsd-agent.mjs), until the phase is complete.
 *
 * The copy has a planted overlap: 01-03 and 01-05 (wave 2) both list
 * src/hydra/signals/options_math/__init__.py. `check-wave 2` must report it; and the race on it is
 * forced: the two agents that pick those plans stop before `start` (each announces itself with a
 * file) and the test releases both at once, so both starts are attempted while neither plan is held;
 * exactly one may win, and the other must be told the holder and its task. A third agent leaves
 * those two plans alone until the release, so it cannot take one of them first.
 *
 * At the end the wire log replayed into an empty read model equals the read model the agents'
 * processes built incrementally. Bad input is refused with the CLI's exit codes and leaves the
 * tree as it was.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCtx } from '../server/core/context.js';
import { FIXTURES, hashTree, requireFixtures } from '../server/core/gsd/_testkit.js';
import { validateMessage } from '../server/core/messages/validate.js';
import { listenOnce, replay } from '../server/core/wire/listener.js';
import { PrismaReadModelStore, dumpReadModel } from '../server/db/readModel.js';
import { FileWireLog } from '../server/stream/fileLog.js';
import { REPO_ROOT, hermeticEnv, runBin, until } from '../server/testing/fixtures.js';

const AGENT = path.join(REPO_ROOT, 'e2e/support/gsd-agent.mjs');
const PLANTED = 'src/hydra/signals/options_math/__init__.py';
const PHASE_PLANS = ['01-01', '01-02', '01-03', '01-04', '01-05', '01-06'];
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/**
 * Phase 01 of HYDRA as it was before it ran: the tree's documents and phase 01's PLANs, its
 * SUMMARYs moved aside (the agents write them back as their work), and the overlap planted.
 */
function phaseCopy(): { project: string; planning: string; gate: string; summaries: string } {
  requireFixtures();
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-gsd-run-'));
  dirs.push(project);
  const planning = path.join(project, '.planning');
  fs.cpSync(path.join(FIXTURES, '001TMF__HYDRA', '.planning'), planning, { recursive: true });
  const phases = path.join(planning, 'phases');
  for (const d of fs.readdirSync(phases)) if (!d.startsWith('01-')) fs.rmSync(path.join(phases, d), { recursive: true });
  const phaseDir = path.join(phases, fs.readdirSync(phases)[0] as string);
  const gate = path.join(project, 'gate');
  const summaries = path.join(gate, 'summaries');
  fs.mkdirSync(summaries, { recursive: true });
  for (const f of fs.readdirSync(phaseDir).filter((n) => n.endsWith('-SUMMARY.md'))) fs.renameSync(path.join(phaseDir, f), path.join(summaries, f));
  for (const id of ['01-03', '01-05']) {
    const file = path.join(phaseDir, `${id}-PLAN.md`);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('files_modified:\n');
    fs.writeFileSync(file, text.replace('files_modified:\n', `files_modified:\n  - ${PLANTED}\n`));
  }
  return { project, planning, gate, summaries };
}

function heimdall(planning: string, args: string[], agent?: string) {
  return runBin('heimdall', args, { planning, env: agent ? { HEIMDALL_AGENT: agent } : {} });
}

/** Every file of the tree but the read model, a derived mirror that a catch-up may touch. */
function snapshot(project: string): Record<string, string> {
  return Object.fromEntries(Object.entries(hashTree(project)).filter(([f]) => !/read-model\.db/.test(f)));
}

interface AgentEvent {
  agent: string;
  type: 'released' | 'started' | 'refused' | 'done' | 'complete' | 'error';
  plan?: string;
  err?: string;
  haid?: string;
  attempt?: number;
  capsule?: string | null;
}

function events(gate: string): AgentEvent[] {
  return fs
    .readdirSync(gate)
    .filter((f) => f.endsWith('.events.jsonl'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(gate, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AgentEvent),
    );
}

describe('a GSD phase run by three agents', () => {
  it('completes the phase; check-wave reports the planted overlap and start resolves its forced race with exactly one winner', async () => {
    const { project, planning, gate, summaries } = phaseCopy();
    const imported = heimdall(planning, ['import', 'gsd', '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ plans: 6, summaries: 0 });

    // The overlap, before the wave runs.
    const wave = heimdall(planning, ['gsd', 'check-wave', '2']);
    expect(wave.code).toBe(1);
    expect(wave.stdout).toContain(`01-03 and 01-05 both write ${PLANTED}`);
    const waveJson = JSON.parse(heimdall(planning, ['gsd', 'check-wave', '2', '--json']).stdout);
    expect(waveJson).toMatchObject({ phase: '01', wave: 2, ok: false, overlaps: [{ plans: ['01-03', '01-05'], files: [[PLANTED, PLANTED]] }] });
    expect(heimdall(planning, ['gsd', 'check-wave', '3']).code).toBe(0);

    const agents = [
      { name: 'alice', address: 'alice.1@core', prefer: '01-03', barrier: '01-03,01-05', hold: '' },
      { name: 'bob', address: 'bob.1@core', prefer: '01-05', barrier: '01-03,01-05', hold: '' },
      { name: 'carol', address: 'carol.1@core', prefer: '01-02', barrier: '', hold: '01-03,01-05' },
    ];
    const exits = agents.map((a) => {
      const child = spawn(process.execPath, [AGENT, a.name, '01', gate, summaries, a.prefer, a.barrier, a.hold], {
        cwd: project,
        env: hermeticEnv({ HEIMDALL_PLANNING_DIR: planning, HEIMDALL_AGENT: a.address }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let err = '';
      child.stderr?.on('data', (d) => (err += d));
      return new Promise<{ code: number | null; err: string }>((resolve) => child.on('close', (code) => resolve({ code, err })));
    });

    // Both overlapping plans picked, neither started: release the two agents at once.
    await until(() => fs.existsSync(path.join(gate, 'arrived-01-03')) && fs.existsSync(path.join(gate, 'arrived-01-05')), 20);
    const s = JSON.parse(heimdall(planning, ['gsd', 'ready', '--phase', '01', '--json']).stdout);
    const byId = Object.fromEntries(s.phases[0].waves.flatMap((w: { plans: { id: string; status: string }[] }) => w.plans).map((p: { id: string; status: string }) => [p.id, p.status]));
    expect([byId['01-03'], byId['01-05']]).toEqual(['ready', 'ready']);
    fs.writeFileSync(path.join(gate, 'go'), '');

    const results = await Promise.all(exits);
    for (const r of results) expect(r.code, r.err + JSON.stringify(events(gate).filter((e) => e.type === 'error'))).toBe(0);
    const ev = events(gate);

    // The forced race: of the two released starts, exactly one won; the other was told who holds what.
    const raced = ev.filter((e) => e.type === 'released').map((e) => e.agent);
    expect(raced.sort()).toEqual(['alice', 'bob']);
    const firstAfterRelease = raced.map((agent) => {
      const mine = ev.filter((e) => e.agent === agent);
      const i = mine.findIndex((e) => e.type === 'released');
      return mine[i + 1] as AgentEvent;
    });
    const winners = firstAfterRelease.filter((e) => e.type === 'started');
    const losers = firstAfterRelease.filter((e) => e.type === 'refused');
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    const [winner, loser] = [winners[0] as AgentEvent, losers[0] as AgentEvent];
    expect(new Set([winner.plan, loser.plan])).toEqual(new Set(['01-03', '01-05']));
    expect(loser.err).toContain(`for task ${winner.plan}`);
    expect(loser.err).toContain(PLANTED);
    const winnerAddress = agents.find((a) => a.name === winner.agent)?.address as string;
    expect(loser.err?.includes(winner.haid as string) || loser.err?.includes(winnerAddress)).toBe(true);

    // The phase is complete: every plan done exactly once, every claim released.
    const done = ev.filter((e) => e.type === 'done');
    expect(done.map((e) => e.plan).sort()).toEqual(PHASE_PLANS);
    expect(done.every((e) => e.capsule === e.plan)).toBe(true);
    expect(ev.filter((e) => e.type === 'complete')).toHaveLength(3);
    // More than one agent did the work.
    expect(new Set(done.map((e) => e.agent)).size).toBeGreaterThan(1);
    const final = JSON.parse(heimdall(planning, ['gsd', 'ready', '--json']).stdout);
    expect(final).toMatchObject({ complete: true, ready: [], counts: { done: 6, running: 0, claimed: 0, waiting: 0, failed: 0 } });
    const claims = JSON.parse(heimdall(planning, ['claim', 'list', '--json']).stdout);
    expect(claims.active).toBe(0);
    const capsules = JSON.parse(runBin('heimdall-capsule', ['list', '--json'], { planning }).stdout).ids;
    expect(capsules).toEqual(expect.arrayContaining(PHASE_PLANS));
    // `done` wrote each capsule as the import writes it from that SUMMARY: importing again changes none.
    const reimport = JSON.parse(heimdall(planning, ['import', 'gsd', '--json']).stdout);
    expect(reimport).toMatchObject({ summaries: 6, capsules: { total: 6, written: 0, removed: 0 } });
    expect(reimport.issues.filter((i: { kind: string }) => i.kind === 'capsule_conflict')).toEqual([]);

    // STATE.md was edited by the three of them through edit-shared: no line lost.
    const state = fs.readFileSync(path.join(planning, 'STATE.md'), 'utf8');
    for (const id of PHASE_PLANS) expect(state).toMatch(new RegExp(`^- ${id} done by (alice|bob|carol)$`, 'm'));

    // The typed results and the ledger.
    const resultFiles = fs.readdirSync(path.join(planning, 'protocol/results'));
    expect(resultFiles.sort()).toEqual(PHASE_PLANS.map((id) => `${id}.a1.json`));
    for (const f of resultFiles) expect(validateMessage(JSON.parse(fs.readFileSync(path.join(planning, 'protocol/results', f), 'utf8')).message).valid).toBe(true);
    const ledger = fs
      .readFileSync(path.join(planning, 'protocol/ledger.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; plan?: string; tokens: number });
    for (const id of PHASE_PLANS) {
      expect(ledger.filter((l) => l.plan === id && l.kind === 'task_result')).toHaveLength(1);
      expect(ledger.filter((l) => l.plan === id && l.kind === 'gsd_brief').length).toBeGreaterThanOrEqual(1);
    }

    // The wire: replayed from the log, the read model equals the one the agents built as they went.
    const ctx = makeCtx(planning);
    const log = new FileWireLog(ctx.paths.wireDir, { fsync: false });
    const store = await PrismaReadModelStore.open({ wireDir: ctx.paths.wireDir });
    try {
      await listenOnce(ctx, log, store);
      const incremental = await dumpReadModel(store.db);
      const runs = incremental.task_run_state as { task_id: string; status: string }[];
      expect(runs.map((r) => r.task_id).sort()).toEqual(PHASE_PLANS);
      expect(runs.every((r) => r.status === 'complete')).toBe(true);
      await replay(ctx, log, store);
      expect(await dumpReadModel(store.db)).toEqual(incremental);
    } finally {
      await store.close();
      await log.close();
    }
  }, 600_000);
});

describe('bad input to heimdall gsd', () => {
  it('each is a clear error with the CLI exit code, and the tree is left as it was', () => {
    const { project, planning } = phaseCopy();
    // The agents exist (an agent's first call registers it), then a tree that was never imported.
    for (const a of ['alice.1@core', 'bob.1@core']) expect(runBin('heimdall-haid', ['whoami'], { planning, env: { HEIMDALL_AGENT: a } }).code).toBe(0);
    let before = snapshot(project);
    const never = heimdall(planning, ['gsd', 'ready']);
    expect(never.code).toBe(2);
    expect(never.stderr).toMatch(/no GSD import .*run heimdall import gsd/);
    expect(heimdall(planning, ['gsd', 'start', '01-01'], 'alice.1@core').code).toBe(2);
    expect(snapshot(project)).toEqual(before);

    expect(heimdall(planning, ['import', 'gsd']).code).toBe(0);
    const started = heimdall(planning, ['gsd', 'start', '01-01', '--json'], 'alice.1@core');
    expect(started.code, started.stderr).toBe(0);
    const holder = JSON.parse(started.stdout).agent.haid as string;
    // From here on, nothing Bob (or anyone) does wrong may change the tree.
    expect(heimdall(planning, ['gsd', 'ready'], 'bob.1@core').code).toBe(0);
    before = snapshot(project);

    const unknown = heimdall(planning, ['gsd', 'start', '07-07'], 'bob.1@core');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no plan "07-07" in the GSD import .*plans: 01-01, 01-02/);

    const taken = heimdall(planning, ['gsd', 'start', '01-01'], 'bob.1@core');
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`01-01 is already started by alice.1@core [${holder}]`);
    expect(taken.stderr).toMatch(/holds claim c-[a-z0-9]+ for task 01-01 until/);

    const notHolder = heimdall(planning, ['gsd', 'done', '01-01', '--status', 'pass'], 'bob.1@core');
    expect(notHolder.code).toBe(1);
    expect(notHolder.stderr).toMatch(/01-01 is held by alice\.1@core .*only the agent holding a plan records its result/);

    const waiting = heimdall(planning, ['gsd', 'start', '01-04'], 'bob.1@core');
    expect(waiting.code).toBe(1);
    expect(waiting.stderr).toMatch(/cannot start 01-04 .*waits on 01-03/);

    const noWave = heimdall(planning, ['gsd', 'check-wave', '9']);
    expect(noWave.code).toBe(1);
    expect(noWave.stderr).toMatch(/phase 01 has no wave 9; its waves: 1, 2, 3, 4/);

    const badStatus = heimdall(planning, ['gsd', 'done', '01-01', '--status', 'great'], 'alice.1@core');
    expect(badStatus.code).toBe(2);
    expect(badStatus.stderr).toMatch(/--status must be one of pass, fail, partial, got "great"/);
    const badCommit = heimdall(planning, ['gsd', 'done', '01-01', '--status', 'pass', '--commit', 'xyz'], 'alice.1@core');
    expect(badCommit.code).toBe(1);
    expect(badCommit.stderr).toMatch(/task_result is not valid, nothing was recorded: \/commit must match pattern/);
    const noPlan = heimdall(planning, ['gsd', 'start']);
    expect(noPlan.code).toBe(2);
    expect(noPlan.stderr).toMatch(/start needs a PLAN-ID/);
    const badPhase = heimdall(planning, ['gsd', 'ready', '--phase', '42']);
    expect(badPhase.code).toBe(1);
    expect(badPhase.stderr).toMatch(/no phase "42"/);

    expect(snapshot(project)).toEqual(before);
  }, 300_000);
});
