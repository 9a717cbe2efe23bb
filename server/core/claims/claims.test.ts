import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../context.js';
import { registerHaid, retireHaid, rootHaid } from '../identity/registry.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { MAX_FINISHED, checkCollisions, claimsFile, listClaims, makeClaim, readClaims, releaseClaim } from './claims.js';
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
        id: 'c-0002',
        haid: a,
        address: null,
        surfaces: ['src/a/**', 'docs/x.md'],
        task: 'T-9',
        task_ref: `${a}:T-9`,
        created_at: '2026-06-11T12:00:00Z',
        expires_at: '2026-06-11T12:30:00Z',
        status: 'active',
      },
    });
    const file = JSON.parse(fs.readFileSync(claimsFile(ctx), 'utf8'));
    expect(file.version).toBe('2.0.0');
    expect(file.claims['c-0002']).toMatchObject({ haid: a, task_ref: `${a}:T-9`, status: 'active' }); // keyed by claim id
    expect(file.claims['c-0002'].id).toBeUndefined(); // the key is the id
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
    expect(e.message).toContain(`${a} holds src/a/** for task T-9 (claim c-0002, task_ref ${a}:T-9) until 2026-06-11T13:00:00Z`);
    expect(e.message).toContain('overlapping: src/a/b.ts ~ src/a/**');
    expect(e.details).toEqual({
      collisions: [
        {
          holder: a,
          id: 'c-0002',
          task: 'T-9',
          task_ref: `${a}:T-9`,
          created_at: '2026-06-11T12:00:00Z',
          expires_at: '2026-06-11T13:00:00Z',
          overlaps: [['src/a/b.ts', 'src/a/**']],
        },
      ],
    });
    expect([...readClaims(ctx).values()].map((c) => c.haid)).toEqual([a]); // nothing written for b
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

  it('an expired claim stays as history: listed for a day, then only with history; written back as expired', () => {
    const { ctx, clock, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A', ttlMinutes: 1 });
    clock.advance(25 * 3600_000);
    expect(listClaims(ctx).expired).toBe(0);
    makeClaim(ctx, { haid: b, surfaces: ['lib/**'], task: 'B' });
    expect([...readClaims(ctx).values()].map((c) => [c.haid, c.status])).toEqual([
      [a, 'expired'],
      [b, 'active'],
    ]);
    const all = listClaims(ctx, { history: true });
    expect(all.claims.map((c) => [c.haid, c.status])).toEqual([
      [a, 'expired'],
      [b, 'active'],
    ]);
    expect([all.active, all.expired]).toEqual([1, 1]);
  });

  it('an agent holds one claim per task: the same task again extends it (surfaces merged, expiry later, never earlier)', () => {
    const { ctx, clock, a } = setup();
    const first = makeClaim(ctx, { haid: a, surfaces: ['src/a/**'], task: 'T-1', ttlMinutes: 120 });
    clock.advance(30 * 60_000);
    const r = makeClaim(ctx, { haid: a, surfaces: ['src/a/b.ts', 'src/c.ts'], task: 'T-1', ttlMinutes: 10 });
    expect(r.extended).toBe(true);
    expect(r.claim).toMatchObject({
      id: first.claim.id,
      surfaces: ['src/a/**', 'src/a/b.ts', 'src/c.ts'],
      task: 'T-1',
      created_at: '2026-06-11T12:00:00Z',
      expires_at: '2026-06-11T14:00:00Z', // 12:30 + 10 min is earlier than the old expiry
    });
    const again = makeClaim(ctx, { haid: a, surfaces: ['src/c.ts'], task: 'T-1', ttlMinutes: 600 });
    expect(again.claim.expires_at).toBe('2026-06-11T22:30:00Z');
    expect(tailLog(ctx).entries.filter((e) => e.action === 'extend')).toHaveLength(2);
    expect(listClaims(ctx).count).toBe(1);
  });

  it('a second task adds a claim instead of replacing the first; both block others; the agent\'s own claims never collide', () => {
    const { ctx, a, b } = setup();
    const t1 = makeClaim(ctx, { haid: a, surfaces: ['src/a/**'], task: 'T-1' });
    const t2 = makeClaim(ctx, { haid: a, surfaces: ['docs/**', 'src/a/x.ts'], task: 'T-2' });
    expect(t2.extended).toBe(false);
    expect(t2.claim.id).not.toBe(t1.claim.id);
    expect(listClaims(ctx).claims.map((c) => [c.id, c.task, c.status])).toEqual([
      [t1.claim.id, 'T-1', 'active'],
      [t2.claim.id, 'T-2', 'active'],
    ]);
    for (const s of ['src/a/q.ts', 'docs/readme.md']) expect(thrown(() => makeClaim(ctx, { haid: b, surfaces: [s], task: 'B' })).code).toBe('conflict');
  });

  it('an expired claim of the same task is not extended: a new claim is made and the old one stays as expired history', () => {
    const { ctx, clock, a } = setup();
    const old = makeClaim(ctx, { haid: a, surfaces: ['old/**'], task: 'T-1', ttlMinutes: 5 });
    clock.advance(6 * 60_000);
    const r = makeClaim(ctx, { haid: a, surfaces: ['new/**'], task: 'T-1' });
    expect(r.extended).toBe(false);
    expect(r.claim.surfaces).toEqual(['new/**']);
    expect(r.claim.created_at).toBe('2026-06-11T12:06:00Z');
    expect(readClaims(ctx).get(old.claim.id)?.status).toBe('expired');
  });

  it('a retired HAID cannot claim, and its claims stop blocking', () => {
    const { ctx, a, b } = setup();
    registerHaid(ctx, a);
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    retireHaid(ctx, a);
    expect(listClaims(ctx).claims[0]?.status).toBe('retired');
    expect(listClaims(ctx).claims[0]?.address).toBeNull(); // a client HAID has no herd address
    expect(thrown(() => makeClaim(ctx, { haid: a, surfaces: ['x'], task: 'A' })).code).toBe('forbidden');
    expect(makeClaim(ctx, { haid: b, surfaces: ['src/a.ts'], task: 'B' }).extended).toBe(false);
  });

  it('logs claims, extensions and refusals to protocol.log', () => {
    const { ctx, a, b } = setup();
    makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' });
    thrown(() => makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' }));
    const lines = tailLog(ctx).entries.filter((e) => e.mechanism === 'claim');
    expect(lines.map((e) => e.action)).toEqual(['claim', 'refuse']);
    expect(lines[0]?.detail).toBe(`${a} c-0002 src/** task=${a}:A until=2026-06-11T13:00:00Z`);
    expect(lines[1]?.detail).toBe(`${b} src/x: held by ${a} (c-0002 ${a}:A)`);
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
    ['claims not an object', () => '{"version": "2.0.0", "claims": []}', /"claims" must be an object keyed by claim id/],
    ['bad HAID key (1.x file)', () => '{"version": "2.0.0", "claims": {"Bad Key": {}}}', /invalid HAID key "Bad Key"/],
    ['bad claim id', (a) => JSON.stringify({ version: '2.0.0', claims: { constructor: { haid: a, surfaces: ['x'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z', status: 'active' } } }), /key "constructor" must be a claim id/],
    ['bad status', (a) => JSON.stringify({ version: '2.0.0', claims: { 'c-1': { haid: a, surfaces: ['x'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z', status: 'gone' } } }), /status must be one of active, released, expired, got "gone"/],
    ['bad glob', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: ['/abs'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } }), /surfaces: invalid surface "\/abs"/],
    ['empty surfaces', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: [], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } }), /surfaces must be a non-empty array/],
    ['bad expiry', (a) => JSON.stringify({ version: '2.0.0', claims: { [a]: { surfaces: ['x'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: 'tomorrow' } } }), /expires_at must be an ISO-8601 time, got "tomorrow"/],
    ['bad decision id', (a) => JSON.stringify({ version: '2.0.0', claims: { 'c-1': { haid: a, surfaces: ['x'], task: 'T', task_ref: 'x', created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z', status: 'released', decision: '../x' } } }), /decision must be a decision id such as "D-0007", got "..\/x"/],
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
  it("releases all of the holder's own claims, keeps them as history with who, when and why, and logs each", () => {
    const { ctx, clock, a, b } = setup();
    const c1 = makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' }).claim;
    const c2 = makeClaim(ctx, { haid: a, surfaces: ['docs/**'], task: 'A2' }).claim;
    clock.advance(60_000);
    const r = releaseClaim(ctx, { haid: a, reason: 'done' });
    expect(r.released.map((c) => [c.id, c.status, c.was, c.released_by, c.released_at, c.reason])).toEqual([
      [c1.id, 'released', 'active', a, '2026-06-11T12:01:00Z', 'done'],
      [c2.id, 'released', 'active', a, '2026-06-11T12:01:00Z', 'done'],
    ]);
    expect(listClaims(ctx).count).toBe(0);
    const history = listClaims(ctx, { history: true });
    expect(history.claims.map((c) => [c.id, c.status])).toEqual([
      [c1.id, 'released'],
      [c2.id, 'released'],
    ]);
    expect(history.released).toBe(2);
    makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' }); // no longer blocked
    expect(tailLog(ctx).entries.filter((e) => e.action === 'release').map((e) => e.detail)).toEqual([
      `${a} ${c1.id} src/** (active) reason="done"`,
      `${a} ${c2.id} docs/** (active) reason="done"`,
    ]);
    expect(thrown(() => releaseClaim(ctx, { haid: a })).code).toBe('not_found'); // nothing left
  });

  it('releases one claim by id and leaves the agent\'s other claims active', () => {
    const { ctx, a, b } = setup();
    const c1 = makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' }).claim;
    const c2 = makeClaim(ctx, { haid: a, surfaces: ['docs/**'], task: 'A2' }).claim;
    expect(releaseClaim(ctx, { by: a, id: c1.id }).released.map((c) => c.id)).toEqual([c1.id]);
    expect(listClaims(ctx, { activeOnly: true }).claims.map((c) => c.id)).toEqual([c2.id]);
    expect(thrown(() => makeClaim(ctx, { haid: b, surfaces: ['docs/x'], task: 'B' })).code).toBe('conflict');
    expect(thrown(() => releaseClaim(ctx, { by: a, id: c1.id })).message).toMatch(new RegExp(`claim ${c1.id} was already released at 2026-06-11T12:00:00Z by ${a}`));
    expect(thrown(() => releaseClaim(ctx, { by: a, id: 'c-9999' })).code).toBe('not_found');
    expect(thrown(() => releaseClaim(ctx, { by: a, id: '../x' })).message).toMatch(/invalid claim id/);
  });

  it('not_found when the agent holds nothing', () => {
    const { ctx, a } = setup();
    const e = thrown(() => releaseClaim(ctx, { haid: a }));
    expect(e.code).toBe('not_found');
    expect(e.message).toContain(`${a} holds no claim`);
  });

  it("one agent's release never touches another's claims: by id or all, another agent's active claim is refused, allowed once expired", () => {
    const { ctx, clock, a, b } = setup();
    const mine = makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A', ttlMinutes: 5 }).claim;
    makeClaim(ctx, { haid: b, surfaces: ['lib/**'], task: 'B' });
    expect(releaseClaim(ctx, { by: b }).released.map((c) => c.haid)).toEqual([b]); // b's own only
    expect(readClaims(ctx).get(mine.id)?.status).toBe('active');
    for (const req of [{ haid: a, by: b }, { id: mine.id, by: b }]) {
      const e = thrown(() => releaseClaim(ctx, req));
      expect(e.code).toBe('forbidden');
      expect(e.message).toMatch(/only its holder can release it/);
    }
    clock.advance(5 * 60_000);
    expect(releaseClaim(ctx, { haid: a, by: b }).released.map((c) => [c.id, c.was, c.released_by])).toEqual([[mine.id, 'expired', b]]);
    expect(tailLog(ctx).entries.at(-1)?.detail).toBe(`${a} ${mine.id} src/** by=${b} (expired)`);
  });

  it('an operator may release an active claim of another agent with override (Studio, recorded as a decision)', () => {
    const { ctx, a, root } = setup();
    const c = makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' }).claim;
    const r = releaseClaim(ctx, { by: `${root}/studio`, id: c.id, override: true, reason: 'agent went silent' });
    expect(r.released).toMatchObject([{ id: c.id, was: 'active', released_by: `${root}/studio`, reason: 'agent went silent' }]);
  });

  it('a release can carry the decision that records it (Studio); anything but a decision id is refused and nothing is released', () => {
    const { ctx, a, root } = setup();
    const c = makeClaim(ctx, { haid: a, surfaces: ['src/**'], task: 'A' }).claim;
    const e = thrown(() => releaseClaim(ctx, { by: `${root}/studio`, id: c.id, override: true, reason: 'x', decision: 'D-1' }));
    expect(e.code).toBe('invalid');
    expect(readClaims(ctx).get(c.id)?.status).toBe('active');
    releaseClaim(ctx, { by: `${root}/studio`, id: c.id, override: true, reason: 'x', decision: 'D-0042' });
    expect(readClaims(ctx).get(c.id)).toMatchObject({ status: 'released', decision: 'D-0042' });
    expect(tailLog(ctx).entries.at(-1)?.detail).toMatch(/ decision=D-0042$/);
  });

  it('reads a 1.x claims.json (one claim per HAID) and rewrites it in the new shape at the next write', () => {
    const { ctx, a, b } = setup();
    fs.mkdirSync(path.dirname(claimsFile(ctx)), { recursive: true });
    const legacy = { version: '2.0.0', claims: { [a]: { surfaces: ['src/**'], task: 'T', task_ref: `${a}:T`, created_at: '2026-06-11T12:00:00Z', expires_at: '2026-06-11T13:00:00Z' } } };
    fs.writeFileSync(claimsFile(ctx), JSON.stringify(legacy));
    const [old] = listClaims(ctx).claims;
    expect(old).toMatchObject({ haid: a, status: 'active', task: 'T' });
    expect(old?.id).toMatch(/^c-[0-9a-f]{12}$/);
    expect(listClaims(ctx).claims[0]?.id).toBe(old?.id); // the same id on every read
    expect(thrown(() => makeClaim(ctx, { haid: b, surfaces: ['src/x'], task: 'B' })).code).toBe('conflict');
    releaseClaim(ctx, { by: a, id: old?.id as string });
    const file = JSON.parse(fs.readFileSync(claimsFile(ctx), 'utf8'));
    expect(Object.keys(file.claims)).toEqual([old?.id]);
    expect(file.claims[old?.id as string]).toMatchObject({ haid: a, status: 'released' });
  });

  it(`keeps the newest ${MAX_FINISHED} finished claims; older ones are dropped at the next write, and the log says so`, () => {
    const { ctx, a, b } = setup();
    fs.mkdirSync(path.dirname(claimsFile(ctx)), { recursive: true });
    const claims: Record<string, object> = {};
    for (let i = 0; i <= MAX_FINISHED; i++) {
      const at = new Date(Date.parse('2026-06-01T00:00:00Z') + i * 60_000).toISOString().replace('.000Z', 'Z');
      claims[`c-h${String(i).padStart(5, '0')}`] = { haid: a, surfaces: [`f${i}`], task: `T${i}`, task_ref: `${a}:T${i}`, created_at: at, expires_at: at, status: 'released', released_at: at, released_by: a };
    }
    fs.writeFileSync(claimsFile(ctx), JSON.stringify({ version: '2.0.0', claims }));
    expect(listClaims(ctx, { history: true }).released).toBe(MAX_FINISHED + 1);
    makeClaim(ctx, { haid: b, surfaces: ['x'], task: 'B' });
    const left = listClaims(ctx, { history: true });
    expect(left.released).toBe(MAX_FINISHED);
    expect(readClaims(ctx).has('c-h00000')).toBe(false); // the oldest went
    expect(tailLog(ctx).entries.at(-1)?.detail).toContain('(dropped 1 old finished claims)');
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
