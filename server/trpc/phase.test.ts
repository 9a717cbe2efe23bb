/** The phase board through tRPC (one core call, read-only) and the live topic that keeps it current. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../core/context.js';
import { importGsd } from '../core/gsd/importer.js';
import { phaseProject } from '../core/phase/_testkit.js';
import { initPlanning } from '../core/planning/init.js';
import { fixedClock, sequentialIds } from '../core/ports.js';
import { planningChanges } from './live.js';
import { appRouter } from './root.js';
import { createCallerFactory } from './trpc.js';

const createCaller = createCallerFactory(appRouter);
const dirs: string[] = [];
const aborts: AbortController[] = [];
afterEach(() => {
  for (const a of aborts.splice(0)) a.abort();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function project(imported = true): Ctx {
  const root = phaseProject();
  dirs.push(root);
  const ctx = makeCtx(path.join(root, '.planning'), { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('t') });
  initPlanning(ctx);
  if (imported) importGsd(ctx);
  return ctx;
}

describe('phase.board', () => {
  it('shows the current phase as a board with brief tokens, and writes nothing but the read model', async () => {
    const ctx = project();
    const log = fs.readFileSync(ctx.paths.protocolLog, 'utf8');
    const api = createCaller({ core: ctx });
    const b = await api.phase.board();
    expect(b).toMatchObject({ imported: true, phase: '01', columns: ['waiting', 'ready', 'claimed', 'running', 'done', 'failed'] });
    expect(b.phases.map((p) => [p.phase, p.dir, p.plans])).toEqual([
      ['01', '01-core', 5],
      ['02', '02-api', 1],
      ['quick', 'quick/001-typo', 1],
    ]);
    expect(b.plans.map((p) => [p.id, p.status])).toEqual([
      ['01-01', 'ready'],
      ['01-05', 'ready'],
      ['01-02', 'waiting'],
      ['01-03', 'waiting'],
      ['01-04', 'waiting'],
    ]);
    for (const p of b.plans) expect(p.brief_tokens).toBeGreaterThan(50);
    expect((await api.phase.board({ phase: '02' })).plans.map((p) => p.id)).toEqual(['02-01']);
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8')).toBe(log);
  });

  it('says when nothing was imported, and refuses a phase id that is not one', async () => {
    const api = createCaller({ core: project(false) });
    expect(await api.phase.board()).toMatchObject({ imported: false, plans: [], phases: [] });
    await expect(api.phase.board({ phase: '../x' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('the live topic of a phase run', () => {
  it('fires for the task list and for a recorded result', async () => {
    const ctx = project();
    const ac = new AbortController();
    aborts.push(ac);
    const changes = planningChanges(ctx, ac.signal);
    expect(((await changes.next()).value as { topics: string[] }).topics).toContain('phase');
    let next = changes.next();
    await new Promise((r) => setTimeout(r, 50));
    fs.mkdirSync(ctx.paths.taskResultsDir, { recursive: true });
    fs.writeFileSync(path.join(ctx.paths.taskResultsDir, '01-01.a1.json'), '{}');
    expect(((await next).value as { topics: string[] }).topics).toEqual(['phase']);
    next = changes.next();
    await new Promise((r) => setTimeout(r, 50));
    fs.appendFileSync(ctx.paths.gsdTasks, '\n');
    expect(((await next).value as { topics: string[] }).topics).toEqual(['phase']);
  });
});
