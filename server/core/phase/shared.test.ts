/** The short exclusive claim around a shared file's edit, in process (the two-process race is e2e/gsd-shared.test.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../context.js';
import { type Collision, listClaims, makeClaim, releaseClaim } from '../claims/index.js';
import { HeimdallError } from '../errors.js';
import { importGsd } from '../gsd/importer.js';
import { initPlanning } from '../planning/init.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { phaseProject } from './_testkit.js';
import { sharedSurface, withSharedFile } from './shared.js';

let project: string;
let ctx: Ctx;
const STATE = () => path.join(project, '.planning/STATE.md');

beforeEach(() => {
  project = phaseProject();
  ctx = makeCtx(path.join(project, '.planning'), { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('t') });
  initPlanning(ctx);
  importGsd(ctx);
});
afterEach(() => fs.rmSync(project, { recursive: true, force: true }));

const noSleep = { sleep: async () => undefined };

describe('withSharedFile', () => {
  it('holds a claim on the file (task shared:<path>) while the edit runs and releases it after', async () => {
    const r = await withSharedFile(
      ctx,
      { haid: 'alice.1@core', file: STATE() },
      async (claim) => {
        expect(listClaims(ctx).claims.map((c) => [c.id, c.task, c.surfaces])).toEqual([[claim.id, 'shared:.planning/STATE.md', ['.planning/STATE.md']]]);
        return 7;
      },
      noSleep,
    );
    expect(r).toMatchObject({ value: 7, surface: '.planning/STATE.md', waited_ms: 0 });
    expect(listClaims(ctx).active).toBe(0);
    expect(listClaims(ctx, { history: true }).claims[0]).toMatchObject({ status: 'released', reason: 'shared edit finished' });
  });

  it('releases the claim when the edit throws', async () => {
    await expect(withSharedFile(ctx, { haid: 'alice.1@core', file: STATE() }, async () => Promise.reject(new Error('the edit failed')), noSleep)).rejects.toThrow('the edit failed');
    expect(listClaims(ctx).active).toBe(0);
  });

  it('waits while another agent holds the file, and goes once it is released', async () => {
    const held = makeClaim(ctx, { haid: 'bob.1@core', surfaces: ['.planning/**'], task: 'rewrite the roadmap' });
    const seen: Collision[][] = [];
    let sleeps = 0;
    const order: string[] = [];
    const r = await withSharedFile(
      ctx,
      { haid: 'alice.1@core', file: STATE(), waitMs: 60_000 },
      async () => {
        order.push('edit');
        return 'ok';
      },
      {
        // The holder lets go after the third wait: the edit must not run before.
        sleep: async () => {
          sleeps++;
          order.push(`sleep ${sleeps}`);
          if (sleeps === 3) releaseClaim(ctx, { by: 'bob.1@core', id: held.claim.id });
        },
        onWait: (cs) => seen.push(cs),
      },
    );
    expect(r.value).toBe('ok');
    expect(order).toEqual(['sleep 1', 'sleep 2', 'sleep 3', 'edit']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.[0]).toMatchObject({ task: 'rewrite the roadmap', id: held.claim.id });
    expect(r.waited_ms).toBeGreaterThan(0);
  });

  it('refuses after the wait (or at once with 0), naming the holder and its task, without running the edit', async () => {
    makeClaim(ctx, { haid: 'bob.1@core', surfaces: ['.planning/STATE.md'], task: 'phase 1 state' });
    let ran = false;
    const edit = async () => {
      ran = true;
    };
    for (const waitMs of [0, 500]) {
      let e: unknown;
      try {
        await withSharedFile(ctx, { haid: 'alice.1@core', file: STATE(), waitMs }, edit, noSleep);
      } catch (x) {
        e = x;
      }
      expect(e).toBeInstanceOf(HeimdallError);
      expect((e as HeimdallError).code).toBe('conflict');
      expect((e as HeimdallError).message).toMatch(/\.planning\/STATE\.md is being edited: h-[0-9a-f]+\/core\/bob\.1 holds \.planning\/STATE\.md for task phase 1 state/);
    }
    expect(ran).toBe(false);
  });

  it('refuses a file outside the project', () => {
    expect(() => sharedSurface(ctx, path.join(project, '..', 'elsewhere.md'))).toThrow(/is not a file inside the project/);
    expect(sharedSurface(ctx, path.join(project, '.planning', 'ROADMAP.md'))).toBe('.planning/ROADMAP.md');
  });
});
