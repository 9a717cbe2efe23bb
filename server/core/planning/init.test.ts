import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { setSymbol } from '../symbols/symbols.js';
import { initPlanning, planningHoldsState } from './init.js';
import { setFact } from '../blackboard/blackboard.js';
import { escapeField, unescapeField } from './escape.js';
import { parseLogLine, formatLogLine, tailLog } from '../log/protocolLog.js';

describe('init', () => {
  it('creates the spec layout with version stamps', () => {
    const ctx = tmpCtx();
    const r = initPlanning(ctx);
    const rel = (f: string) => path.relative(ctx.root, f);
    for (const f of [ctx.paths.protocolLog, ctx.paths.blackboard, ctx.paths.symbols, ctx.paths.messageSchema, ctx.paths.baselines, ctx.paths.ledger]) {
      expect(fs.existsSync(f), rel(f)).toBe(true);
    }
    expect(fs.statSync(ctx.paths.capsulesDir).isDirectory()).toBe(true);
    for (const f of [ctx.paths.symbols, ctx.paths.blackboard, ctx.paths.baselines]) expect(JSON.parse(fs.readFileSync(f, 'utf8')).version).toBe('2.0.0');
    expect(JSON.parse(fs.readFileSync(ctx.paths.messageSchema, 'utf8')).$id).toContain('2.0.0');
    expect(r.created).toContain('protocol/symbols.json');
  });

  it('is idempotent and never clobbers existing state', () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    setSymbol(ctx, 'F12', 'src/matching/engine.ts');
    const before = fs.readFileSync(ctx.paths.symbols, 'utf8');
    const r = initPlanning(ctx);
    expect(r.created).toEqual([]);
    expect(fs.readFileSync(ctx.paths.symbols, 'utf8')).toBe(before);
  });

  it('stops on a corrupted state file and creates nothing', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(ctx.paths.root, { recursive: true });
    fs.writeFileSync(ctx.paths.blackboard, '{oops');
    expect(() => initPlanning(ctx)).toThrow(/blackboard\.json is not valid JSON/);
    expect(fs.existsSync(ctx.paths.symbols)).toBe(false);
    expect(fs.readFileSync(ctx.paths.blackboard, 'utf8')).toBe('{oops');
  });
});

describe('planningHoldsState (what the demo will not overwrite)', () => {
  it('a missing tree, an empty one, empty folders, a fresh init and leftover locks hold no state', () => {
    const ctx = tmpCtx();
    expect(planningHoldsState(ctx)).toBeUndefined();
    fs.mkdirSync(path.join(ctx.paths.herdDir, 'x'), { recursive: true });
    expect(planningHoldsState(ctx)).toBeUndefined();
    initPlanning(ctx);
    initPlanning(ctx); // two init lines in protocol.log are still no state
    fs.writeFileSync(`${ctx.paths.symbols}.lock`, '123');
    expect(planningHoldsState(ctx)).toBeUndefined();
  });

  it.each([
    ['a symbol', (c: ReturnType<typeof tmpCtx>) => setSymbol(c, 'F1', 'x'), 'protocol/symbols.json'],
    ['a fact written by hand', (c: ReturnType<typeof tmpCtx>) => fs.writeFileSync(c.paths.blackboard, '{"version":"2.0.0","facts":{"k":"v"}}'), 'blackboard.json'],
    ['a ledger line', (c: ReturnType<typeof tmpCtx>) => fs.appendFileSync(c.paths.ledger, '{}\n'), 'protocol/ledger.jsonl'],
    ['a corrupted state file', (c: ReturnType<typeof tmpCtx>) => fs.writeFileSync(c.paths.baselines, '{oops'), 'protocol/baselines.json'],
    ['any other file', (c: ReturnType<typeof tmpCtx>) => fs.writeFileSync(path.join(c.root, 'notes.md'), 'mine'), 'notes.md'],
  ])('%s is state', (_name, change, first) => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    change(ctx);
    expect(planningHoldsState(ctx)).toBe(first);
  });

  it('a fact set through the core is state', () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    setFact(ctx, 'k', 'v');
    expect(planningHoldsState(ctx)).toBeDefined();
  });
});

describe('protocol.log lines', () => {
  it('escapes tabs and newlines so a field cannot add a column or forge a line', () => {
    const nasty = 'a\tb\nc\\d';
    expect(escapeField(nasty)).toBe('a\\tb\\nc\\\\d');
    expect(unescapeField(escapeField(nasty))).toBe(nasty);
    const line = formatLogLine('2026-06-11T12:07:27Z', 'resolve', 'set', `F1=${nasty}`);
    expect(line.split('\t')).toHaveLength(4);
    expect(line).not.toContain('\n');
    expect(parseLogLine(line, 1).detail).toBe(`F1=${nasty}`);
  });

  it('writes ISO-8601 UTC, mechanism, action, detail', () => {
    const ctx = tmpCtx('2026-06-11T12:07:27.456Z');
    setSymbol(ctx, 'F1', 'x');
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8')).toBe('2026-06-11T12:07:27Z\tresolve\tset\tF1=x\n');
    expect(tailLog(ctx, 1).entries[0]).toMatchObject({ mechanism: 'resolve', action: 'set', detail: 'F1=x', line: 1 });
  });
});
