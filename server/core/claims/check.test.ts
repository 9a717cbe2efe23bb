import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { readRegistry, registerHaid, retireHaid, rootHaid } from '../identity/registry.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { thrown } from '../../testing/fixtures.js';
import { checkWrite, formatRemaining, repositoryPath } from './check.js';
import { makeClaim, releaseClaim } from './claims.js';
import { globCoversPath, globsOverlap, normalizeGlob } from './glob.js';

const T0 = Date.parse('2026-06-11T12:00:00Z');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A repository with its planning tree at repo/.planning, two agent sessions and a fixed clock. */
function setup() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-check-'));
  dirs.push(base);
  const repo = path.join(base, 'repo');
  fs.mkdirSync(path.join(repo, '.planning'), { recursive: true });
  const clock = fixedClock(T0);
  const ctx = makeCtx(path.join(repo, '.planning'), { clock, ids: sequentialIds('x') });
  const root = rootHaid(ctx);
  return { base, repo, ctx, clock, root, alice: `${root}/alice.1`, bob: `${root}/bob.1` };
}

const blockedPaths = (c: ReturnType<typeof checkWrite>) => c.paths.filter((p) => p.blocks.length).map((p) => p.path);

describe('checkWrite', () => {
  it("names, for each file, the other agent's claim that covers it: holder HAID and address, claim id, task, covering surfaces, expiry and time left", () => {
    const { ctx, clock, alice, bob } = setup();
    const held = makeClaim(ctx, { haid: bob, surfaces: ['src/api/**', 'docs/api.md'], task: 'T-9', ttlMinutes: 60 }).claim;
    clock.advance(15 * 60_000);
    const c = checkWrite(ctx, ['src/api/users.ts', 'src/web/app.ts'], alice);
    expect(c.blocked).toBe(true);
    expect(c.agent).toBe(alice);
    expect(c.paths[1]).toEqual({ input: 'src/web/app.ts', path: 'src/web/app.ts', blocks: [] });
    expect(c.paths[0]?.blocks).toEqual([
      {
        claim: held.id,
        holder: bob,
        address: 'bob.1@team',
        task: 'T-9',
        task_ref: `${bob}:T-9`,
        surfaces: ['src/api/**'],
        created_at: '2026-06-11T12:00:00Z',
        expires_at: '2026-06-11T13:00:00Z',
        remaining_ms: 45 * 60_000,
      },
    ]);
  });

  it("an agent's own claims never block it; the holder may write what blocks everyone else", () => {
    const { ctx, alice, bob } = setup();
    makeClaim(ctx, { haid: alice, surfaces: ['src/**'], task: 'T-1' });
    expect(checkWrite(ctx, ['src/a.ts'], alice).blocked).toBe(false);
    // The same agent named by its herd address is the same agent.
    expect(checkWrite(ctx, ['src/a.ts'], 'alice.1@team').blocked).toBe(false);
    expect(blockedPaths(checkWrite(ctx, ['src/a.ts'], bob))).toEqual(['src/a.ts']);
  });

  it('an unknown agent (null) owns no claim: every active claim covering the file blocks it', () => {
    const { ctx, alice, bob } = setup();
    makeClaim(ctx, { haid: alice, surfaces: ['src/a.ts'], task: 'T-1' });
    makeClaim(ctx, { haid: bob, surfaces: ['lib/**'], task: 'T-2' });
    const c = checkWrite(ctx, ['src/a.ts', 'lib/b.ts', 'README.md'], null);
    expect(c.agent).toBeNull();
    expect(c.paths.map((p) => p.blocks.map((b) => b.holder))).toEqual([[alice], [bob], []]);
  });

  it('expired, released and retired claims never block', () => {
    const { ctx, clock, alice, bob, root } = setup();
    makeClaim(ctx, { haid: bob, surfaces: ['exp/**'], task: 'T-1', ttlMinutes: 10 });
    makeClaim(ctx, { haid: bob, surfaces: ['rel/**'], task: 'T-2' });
    registerHaid(ctx, `${root}/carol.1`);
    makeClaim(ctx, { haid: `${root}/carol.1`, surfaces: ['ret/**'], task: 'T-3' });
    const files = ['exp/a.ts', 'rel/a.ts', 'ret/a.ts'];
    expect(blockedPaths(checkWrite(ctx, files, alice))).toEqual(files);
    clock.advance(10 * 60_000); // the first expires exactly now
    const rel = releaseClaim(ctx, { haid: bob }).released.find((r) => r.surfaces.includes('rel/**'));
    expect(rel).toBeDefined();
    retireHaid(ctx, `${root}/carol.1`);
    expect(blockedPaths(checkWrite(ctx, files, alice))).toEqual([]);
  });

  it('uses the claims glob semantics: folders cover their contents, * stays in a folder, braces, classes, case folding', () => {
    const { ctx, alice, bob } = setup();
    makeClaim(ctx, { haid: bob, surfaces: ['src/a', 'lib/*', 'docs/{api,cli}.md', 'test/[ab]*.ts', '**/*.snap'], task: 'T-1' });
    const check = (p: string) => checkWrite(ctx, [p], alice).blocked;
    expect(check('src/a/deep/x.ts')).toBe(true); // a claimed folder covers its contents
    expect(check('src/ab.ts')).toBe(false); // a name is not a prefix
    expect(check('lib/x/y.ts')).toBe(true); // lib/* matches the folder lib/x
    expect(check('lib.ts')).toBe(false);
    expect(check('docs/cli.md')).toBe(true);
    expect(check('docs/web.md')).toBe(false);
    expect(check('test/b1.ts')).toBe(true);
    expect(check('test/c1.ts')).toBe(false);
    expect(check('SRC/A/x.ts')).toBe(true); // a case-folding checkout: the same file
    expect(check('deep/in/here/x.snap')).toBe(true);
    // A file is a file: `**/*.snap` does not cover Makefile (the overlap test would, for a folder).
    expect(check('Makefile')).toBe(false);
    expect(globsOverlap('**/*.snap', 'Makefile')).toBe(true);
  });

  it('takes paths as the repository names them: ./x, x, an absolute path inside and a/../x are one file; outside the repository nothing is blocked', () => {
    const { base, repo, ctx, alice, bob } = setup();
    makeClaim(ctx, { haid: bob, surfaces: ['src/x.ts', '**'], task: 'T-1' });
    const outside = path.join(base, 'other/src/x.ts');
    const c = checkWrite(ctx, ['./src/x.ts', 'src/x.ts', path.join(repo, 'src/x.ts'), 'lib/../src/x.ts', outside, '../other/src/x.ts', '/etc/passwd'], alice);
    expect(c.paths.map((p) => p.path)).toEqual(['src/x.ts', 'src/x.ts', 'src/x.ts', 'src/x.ts', null, null, null]);
    expect(c.paths.map((p) => p.blocks.length > 0)).toEqual([true, true, true, true, false, false, false]);
    // Relative paths are taken from cwd when given (a hook's working folder).
    expect(checkWrite(ctx, ['x.ts'], alice, { cwd: path.join(repo, 'src') }).paths[0]?.path).toBe('src/x.ts');
    expect(c.repository).toBe(repo);
  });

  it('recognises the repository through a symbolic link to it', () => {
    const { base, repo, ctx, alice, bob } = setup();
    makeClaim(ctx, { haid: bob, surfaces: ['src/**'], task: 'T-1' });
    const link = path.join(base, 'link');
    fs.symlinkSync(repo, link);
    expect(checkWrite(ctx, [path.join(link, 'src/new/file.ts')], alice).paths[0]).toMatchObject({ path: 'src/new/file.ts', blocks: [{ holder: bob }] });
    expect(repositoryPath(repo, path.join(link, 'src/a.ts'))).toBe('src/a.ts');
  });

  it('reads only: no file is written or rewritten, not even an expired claim, and no lock is left', () => {
    const { ctx, clock, alice, bob } = setup();
    makeClaim(ctx, { haid: bob, surfaces: ['src/**'], task: 'T-1', ttlMinutes: 1 });
    clock.advance(5 * 60_000);
    const snap = () =>
      Object.fromEntries(
        fs
          .readdirSync(ctx.root, { recursive: true, withFileTypes: true })
          .filter((e) => e.isFile())
          .map((e) => {
            const f = path.join(e.parentPath, e.name);
            return [f, fs.readFileSync(f, 'utf8')];
          }),
      );
    const before = snap();
    checkWrite(ctx, ['src/a.ts'], alice);
    checkWrite(ctx, ['src/a.ts'], null);
    expect(snap()).toEqual(before);
  });

  it('refuses bad input with a clear error, and reports a claims file broken by hand', () => {
    const { ctx, alice } = setup();
    expect(thrown(() => checkWrite(ctx, [''], alice)).message).toContain('non-empty string');
    expect(thrown(() => checkWrite(ctx, ['a\0b'], alice)).code).toBe('invalid');
    expect(thrown(() => checkWrite(ctx, 'src/a.ts' as unknown as string[], alice)).message).toContain('list of file paths');
    expect(thrown(() => checkWrite(ctx, ['src/a.ts'], 'h-99999999/alice.1')).message).toContain('not part of this planning tree');
    fs.mkdirSync(path.dirname(ctx.paths.claims), { recursive: true });
    fs.writeFileSync(ctx.paths.claims, '{"version": "2.0.0", "claims": {"c-1": {"haid": 3}}}');
    const e = thrown(() => checkWrite(ctx, ['src/a.ts'], alice));
    expect(e.code).toBe('environment');
    expect(e.message).toContain('claims.json');
  });

  it('an empty tree (no root HAID yet) blocks nothing and creates nothing', () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-check-'));
    dirs.push(base);
    const ctx = makeCtx(path.join(base, '.planning'), { clock: fixedClock(T0) });
    fs.mkdirSync(ctx.root);
    expect(checkWrite(ctx, ['src/a.ts'], null)).toMatchObject({ blocked: false, agent: null });
    expect(checkWrite(ctx, ['src/a.ts'], 'alice.1@team').blocked).toBe(false);
    expect(readRegistry(ctx).root).toBeUndefined();
    expect(fs.readdirSync(ctx.root)).toEqual([]);
  });
});

describe('globCoversPath', () => {
  // [glob, file, covered?]
  const TABLE: Array<[string, string, boolean]> = [
    ['src/**', 'src/a/b.ts', true],
    ['src/**', 'src', true],
    ['src/**', 'srcx/a.ts', false],
    ['src/a.ts', 'src/a.ts', true],
    ['src/a.ts', 'src/a.tsx', false],
    ['src/a.ts', 'src', false], // a file has nothing beneath it
    ['src/a', 'src/a/b/c.ts', true],
    ['src/*.ts', 'src/x/y.ts', false],
    ['src/*', 'src/x/y.ts', true],
    ['*.md', 'README.md', true],
    ['*.md', 'docs/a.md', false],
    ['**/*.md', 'docs/deep/a.md', true],
    ['**', 'anything/at/all', true],
    ['src/**/test/*.ts', 'src/a/b/test/x.ts', true],
    ['src/**/test/*.ts', 'src/test/x.ts', true],
    ['src/**/test/*.ts', 'src/a/spec/x.ts', false],
    ['{src,lib}/x.ts', 'lib/x.ts', true],
    ['src/[!a]*.ts', 'src/a1.ts', false],
    ['src/[!a]*.ts', 'src/b1.ts', true],
    ['src/?.ts', 'src/ab.ts', false],
    ['src/?.ts', 'src/é.ts', true],
    ['Src/A.TS', 'src/a.ts', true],
    ['packages/p1/src/**', 'packages/p10/src/a.ts', false],
    ['packages/p1/src/**', 'packages/P1/src/a.ts', true],
    ['a/b/c', 'a/b', false],
  ];
  it.each(TABLE)('%s covers %s: %s', (glob, file, covered) => {
    expect(globCoversPath(glob, file)).toBe(covered);
  });

  it('agrees with the overlap test: a glob that covers a file always overlaps it (random globs and files)', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const names = ['a', 'b', 'ab', 'a.ts', 'b.md', 'x'];
    const globSegs = [...names, '*', '**', '*.ts', 'a*', '{a,b}', '[ab]', '?'];
    for (let i = 0; i < 3000; i++) {
      const file = Array.from({ length: 1 + rand(3) }, () => names[rand(names.length)]).join('/');
      const glob = Array.from({ length: 1 + rand(3) }, () => globSegs[rand(globSegs.length)]).join('/');
      if (globCoversPath(glob, file)) expect(globsOverlap(glob, file), `${glob} covers ${file}`).toBe(true);
    }
  });
});

describe('normalizeGlob on plain globs (the fast path taken on every read of claims.json)', () => {
  it('gives what the full clean-up gives, or refuses what it refuses (random globs)', () => {
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = ['a', 'B', '1', '_', '-', '.', '*', '/', '..', '**'];
    const outcome = (g: string) => {
      try {
        return normalizeGlob(g);
      } catch (e) {
        return `refused: ${(e as Error).message.split(':')[0]}`;
      }
    };
    for (let i = 0; i < 5000; i++) {
      const g = Array.from({ length: 1 + rand(10) }, () => alphabet[rand(alphabet.length)]).join('');
      if (g.startsWith('/')) continue; // "./" + an absolute path is no longer absolute
      // "./" sends the same glob through the full clean-up.
      const full = outcome(`./${g}`);
      const fast = outcome(g);
      expect(fast.startsWith('refused') ? 'refused' : fast, g).toBe(full.startsWith('refused') ? 'refused' : full);
    }
    expect(normalizeGlob('src/a/')).toBe('src/a/**');
    expect(normalizeGlob('src/**/**/x')).toBe('src/**/x');
    expect(normalizeGlob('src/./a')).toBe('src/a');
  });
});

describe('formatRemaining', () => {
  it.each([
    [0, '0 s'],
    [45_000, '45 s'],
    [12 * 60_000 + 59_000, '12 min'],
    [2 * 3600_000 + 5 * 60_000, '2 h 5 min'],
    [3 * 3600_000, '3 h'],
    [3 * 86400_000 + 4 * 3600_000, '3 d 4 h'],
  ])('%i ms is %s', (ms, text) => {
    expect(formatRemaining(ms)).toBe(text);
  });
});
