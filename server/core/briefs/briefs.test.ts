import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { writeCapsule } from '../capsules/capsules.js';
import { readLedger } from '../ledger/ledger.js';
import { setSymbol } from '../symbols/symbols.js';
import { buildBrief } from './briefs.js';

function seeded() {
  const ctx = tmpCtx();
  setSymbol(ctx, 'F12', 'src/matching/engine.ts');
  setSymbol(ctx, 'F13', 'src/marketdata/diff.ts');
  setSymbol(ctx, 'C3', 'balances sum to zero');
  setSymbol(ctx, 'C9', 'UNREFERENCED-CRITERION');
  writeCapsule(ctx, 'w1', { what: 'added LOB engine', where: 'F12' });
  writeCapsule(ctx, 'w2', { what: 'added book diff', where: 'F13', depends: ['w1'] });
  writeCapsule(ctx, 'w3', { what: 'UNRELATED-CAPSULE', where: 'README' });
  // A planted plan: nothing of it may reach a brief.
  fs.mkdirSync(path.join(ctx.root, 'phases'), { recursive: true });
  fs.writeFileSync(path.join(ctx.root, 'PLAN-3.md'), 'PLANTED-PLAN-BODY the whole plan restated');
  fs.writeFileSync(path.join(ctx.root, 'phases', 'PLAN-3.2.md'), 'PLANTED-PLAN-BODY again');
  return ctx;
}

describe('delta briefs', () => {
  it('holds the spec, only the named symbols, the capsule closure and the invariants reference', () => {
    const ctx = seeded();
    const b = buildBrief(ctx, { task: '3.2', spec: 'implement book diff', symbols: ['F12', 'C3'], capsules: ['w2'], invariants: 'INVARIANTS.md' });
    expect(b.text).toContain('TASK 3.2');
    expect(b.text).toContain('SPEC implement book diff');
    expect(b.text).toContain('F12\tsrc/matching/engine.ts');
    expect(b.text).toContain('C3\tbalances sum to zero');
    expect(b.text).toContain('INVARIANTS see INVARIANTS.md');
    expect(b.capsules).toEqual(['w1', 'w2']);
    expect(b.text).not.toContain('PLANTED-PLAN-BODY');
    expect(b.text).not.toContain('UNREFERENCED-CRITERION');
    expect(b.text).not.toContain('UNRELATED-CAPSULE');
    expect(b.text).not.toContain('src/marketdata/diff.ts\n'); // F13 only appears as the capsule's where-id
  });

  it('logs its own token cost to the ledger, counted with the tokenizer', () => {
    const ctx = seeded();
    const b = buildBrief(ctx, { task: '3.2', spec: 'implement book diff', symbols: ['F12'], capsules: ['w2'] });
    const entries = readLedger(ctx).entries;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ role: 'orchestration', kind: 'delta_brief', msg_id: 'brief-3.2', source: 'tokenizer', tokens: ctx.tokenizer.count(b.text) });
  });

  it('refuses unknown symbols and missing capsules with an actionable message', () => {
    const ctx = seeded();
    expect(() => buildBrief(ctx, { task: '3.2', spec: 's', symbols: ['F99'], capsules: [] })).toThrow(/unknown symbol F99; define with: heimdall-resolve set ID VALUE/);
    expect(() => buildBrief(ctx, { task: '3.2', spec: 's', symbols: [], capsules: ['nope'] })).toThrow(/no capsule nope/);
    expect(readLedger(ctx).entries).toHaveLength(0);
  });
});
