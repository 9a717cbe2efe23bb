import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { initPlanning } from '../core/planning/init.js';
import { tmpCtx } from '../testing/fixtures.js';
import { planningChanges } from './live.js';
import { appRouter } from './root.js';
import { createCallerFactory } from './trpc.js';

const createCaller = createCallerFactory(appRouter);

function caller() {
  const ctx = tmpCtx();
  initPlanning(ctx);
  return { ctx, api: createCaller({ core: ctx }) };
}

describe('core errors become TRPCErrors in one place, with the core message', () => {
  it('an invalid symbol id is BAD_REQUEST with the core reason, and nothing is written', async () => {
    const { ctx, api } = caller();
    await expect(api.symbols.set({ id: '../x', value: 'v' })).rejects.toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('invalid symbol id "../x"') });
    expect(await api.symbols.list()).toEqual({});
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8')).not.toContain('resolve\tset');
  });

  it('a corrupted state file is PRECONDITION_FAILED naming the file; the file is left untouched', async () => {
    const { ctx, api } = caller();
    fs.writeFileSync(ctx.paths.symbols, '{"version": "2.0.0", "symbols": {,}}');
    await expect(api.symbols.list()).rejects.toMatchObject({ code: 'PRECONDITION_FAILED', message: expect.stringContaining('symbols.json is not valid JSON') });
    await expect(api.symbols.set({ id: 'F1', value: 'a' })).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(fs.readFileSync(ctx.paths.symbols, 'utf8')).toBe('{"version": "2.0.0", "symbols": {,}}');
  });

  it('a missing capsule is NOT_FOUND; a mutation goes through the core and its log line', async () => {
    const { ctx, api } = caller();
    await expect(api.capsules.closure({ id: 'nope' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await api.blackboard.set({ key: 'dev_port', value: '5173' });
    expect(await api.blackboard.list()).toEqual({ dev_port: '5173' });
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8')).toContain('\tblackboard\tset\tdev_port=5173');
  });
});

describe('live changes', () => {
  const aborts: AbortController[] = [];
  afterEach(() => {
    for (const a of aborts.splice(0)) a.abort();
  });

  it('names every topic first, then the topics whose files changed', async () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    const ac = new AbortController();
    aborts.push(ac);
    const it = planningChanges(ctx, ac.signal);
    const first = await it.next();
    expect(first.value).toMatchObject({ seq: 0 });
    expect((first.value as { topics: string[] }).topics).toEqual(expect.arrayContaining(['log', 'symbols', 'blackboard', 'capsules', 'ledger', 'team', 'wire']));
    const next = it.next();
    await new Promise((r) => setTimeout(r, 50));
    fs.writeFileSync(ctx.paths.blackboard, JSON.stringify({ version: '2.0.0', facts: { a: 'b' } }));
    const changed = await next;
    expect((changed.value as { topics: string[] }).topics).toEqual(['blackboard']);
    ac.abort();
    expect((await it.next()).done).toBe(true);
  });
});
