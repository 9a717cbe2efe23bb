import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { closure, hydrate, listCapsuleIds, readCapsule, writeCapsule } from './capsules.js';

function seed() {
  const ctx = tmpCtx();
  writeCapsule(ctx, 'w1', { what: 'added LOB engine', where: 'F12', gotcha: 'seed must be fixed' });
  writeCapsule(ctx, 'w2', { what: 'added book diff', where: 'F13', depends: ['w1'] });
  writeCapsule(ctx, 'w3', { what: 'unrelated docs', where: 'README' });
  return ctx;
}

describe('capsules', () => {
  it('hydrates exactly the dependency closure, dependencies first', () => {
    const ctx = seed();
    const h = hydrate(ctx, ['w2']);
    expect(h.ids).toEqual(['w1', 'w2']);
    expect(h.text).toContain('what: added LOB engine');
    expect(h.text).toContain('what: added book diff');
    expect(h.text).not.toContain('unrelated docs');
    expect(h.text.indexOf('# w1')).toBeLessThan(h.text.indexOf('# w2'));
  });

  it('computes diamond closures once, in dependency order', () => {
    const ctx = tmpCtx();
    writeCapsule(ctx, 'a', { what: 'a', where: 'x' });
    writeCapsule(ctx, 'b', { what: 'b', where: 'x', depends: ['a'] });
    writeCapsule(ctx, 'c', { what: 'c', where: 'x', depends: ['a'] });
    writeCapsule(ctx, 'd', { what: 'd', where: 'x', depends: ['b', 'c'] });
    writeCapsule(ctx, 'z', { what: 'z', where: 'x' });
    expect(closure(ctx, ['d']).map((c) => c.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(closure(ctx, ['c', 'b']).map((c) => c.id)).toEqual(['a', 'c', 'b']);
  });

  it('writes the documented format and reads it back', () => {
    const ctx = seed();
    expect(fs.readFileSync(path.join(ctx.paths.capsulesDir, 'w2.md'), 'utf8')).toBe('# w2\nwhat: added book diff\nwhere: F13\ndepends: w1\n');
    const c = readCapsule(ctx, 'w1');
    expect(c).toMatchObject({ id: 'w1', what: 'added LOB engine', where: 'F12', gotcha: 'seed must be fixed', depends: [] });
    expect(listCapsuleIds(ctx)).toEqual(['w1', 'w2', 'w3']);
  });

  it('enforces the 10-line cap: 10 lines pass, 11 are refused with the reason', () => {
    const ctx = tmpCtx();
    // header + what(3 lines) + where + decision(3 lines) + gotcha = 9
    writeCapsule(ctx, 'nine', { what: 'a\nb\nc', where: 'F1', decision: 'd\ne\nf', gotcha: 'g' });
    expect(readCapsule(ctx, 'nine').text.trimEnd().split('\n')).toHaveLength(9);
    writeCapsule(ctx, 'ten2', { what: 'a\nb\nc', where: 'F1', decision: 'd\ne\nf', gotcha: 'g\nh' });
    expect(readCapsule(ctx, 'ten2').text.trimEnd().split('\n')).toHaveLength(10);
    expect(() => writeCapsule(ctx, 'eleven', { what: 'a\nb\nc', where: 'F1', decision: 'd\ne\nf', gotcha: 'g\nh\ni' })).toThrow(
      /capsule eleven would be 11 lines; the cap is 10/,
    );
    expect(fs.existsSync(path.join(ctx.paths.capsulesDir, 'eleven.md'))).toBe(false);
  });

  it('refuses ids that are not plain names', () => {
    const ctx = tmpCtx();
    for (const bad of ['../x', 'a/b', '.hidden', '', 'x..y']) {
      expect(() => writeCapsule(ctx, bad, { what: 'x', where: 'y' })).toThrow(/invalid capsule id/);
    }
    expect(() => hydrate(ctx, ['../../etc/passwd'])).toThrow(/invalid capsule id/);
  });

  it('refuses a missing dependency at write time and names it at hydrate time', () => {
    const ctx = seed();
    expect(() => writeCapsule(ctx, 'w4', { what: 'x', where: 'y', depends: ['nope'] })).toThrow(/capsule w4 depends on nope, which does not exist/);
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'w5.md'), '# w5\nwhat: x\nwhere: y\ndepends: gone\n');
    expect(() => hydrate(ctx, ['w5'])).toThrow(/capsule w5 depends on gone, which does not exist/);
    expect(() => hydrate(ctx, ['absent'])).toThrow(/no capsule absent/);
  });

  it('detects cycles, including one created by rewriting a capsule', () => {
    const ctx = seed();
    expect(() => writeCapsule(ctx, 'w1', { what: 'x', where: 'y', depends: ['w2'] })).toThrow(/cycle: w1 -> w2 -> w1/);
    expect(readCapsule(ctx, 'w1').depends).toEqual([]);
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'p.md'), 'what: p\nwhere: x\ndepends: q\n');
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'q.md'), 'what: q\nwhere: x\ndepends: p\n');
    expect(() => hydrate(ctx, ['p'])).toThrow(/cycle: p -> q -> p/);
  });

  it('reports a hand-edited capsule that breaks the format with file and line', () => {
    const ctx = seed();
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'bad.md'), '# bad\nwhat: ok\nthis line has no field\n');
    expect(() => readCapsule(ctx, 'bad')).toThrow(/bad\.md:3: expected "field: value"/);
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'long.md'), Array.from({ length: 12 }, (_, i) => `what: ${i}`).join('\n'));
    expect(() => readCapsule(ctx, 'long')).toThrow(/has 12 lines; capsules are capped at 10/);
  });
});
