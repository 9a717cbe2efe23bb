import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { initPlanning } from '../planning/init.js';
import { tailLog } from '../log/protocolLog.js';
import { deleteSymbol, getSymbol, readSymbols, reverseSymbol, setSymbol, setSymbols } from './symbols.js';

describe('symbol table', () => {
  it('resolves forward and reverse, and lists the table', () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    setSymbol(ctx, 'F12', 'src/matching/engine.ts');
    setSymbol(ctx, 'C3', 'balances sum to zero');
    expect(getSymbol(ctx, 'F12')).toBe('src/matching/engine.ts');
    expect(getSymbol(ctx, 'C3')).toBe('balances sum to zero');
    expect(reverseSymbol(ctx, 'src/matching/engine.ts')).toEqual(['F12']);
    expect(readSymbols(ctx)).toEqual({ C3: 'balances sum to zero', F12: 'src/matching/engine.ts' });
  });

  it('stamps the protocol version into symbols.json', () => {
    const ctx = tmpCtx();
    setSymbol(ctx, 'F1', 'a.ts');
    const data = JSON.parse(fs.readFileSync(ctx.paths.symbols, 'utf8'));
    expect(data.version).toBe('2.0.0');
    expect(data.symbols).toEqual({ F1: 'a.ts' });
  });

  it('overwrites, reports the previous value, deletes, and logs every change', () => {
    const ctx = tmpCtx();
    expect(setSymbol(ctx, 'F1', 'a.ts')).toEqual({});
    expect(setSymbol(ctx, 'F1', 'b.ts')).toEqual({ previous: 'a.ts' });
    deleteSymbol(ctx, 'F1');
    expect(() => getSymbol(ctx, 'F1')).toThrow(/no symbol F1/);
    const actions = tailLog(ctx).entries.map((e) => `${e.mechanism} ${e.action} ${e.detail}`);
    expect(actions).toEqual(['resolve set F1=a.ts', 'resolve set F1=b.ts', 'resolve delete F1']);
  });

  it('refuses invalid ids and values without touching the file', () => {
    const ctx = tmpCtx();
    setSymbol(ctx, 'F1', 'a.ts');
    const before = fs.readFileSync(ctx.paths.symbols, 'utf8');
    expect(() => setSymbol(ctx, '../x', 'v')).toThrow(/invalid symbol id/);
    expect(() => setSymbol(ctx, 'has space', 'v')).toThrow(/invalid symbol id/);
    expect(() => setSymbol(ctx, 'F2', 'a\tb')).toThrow(/without tabs, newlines/);
    expect(() => setSymbol(ctx, 'F2', 'line1\nline2')).toThrow(/without tabs, newlines/);
    expect(() => setSymbol(ctx, 'F2', '')).toThrow(/non-empty/);
    expect(fs.readFileSync(ctx.paths.symbols, 'utf8')).toBe(before);
  });

  it('returns every id sharing a value on reverse lookup, and errors on an unknown value', () => {
    const ctx = tmpCtx();
    setSymbols(ctx, { A: 'x', B: 'x', C: 'y' });
    expect(reverseSymbol(ctx, 'x')).toEqual(['A', 'B']);
    expect(() => reverseSymbol(ctx, 'nope')).toThrow(/no symbol has the value "nope"/);
  });

  it('refuses a symbols.json written by a newer major version', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(ctx.paths.protocolDir, { recursive: true });
    fs.writeFileSync(ctx.paths.symbols, JSON.stringify({ version: '3.0.0', symbols: { F1: 'a' } }));
    expect(() => readSymbols(ctx)).toThrow(/written by protocol version 3\.0\.0, newer than this heimdall \(2\.0\.0\)/);
    expect(() => setSymbol(ctx, 'F2', 'b')).toThrow(/newer than this heimdall/);
    expect(JSON.parse(fs.readFileSync(ctx.paths.symbols, 'utf8')).version).toBe('3.0.0');
  });

  it('names the file and line of a hand-corrupted symbols.json and leaves it untouched', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(ctx.paths.protocolDir, { recursive: true });
    const broken = '{\n  "version": "2.0.0",\n  "symbols": { "F1": "a", }\n}\n';
    fs.writeFileSync(ctx.paths.symbols, broken);
    expect(() => setSymbol(ctx, 'F2', 'b')).toThrow(new RegExp(`${ctx.paths.symbols.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON at line 3`));
    expect(fs.readFileSync(ctx.paths.symbols, 'utf8')).toBe(broken);
  });

  it('refuses a symbols.json whose values are not strings', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(ctx.paths.protocolDir, { recursive: true });
    fs.writeFileSync(ctx.paths.symbols, JSON.stringify({ version: '2.0.0', symbols: { F1: 7 } }));
    expect(() => readSymbols(ctx)).toThrow(/"symbols\.F1" must be string values, got 7/);
  });
});
