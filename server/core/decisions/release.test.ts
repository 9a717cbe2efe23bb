import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { thrown, tmpCtx } from '../../testing/fixtures.js';
import { writeCapsule } from '../capsules/capsules.js';
import { readCapsuleGraph } from '../capsules/graph.js';
import { listClaims, makeClaim, readClaims } from '../claims/index.js';
import { spawnHaid } from '../identity/index.js';
import { readDecisions } from './index.js';
import { releaseClaimAsDecision } from './release.js';

describe('release a claim as a decision', () => {
  it('releases the holder claim and records who released it and why', () => {
    const ctx = tmpCtx();
    const holder = spawnHaid(ctx, 'cursor');
    makeClaim(ctx, { haid: holder, surfaces: ['src/a/**'], task: 'T-9' });
    const r = releaseClaimAsDecision(ctx, { haid: holder, by: spawnHaid(ctx, 'studio'), reason: 'agent went silent' });
    expect(r.released.map((c) => [c.haid, c.status, c.was, c.released_by])).toEqual([[holder, 'released', 'active', spawnHaid(ctx, 'studio')]]);
    expect(listClaims(ctx, { activeOnly: true }).count).toBe(0);
    const text = fs.readFileSync(path.join(ctx.root, 'ledger/decisions.md'), 'utf8');
    expect(text).toContain(`Released the claim of ${holder}`);
    expect(text).toContain('Reason: agent went silent');
    expect(text).toContain(spawnHaid(ctx, 'studio'));
  });

  it('records nothing when the release is refused', () => {
    const ctx = tmpCtx();
    expect(() => releaseClaimAsDecision(ctx, { haid: spawnHaid(ctx, 'nobody'), by: spawnHaid(ctx, 'studio'), reason: 'gone' })).toThrow(/holds no claim/);
    expect(readDecisions(ctx)).toHaveLength(0);
  });

  it.each(['', '   ', undefined])('needs a reason (%j): refused, the claim stays active and nothing is recorded', (reason) => {
    const ctx = tmpCtx();
    const holder = spawnHaid(ctx, 'cursor');
    const { claim } = makeClaim(ctx, { haid: holder, surfaces: ['src/a/**'], task: 'T-9' });
    const before = fs.readFileSync(ctx.paths.protocolLog, 'utf8');
    const e = thrown(() => releaseClaimAsDecision(ctx, { id: claim.id, by: spawnHaid(ctx, 'studio'), reason: reason as string }));
    expect(e.code).toBe('invalid');
    expect(e.message).toMatch(/a release needs a reason/);
    expect(readClaims(ctx).get(claim.id)?.status).toBe('active');
    expect(readDecisions(ctx)).toHaveLength(0);
    expect(fs.readFileSync(ctx.paths.protocolLog, 'utf8')).toBe(before);
  });

  it('each released claim keeps the id of the decision that records its release', () => {
    const ctx = tmpCtx();
    const studio = spawnHaid(ctx, 'studio');
    const holder = spawnHaid(ctx, 'cursor');
    const a = makeClaim(ctx, { haid: holder, surfaces: ['src/a/**'], task: 'T-1' }).claim;
    const b = makeClaim(ctx, { haid: holder, surfaces: ['src/b/**'], task: 'T-2' }).claim;
    const first = releaseClaimAsDecision(ctx, { id: a.id, by: studio, reason: 'first' });
    const second = releaseClaimAsDecision(ctx, { haid: holder, by: studio, reason: 'the rest' });
    expect([first.decision.id, second.decision.id]).toEqual(['D-0001', 'D-0002']);
    expect(readClaims(ctx).get(a.id)).toMatchObject({ status: 'released', decision: 'D-0001', released_by: studio, reason: 'first' });
    expect(readClaims(ctx).get(b.id)).toMatchObject({ status: 'released', decision: 'D-0002', reason: 'the rest' });
    expect(readDecisions(ctx).map((d) => [d.id, d.haid])).toEqual([
      ['D-0001', studio],
      ['D-0002', studio],
    ]);
  });
});

describe('capsule graph', () => {
  it('lists every capsule with its dependencies and turns a broken file into an error node', () => {
    const ctx = tmpCtx();
    writeCapsule(ctx, 'w1', { what: 'engine', where: 'F12' });
    writeCapsule(ctx, 'w2', { what: 'diff', where: 'F13', depends: ['w1'] });
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, 'bad.md'), 'no field here\n');
    const g = readCapsuleGraph(ctx);
    expect(g).toEqual([
      { id: 'bad', error: expect.stringMatching(/bad\.md:1: expected "field: value"/) },
      { id: 'w1', what: 'engine', depends: [] },
      { id: 'w2', what: 'diff', depends: ['w1'] },
    ]);
  });
});
