import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../context.js';
import { registerHaid, retireHaid, rootHaid } from '../identity/registry.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { checkCollisions, claimsFile, listClaims, makeClaim, readClaims, releaseClaim } from './claims.js';
import { thrown } from '../../testing/fixtures.js';

const T0 = Date.parse('2026-06-11T12:00:00Z');
const dirs: string[] = [];

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-claims-'));
  dirs.push(dir);
  const clock = fixedClock(T0);
  const ctx = makeCtx(dir, { clock, ids: sequentialIds('x') });
  const root = rootHaid(ctx);
  return { ctx, clock, root, a: `${root}/cursor`, b: `${root}/copilot`, c: `${root}/claude-code` };
}

afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});


describe('makeClaim', () => {
  it('records holder, surfaces, task_ref with the HAID woven in, created and expiry times', () => {
    const { ctx, a } = setup();
    const r = makeClaim(ctx, { haid: a, surfaces: ['./src/a/', 'docs/x.md'], task: 'T-9', ttlMinutes: 30 });
    expect(r).toEqual({
      extended: false,
      claim: {
        haid: a,
        surfaces: ['src/a/**', 'docs/x.md'],
        task: 'T-9',
        task_ref: `${a}:T-9`,
        created_at: '2026-06-11T12:00:00Z',
        expires_at: '2026-06-11T12:30:00Z',
      },
    });
    const file = JSON.parse(fs.readFileSync(claimsFile(ctx), 'utf8'));
    expect(file.version).toBe('2.0.0');
    expect(file.claims[a].task_ref).toBe(`${a}:T-9`);
    expect(file.claims[a].haid).toBeUndefined(); // the key is the holder
  });

  it('defaults the ttl to 60 minutes', () => {
    const { ctx, a } = setup();
    expect(makeClaim(ctx, { haid: a, surfaces: ['x'], task: 'T' }).claim.expires_at).toBe('2026-06-11T13:00:00Z');
  });

  it('refuses an overlapping claim of another HAID, naming holder, task and overlapping globs', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/a/**'], task: 'T-9' });
    const e = thrown(() => makeClaim(ctx, { haid: b, surfaces: ['lib/x.ts', 'src/a/b.ts'], task: 'T-10' }));
    expect(e.code).toBe('conflict');
    expect(e.message).toContain(`claim refused for ${b}`);
    expect(e.message).toContain(`${a} holds src/a/** for task T-9 (task_ref ${a}:T-9) until 2026-06-11T13:00:00Z`);
    expect(e.message).toContain('overlapping: src/a/b.ts ~ src/a/**');
    expect(e.details).toEqual({
      collisions: [
        {
          holder: a,
          task: 'T-9',
          task_ref: `${a}:T-9`,
          created_at: '2026-06-11T12:00:00Z',
          expires_at: '2026-06-11T13:00:00Z',
          overlaps: [['src/a/b.ts', 'src/a/**']],
        },
      ],
    });
    expect(Object.keys(readClaims(ctx))).toEqual([a]); // nothing written for b
  });

  it('names every holder it collides with', () => {
    const { ctx, clock, a, b, c } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/a.ts'], task: 'A' });
    clock.advance(1000);
    makeClaim(ctx, { haid: b, surfaces: ['src/b.ts'], task: 'B' });
    const e = thrown(() => makeClaim(ctx, { haid: c, surfaces: ['src/*.ts'], task: 'C' }));
    // Oldest claim first (a claimed before b, though "copilot" sorts before "cursor").
    expect((e.details as { collisions: Array<{ holder: string }> }).collisions.map((x) => x.holder)).toEqual([a, b]);
  });

  it('lets disjoint claims coexist', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/*.ts'], task: 'A' });
    makeClaim(ctx, { haid: b, surfaces: ['src/x/y.ts'], task: 'B' });
    expect(listClaims(ctx).active).toBe(2);
  });

  it('expired claims stop blocking and are shown as expired', () => {
    const { ctx, clock, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A', ttlMinutes: 10 });
    clock.advance(10 * 60_000 - 1000);
    expect(thrown(() => makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' })).code).toBe('conflict');
    clock.advance(1000); // exactly at the expiry
    expect(listClaims(ctx).claims.map((c) => [c.haid, c.status])).toEqual([[a, 'expired']]);
    expect(listClaims(ctx, { activeOnly: true }).count).toBe(0);
    makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' });
    const l = listClaims(ctx);
    expect(l.claims.map((c) => [c.haid, c.status])).toEqual([
      [a, 'expired'],
      [b, 'active'],
    ]);
    expect([l.active, l.expired, l.count]).toEqual([1, 1, 2]);
  });

  it('drops claims that expired more than a day ago on the next write', () => {
    const { ctx, clock, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A', ttlMinutes: 1 });
    clock.advance(25 * 3600_000);
    expect(listClaims(ctx).expired).toBe(1);
    makeClaim(ctx, { haid: b, surfaces: ['lib/**'], task: 'B' });
    expect(Object.keys(readClaims(ctx))).toEqual([b]);
    expect(tailLog(ctx).entries.at(-1)?.detail).toContain('dropped 1 long-expired');
  });

  it('the same HAID claiming again extends its claim: surfaces merged, task updated, expiry moved later, never earlier', () => {
    const { ctx, clock, a } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/a/**'], task: 'T-1', ttlMinutes: 120 });
    clock.advance(30 * 60_000);
    const r = makeClaim(ctx, { haid: a, surfaces: ['src/a/b.ts', 'src/c.ts'], task: 'T-2', ttlMinutes: 10 });
    expect(r.extended).toBe(true);
    expect(r.claim).toMatchObject({
      surfaces: ['src/a/**', 'src/a/b.ts', 'src/c.ts'],
      task: 'T-2',
      task_ref: `${a}:T-2`,
      created_at: '2026-06-11T12:00:00Z',
      expires_at: '2026-06-11T14:00:00Z', // 12:30 + 10 min is earlier than the old expiry
    });
    const again = makeClaim(ctx, { haid: a, surfaces: ['src/c.ts'], task: 'T-2', ttlMinutes: 600 });
    expect(again.claim.expires_at).toBe('2026-06-11T22:30:00Z');
    expect(tailLog(ctx).entries.filter((e) => e.action === 'extend')).toHaveLength(2);
  });

  it('an expired claim of the same HAID is replaced, not extended', () => {
    const { ctx, clock, a } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['old/**'], task: 'T-1', ttlMinutes: 5 });
    clock.advance(6 * 60_000);
    const r = makeClaim(ctx, { haid: a, surfaces: ['new/**'], task: 'T-2' });
    expect(r.extended).toBe(false);
    expect(r.claim.surfaces).toEqual(['new/**']);
    expect(r.claim.created_at).toBe('2026-06-11T12:06:00Z');
  });

  it('a retired HAID cannot claim, and its claims stop blocking', () => {
    const { ctx, a, b } = setup();
    registerHaid(ctx, a);
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    retireHaid(ctx, a);
    expect(listClaims(ctx).claims[0]?.status).toBe('retired');
    expect(thrown(() => makeClaim(ctx, { haid: a, surfaces: ['x'], task: 'A' })).code).toBe('forbidden');
    expect(makeClaim(ctx, { haid: b, surfaces: ['src/a.ts'], task: 'B' }).extended).toBe(false);
  });

  it('logs claims, extensions and refusals to protocol.log', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    thrown(() => makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' }));
    const lines = tailLog(ctx).entries.filter((e) => e.mechanism === 'claim');
    expect(lines.map((e) => e.action)).toEqual(['claim', 'refuse']);
    expect(lines[0]?.detail).toBe(`${a} src/** task=${a}:A until=2026-06-11T13:00:00Z`);
    expect(lines[1]?.detail).toBe(`${b} src/x: held by ${a} (${a}:A)`);
  });

  describe('bad input is refused and never written', () => {
    const cases: Array<[string, (h: { a: string; root: string }) => Parameters<typeof makeClaim>[1], string, RegExp]> = [
      ['empty surfaces', ({ a }) => ({ haid: a, surfaces: [], task: 'T' }), 'invalid', /non-empty list of globs/],
      ['surfaces not an array', ({ a }) => ({ haid: a, surfaces: 'src/**' as unknown as string[], task: 'T' }), 'invalid', /non-empty list/],
      ['a bad glob', ({ a }) => ({ haid: a, surfaces: ['../etc'], task: 'T' }), 'invalid', /"\.\." segments/],
      ['a non-string glob', ({ a }) => ({ haid: a, surfaces: [7 as unknown as string], task: 'T' }), 'invalid', /expected a string/],
      ['too many surfaces', ({ a }) => ({ haid: a, surfaces: Array.from({ length: 65 }, (_, i) => `f${i}`), task: 'T' }), 'invalid', /at most 64/],
      ['empty task', ({ a }) => ({ haid: a, surfaces: ['x'], task: '  ' }), 'invalid', /task value must be a non-empty string/],
      ['multi-line task', ({ a }) => ({ haid: a, surfaces: ['x'], task: 'a\nb' }), 'invalid', /one line/],
      ['ttl 0', ({ a }) => ({ haid: a, surfaces: ['x'], task: 'T', ttlMinutes: 0 }), 'invalid', /ttl must be a whole number of minutes from 1 to 10080/],
      ['ttl fractional', ({ a }) => ({ haid: a, surfaces: ['x'], task: 'T', ttlMinutes: 1.5 }), 'invalid', /whole number/],
      ['ttl too long', ({ a }) => ({ haid: a, surfaces: ['x'], task: 'T', ttlMinutes: 10081 }), 'invalid', /10080/],
      ['malformed HAID', () => ({ haid: 'Not A Haid', surfaces: ['x'], task: 'T' }), 'invalid', /invalid HAID "Not A Haid"/],
      ['HAID of another tree', () => ({ haid: 'h-other/cursor', surfaces: ['x'], task: 'T' }), 'invalid', /not part of this planning tree, whose root HAID is h-/],
      ['bare client name as HAID', () => ({ haid: 'cursor', surfaces: ['x'], task: 'T' }), 'invalid', /did you mean h-[a-z0-9]+\/cursor/],
    ];
    for (const [name, req, code, re] of cases) {
      it(name, () => {
        const h = setup();
        const e = thrown(() => makeClaim(h.ctx, req(h)));
        expect(e.code).toBe(code);
        expect(e.message).toMatch(re);
        expect(fs.existsSync(claimsFile(h.ctx))).toBe(false);
      });
    }
  });
});

describe('a hand-edited claims.json', () => {
  const broken: Array<[string, (a: string) => string, RegExp]> = [
    ['invalid JSON', () => '{"version": "2.0.0", "claims": {', /is not valid JSON/],
    ['no version', () => '{"claims": {}}', /no valid "version"/],
    ['newer major version', () => '{"version": "3.0.0", "claims": {}}', /newer than this heimdall/],
    ['claims not an object', () => '{"version": "2.0.0", "claims": []}', /"claims" must be an object keyed by HAID/],
    ['bad HAID key', () => '{"version": "2.0.0", "claims": {"Bad Key": {}}}', /key invalid HAID "Bad Key"/],
    ['bad glob', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: ['/abs'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } }), /surfaces: invalid surface "\/abs"/],
    ['empty surfaces', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: [], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } }), /surfaces must be a non-empty array/],
    ['bad expiry', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: ['x'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: 'tomorrow' } } }), /expires_at must be an ISO-8601 time, got "tomorrow"/],
    ['missing task', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: ['x'], task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } }), /task must be a non-empty string/],
  ];
  for (const [name, content, re] of broken) {
    it(`${name}: every call fails naming the file, and the file is left untouched`, () => {
      const { ctx, a, b } = setup();
      fs.mkdirSync(path.dirname(claimsFile(ctx)), { recursive: true });
      const text = content(a);
      fs.writeFileSync(claimsFile(ctx), text);
      for (const call of [() => listClaims(ctx), () => makeClaim(ctx, { haid: b, surfaces: ['y'], task: 'T' }), () => releaseClaim(ctx, { haid: a })]) {
        const e = thrown(call);
        expect(e.code).toBe('environment');
        expect(e.message).toContain(claimsFile(ctx));
        expect(e.message).toMatch(re);
      }
      expect(fs.readFileSync(claimsFile(ctx), 'utf8')).toBe(text);
    });
  }
});

describe('releaseClaim', () => {
  it('releases the holder’s own claim and logs it', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    const r = releaseClaim(ctx, { haid: a });
    expect(r.released).toMatchObject({ haid: a, surfaces: ['src/**'], status: 'active' });
    expect(readClaims(ctx)).toEqual({});
    makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' }); // no longer blocked
    expect(tailLog(ctx).entries.find((e) => e.action === 'release')?.detail).toBe(`${a} src/** (active)`);
  });

  it('not_found when the HAID holds nothing', () => {
    const { ctx, a } = setup();
    const e = thrown(() => releaseClaim(ctx, { haid: a }));
    expect(e.code).toBe('not_found');
    expect(e.message).toContain(`${a} holds no claim`);
  });

  it("refuses to release another HAID's active claim, allows it once expired", () => {
    const { ctx, clock, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A', ttlMinutes: 5 });
    const e = thrown(() => releaseClaim(ctx, { haid: a, by: b }));
    expect(e.code).toBe('forbidden');
    expect(e.message).toMatch(/only its holder can release it/);
    clock.advance(5 * 60_000);
    expect(releaseClaim(ctx, { haid: a, by: b }).released.status).toBe('expired');
    expect(tailLog(ctx).entries.at(-1)?.detail).toBe(`${a} src/** by=${b} (expired)`);
  });
});

describe('checkCollisions (dry run)', () => {
  it('reports without writing', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    const before = fs.readFileSync(claimsFile(ctx), 'utf8');
    expect(checkCollisions(ctx, b, ['src/x.ts', 'docs/**']).map((c) => [c.holder, c.overlaps])).toEqual([[a, [['src/x.ts', 'src/**']]]]);
    expect(checkCollisions(ctx, a, ['src/x.ts'])).toEqual([]); // own claim never collides
    expect(fs.readFileSync(claimsFile(ctx), 'utf8')).toBe(before);
  });
});

export type { Ctx };
