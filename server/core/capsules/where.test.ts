import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { initPlanning } from '../planning/init.js';
import { setSymbol } from '../symbols/symbols.js';
import { writeCapsule } from './capsules.js';
import { readCapsuleResolved, resolveWhere } from './where.js';

describe('capsule where: resolved against the symbol table', () => {
  it('resolves symbol ids and leaves paths as written', () => {
    expect(resolveWhere('F12, F15,README.md  F99', { F12: 'src/engine.ts', F15: 'src/bus.ts' })).toEqual([
      { text: 'F12', value: 'src/engine.ts' },
      { text: 'F15', value: 'src/bus.ts' },
      { text: 'README.md' },
      { text: 'F99' },
    ]);
    expect(resolveWhere(undefined, {})).toEqual([]);
    // Keys are data: a built-in property name is not a symbol.
    expect(resolveWhere('constructor', {})).toEqual([{ text: 'constructor' }]);
  });

  it('reads a capsule with its where resolved; a changed symbol shows its new value', () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    setSymbol(ctx, 'F12', 'src/engine.ts');
    writeCapsule(ctx, 'w1', { what: 'engine', where: 'F12,docs/x.md' });
    expect(readCapsuleResolved(ctx, 'w1').whereItems).toEqual([{ text: 'F12', value: 'src/engine.ts' }, { text: 'docs/x.md' }]);
    setSymbol(ctx, 'F12', 'src/engine_v2.ts');
    expect(readCapsuleResolved(ctx, 'w1').whereItems[0]).toEqual({ text: 'F12', value: 'src/engine_v2.ts' });
  });
});
