import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { thrown } from '../../testing/fixtures.js';
import { rootHaid } from './registry.js';
import { identifyCaller, lookupCaller } from './session.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-lookup-'));
  dirs.push(dir);
  return makeCtx(dir, { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('x') });
}
const filesOf = (dir: string) => Object.fromEntries(fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [path.join(e.parentPath, e.name), fs.readFileSync(path.join(e.parentPath, e.name), 'utf8')]));

describe('lookupCaller (who the environment names, without writing)', () => {
  it('agrees with identifyCaller for HEIMDALL_AGENT, HEIMDALL_HAID and a bound session, by the same precedence', () => {
    const ctx = setup();
    const root = rootHaid(ctx);
    const session = { CLAUDE_CODE_SESSION_ID: '4a0b9d5e-6f61-4bb2-9c1e-1f2a3b4c5d6e' };
    // The MCP server of that Claude Code session binds it first.
    const bound = identifyCaller(ctx, { env: session, client: 'claude-code', otherwise: { fresh: 'claude-code' } });
    const cases: Array<Record<string, string>> = [
      { HEIMDALL_AGENT: 'alice.1' },
      { HEIMDALL_AGENT: 'mason.1@core', ...session },
      { HEIMDALL_HAID: `${root}/ci` },
      session,
    ];
    for (const env of cases) {
      const named = identifyCaller(ctx, { env, otherwise: { fallback: 'cli', known: false } });
      const looked = lookupCaller(ctx, env);
      expect(looked.identity, JSON.stringify(env)).toEqual({ haid: named.haid, address: named.address, role: named.role });
      expect(looked.source).toBe(named.source);
    }
    expect(lookupCaller(ctx, session)).toMatchObject({ identity: { haid: bound.haid, address: 'claude-code.s1@team' }, source: 'session', via: 'CLAUDE_CODE_SESSION_ID' });
  });

  it('a session never seen is unbound, nobody named is none; neither writes anything', () => {
    const ctx = setup();
    rootHaid(ctx);
    const before = filesOf(ctx.root);
    expect(lookupCaller(ctx, { CLAUDE_CODE_SESSION_ID: 'never-seen' })).toEqual({ source: 'session', via: 'CLAUDE_CODE_SESSION_ID', unbound: true });
    expect(lookupCaller(ctx, {})).toEqual({ source: 'none' });
    // A placeholder a client left unexpanded names nobody (as for identifyCaller).
    expect(lookupCaller(ctx, { HEIMDALL_AGENT: '${HEIMDALL_AGENT}' })).toEqual({ source: 'none' });
    expect(lookupCaller(ctx, { HEIMDALL_AGENT: 'bob.2' }).identity?.address).toBe('bob.2@team');
    expect(filesOf(ctx.root)).toEqual(before);
  });

  it('on a tree without a root HAID names nobody and creates nothing', () => {
    const ctx = setup();
    expect(lookupCaller(ctx, { HEIMDALL_AGENT: 'alice.1' })).toEqual({ source: 'HEIMDALL_AGENT' });
    expect(lookupCaller(ctx, { CLAUDE_CODE_SESSION_ID: 'abc' })).toMatchObject({ unbound: true });
    expect(fs.readdirSync(ctx.root)).toEqual([]);
  });

  it('refuses a HEIMDALL_AGENT that names no agent of this tree, as identifyCaller does', () => {
    const ctx = setup();
    const root = rootHaid(ctx);
    expect(thrown(() => lookupCaller(ctx, { HEIMDALL_AGENT: 'h-99999999/x.1' })).code).toBe('invalid');
    expect(thrown(() => lookupCaller(ctx, { HEIMDALL_AGENT: root })).message).toContain('root HAID');
  });
});
