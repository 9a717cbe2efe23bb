import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { deleteFact, getFact, readFacts, setFact } from './blackboard.js';

describe('blackboard', () => {
  it('sets, gets, lists and deletes facts, versioned', () => {
    const ctx = tmpCtx();
    setFact(ctx, 'dev_port', '5173');
    setFact(ctx, 'node_version', '20.11.0');
    expect(getFact(ctx, 'dev_port')).toBe('5173');
    expect(readFacts(ctx)).toEqual({ dev_port: '5173', node_version: '20.11.0' });
    expect(JSON.parse(fs.readFileSync(ctx.paths.blackboard, 'utf8')).version).toBe('2.0.0');
    deleteFact(ctx, 'dev_port');
    expect(() => getFact(ctx, 'dev_port')).toThrow(/no blackboard fact dev_port/);
    expect(() => deleteFact(ctx, 'dev_port')).toThrow(/no blackboard fact/);
  });

  it('refuses keys that are not plain names and values with newlines', () => {
    const ctx = tmpCtx();
    expect(() => setFact(ctx, 'a/b', '1')).toThrow(/invalid blackboard key id/);
    expect(() => setFact(ctx, 'k', 'x\ny')).toThrow(/without tabs, newlines/);
    expect(fs.existsSync(ctx.paths.blackboard)).toBe(false);
  });
});
