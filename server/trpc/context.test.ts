/**
 * Studio's context comes from the composition root: the process runtime finds the tree (here
 * HEIMDALL_PLANNING_DIR, set before the runtime is first built in this test process), and every
 * write made from the dashboard is authored by Studio's operator `{root}/studio`, while a read
 * writes nothing (not even the root HAID).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeClaim } from '../core/claims/claims.js';
import { makeCtx } from '../core/context.js';
import { rootHaid } from '../core/identity/registry.js';
import { initPlanning } from '../core/planning/init.js';
import { tmpDir } from '../testing/fixtures.js';

const planning = path.join(tmpDir(), '.planning');

const saved = process.env.HEIMDALL_PLANNING_DIR;
beforeAll(() => {
  initPlanning(makeCtx(planning));
  process.env.HEIMDALL_PLANNING_DIR = planning;
});
afterAll(() => {
  if (saved === undefined) delete process.env.HEIMDALL_PLANNING_DIR;
  else process.env.HEIMDALL_PLANNING_DIR = saved;
});

describe('the tRPC context', () => {
  it('reads write nothing; writes are authored by {root}/studio; a claim is released by id as a decision of Studio', async () => {
    const { createContext } = await import('./context.js');
    const { appRouter } = await import('./root.js');
    const { createCallerFactory } = await import('./trpc.js');
    const api = createCallerFactory(appRouter)(createContext());
    const haids = path.join(planning, 'ledger/haids.json');
    expect(await api.symbols.list()).toEqual({});
    expect(fs.existsSync(haids)).toBe(false);
    await api.blackboard.set({ key: 'dev_port', value: '5173' });
    const root = rootHaid(makeCtx(planning));
    const line = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8').trimEnd().split('\n').find((l) => l.includes('\tblackboard\tset\t'));
    expect(line?.split('\t')[4]).toBe(`${root}/studio`);

    const ctx = makeCtx(planning);
    const a = makeClaim(ctx, { haid: `${root}/claude-code.s1`, surfaces: ['src/**'], task: 'T-1' }).claim;
    const b = makeClaim(ctx, { haid: `${root}/claude-code.s1`, surfaces: ['docs/**'], task: 'T-2' }).claim;
    const r = await api.claims.release({ id: a.id, reason: 'agent went silent' });
    expect(r.released.map((c) => [c.id, c.released_by])).toEqual([[a.id, `${root}/studio`]]);
    expect((await api.claims.list()).claims.map((c) => c.id)).toEqual([b.id]);
    const decision = (await api.claims.decisions()).at(-1);
    expect(decision).toMatchObject({ haid: `${root}/studio`, title: `Released the claim of ${root}/claude-code.s1` });
  });
});
