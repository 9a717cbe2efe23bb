import { describe, expect, it } from 'vitest';
import { HeimdallError } from '../errors.js';
import { compileGlob, globsOverlap, normalizeGlob, overlappingPairs, splitSurfaceList } from './glob.js';

// [a, b, collide?, why]. Each pair is checked in both orders (overlap is symmetric).
const TABLE: Array<[string, string, boolean, string]> = [
  ['src/a/**', 'src/a/b.ts', true, 'a globstar covers files beneath it'],
  ['src/*.ts', 'src/x/y.ts', false, '* does not cross a folder and x is not *.ts'],
  ['**', 'anything/at/all.md', true, '** covers everything'],
  ['**', 'README.md', true, '** covers top-level files'],
  ['**', '**', true, 'identical'],
  ['src/a.ts', 'src/a.ts', true, 'identical literal'],
  ['src/a.ts', 'src/b.ts', false, 'different literals'],
  ['src/a', 'src/a/b.ts', true, 'a claimed folder covers its contents'],
  ['src/a', 'src/ab.ts', false, 'a name is not a prefix match'],
  ['src/*', 'src/x/y.ts', true, 'src/* matches the folder src/x, which covers y.ts'],
  ['*.ts', 'src/a.ts', false, 'anchored at the root: *.ts is top-level only'],
  ['**/*.ts', 'src/deep/a.ts', true, 'leading globstar reaches any depth'],
  ['**/*.ts', 'src/deep/a.md', false, 'extension differs at every depth, and a.md is file-like'],
  ['**/*.ts', 'src/lib', true, 'src/lib may be a folder holding .ts files'],
  ['etc/conf.d/x.conf', 'etc/conf.d', true, 'a path explicitly beneath the other'],
  ['src/*/x.ts', 'src/a.md', true, 'explicitly walks beneath a name the * matches'],
  ['src/**/test/*.ts', 'src/a/b/test/x.ts', true, 'globstar in the middle'],
  ['src/**/test/*.ts', 'src/a/b/spec/x.ts', false, 'middle literal differs'],
  ['src/**/x.ts', 'src/**/y.ts', false, 'same shape, different final names'],
  ['src/**/x.ts', '**/src/**', true, 'two globstars meet'],
  ['src/{a,b}.ts', 'src/b.ts', true, 'brace alternative matches'],
  ['src/{a,b}.ts', 'src/c.ts', false, 'no brace alternative matches'],
  ['{src,lib}/**', 'lib/x.ts', true, 'brace on the first segment'],
  ['src/{a,b/{c,d}}.ts', 'src/b/d.ts', true, 'nested braces'],
  ['src/[abc].ts', 'src/b.ts', true, 'class contains b'],
  ['src/[abc].ts', 'src/d.ts', false, 'class lacks d'],
  ['src/[a-f]*.ts', 'src/[e-z]x.ts', true, 'classes share e and f'],
  ['src/[a-c]*.ts', 'src/[x-z]*.ts', false, 'disjoint classes'],
  ['src/[!b].ts', 'src/b.md', false, 'extension differs'],
  ['src/[!0-4].ts', 'src/3.ts', false, 'negated class excludes 3'],
  ['src/[!a].ts', 'src/a.ts', true, 'excludes only "a", and "A.ts" is the same file on a case-folding checkout'],
  ['src/[!a].ts', 'src/b.ts', true, 'negated class admits b'],
  ['src/[^0-4].ts', 'src/[0-4].ts', false, '^ negation, disjoint from the positive class'],
  ['src/[!a].ts', 'src/[!b].ts', true, 'two negated classes share some character'],
  ['src/?.ts', 'src/ab.ts', false, '? is exactly one character'],
  ['src/?.ts', 'src/a.ts', true, '? matches one character'],
  ['src/a*b.ts', 'src/*c*.ts', true, 'stars on both sides (e.g. acb.ts)'],
  ['src/a*', 'src/*b', true, 'prefix and suffix stars meet (ab)'],
  ['src/a*.ts', 'src/b*.ts', false, 'different fixed first letter'],
  ['src/*.test.ts', 'src/*.ts', true, 'a narrower suffix inside a wider one'],
  ['./src/a.ts', 'src/a.ts', true, './ prefix is removed'],
  ['src/a/', 'src/a/b/c.ts', true, 'trailing slash means the folder and everything beneath'],
  ['src//a.ts', 'src/a.ts', true, 'repeated slashes collapse'],
  ['src/./a.ts', 'src/a.ts', true, '/./ is removed'],
  ['.', 'docs/x.md', true, '. is the whole repository'],
  ['src/A.ts', 'src/a.ts', true, 'case-insensitive (conservative for macOS/Windows checkouts)'],
  ['src/[A-C].ts', 'src/b.ts', true, 'case folding applies to classes'],
  ['src/.env', 'src/*', true, '* matches dot-files too (conservative)'],
  ['docs/**', 'src/**', false, 'disjoint trees'],
  ['src/a**b.ts', 'src/axxb.ts', true, '** inside a segment acts as *'],
  ['src/é.ts', 'src/?.ts', true, 'non-ASCII characters are single characters'],
  ['[12]/x', '2/x', true, 'a class in the first segment is not a plain name'],
  ['[a]/x', 'A/x', true, 'a one-letter class equals the letter, case folded'],
  ['pkg1/**', 'pkg2/**', false, 'different plain first segments'],
];

describe('globsOverlap: the table', () => {
  it('has at least 30 pairs, both outcomes represented', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(30);
    expect(TABLE.filter((r) => r[2]).length).toBeGreaterThan(10);
    expect(TABLE.filter((r) => !r[2]).length).toBeGreaterThan(10);
  });
  for (const [a, b, want, why] of TABLE) {
    it(`${a}  vs  ${b}: ${want ? 'collide' : 'no collision'} (${why})`, () => {
      expect(globsOverlap(a, b)).toBe(want);
      expect(globsOverlap(b, a)).toBe(want);
    });
  }
});

describe('normalizeGlob', () => {
  it.each([
    ['./src/a.ts', 'src/a.ts'],
    ['././src//a/', 'src/a/**'],
    ['src/a/**/', 'src/a/**'],
    ['src/**/**/x', 'src/**/x'],
    ['./', '**'],
    ['.', '**'],
    ['src/{a,b}/', 'src/{a,b}/**'],
  ])('%s -> %s', (input, out) => {
    expect(normalizeGlob(input)).toBe(out);
  });

  const REFUSED: Array<[unknown, RegExp]> = [
    ['', /empty/],
    ['   ', /empty/],
    [' src/a', /leading or trailing spaces/],
    ['/etc/passwd', /absolute paths are not allowed; drop the leading "\/" \(etc\/passwd\)/],
    ['../x', /"\.\." segments would leave the repository/],
    ['src/../../x', /\.\./],
    ['src\\a.ts', /backslashes are not supported/],
    ['!src/a', /negated globs cannot be claimed/],
    ['src/@(a|b).ts', /extglob/],
    ['src/{a,b.ts', /never closed/],
    ['src/a,b}.ts', /"," outside braces/],
    ['src/a}.ts', /no matching "\{"/],
    ['src/{a}.ts', /no comma/],
    ['src/{1..3}.ts', /ranges like \{1\.\.3\} are not supported/],
    ['src/[abc.ts', /never closed/],
    ['src/[z-a].ts', /reversed; write \[a-z\]/],
    ['src/[[:alpha:]].ts', /POSIX character classes/],
    ['src/[a/b].ts', /never closed|cannot contain "\/"/],
    ['src/a\tb', /control character/],
    ['src/a\nb', /control character/],
    [42, /expected a string, got number/],
    [null, /expected a string, got null/],
    ['a/'.repeat(300), /characters long/],
    [`${'a/'.repeat(40)}x`, /segments; at most 32/],
  ];
  for (const [input, re] of REFUSED) {
    it(`refuses ${JSON.stringify(input)?.slice(0, 40)}`, () => {
      let err: unknown;
      try {
        compileGlob(input);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(HeimdallError);
      expect((err as HeimdallError).code).toBe('invalid');
      expect((err as Error).message).toMatch(re);
      expect((err as Error).message).toMatch(/repository-relative glob/);
    });
  }

  it('refuses an absolute path hidden in a brace alternative', () => {
    expect(() => compileGlob('{/etc,src}/x')).toThrow(/absolute path/);
  });
  it('refuses braces that expand to more than 64 alternatives', () => {
    expect(() => compileGlob('{a,b,c,d}{a,b,c,d}{a,b,c,d}{e,f}')).toThrow(/more than 64 alternatives/);
    expect(compileGlob('{a,b,c,d}{a,b,c,d}{a,b,c,d}').alternatives).toHaveLength(64);
  });
  it('keeps "]" as a member right after "[" or "[!"', () => {
    expect(globsOverlap('src/[]a].ts', 'src/].ts')).toBe(true);
    expect(globsOverlap('src/[!]].ts', 'src/].ts')).toBe(false);
  });
});

describe('overlappingPairs and splitSurfaceList', () => {
  it('lists every overlapping (requested, held) pair', () => {
    expect(overlappingPairs(['src/a/**', 'docs/x.md', 'lib/*.ts'], ['src/a/b.ts', 'lib/y.ts', 'bin/z'])).toEqual([
      ['src/a/**', 'src/a/b.ts'],
      ['lib/*.ts', 'lib/y.ts'],
    ]);
  });
  it('splits on commas outside braces and trims', () => {
    expect(splitSurfaceList('src/{a,b}.ts, docs/**,,lib/{x,{y,z}}/')).toEqual(['src/{a,b}.ts', 'docs/**', 'lib/{x,{y,z}}/']);
    expect(splitSurfaceList('')).toEqual([]);
  });
});

describe('cost', () => {
  it('stays polynomial on adversarial star patterns', () => {
    const a = `${'*a'.repeat(60)}/${'**/'.repeat(15)}x`;
    const b = `${'a*'.repeat(60)}b/${'**/'.repeat(15)}y`;
    // An exponential matcher would not return within the test's timeout; how fast it returns is a
    // benchmark figure, not something a test on a loaded machine may assert.
    expect(globsOverlap(a, b)).toBe(false);
  });
});

describe('never misses a real collision (property test against node:path.matchesGlob)', () => {
  // If one concrete path is matched by both globs, the gate must say "collide". The reference
  // matcher is Node's own (minimatch semantics), not ours.
  it('holds for random globs over a small path universe', async () => {
    const fc = await import('fast-check');
    const { matchesGlob } = await import('node:path');
    const names = ['a', 'b', 'a.ts', 'b.ts', 'x.md', 'ab'];
    const universe: string[] = [];
    const grow = (prefix: string, depth: number) => {
      for (const n of names) {
        const p = prefix ? `${prefix}/${n}` : n;
        universe.push(p);
        if (depth > 1) grow(p, depth - 1);
      }
    };
    grow('', 3);
    const seg = fc.constantFrom('a', 'b', '*', '**', '*.ts', 'a.ts', '?', '[ab]', '[!a]*', '{a,b}', 'x.md', '*.md', 'a*');
    const glob = fc.array(seg, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
    let collisionsSeen = 0;
    fc.assert(
      fc.property(glob, glob, (g1, g2) => {
        const witness = universe.find((p) => matchesGlob(p, g1) && matchesGlob(p, g2));
        if (witness) {
          collisionsSeen++;
          return globsOverlap(g1, g2);
        }
        return true;
      }),
      { numRuns: 300, seed: 20260611 },
    );
    expect(collisionsSeen).toBeGreaterThan(20);
  });
});
