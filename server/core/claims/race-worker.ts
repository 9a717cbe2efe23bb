/**
 * A racer for the collision-gate race test (claims.race.test.ts): one process, many rounds. For each
 * JSON line on stdin `{round, at, haid, surfaces, task}` it sleeps until `at` (epoch ms, shared by
 * all racers), makes the claim, and prints one JSON line with the outcome.
 */
import readline from 'node:readline';
import { makeCtx } from '../context.js';
import { isHeimdallError } from '../errors.js';
import { makeClaim } from './claims.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: race-worker PLANNING_DIR');
const ctx = makeCtx(dir);
const cell = new Int32Array(new SharedArrayBuffer(4));

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  const job = JSON.parse(line) as { round: number; at: number; haid: string; surfaces: string[]; task: string };
  const wait = job.at - Date.now();
  if (wait > 0) Atomics.wait(cell, 0, 0, wait);
  try {
    const r = makeClaim(ctx, { haid: job.haid, surfaces: job.surfaces, task: job.task });
    process.stdout.write(`${JSON.stringify({ round: job.round, haid: job.haid, ok: true, claim: r.claim })}\n`);
  } catch (e) {
    const details = isHeimdallError(e) ? (e.details as { collisions?: Array<{ holder: string }> } | undefined) : undefined;
    process.stdout.write(
      `${JSON.stringify({
        round: job.round,
        haid: job.haid,
        ok: false,
        code: isHeimdallError(e) ? e.code : 'crash',
        message: (e as Error).message,
        holders: details?.collisions?.map((c) => c.holder) ?? [],
      })}\n`,
    );
  }
});
process.stdout.write('ready\n');
