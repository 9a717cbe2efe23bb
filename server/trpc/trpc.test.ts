import fs from 'node:fs';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { afterEach, describe, expect, it } from 'vitest';
import { HeimdallError } from '../core/errors.js';
import { haidsFile, rootHaid } from '../core/identity/registry.js';
import { parseLogLine } from '../core/log/protocolLog.js';
import { initPlanning } from '../core/planning/init.js';
import { tmpCtx } from '../testing/fixtures.js';
import { planningChanges } from './live.js';
import { appRouter } from './root.js';
import { INTERNAL_MESSAGE, createCallerFactory, procedure, router } from './trpc.js';

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

describe('Studio writes as its own identity, {root}/studio', () => {
  function lastLine(file: string) {
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    return parseLogLine(lines[lines.length - 1] as string, lines.length);
  }

  it('every mutation made through tRPC carries the operator HAID as the log line\'s author', async () => {
    const { ctx, api } = caller();
    const studio = `${rootHaid(ctx)}/studio`;
    await api.symbols.set({ id: 'F1', value: 'src/a.ts' });
    expect(lastLine(ctx.paths.protocolLog)).toMatchObject({ mechanism: 'resolve', action: 'set', author: studio });
    await api.blackboard.set({ key: 'port', value: '1' });
    expect(lastLine(ctx.paths.protocolLog)).toMatchObject({ mechanism: 'blackboard', action: 'set', author: studio });
    await api.blackboard.delete({ key: 'port' });
    await api.symbols.delete({ id: 'F1' });
    expect(lastLine(ctx.paths.protocolLog)).toMatchObject({ mechanism: 'resolve', action: 'delete', author: studio });
    // The core's own context is untouched: a CLI call in the same process stays anonymous.
    expect(ctx.actor).toBeUndefined();
  });

  it('a caller that already knows its actor keeps it', async () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    const api = createCaller({ core: { ...ctx, actor: 'h-00000001/mcp-session' } });
    await api.symbols.set({ id: 'F2', value: 'x' });
    expect(lastLine(ctx.paths.protocolLog).author).toBe('h-00000001/mcp-session');
  });

  it('a read resolves no identity: it neither needs nor creates the HAID registry', async () => {
    const { ctx, api } = caller();
    await api.symbols.list();
    await api.log.page({});
    expect(fs.existsSync(haidsFile(ctx))).toBe(false);
  });
});

describe('internal errors stay on the server', () => {
  const test = router({
    boom: procedure.query(() => {
      throw new Error('EACCES: permission denied, open /home/alice/secret/.planning/symbols.json');
    }),
    core: procedure.query(() => {
      throw new HeimdallError('invalid', 'invalid symbol id "../x": expected a plain name');
    }),
  });

  async function call(path: string, createContext: () => { core: ReturnType<typeof tmpCtx> }) {
    const res = await fetchRequestHandler({ endpoint: '/api/trpc', req: new Request(`http://127.0.0.1/api/trpc/${path}`), router: test, createContext, onError: () => {} });
    return { status: res.status, body: await res.text() };
  }

  it('a non-core error reaches the browser as a fixed sentence, without its message or stack', async () => {
    const ctx = tmpCtx();
    const r = await call('boom', () => ({ core: ctx }));
    expect(r.status).toBe(500);
    expect(r.body).toContain(INTERNAL_MESSAGE);
    expect(r.body).not.toContain('alice');
    expect(r.body).not.toContain('EACCES');
  });

  it('an error while building the context is hidden too', async () => {
    const r = await call('core', () => {
      throw new Error('cannot open /home/alice/secret/read-model.db');
    });
    expect(r.status).toBe(500);
    expect(r.body).not.toContain('alice');
    expect(r.body).toContain(INTERNAL_MESSAGE);
  });

  it('the core\'s own message, written for a person, is kept', async () => {
    const ctx = tmpCtx();
    const r = await call('core', () => ({ core: ctx }));
    expect(r.status).toBe(400);
    expect(r.body).toContain('invalid symbol id \\"../x\\": expected a plain name');
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
