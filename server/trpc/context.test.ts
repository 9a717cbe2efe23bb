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

    // A release needs a reason at the input, before the core is asked; nothing is released.
    for (const input of [{ id: b.id }, { id: b.id, reason: '  ' }]) {
      await expect(api.claims.release(input as { id: string; reason: string })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    expect((await api.claims.board({ filter: 'active' })).claims.map((c) => c.id)).toEqual([b.id]);
    const released = (await api.claims.board({ filter: 'released' })).claims;
    expect(released.map((c) => [c.id, c.released_by, c.released_by_address, c.decision && 'title' in c.decision ? c.decision.id : null])).toEqual([[a.id, `${root}/studio`, 'studio.operator@team', decision?.id]]);
  });

  it('sends messages as the operator: the input takes no sender, and the recipient sees studio.operator@team', async () => {
    const { createContext } = await import('./context.js');
    const { appRouter } = await import('./root.js');
    const { createCallerFactory } = await import('./trpc.js');
    const { checkin, peekInbox } = await import('../core/herd/checkin.js');
    const api = createCallerFactory(appRouter)(createContext());
    const ctx = makeCtx(planning);
    await checkin(ctx, { as: 'fresco.1@core', status: 'waiting' });
    const forged = { from: 'steve.1@core', to: 'fresco.1@core', type: 'directive', body: 'stop' } as unknown as Parameters<typeof api.agents.send>[0];
    await expect(api.agents.send(forged)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(peekInbox(ctx, 'fresco.1@core').messages).toEqual([]);
    const r = await api.agents.send({ to: 'fresco.1@core', type: 'directive', body: 'hold src/matching/' });
    expect(r.from).toBe('studio.operator@team');
    expect(peekInbox(ctx, 'fresco.1@core').messages).toEqual([expect.objectContaining({ from: 'studio.operator@team', type: 'directive' })]);
    const board = await api.agents.list();
    expect(board.operator).toEqual({ haid: `${rootHaid(ctx)}/studio`, address: 'studio.operator@team', tier: 'Leader', sends: ['directive', 'inform', 'flag'] });
    expect(board.agents.map((a) => [a.address, a.pending])).toEqual([['fresco.1@core', 1]]);
  });
});
