/**
 * Studio must not freeze while another process holds a lock: a mutation waits for it without
 * blocking the server, reads go on meanwhile, and the mutation then runs exactly once. The holder
 * is a child process stopped with SIGSTOP, so the wait is forced, not hoped for.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { initPlanning } from '../core/planning/init.js';
import { holdLock } from '../core/planning/testing/hold.js';
import { tmpCtx } from '../testing/fixtures.js';
import { appRouter } from './root.js';
import { createCallerFactory } from './trpc.js';

const createCaller = createCallerFactory(appRouter);

describe('tRPC: a held lock does not freeze the server', () => {
  it('a mutation waits for a stopped holder while reads are answered, then is applied once with one log line', async () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    const api = createCaller({ core: ctx });
    await api.symbols.set({ id: 'F1', value: 'before' });
    const holder = await holdLock(ctx.paths.symbols);
    holder.child.kill('SIGSTOP');
    let settled = false;
    const write = api.symbols.set({ id: 'F2', value: 'while-held' }).finally(() => {
      settled = true;
    });
    try {
      // The holder is stopped, so the write cannot have finished; these reads are answered meanwhile.
      expect(await api.symbols.list()).toEqual({ F1: 'before' });
      expect(await api.blackboard.list()).toEqual({});
      expect(settled).toBe(false);
    } finally {
      await holder.let();
    }
    await write;
    expect(await api.symbols.list()).toEqual({ F1: 'before', F2: 'while-held' });
    const lines = fs.readFileSync(ctx.paths.protocolLog, 'utf8').split('\n').filter((l) => l.includes('\tresolve\tset\tF2='));
    expect(lines).toHaveLength(1);
  });
});
