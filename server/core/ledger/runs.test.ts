import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { tailLog } from '../log/protocolLog.js';
import { computeDelta, logTokens, logTokensBatch, readLedger, report, setBaseline } from './ledger.js';
import { armOf, listRuns, readRun, recordRun } from './runs.js';

describe('measured runs', () => {
  it('keeps a run record beside its lines and lists runs oldest first', () => {
    const ctx = tmpCtx();
    recordRun(ctx, { run: 'r2', kind: 'demo', workspace: 'exchange-lob', tokenizer: ctx.tokenizer.name, arms: { v1: 'verbatim', v2: 'delta briefs' } });
    ctx.clock.advance(1000);
    recordRun(ctx, { run: 'r1', kind: 'bench-gsd', workspace: 'HYDRA', tokenizer: ctx.tokenizer.name, arms: { v1: 'a', lean: 'b', v2: 'c' }, details: { recall: 100 } });
    expect(listRuns(ctx).map((r) => r.run)).toEqual(['r2', 'r1']);
    expect(readRun(ctx, 'r1')).toMatchObject({ kind: 'bench-gsd', workspace: 'HYDRA', details: { recall: 100 }, created: '2026-06-11T12:07:28.000Z' });
    expect(readRun(ctx, 'nope')).toBeUndefined();
    expect(tailLog(ctx).entries.map((e) => e.action)).toEqual(['run', 'run']);
  });

  it('refuses a run id that is a path, an unknown arm and a hand-broken record', () => {
    const ctx = tmpCtx();
    expect(() => recordRun(ctx, { run: '../x', kind: 'demo', workspace: 'w', tokenizer: 't', arms: {} })).toThrow(/invalid run id/);
    expect(() => recordRun(ctx, { run: 'r', kind: 'demo', workspace: 'w', tokenizer: 't', arms: { v3: 'x' } as never })).toThrow(/unknown arm/);
    fs.mkdirSync(path.join(ctx.paths.protocolDir, 'runs'), { recursive: true });
    fs.writeFileSync(path.join(ctx.paths.protocolDir, 'runs', 'bad.json'), '{"run":"bad"}');
    expect(() => readRun(ctx, 'bad')).toThrow(/must hold a run record/);
  });

  it('counts v1 and lean lines as comparison arms, never as measured tokens', () => {
    const ctx = tmpCtx();
    setBaseline(ctx, 'orchestration', 1000);
    logTokens(ctx, { role: 'orchestration', kind: 'brief', tokens: 200, msgId: 'm1', run: 'r' });
    logTokens(ctx, { role: 'orchestration', kind: 'brief', tokens: 900, msgId: 'm2', run: 'r', arm: 'v1' });
    logTokens(ctx, { role: 'orchestration', kind: 'brief', tokens: 500, msgId: 'm3', run: 'r', arm: 'lean', phase: '01-x', plan: '01-01' });
    expect(computeDelta(ctx, 'orchestration', { run: 'r' }).measured).toBe(200);
    expect(report(ctx).roles[0]).toMatchObject({ role: 'orchestration', tokens: 200, entries: 1 });
    const lines = readLedger(ctx).entries;
    expect(lines.map(armOf)).toEqual(['v2', 'v1', 'lean']);
    expect(lines[2]).toMatchObject({ phase: '01-x', plan: '01-01' });
    expect(() => logTokens(ctx, { role: 'o', kind: 'k', tokens: 1, msgId: 'x', arm: 'v9' as never })).toThrow(/--arm must be one of/);
  });

  it('appends a batch with one protocol.log line', () => {
    const ctx = tmpCtx();
    const before = tailLog(ctx).total;
    logTokensBatch(ctx, [
      { role: 'orchestration', kind: 'brief', text: 'one two three', msgId: 'a', run: 'b', arm: 'v1' },
      { role: 'orchestration', kind: 'brief', tokens: 3, msgId: 'b', run: 'b' },
    ], 'bench b');
    expect(readLedger(ctx).entries).toHaveLength(2);
    expect(readLedger(ctx).entries[0]?.tokens).toBe(ctx.tokenizer.count('one two three'));
    expect(tailLog(ctx).total - before).toBe(1);
  });
});

describe('protocol.log authorship', () => {
  it('records ctx.actor as the fifth field and reads four-field lines as authorless', async () => {
    const ctx = tmpCtx();
    const { logAction } = await import('../log/protocolLog.js');
    logAction(ctx, 'resolve', 'set', 'F1=a');
    logAction({ ...ctx, actor: 'h-1234abcd/studio' }, 'resolve', 'set', 'F2=b\tc');
    const [a, b] = tailLog(ctx).entries;
    expect(a?.author).toBeUndefined();
    expect(b).toMatchObject({ author: 'h-1234abcd/studio', detail: 'F2=b\tc' });
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8').split('\n')[1]?.split('\t')).toHaveLength(5);
  });
});
