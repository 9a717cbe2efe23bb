import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock, randomIds, sequentialIds } from '../ports.js';
import { checkHaid, clientSlug, deriveSpawnHaid, roleSuffix } from './haid.js';
import {
  haidStatus,
  haidsFile,
  listHaids,
  registerHaid,
  retireHaid,
  rootHaid,
  spawnHaid,
} from './registry.js';
import { identifyCaller } from './session.js';
import { thrown } from '../../testing/fixtures.js';

const T0 = Date.parse('2026-06-11T12:00:00Z');
const dirs: string[] = [];
function setup(env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-haid-'));
  dirs.push(dir);
  const clock = fixedClock(T0);
  return { dir, clock, ctx: makeCtx(dir, { clock, ids: sequentialIds('x'), env }) };
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('HAID syntax', () => {
  it.each(['h-1a2b3c4d', 'h-1a2b3c4d/cursor', 'h-1/claude-code/w2', 'a.b_c-d/e'])('accepts %s', (h) => expect(checkHaid(h)).toBe(h));
  it.each(['', 'H-1/cursor', 'h-1//x', 'h-1/', '/h-1', 'h 1', 'h-1/-x', 'a/b/c/d/e/f/g/h/i', 'h-1/cur\nsor', 42])('refuses %j', (h) => {
    expect(thrown(() => checkHaid(h)).message).toMatch(/expected 1-8 "\/"-separated segments/);
  });
  it('slugs client names without guessing', () => {
    expect(clientSlug('cursor')).toBe('cursor');
    expect(clientSlug('Claude Code')).toBe('claude-code');
    expect(clientSlug('GitHub Copilot')).toBe('github-copilot');
    expect(clientSlug('  --vscode!! ')).toBe('vscode');
    expect(thrown(() => clientSlug('!!!')).message).toMatch(/no letters or digits/);
    expect(thrown(() => clientSlug(3)).message).toMatch(/must be a string/);
    expect(deriveSpawnHaid('h-1', 'Cursor')).toBe('h-1/cursor');
    expect(roleSuffix('h-1/claude-code')).toBe('claude-code');
  });
});

describe('root HAID', () => {
  it('is generated once, stored, and stable per planning tree', () => {
    const { ctx, dir } = setup();
    const root = rootHaid(ctx);
    expect(root).toMatch(/^h-[a-z0-9]{8}$/);
    expect(rootHaid(makeCtx(dir, { ids: randomIds })) ).toBe(root); // another process, other ids: same root
    expect(JSON.parse(fs.readFileSync(haidsFile(ctx), 'utf8'))).toMatchObject({ version: '2.0.0', root });
    expect(tailLog(ctx).entries.filter((e) => e.action === 'root').map((e) => e.detail)).toEqual([root]);
  });
  it('differs between planning trees', () => {
    const a = rootHaid(makeCtx(setup().dir, { ids: randomIds }));
    const b = rootHaid(makeCtx(setup().dir, { ids: randomIds }));
    expect(a).not.toBe(b);
  });
});

describe('spawn, register, list, retire', () => {
  it('spawn derives {root}/{client} without registering', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    expect(spawnHaid(ctx, 'cursor')).toBe(`${root}/cursor`);
    expect(listHaids(ctx).haids).toEqual([]);
  });

  it('register records the HAID active with its role suffix; idempotent; role suffix distinguishes clients', () => {
    const { ctx, clock } = setup();
    const root = rootHaid(ctx);
    expect(registerHaid(ctx, `${root}/cursor`, 'cursor')).toEqual({
      changed: true,
      record: { haid: `${root}/cursor`, role: 'cursor', status: 'active', registered_at: '2026-06-11T12:00:00Z' },
    });
    clock.advance(60_000);
    expect(registerHaid(ctx, `${root}/cursor`).changed).toBe(false);
    registerHaid(ctx, `${root}/copilot`);
    registerHaid(ctx, `${root}/claude-code`, 'Claude Code');
    expect(listHaids(ctx).haids.map((h) => [h.haid, h.role, h.status])).toEqual([
      [`${root}/claude-code`, 'claude-code', 'active'],
      [`${root}/copilot`, 'copilot', 'active'],
      [`${root}/cursor`, 'cursor', 'active'],
    ]);
    expect(tailLog(ctx).entries.filter((e) => e.action === 'register')).toHaveLength(3);
  });

  it('refuses a role that is not the suffix, the root itself, and HAIDs of other trees', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    expect(thrown(() => registerHaid(ctx, `${root}/cursor`, 'copilot')).message).toMatch(/has the role cursor .*not copilot/);
    expect(thrown(() => registerHaid(ctx, root)).message).toMatch(/is the root HAID/);
    expect(thrown(() => registerHaid(ctx, 'h-zzzzzzzz/cursor')).message).toMatch(/not part of this planning tree/);
    expect(fs.readFileSync(haidsFile(ctx), 'utf8')).not.toContain('copilot');
  });

  it('retire marks it retired (kept for history); register makes it active again', () => {
    const { ctx } = setup();
    const h = `${rootHaid(ctx)}/cursor`;
    registerHaid(ctx, h);
    expect(retireHaid(ctx, h).record).toMatchObject({ status: 'retired', retired_at: '2026-06-11T12:00:00Z' });
    expect(retireHaid(ctx, h).changed).toBe(false);
    expect(haidStatus(ctx, h)).toBe('retired');
    expect(registerHaid(ctx, h).changed).toBe(true);
    expect(haidStatus(ctx, h)).toBe('active');
    expect(thrown(() => retireHaid(ctx, `${rootHaid(ctx)}/nobody`)).code).toBe('not_found');
  });

  it('register stores the herd address of an agent session next to its HAID; its role is the name without the instance', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    expect(registerHaid(ctx, 'mason.1@core').record).toMatchObject({ haid: `${root}/core/mason.1`, role: 'mason', address: 'mason.1@core' });
    expect(registerHaid(ctx, 'claude-code.2').record).toMatchObject({ haid: `${root}/claude-code.2`, role: 'claude-code', address: 'claude-code.2@team' });
    expect(registerHaid(ctx, `${root}/cursor/w2`).record).toMatchObject({ haid: `${root}/cursor/w2`, role: 'w2' });
    expect(registerHaid(ctx, `${root}/cursor/w2`).record.address).toBeUndefined();
    const file = JSON.parse(fs.readFileSync(haidsFile(ctx), 'utf8'));
    expect(file.haids[`${root}/core/mason.1`]).toEqual({ role: 'mason', address: 'mason.1@core', status: 'active', registered_at: '2026-06-11T12:00:00Z' });
  });
});

describe('identifyCaller (one rule for every transport)', () => {
  const cli = { otherwise: { fallback: 'cli', known: false } } as const;
  it('a flag, else HEIMDALL_AGENT, else HEIMDALL_HAID, else the transport default ({root}/cli, unknown)', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    expect(identifyCaller(ctx, { env: {}, ...cli })).toMatchObject({ haid: `${root}/cli`, address: null, source: 'default', known: false });
    expect(identifyCaller(ctx, { env: { HEIMDALL_HAID: `${root}/ci` }, ...cli })).toMatchObject({ haid: `${root}/ci`, source: 'HEIMDALL_HAID', known: true });
    const env = { HEIMDALL_AGENT: 'claude-code.2', HEIMDALL_HAID: `${root}/ci` };
    expect(identifyCaller(ctx, { env, ...cli })).toMatchObject({ haid: `${root}/claude-code.2`, address: 'claude-code.2@team', source: 'HEIMDALL_AGENT' });
    expect(identifyCaller(ctx, { env, explicit: 'mason.1@core', ...cli })).toMatchObject({ haid: `${root}/core/mason.1`, address: 'mason.1@core', source: 'explicit' });
    expect(haidStatus(ctx, `${root}/claude-code.2`)).toBe('active'); // named identities are registered
    expect(haidStatus(ctx, `${root}/cli`)).toBe('unregistered'); // the default is not
    expect(thrown(() => identifyCaller(ctx, { env: { HEIMDALL_AGENT: 'Nope/x' }, ...cli })).message).toMatch(/invalid \$HEIMDALL_AGENT "Nope\/x"/);
    expect(thrown(() => identifyCaller(ctx, { env: { HEIMDALL_AGENT: 'h-zzzzzzzz/x' }, ...cli })).message).toMatch(/not part of this planning tree/);
  });

  it('a client session id in the environment binds one identity to that session: the same on a reconnect, and for the CLI in its shell', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    const s1 = { CLAUDE_CODE_SESSION_ID: '2f6e1c1a-6a3f-4bd6-9d5e-0d8a5e1f7c10' };
    const s2 = { CLAUDE_CODE_SESSION_ID: '9b1d2c3e-0000-4bd6-9d5e-0d8a5e1f7c10' };
    const mcp = (client: string) => ({ client, otherwise: { fresh: client } });
    const a = identifyCaller(ctx, { env: s1, ...mcp('claude-code') });
    expect(a).toMatchObject({ haid: `${root}/claude-code.s1`, address: 'claude-code.s1@team', source: 'session', via: 'CLAUDE_CODE_SESSION_ID' });
    expect(identifyCaller(ctx, { env: s2, ...mcp('claude-code') }).haid).toBe(`${root}/claude-code.s2`);
    expect(identifyCaller(ctx, { env: s1, ...mcp('claude-code') }).haid).toBe(a.haid); // reconnect
    expect(identifyCaller(ctx, { env: s1, ...cli }).haid).toBe(a.haid); // the CLI in that session's shell
    // The raw session id is not written to the tree, only a hash of it.
    expect(fs.readFileSync(haidsFile(ctx), 'utf8')).not.toContain(s1.CLAUDE_CODE_SESSION_ID);
    // An unusable id is ignored rather than trusted as a key.
    expect(identifyCaller(ctx, { env: { CLAUDE_CODE_SESSION_ID: 'x y' }, ...cli }).source).toBe('default');
  });

  it('without a name or a session, every MCP connection gets a fresh identity, never one handed out before', () => {
    const { ctx } = setup();
    const root = rootHaid(ctx);
    const fresh = (client: string) => identifyCaller(ctx, { env: {}, client, otherwise: { fresh: client } }).haid;
    expect([fresh('claude-code'), fresh('claude-code'), fresh('cursor-vscode'), fresh('Visual Studio Code'), fresh('codex-mcp-client')]).toEqual([
      `${root}/claude-code.s1`,
      `${root}/claude-code.s2`,
      `${root}/cursor.s1`,
      `${root}/vscode.s1`,
      `${root}/codex.s1`,
    ]);
    retireHaid(ctx, `${root}/claude-code.s2`);
    expect(fresh('claude-code')).toBe(`${root}/claude-code.s3`); // a retired identity is not reused
  });
});

describe('a hand-edited haids.json', () => {
  const broken: Array<[string, string, RegExp]> = [
    ['not JSON', '{', /is not valid JSON/],
    ['bad root', '{"version":"2.0.0","root":"H/1","haids":{}}', /"root" must be one HAID segment/],
    ['bad status', '{"version":"2.0.0","root":"h-1","haids":{"h-1/a":{"role":"a","status":"gone","registered_at":"2026-06-11T12:00:00Z"}}}', /status" must be "active" or "retired"/],
    ['bad role', '{"version":"2.0.0","root":"h-1","haids":{"h-1/a":{"role":"A B","status":"active","registered_at":"2026-06-11T12:00:00Z"}}}', /role" must be a role/],
    ['bad time', '{"version":"2.0.0","root":"h-1","haids":{"h-1/a":{"role":"a","status":"active","registered_at":"soon"}}}', /registered_at" must be an ISO-8601 time/],
    ['bad address', '{"version":"2.0.0","root":"h-1","haids":{"h-1/a":{"role":"a","address":"a@","status":"active","registered_at":"2026-06-11T12:00:00Z"}}}', /address" must be a herd address/],
    ['bad session key', '{"version":"2.0.0","root":"h-1","haids":{},"sessions":{"constructor":"h-1/a"}}', /session key "constructor" must be client:hash/],
    ['newer version', '{"version":"9.0.0","root":"h-1","haids":{}}', /newer than this heimdall/],
  ];
  for (const [name, text, re] of broken) {
    it(`${name}: refused with the file named, never rewritten`, () => {
      const { ctx } = setup();
      fs.mkdirSync(path.dirname(haidsFile(ctx)), { recursive: true });
      fs.writeFileSync(haidsFile(ctx), text);
      for (const call of [() => rootHaid(ctx), () => registerHaid(ctx, 'h-1/a'), () => listHaids(ctx)]) {
        const e = thrown(call);
        expect(e.code).toBe('environment');
        expect(e.message).toContain(haidsFile(ctx));
        expect(e.message).toMatch(re);
      }
      expect(fs.readFileSync(haidsFile(ctx), 'utf8')).toBe(text);
    });
  }
});
