import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { computeDelta, formatPct, logTokens, readLedger, report, setBaseline } from './ledger.js';

describe('token ledger', () => {
  it('prints the spec delta line exactly for the spec inputs', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', tokens: 3300, msgId: 'b1' });
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', tokens: 4000, msgId: 'b2' });
    logTokens(ctx, { role: 'orchestration', kind: 'task_result', tokens: 3950, msgId: 'r1' });
    logTokens(ctx, { role: 'coder', kind: 'task_result', tokens: 250, msgId: 'm1' });
    setBaseline(ctx, 'orchestration', 41000);
    expect(computeDelta(ctx, 'orchestration').line).toBe('orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)');
  });

  it('computes, never hard-codes: other inputs give other figures', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'orchestration', kind: 'x', tokens: 500, msgId: 'a' });
    setBaseline(ctx, 'orchestration', 2000);
    const d = computeDelta(ctx, 'orchestration');
    expect(d).toMatchObject({ baseline: 2000, measured: 500, pct: -75 });
    setBaseline(ctx, 'orchestration', 400);
    expect(computeDelta(ctx, 'orchestration').line).toBe('orchestration: 400 -> 500 tokens (v1 baseline -> measured; +25%)');
    expect(formatPct(-0.2)).toBe('0%');
  });

  it('counts text with the named tokenizer when no --tokens is given', () => {
    const ctx = tmpCtx();
    const e = logTokens(ctx, { role: 'coder', kind: 'task_result', msgId: 'm1', text: 'hello world, this is a brief' });
    expect(e.source).toBe('tokenizer');
    expect(e.tokenizer).toMatch(/o200k_base/);
    expect(e.tokens).toBe(ctx.tokenizer.count('hello world, this is a brief'));
    expect(e.tokens).toBeGreaterThan(3);
  });

  it('reports per-role totals with counted and reported figures apart', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'coder', kind: 'task_result', tokens: 250, msgId: 'm1' });
    logTokens(ctx, { role: 'coder', kind: 'task_result', msgId: 'm2', text: 'abc def' });
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', tokens: 100, msgId: 'b1' });
    setBaseline(ctx, 'orchestration', 1000);
    const r = report(ctx);
    const coder = r.roles.find((x) => x.role === 'coder');
    expect(coder).toMatchObject({ entries: 2, reported_tokens: 250 });
    expect(coder?.counted_tokens).toBe(ctx.tokenizer.count('abc def'));
    expect(r.roles.find((x) => x.role === 'orchestration')).toMatchObject({ tokens: 100, baseline: 1000, pct: -90 });
    expect(r.tokenizer).toMatch(/o200k_base/);
  });

  it('limits delta and report to one run, the latest unless told, never summing runs', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'o', kind: 'k', tokens: 10, msgId: 'a', run: 'r1' });
    logTokens(ctx, { role: 'o', kind: 'k', tokens: 20, msgId: 'b', run: 'r2' });
    setBaseline(ctx, 'o', 100);
    expect(computeDelta(ctx, 'o', { run: 'r1' }).measured).toBe(10);
    // Both lines were written in the same second: the one written last is the latest run.
    expect(computeDelta(ctx, 'o')).toMatchObject({ run: 'r2', measured: 20, baseline_source: 'workspace' });
    expect(report(ctx).run).toBe('r2');
  });

  it('reports a torn last line instead of failing', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'o', kind: 'k', tokens: 10, msgId: 'a' });
    fs.appendFileSync(ctx.paths.ledger, '{"ts":"2026-06-11T12:07:27Z","role":"o","ki');
    const r = readLedger(ctx);
    expect(r.entries).toHaveLength(1);
    expect(r.tornLine).toBe(2);
    setBaseline(ctx, 'o', 20);
    expect(computeDelta(ctx, 'o')).toMatchObject({ measured: 10, tornLine: 2 });
  });

  it('names the line of a hand-corrupted ledger entry', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'o', kind: 'k', tokens: 10, msgId: 'a' });
    fs.appendFileSync(ctx.paths.ledger, 'garbage\n');
    expect(() => readLedger(ctx)).toThrow(/ledger\.jsonl:2 is not valid JSON/);
    fs.appendFileSync(ctx.paths.ledger, '');
  });

  it('refuses bad input: unknown baseline, negative tokens, bad role', () => {
    const ctx = tmpCtx();
    expect(() => computeDelta(ctx, 'nobody')).toThrow(/no baseline for role nobody; record one with: heimdall-ledger baseline/);
    expect(() => logTokens(ctx, { role: 'o', kind: 'k', tokens: -1, msgId: 'a' })).toThrow(/non-negative integer/);
    expect(() => logTokens(ctx, { role: 'o/x', kind: 'k', tokens: 1, msgId: 'a' })).toThrow(/invalid role id/);
    expect(() => logTokens(ctx, { role: 'o', kind: 'k', msgId: 'a' })).toThrow(/give --tokens N/);
    expect(fs.existsSync(ctx.paths.ledger)).toBe(false);
  });
});
