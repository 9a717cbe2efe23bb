/**
 * The collision gate under contention: 16 processes claim overlapping surfaces at the same moment,
 * 50 rounds. Every round must have exactly one winner, and every loser must be told who won.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { rootHaid } from '../identity/registry.js';
import { tailLog } from '../log/protocolLog.js';
import { readClaims, releaseClaim } from './claims.js';

const RACERS = 16;
const ROUNDS = 50;
const here = path.dirname(fileURLToPath(import.meta.url));

interface Outcome {
  round: number;
  haid: string;
  ok: boolean;
  code?: string;
  message?: string;
  holders?: string[];
}

describe('collision gate race', () => {
  let dir: string;
  const procs: ChildProcess[] = [];
  const queues: Outcome[][] = [];
  const waiters: Array<(() => void) | undefined> = [];

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-race-'));
    rootHaid(makeCtx(dir)); // generated once here, not raced for
    const ready: Promise<void>[] = [];
    for (let i = 0; i < RACERS; i++) {
      const p = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'race-worker.ts'), dir], { stdio: ['pipe', 'pipe', 'inherit'] });
      procs.push(p);
      queues.push([]);
      const rl = readline.createInterface({ input: p.stdout as NodeJS.ReadableStream });
      ready.push(
        new Promise((resolve) => {
          rl.on('line', (line) => {
            if (line === 'ready') return resolve();
            queues[i]?.push(JSON.parse(line) as Outcome);
            waiters[i]?.();
          });
        }),
      );
    }
    await Promise.all(ready);
  });

  afterAll(() => {
    for (const p of procs) p.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const next = (i: number): Promise<Outcome> =>
    new Promise((resolve) => {
      const take = () => {
        const o = queues[i]?.shift();
        if (o) {
          waiters[i] = undefined;
          resolve(o);
        } else waiters[i] = take;
      };
      take();
    });

  it(`${ROUNDS} rounds of ${RACERS} simultaneous overlapping claims: exactly one winner each, losers told who won`, async () => {
    const ctx = makeCtx(dir);
    const root = rootHaid(ctx);
    const winners = new Map<string, number>();
    for (let round = 1; round <= ROUNDS; round++) {
      const at = Date.now() + 40;
      for (let i = 0; i < RACERS; i++) {
        // Three shapes that all overlap each other: a globstar, a star, and a shared file.
        const surfaces =
          i % 3 === 0 ? [`r${round}/**`] : i % 3 === 1 ? [`r${round}/src/*.ts`] : [`r${round}/src/w${i}.ts`, `r${round}/src/shared.ts`];
        const job = { round, at, haid: `${root}/w${i}`, surfaces, task: `T-${round}` };
        procs[i]?.stdin?.write(`${JSON.stringify(job)}\n`);
      }
      const outcomes = await Promise.all(Array.from({ length: RACERS }, (_, i) => next(i)));
      const won = outcomes.filter((o) => o.ok);
      expect(won, `round ${round}: ${JSON.stringify(outcomes.filter((o) => o.ok))}`).toHaveLength(1);
      const winner = (won[0] as Outcome).haid;
      winners.set(winner, (winners.get(winner) ?? 0) + 1);
      for (const o of outcomes.filter((x) => !x.ok)) {
        expect(o.code, o.message).toBe('conflict');
        expect(o.holders).toEqual([winner]);
        expect(o.message).toContain(`${winner} holds`);
        expect(o.message).toContain(`T-${round}`);
      }
      const onDisk = [...readClaims(ctx).values()].filter((c) => c.status === 'active');
      expect(onDisk.map((c) => c.haid)).toEqual([winner]);
      releaseClaim(ctx, { haid: winner });
    }
    // Every round logged one claim and fifteen refusals.
    const log = tailLog(ctx).entries.filter((e) => e.mechanism === 'claim');
    expect(log.filter((e) => e.action === 'claim')).toHaveLength(ROUNDS);
    expect(log.filter((e) => e.action === 'refuse')).toHaveLength(ROUNDS * (RACERS - 1));
    expect(log.filter((e) => e.action === 'release')).toHaveLength(ROUNDS);
  });
});
