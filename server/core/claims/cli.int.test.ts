/**
 * heimdall-claim end to end (the built CLI, as agents call it): exit codes, messages, the default
 * HAID, and bad input at every flag. Needs `npm run build:cli` first (npm test does it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hermeticEnv } from '../../testing/fixtures.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dirs: string[] = [];
beforeAll(() => {
  if (!fs.existsSync(path.join(repo, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: run npm run build:cli first');
});
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function tree() {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-claim-cli-')), '.planning');
  dirs.push(path.dirname(dir));
  fs.mkdirSync(dir); // an empty tree (only `heimdall init` makes one; an empty folder is one too)
  const cli = (prog: 'heimdall-claim' | 'heimdall-haid', args: string[], env: Record<string, string> = {}) => {
    const r = spawnSync(path.join(repo, 'bin', prog), args, { encoding: 'utf8', env: hermeticEnv({ ...env, HEIMDALL_PLANNING_DIR: dir }), timeout: 30_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const root = cli('heimdall-haid', ['root']).out.trim();
  return { dir, cli, root, claim: (args: string[], env?: Record<string, string>) => cli('heimdall-claim', args, env) };
}

describe('heimdall-claim', () => {
  it('claims as {root}/cli by default, keeps commas inside braces, one claim per task; lists and releases', () => {
    const { claim, root } = tree();
    const c = claim(['claim', '--surfaces', 'src/{a,b}.ts, docs/', '--task', 'T-1', '--ttl-minutes', '5']);
    expect(c.code).toBe(0);
    expect(c.out).toMatch(new RegExp(`^claimed c-[a-z0-9]+ src/\\{a,b\\}\\.ts,docs/\\*\\* for ${root}/cli:T-1 until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\n$`));
    const same = JSON.parse(claim(['claim', '--surfaces', 'lib/**', '--task', 'T-1', '--json']).out);
    expect(same).toMatchObject({ haid: `${root}/cli`, address: null, extended: true, claim: { surfaces: ['src/{a,b}.ts', 'docs/**', 'lib/**'], task_ref: `${root}/cli:T-1` } });
    const other = JSON.parse(claim(['claim', '--surfaces', 'test/**', '--task', 'T-2', '--json']).out);
    expect(other).toMatchObject({ extended: false, claim: { surfaces: ['test/**'], task_ref: `${root}/cli:T-2` } });
    expect(other.claim.id).not.toBe(same.claim.id);
    const rows = claim(['list']).out.trimEnd().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => [r[0], r[1], r[3], r[4], r[5]])).toEqual([
      [`${root}/cli`, 'active', `${root}/cli:T-1`, 'src/{a,b}.ts,docs/**,lib/**', same.claim.id],
      [`${root}/cli`, 'active', `${root}/cli:T-2`, 'test/**', other.claim.id],
    ]);
    expect(JSON.parse(claim(['list', '--json']).out)).toMatchObject({ count: 2, active: 2, expired: 0, retired: 0, released: 0 });
    expect(claim(['release', '--id', same.claim.id])).toMatchObject({ code: 0, out: `released ${same.claim.id} src/{a,b}.ts,docs/**,lib/** held by ${root}/cli (was active)\n` });
    expect(claim(['release', '--reason', 'done'])).toMatchObject({ code: 0, out: `released ${other.claim.id} test/** held by ${root}/cli (was active)\n` });
    expect(claim(['list'])).toMatchObject({ code: 0, out: '' });
    const history = JSON.parse(claim(['list', '--all', '--json']).out);
    expect(history).toMatchObject({ count: 2, released: 2 });
    expect(history.claims[1]).toMatchObject({ id: other.claim.id, status: 'released', released_by: `${root}/cli`, reason: 'done' });
  });

  it('acts as $HEIMDALL_AGENT (or the 1.x $HEIMDALL_HAID), or --as / --haid over it, in any form an agent is named', () => {
    const { claim, root } = tree();
    expect(claim(['claim', '--surfaces', 'a', '--task', 'T'], { HEIMDALL_HAID: `${root}/ci` }).out).toContain(`${root}/ci:T`);
    expect(claim(['claim', '--surfaces', 'b', '--task', 'T', '--haid', `${root}/cursor`], { HEIMDALL_HAID: `${root}/ci` }).out).toContain(`${root}/cursor:T`);
    expect(claim(['claim', '--surfaces', 'c', '--task', 'T'], { HEIMDALL_AGENT: 'claude-code.2', HEIMDALL_HAID: `${root}/ci` }).out).toContain(`${root}/claude-code.2:T`);
    expect(claim(['claim', '--surfaces', 'd', '--task', 'T', '--as', 'mason.1@core']).out).toContain(`${root}/core/mason.1:T`);
    // The HAID and the herd address are one identity: releasing by either name finds the same claims.
    expect(claim(['release', '--as', `${root}/core/mason.1`]).out).toContain(`held by ${root}/core/mason.1`);
    expect(claim(['release'], { HEIMDALL_HAID: `${root}/ci` }).code).toBe(0);
    expect(claim(['release', '--haid', `${root}/cursor`]).code).toBe(0);
    expect(claim(['release', '--as', `${root}/claude-code.2`]).code).toBe(0);
    expect(claim(['release', '--as', 'a', '--haid', 'b']).err).toMatch(/--as and --haid name different agents/);
  });

  it('a collision exits 1 naming the holder, its task and the overlapping globs; nothing is written', () => {
    const { claim, root, dir } = tree();
    claim(['claim', '--surfaces', 'src/a/**', '--task', 'T-9', '--haid', `${root}/cursor`]);
    const before = fs.readFileSync(path.join(dir, 'ledger/claims.json'), 'utf8');
    const r = claim(['claim', '--surfaces', 'src/a/b.ts', '--task', 'T-10', '--haid', `${root}/copilot`]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(new RegExp(`heimdall-claim: claim refused for ${root}/copilot: ${root}/cursor holds src/a/\\*\\* for task T-9 \\(claim c-[a-z0-9]+, task_ref ${root}/cursor:T-9\\)`));
    expect(r.err).toContain('overlapping: src/a/b.ts ~ src/a/**');
    expect(fs.readFileSync(path.join(dir, 'ledger/claims.json'), 'utf8')).toBe(before);
    expect(claim(['claim', '--surfaces', 'src/*.ts', '--task', 'T-11', '--haid', `${root}/copilot`]).code).toBe(0); // no overlap with src/a/**
  });

  it('release of nothing exits 1', () => {
    const { claim, root } = tree();
    expect(claim(['release'])).toMatchObject({ code: 1, err: `heimdall-claim: ${root}/cli holds no claim (see heimdall-claim list)\n` });
  });

  const bad: Array<[string, string[], number, RegExp]> = [
    ['no subcommand', [], 2, /expected at least 1 argument/],
    ['unknown subcommand', ['grab'], 2, /unknown subcommand "grab"/],
    ['missing --task', ['claim', '--surfaces', 'a'], 2, /--task is required/],
    ['missing --surfaces', ['claim', '--task', 'T'], 2, /--surfaces is required/],
    ['empty --surfaces', ['claim', '--surfaces', ' , ', '--task', 'T'], 2, /--surfaces needs at least one glob/],
    ['non-integer ttl', ['claim', '--surfaces', 'a', '--task', 'T', '--ttl-minutes', 'soon'], 2, /--ttl-minutes must be an integer, got "soon"/],
    ['ttl out of range', ['claim', '--surfaces', 'a', '--task', 'T', '--ttl-minutes', '0'], 1, /ttl must be a whole number of minutes from 1 to 10080/],
    ['unknown flag', ['claim', '--surface', 'a', '--task', 'T'], 2, /unknown option --surface/],
    ['absolute glob', ['claim', '--surfaces', '/etc/**', '--task', 'T'], 1, /invalid surface "\/etc\/\*\*": absolute paths are not allowed/],
    ['unbalanced brace', ['claim', '--surfaces', 'src/{a,b', '--task', 'T'], 1, /is never closed/],
    ['bad --haid', ['claim', '--surfaces', 'a', '--task', 'T', '--haid', 'Cur/sor'], 1, /invalid --haid "Cur\/sor"/],
    ['bad --as address', ['claim', '--surfaces', 'a', '--task', 'T', '--as', 'mason@core'], 1, /malformed --as "mason@core"/],
    ['foreign --haid', ['claim', '--surfaces', 'a', '--task', 'T', '--haid', 'h-zz/cursor'], 1, /not part of this planning tree/],
    ['flag that does not apply', ['list', '--task', 'T'], 2, /--task does not apply to list/],
  ];
  for (const [name, args, code, re] of bad) {
    it(`${name}: exit ${code}, clear message, nothing written`, () => {
      const { claim, dir } = tree();
      const r = claim(args);
      expect(r.code).toBe(code);
      expect(r.err).toMatch(re);
      expect(fs.existsSync(path.join(dir, 'ledger/claims.json'))).toBe(false);
    });
  }

  it('a corrupted claims.json: exit 2 naming the file, file untouched', () => {
    const { claim, dir } = tree();
    const file = path.join(dir, 'ledger/claims.json');
    fs.writeFileSync(file, '{"version":"2.0.0","claims":{"h-x/a":{"surfaces":"src"}}}');
    for (const args of [['list'], ['claim', '--surfaces', 'x', '--task', 'T'], ['release']]) {
      const r = claim(args);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`${file}: "claims.h-x/a".surfaces must be a non-empty array of globs; the file was left untouched`);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('{"version":"2.0.0","claims":{"h-x/a":{"surfaces":"src"}}}');
  });
});

describe('heimdall-haid', () => {
  it('root is stable; spawn derives; register, list, retire', () => {
    const { cli, root } = tree();
    expect(root).toMatch(/^h-[a-z0-9]{8}$/);
    expect(cli('heimdall-haid', ['root']).out).toBe(`${root}\n`);
    expect(cli('heimdall-haid', ['spawn', 'Cursor']).out).toBe(`${root}/cursor\n`);
    expect(cli('heimdall-haid', ['register', `${root}/cursor`, '--role', 'cursor']).out).toBe(`registered ${root}/cursor role=cursor\n`);
    expect(cli('heimdall-haid', ['register', `${root}/cursor`]).out).toBe(`already registered ${root}/cursor role=cursor\n`);
    expect(cli('heimdall-haid', ['register', `${root}/copilot`]).code).toBe(0);
    const list = cli('heimdall-haid', ['list']).out.trimEnd().split('\n').map((l) => l.split('\t').slice(0, 3));
    expect(list).toEqual([
      [`${root}/copilot`, 'copilot', 'active'],
      [`${root}/cursor`, 'cursor', 'active'],
    ]);
    expect(cli('heimdall-haid', ['retire', `${root}/cursor`]).out).toBe(`retired ${root}/cursor\n`);
    expect(JSON.parse(cli('heimdall-haid', ['list', '--json']).out).haids[1]).toMatchObject({ haid: `${root}/cursor`, status: 'retired' });
    // A retired HAID cannot claim.
    const r = cli('heimdall-claim', ['claim', '--surfaces', 'a', '--task', 'T', '--haid', `${root}/cursor`]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/is retired and cannot claim/);
  });

  it.each([
    [['register', 'h-x/cursor'], 1, /not part of this planning tree/],
    [['register', 'ROOT/cursor'], 1, /invalid HAID/],
    [['retire', 'h-x/nobody'], 1, /is not registered/],
    [['spawn'], 2, /spawn needs a CLIENT name/],
    [['spawn', '***'], 1, /no letters or digits/],
    [['root', 'extra'], 2, /root takes no argument/],
    [['list', '--role', 'x'], 2, /--role applies to register only/],
    [['adopt', 'x'], 2, /unknown subcommand "adopt"/],
  ])('%j exits %i', (args, code, re) => {
    const { cli } = tree();
    const r = cli('heimdall-haid', args as string[]);
    expect(r.code).toBe(code);
    expect(r.err).toMatch(re);
  });

  it('register with a role that is not the suffix exits 1', () => {
    const { cli, root } = tree();
    const r = cli('heimdall-haid', ['register', `${root}/cursor`, '--role', 'copilot']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/has the role cursor .*not copilot/);
  });
});
