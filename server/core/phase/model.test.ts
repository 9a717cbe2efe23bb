/** The pure derivation: surfaces of a plan, phase order, and statuses from hand-built inputs. */
import { describe, expect, it } from 'vitest';
import type { ClaimView } from '../claims/index.js';
import { globsOverlap } from '../claims/index.js';
import type { GsdTask, TasksFile } from '../gsd/importer.js';
import type { TaskRun } from '../wire/reducers/task.js';
import { comparePhases, derivePlans, planSurfaces, summaryPath } from './model.js';

const NOW = Date.parse('2026-06-11T12:00:00Z');

function task(id: string, o: Partial<GsdTask> = {}): GsdTask {
  const [phase, plan] = id.split('-') as [string, string];
  return {
    id,
    phase,
    phase_dir: `${phase}-x`,
    plan,
    kind: 'phase',
    wave: 1,
    status: 'todo',
    depends: [],
    write_set: [`src/${id}.ts`],
    requirements: [],
    plan_file: `phases/${phase}-x/${id}-PLAN.md`,
    summary_file: null,
    capsule: null,
    issues: [],
    ...o,
  };
}

function tasksFile(tasks: GsdTask[]): TasksFile {
  return { version: '2.0.0', source: 'gsd', planning_dir: '/p/.planning', path_ids: { prefix: 'F', skipped: [] }, tasks, plan_files: [], owned: { symbols: {}, capsules: [] } };
}

function claim(id: string, haid: string, task: string, surfaces: string[], status: ClaimView['status'] = 'active'): ClaimView {
  return { id, haid, surfaces, task, task_ref: `${haid}:${task}`, created_at: '2026-06-11T11:00:00Z', expires_at: '2026-06-11T13:00:00Z', status, address: null };
}

function run(taskId: string, attempt: number, o: Partial<TaskRun>): TaskRun {
  return {
    stream_id: `task:${taskId}:attempt:${attempt}`,
    task_id: taskId,
    attempt,
    title: null,
    role: null,
    capacity_units: 1,
    released: true,
    released_ms: NOW,
    progress: null,
    claim: null,
    last_heartbeat_ms: null,
    plan_ref: null,
    blocker: null,
    output_ref: null,
    verification_status: null,
    completed_by: null,
    dependencies: [],
    contracts_ready: [],
    artifacts: [],
    concerns: [],
    lost_claims: [],
    lost_claim_count: 0,
    expired_claims: [],
    rejected: [],
    rejected_count: 0,
    last: { wire_id: 'w', disposition: 'applied' },
    ...o,
  };
}

describe('plan surfaces', () => {
  it('are the write set plus the SUMMARY the executor writes, beside its PLAN, bare PLAN.md and quick tasks included', () => {
    const tf = tasksFile([]);
    expect(summaryPath(tf, task('01-02'))).toBe('.planning/phases/01-x/01-02-SUMMARY.md');
    expect(summaryPath(tf, task('04-plan', { plan_file: 'phases/04-x/PLAN.md' }))).toBe('.planning/phases/04-x/SUMMARY.md');
    expect(summaryPath(tf, task('quick-001', { plan_file: 'quick/001-fix/001-PLAN.md' }))).toBe('.planning/quick/001-fix/001-SUMMARY.md');
    expect(summaryPath(tf, task('01-01', { summary_file: 'phases/01-x/01-01-SUMMARY.md' }))).toBe('.planning/phases/01-x/01-01-SUMMARY.md');
    expect(planSurfaces(tf, task('01-02', { write_set: ['./src/a.ts', 'src/a.ts', 'tests/'] }))).toEqual(['src/a.ts', 'tests/**', '.planning/phases/01-x/01-02-SUMMARY.md']);
  });

  it('a write set longer than one claim allows is widened by folders, never narrowed', () => {
    const files = [...Array.from({ length: 50 }, (_, i) => `src/a/f${i}.ts`), ...Array.from({ length: 30 }, (_, i) => `src/b/g${i}.ts`), 'README.md'];
    const s = planSurfaces(tasksFile([]), task('01-01', { write_set: files }));
    expect(s.length).toBeLessThanOrEqual(64);
    expect(s).toContain('src/a/**');
    // Every file is still covered: no collision can be missed.
    for (const f of files) expect(s.some((g) => globsOverlap(g, f))).toBe(true);
  });

  it('a path the glob language refuses is an error naming the plan', () => {
    expect(() => planSurfaces(tasksFile([]), task('01-01', { write_set: ['../outside.ts'] }))).toThrow(/plan 01-01: its write set names "..\/outside.ts"/);
  });
});

describe('phases', () => {
  it('run in roadmap order, decimal phases between, quick tasks last', () => {
    expect(['quick', '03', '02.1', '02', '10'].sort(comparePhases)).toEqual(['02', '02.1', '03', '10', 'quick']);
  });
});

describe('derivePlans', () => {
  const tasks = tasksFile([task('01-01'), task('01-02', { depends: ['01-01'], wave: 2 }), task('02-01'), task('quick-001', { phase: 'quick', kind: 'quick' })]);
  const base = { tasks, claims: [], runs: [], results: [], now: NOW };

  it('marks the first wave ready, the rest waiting with reasons', () => {
    const s = derivePlans(base);
    expect(s.map((x) => [x.id, x.status])).toEqual([
      ['01-01', 'ready'],
      ['01-02', 'waiting'],
      ['02-01', 'waiting'],
      ['quick-001', 'ready'],
    ]);
  });

  it('a passed attempt makes a plan done; a claimed one running once started; another agent\'s claim on its files holds it back', () => {
    const s = derivePlans({
      ...base,
      claims: [claim('c-1', 'h/b', '01-02', ['src/01-02.ts', '.planning/phases/01-x/01-02-SUMMARY.md']), claim('c-2', 'h/c', 'manual', ['src/**'])],
      runs: [
        run('01-01', 1, { progress: 'complete', verification_status: 'passed', completed_by: 'h/a' }),
        run('01-02', 1, { progress: 'started', claim: { agent: 'h/b', role: null, topic: 'main', sequence_number: 5, wire_id: 'w', at_ms: NOW, lease_expires_ms: NOW + 60_000, lease_ms: 60_000, units_reserved: null } }),
      ],
      caller: 'h/a',
    });
    const by = Object.fromEntries(s.map((x) => [x.id, x]));
    expect(by['01-01']).toMatchObject({ status: 'done', done_by: 'wire' });
    expect(by['01-02']).toMatchObject({ status: 'running', holder: { haid: 'h/b', claim: 'c-1' }, lease_expires_at: new Date(NOW + 60_000).toISOString() });
    expect(by['02-01']?.reasons.map((r) => r.kind)).toEqual(['phase', 'claim']);
    // The same claims seen by their holder do not block it.
    const forC = derivePlans({ ...base, claims: [claim('c-2', 'h/c', 'manual', ['src/**'])], caller: 'h/c' });
    expect(forC.find((x) => x.id === '01-01')?.status).toBe('ready');
    // An expired or retired claim blocks nobody.
    const stale = derivePlans({ ...base, claims: [claim('c-2', 'h/c', 'manual', ['src/**'], 'expired'), claim('c-3', 'h/d', 'x', ['src/**'], 'retired')] });
    expect(stale.find((x) => x.id === '01-01')?.status).toBe('ready');
  });

  it('an attempt still leased on the wire but without a claim is abandoned: ready again, with the old holder named', () => {
    const s = derivePlans({
      ...base,
      runs: [run('01-01', 1, { progress: 'started', claim: { agent: 'h/a', role: null, topic: 'main', sequence_number: 3, wire_id: 'w', at_ms: NOW - 120_000, lease_expires_ms: NOW - 60_000, lease_ms: 60_000, units_reserved: null } })],
    });
    expect(s[0]).toMatchObject({ id: '01-01', status: 'ready', abandoned: { attempt: 1, by: 'h/a', lease_expired_at: new Date(NOW - 60_000).toISOString() } });
  });

  it('a plan imported with its SUMMARY is done and frees its dependents', () => {
    const s = derivePlans({ ...base, tasks: tasksFile([task('01-01', { status: 'done' }), task('01-02', { depends: ['01-01'] })]) });
    expect(s.map((x) => [x.id, x.status, x.done_by])).toEqual([
      ['01-01', 'done', 'import'],
      ['01-02', 'ready', null],
    ]);
  });
});
