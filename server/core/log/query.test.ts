import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { initPlanning } from '../planning/init.js';
import { formatLogLine, logAction } from './protocolLog.js';
import { logFacets, queryLog } from './query.js';

function ctxWithLog(lines: [string, string, string][]) {
  const ctx = tmpCtx();
  initPlanning(ctx);
  fs.writeFileSync(ctx.paths.protocolLog, lines.map(([m, a, d], i) => `${formatLogLine(`2026-06-11T12:00:${String(i % 60).padStart(2, '0')}Z`, m, a, d)}\n`).join(''));
  return ctx;
}

describe('queryLog', () => {
  it('pages newest first and reports totals', () => {
    const ctx = ctxWithLog(Array.from({ length: 250 }, (_, i) => ['resolve', 'set', `F${i}=x`] as [string, string, string]));
    const p1 = queryLog(ctx, { limit: 100 });
    expect(p1.total).toBe(250);
    expect(p1.matched).toBe(250);
    expect(p1.entries).toHaveLength(100);
    expect(p1.entries[0]).toMatchObject({ line: 250, detail: 'F249=x' });
    const p3 = queryLog(ctx, { limit: 100, offset: 200 });
    expect(p3.entries.map((e) => e.line)).toEqual(Array.from({ length: 50 }, (_, i) => 50 - i));
  });

  it('filters by mechanism, action and case-insensitive text', () => {
    const ctx = ctxWithLog([
      ['resolve', 'set', 'F1=src/a.ts'],
      ['blackboard', 'set', 'port=5173'],
      ['resolve', 'delete', 'F1'],
      ['capsule', 'write', 'W2 depends=w1'],
    ]);
    expect(queryLog(ctx, { mechanism: 'resolve' }).entries.map((e) => e.line)).toEqual([3, 1]);
    expect(queryLog(ctx, { action: 'set' }).entries.map((e) => e.line)).toEqual([2, 1]);
    expect(queryLog(ctx, { mechanism: 'resolve', action: 'set' }).matched).toBe(1);
    expect(queryLog(ctx, { text: 'w2 DEPENDS' }).entries.map((e) => e.line)).toEqual([4]);
    expect(queryLog(ctx, { text: 'nothing like this' })).toMatchObject({ matched: 0, entries: [] });
  });

  it('picks up appended lines incrementally and keeps a pinned upTo stable', () => {
    const ctx = ctxWithLog([['resolve', 'set', 'a=1']]);
    const first = queryLog(ctx, { mechanism: 'resolve' });
    expect(first.matched).toBe(1);
    logAction(ctx, 'resolve', 'set', 'b=2');
    logAction(ctx, 'blackboard', 'set', 'c=3');
    const now = queryLog(ctx, { mechanism: 'resolve' });
    expect(now).toMatchObject({ total: 3, matched: 2 });
    expect(now.entries[0]?.detail).toBe('b=2');
    const pinned = queryLog(ctx, { mechanism: 'resolve', upTo: first.total });
    expect(pinned).toMatchObject({ total: 3, upTo: 1, matched: 1 });
  });

  it('reports a torn last line without indexing it, then reads it once complete', () => {
    const ctx = ctxWithLog([['resolve', 'set', 'a=1']]);
    fs.appendFileSync(ctx.paths.protocolLog, '2026-06-11T12:00:09Z\tresolve\tse');
    const torn = queryLog(ctx);
    expect(torn).toMatchObject({ total: 1, tornLine: 2 });
    fs.appendFileSync(ctx.paths.protocolLog, 't\tb=2\n');
    const whole = queryLog(ctx);
    expect(whole.tornLine).toBeUndefined();
    expect(whole.entries[0]).toMatchObject({ line: 2, action: 'set', detail: 'b=2' });
  });

  it('re-reads a file that was replaced rather than appended to', () => {
    const ctx = ctxWithLog([['resolve', 'set', 'a=1'], ['resolve', 'set', 'b=2']]);
    expect(queryLog(ctx).total).toBe(2);
    fs.writeFileSync(ctx.paths.protocolLog, `${formatLogLine('2026-06-11T12:00:00Z', 'gate', 'check', 'ok')}\n`);
    const p = queryLog(ctx);
    expect(p.total).toBe(1);
    expect(p.entries[0]).toMatchObject({ mechanism: 'gate', detail: 'ok' });
  });

  it('unescapes tabs and newlines inside fields and keeps markup as text', () => {
    const ctx = ctxWithLog([['resolve', 'set', 'x=<script>alert(1)</script>\tand\na newline']]);
    expect(queryLog(ctx).entries[0]?.detail).toBe('x=<script>alert(1)</script>\tand\na newline');
  });

  it('refuses out-of-range paging with a usage error', () => {
    const ctx = ctxWithLog([['resolve', 'set', 'a=1']]);
    expect(() => queryLog(ctx, { limit: 0 })).toThrow(/limit must be an integer from 1 to 1000/);
    expect(() => queryLog(ctx, { offset: -1 })).toThrow(/offset/);
  });

  it('an absent log is an empty page', () => {
    const ctx = tmpCtx();
    expect(queryLog(ctx)).toMatchObject({ total: 0, matched: 0, entries: [] });
  });
});

describe('queryLog: time range, author and object', () => {
  function ctxWithTimedLog(lines: [string, string, string, string, string?][]) {
    const ctx = tmpCtx();
    initPlanning(ctx);
    fs.writeFileSync(ctx.paths.protocolLog, lines.map(([ts, m, a, d, author]) => `${formatLogLine(ts, m, a, d, author)}\n`).join(''));
    return ctx;
  }

  // Out of time order on purpose: writers do not share a clock.
  const ctx = ctxWithTimedLog([
    ['2026-06-11T11:00:00Z', 'resolve', 'set', 'F12=src/a.ts', 'h-1/studio'],
    ['2026-06-11T12:30:00Z', 'capsule', 'write', 'w2 depends=w1'],
    ['2026-06-11T12:05:00Z', 'resolve', 'delete', 'F12', 'h-1/cursor'],
    ['2026-06-11T12:59:59Z', 'capsule', 'hydrate', 'w3 -> w1,w2,w3', 'h-1/studio'],
    ['not a date', 'gate', 'check', 'ok'],
  ]);

  it('a time range keeps lines at or after `from` and before `to`, whatever their order in the file', () => {
    expect(queryLog(ctx, { from: '2026-06-11T12:00:00Z' }).entries.map((e) => e.line)).toEqual([4, 3, 2]);
    expect(queryLog(ctx, { from: '2026-06-11T12:00:00Z', to: '2026-06-11T12:30:00Z' }).entries.map((e) => e.line)).toEqual([3]);
    expect(queryLog(ctx, { to: '2026-06-11T12:05:00Z' }).entries.map((e) => e.line)).toEqual([1]);
    // Any ISO-8601 form is accepted for the bounds; they are compared as instants.
    expect(queryLog(ctx, { from: '2026-06-11T14:00:00+02:00' }).matched).toBe(3);
  });

  it('bad bounds are a usage error that says what was expected', () => {
    expect(() => queryLog(ctx, { from: 'last tuesday' })).toThrow(/from must be an ISO-8601 instant such as 2026-06-11T12:00:00Z, got "last tuesday"/);
    expect(() => queryLog(ctx, { from: '2026-06-11T13:00:00Z', to: '2026-06-11T12:00:00Z' })).toThrow(/from .* must be before to/);
    expect(() => queryLog(ctx, { object: 'planet:mars' })).toThrow(/object must be kind:id/);
  });

  it('the text filter finds a timestamp as Studio shows it', () => {
    expect(queryLog(ctx, { text: '2026-06-11 12:05' }).entries.map((e) => e.line)).toEqual([3]);
    expect(queryLog(ctx, { text: '2026-06-11T12:05' }).entries.map((e) => e.line)).toEqual([3]);
  });

  it('filters by author and reports who wrote each line', () => {
    const p = queryLog(ctx, { author: 'h-1/studio' });
    expect(p.entries.map((e) => e.line)).toEqual([4, 1]);
    expect(p.entries[0]?.author).toBe('h-1/studio');
    expect(queryLog(ctx, { mechanism: 'capsule', action: 'write' }).entries[0]?.author).toBeUndefined();
    expect(logFacets(ctx).authors).toEqual([
      { value: 'h-1/cursor', count: 1 },
      { value: 'h-1/studio', count: 2 },
    ]);
  });

  it('filters by the object a line names, and every entry lists the objects it names', () => {
    expect(queryLog(ctx, { object: 'symbol:F12' }).entries.map((e) => e.line)).toEqual([3, 1]);
    expect(queryLog(ctx, { object: 'capsule:w1' }).entries.map((e) => e.line)).toEqual([4, 2]);
    // "w1" appears in no detail as another object's id: substring matches do not count.
    expect(queryLog(ctx, { object: 'symbol:F1' }).matched).toBe(0);
    expect(queryLog(ctx, { object: 'capsule:w3', author: 'h-1/studio' }).matched).toBe(1);
    const hydrate = queryLog(ctx, { object: 'capsule:w3' }).entries[0];
    expect(hydrate?.refs).toEqual([
      { kind: 'capsule', id: 'w3' },
      { kind: 'capsule', id: 'w1' },
      { kind: 'capsule', id: 'w2' },
    ]);
  });
});

describe('logFacets', () => {
  it('counts mechanisms and actions', () => {
    const ctx = ctxWithLog([
      ['resolve', 'set', 'a'],
      ['resolve', 'set', 'b'],
      ['blackboard', 'delete', 'c'],
    ]);
    const f = logFacets(ctx);
    expect(f.mechanisms).toEqual([
      { value: 'blackboard', count: 1 },
      { value: 'resolve', count: 2 },
    ]);
    expect(f.actions).toContainEqual({ mechanism: 'resolve', value: 'set', count: 2 });
    expect(f.total).toBe(3);
  });
});
