/**
 * Core protocol speed: process start of the agent-facing commands against `node -e 0` measured in
 * the same run (agents call these from bash many times per task), in-process message validation
 * throughput, and `--on-receipt` over a 100,000-line stream.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCtx } from '../server/core/context.js';
import { validateMessage } from '../server/core/messages/validate.js';
import { setSymbol } from '../server/core/symbols/symbols.js';
import { setFact } from '../server/core/blackboard/blackboard.js';
import { initPlanning } from '../server/core/planning/init.js';
import { median } from './stats.js';


function wall(cmd: string, args: string[], env: NodeJS.ProcessEnv): number {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export default async function ({ root }: { root: string }): Promise<string> {
  spawnSync('node', ['scripts/build-cli.mjs'], { cwd: root, stdio: 'inherit' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-cli-'));
  const planning = path.join(dir, '.planning');
  const ctx = makeCtx(planning);
  initPlanning(ctx);
  setSymbol(ctx, 'F12', 'src/matching/engine.ts');
  setFact(ctx, 'k', 'v');
  const env = { ...process.env, HEIMDALL_PLANNING_DIR: planning };
  const RUNS = 20;
  const cases: [string, string, string[], NodeJS.ProcessEnv][] = [
    ['node -e 0', process.execPath, ['-e', '0'], env],
    ['heimdall-resolve F12', path.join(root, 'bin/heimdall-resolve'), ['F12'], env],
    ['heimdall-blackboard get k', path.join(root, 'bin/heimdall-blackboard'), ['get', 'k'], env],
    ['heimdall-claim list', path.join(root, 'bin/heimdall-claim'), ['list'], env],
    ['heimdall-resolve F12, no code cache (HEIMDALL_CODE_CACHE=0)', path.join(root, 'bin/heimdall-resolve'), ['F12'], { ...env, HEIMDALL_CODE_CACHE: '0' }],
  ];
  // Warm the page cache; the first run of a build also writes the code cache (scripts/build-cli.mjs).
  for (const [, cmd, args, e] of cases) wall(cmd, args, e);
  const samples = new Map<string, number[]>(cases.map(([n]) => [n, []]));
  // Interleave the cases so machine noise hits all of them alike.
  for (let i = 0; i < RUNS; i++) for (const [n, cmd, args, e] of cases) samples.get(n)?.push(wall(cmd, args, e));
  const base = median(samples.get('node -e 0') as number[]);
  const rows = cases.map(([n]) => {
    const m = median(samples.get(n) as number[]);
    return `| \`${n}\` | ${m.toFixed(1)} ms | ${(m / base).toFixed(2)}x |`;
  });

  // In-process validation throughput.
  const msgs = Array.from({ length: 10_000 }, (_, i) =>
    i % 3 === 0
      ? { type: 'task_result', from: 'coder', msg_id: `m${i}`, task: '3.2', status: 'pass', criteria: [1, 2], commit: 'a2ef507' }
      : i % 3 === 1
        ? { type: 'task_claim', from: 'coder', msg_id: `m${i}`, task: '3.2', symbols: ['F12', 'C3'], capsules: ['w2'] }
        : { type: 'checkpoint', from: 'orch', msg_id: `m${i}`, wave: 3, state: 'complete', capsules: ['w3'] },
  );
  validateMessage(msgs[0]);
  const rates: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t = process.hrtime.bigint();
    let ok = 0;
    for (let k = 0; k < 10; k++) for (const m of msgs) if (validateMessage(m).valid) ok++;
    const s = Number(process.hrtime.bigint() - t) / 1e9;
    if (ok !== 100_000) throw new Error(`expected 100000 valid messages, got ${ok}`);
    rates.push(100_000 / s);
  }
  const perSec = median(rates);

  // --on-receipt over a 100,000-line stream (valid messages, so nothing escalates).
  const streamFile = path.join(dir, 'stream.jsonl');
  fs.writeFileSync(streamFile, `${msgs.map((m) => JSON.stringify(m)).join('\n')}\n`.repeat(10));
  const receiptRates: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const child = spawn(path.join(root, 'bin/heimdall-validate'), ['--on-receipt'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
      fs.createReadStream(streamFile).pipe(child.stdin);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`on-receipt exited ${code}`))));
    });
    receiptRates.push(100_000 / (Number(process.hrtime.bigint() - t) / 1e9));
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return [
    '## Core protocol CLI',
    '',
    `Process start, median wall time of ${RUNS} runs each (interleaved), against \`node -e 0\` in the same run. Target: \`heimdall-resolve F12\` at most 1.2x. The programs are CommonJS, the chunks of the common commands are joined in one file compiled with a V8 code cache (written by the first run of a build; the last row runs without it), built by scripts/build-cli.mjs.`,
    '',
    '| command | median | vs node -e 0 |',
    '|---|---|---|',
    ...rows,
    '',
    'How (scripts/build-cli.mjs, server/cli/io.ts): the bundle is CommonJS (Node 20 loads ES modules through its asynchronous loader, about 10 ms more for the same code); the chunks of the agent-facing commands are joined in dist/chunks/hot-defs.js (one file to open and compile instead of about twenty), compiled from a V8 code cache kept beside it; output goes out with writeSync and stdin is built only by the commands that read it (process.stdout and process.stdin load the stream modules); built-ins Node has not loaded yet (node:module, node:os, node:crypto) are required on first use; `--version` answers before any command module loads.',
    '',
    'Before and after, measured 2026-11-23 in one interleaved run of 20 on this machine under load from other work, as CPU time (user + sys) to see through the load: the ES module bundle of main before this work, `heimdall-resolve F12` 1.49x `node -e 0` (`heimdall-blackboard get k` 1.49x); now 1.12x (1.12x), 1.22x without the code cache.',
    '',
    'Evaluated and left out: a startup snapshot (`node --build-snapshot`, available on Node 20). The bundle cannot be snapshotted as it is (node:async_hooks is not verified for user snapshots; SharedArrayBuffer, which the lock\'s sleep uses, does not exist while the snapshot is built), the blob is tied to the exact node binary (so built at install, which `--ignore-scripts` skips) and needs `--snapshot-blob FILE` on node\'s own command line, which a bin shim cannot pass without starting a second process. With those two module-level values patched, the resolve path from a snapshot measured 1.09x CPU but 1.23x wall: the 4.4 MB blob is read at every start. Also measured: `process.exit()` instead of `process.exitCode` (0.8 ms CPU, within noise, and it would drop output still queued on a full pipe).',
    '',
    `In-process validation (ajv, compiled once): **${Math.round(perSec).toLocaleString('en-US')} messages/s** (median of 7 runs of 100,000 messages; target 200,000/s).`,
    '',
    `\`heimdall-validate --on-receipt\` on a 100,000-line stream: **${Math.round(median(receiptRates)).toLocaleString('en-US')} lines/s** (median of 3 runs, whole process including start; every line is validated and logged to protocol.log, a locked append each, so the figure follows the disk and the machine's load: on 2026-11-23, with other work running, a 20,000-line stream took 2.01 s with the ES module bundle from before the CommonJS build and 1.75 s with it, in one interleaved run).`,
  ].join('\n');
}
