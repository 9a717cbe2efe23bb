/**
 * The wire stream: append throughput of the file log (1 and 4 writer processes, batched and
 * fsync-per-event), end-to-end throughput append -> listener process -> read model, and replay time
 * of 100,000 events, on the default stack (file log + SQLite) and at scale (NATS JetStream +
 * PostgreSQL). Medians of WIRE_BENCH_RUNS runs (default 3).
 *
 * The events are the realistic mix of server/stream/testing/scenario.ts (task races, leases,
 * heartbeats, dependencies, contracts, capacity) except for the raw append figures, which append
 * agent.heartbeat wires spread over 100 streams. Producers run in their own processes
 * (server/stream/testing/append-worker.ts) and time themselves from a shared start instant, so
 * process start-up is not counted. The listener in the end-to-end figures is the real
 * `heimdall wire listen` process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Ctx, makeCtx } from '../server/core/context.js';
import { replay } from '../server/core/wire/listener.js';
import type { WireLog } from '../server/core/wire/log.js';
import type { WireDraft } from '../server/core/wire/types.js';
import { PrismaReadModelStore } from '../server/db/readModel.js';
import { FileWireLog } from '../server/stream/fileLog.js';
import { scenario } from '../server/stream/testing/scenario.js';
import { NATS_URL, requireJetStream, requirePostgres, uniquePrefix } from '../server/stream/testing/services.js';
import { CLI, runWorkers, start } from '../server/stream/testing/spawn.js';
import { median } from './stats.js';

const RUNS = Math.max(1, Number(process.env.WIRE_BENCH_RUNS ?? 3));


const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const log = (msg: string) => process.stderr.write(`bench wire: ${msg}\n`);

interface Row {
  what: string;
  value: string;
  runs: number[];
  unit: string;
  note?: string;
}

/** Producer processes appending raw wires; events/s over the slowest process's time. */
async function appendRate(base: string, procs: number, perProc: number, batch: number, fsync: boolean): Promise<number> {
  const dir = fs.mkdtempSync(path.join(base, 'append-'));
  const env = { HEIMDALL_PLANNING_DIR: dir, HEIMDALL_STREAM_URL: '', HEIMDALL_WIRE_FSYNC: fsync ? '1' : '0' };
  const startAt = Date.now() + 1500 + procs * 400;
  const out = (await runWorkers(Array.from({ length: procs }, (_, i) => ({ mode: 'load', env, topic: 'main', startAt, agent: `p${i}`, count: perProc, batch, streams: 100, raw: true })))).map((l) => JSON.parse(l) as { events: number; seconds: number });
  const lines = fs.readFileSync(path.join(dir, 'wire', 'main.jsonl'), 'utf8').split('\n').filter((l) => l !== '').length;
  if (lines !== procs * perProc) throw new Error(`expected ${procs * perProc} lines, found ${lines}`);
  fs.rmSync(dir, { recursive: true, force: true });
  return (procs * perProc) / Math.max(...out.map((o) => o.seconds));
}

/** Producer-side stream_seq, for loading a large log quickly (setup only, not measured). */
function withStreamSeqs(wires: WireDraft[]): WireDraft[] {
  const seqs = new Map<string, number>();
  return wires.map((w) => {
    const n = (seqs.get(w.stream_id) ?? 0) + 1;
    seqs.set(w.stream_id, n);
    return { ...w, stream_seq: n };
  });
}

/**
 * End to end: a `heimdall wire listen` process runs; this process appends `n` scenario wires in
 * batches of 100 (the log assigns stream_seq) and the clock stops when the read model's offset
 * reaches the last one.
 */
async function endToEnd(ctx: Ctx, wireLog: WireLog, env: Record<string, string>, openStore: () => Promise<PrismaReadModelStore>, n: number): Promise<number> {
  const store = await openStore(); // creates the tables before the listener starts
  // One warm-up event, so the topic exists when the listener starts (not counted).
  await wireLog.append('main', scenario(1, { prefix: `warm${Date.now().toString(36)}` })[0] as WireDraft);
  const listener = start(CLI, ['wire', 'listen'], { ...env, HEIMDALL_PLANNING_DIR: ctx.paths.root });
  try {
    // Wait for the listener to be up: it creates its subscription after the first (empty) round.
    await new Promise((r) => setTimeout(r, 2500));
    const wires = scenario(n, { prefix: `e${Date.now().toString(36)}` });
    const t0 = performance.now();
    let last = 0;
    for (let i = 0; i < wires.length; i += 100) {
      const a = await wireLog.appendBatch('main', wires.slice(i, i + 100));
      last = (a[a.length - 1] as { sequence_number: number }).sequence_number;
    }
    for (;;) {
      const off = (await store.offsets()).find((o) => o.topic === 'main')?.last_sequence_number ?? 0;
      if (off >= last) break;
      if (listener.child.exitCode !== null) throw new Error(`listener exited: ${(await listener.done).stderr}`);
      if (performance.now() - t0 > 600_000) throw new Error('listener did not catch up within 10 minutes');
      await new Promise((r) => setTimeout(r, 10));
    }
    return n / ((performance.now() - t0) / 1000);
  } finally {
    listener.child.kill('SIGTERM');
    await listener.done;
    await store.close();
  }
}

async function replaySeconds(ctx: Ctx, wireLog: WireLog, store: PrismaReadModelStore, expected: number): Promise<number> {
  const t0 = performance.now();
  const r = await replay(ctx, wireLog, store);
  if (r.processed !== expected) throw new Error(`replay processed ${r.processed}, expected ${expected}`);
  return (performance.now() - t0) / 1000;
}

export default async function wireBench({ root }: { root: string }): Promise<string> {
  const base = path.join(root, '.bench-tmp');
  fs.mkdirSync(base, { recursive: true });
  const work = fs.mkdtempSync(path.join(base, 'wire-'));
  const rows: Row[] = [];
  const measure = async (what: string, unit: string, fn: () => Promise<number>, note?: string) => {
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      runs.push(await fn());
      log(`${what}: ${fmt(runs[runs.length - 1] as number)} ${unit}`);
    }
    rows.push({ what, value: unit === 's' ? median(runs).toFixed(1) : fmt(median(runs)), runs, unit, note });
  };
  try {
    // ---- file log appends
    await measure('File log append, 1 process, batches of 500, fsync per batch', 'events/s', () => appendRate(work, 1, 100_000, 500, true), 'target 20,000/s');
    await measure('File log append, 1 process, one append call and fsync per event', 'events/s', () => appendRate(work, 1, 2_000, 1, true));
    await measure('File log append, 1 process, one append call per event, no fsync', 'events/s', () => appendRate(work, 1, 20_000, 1, false), 'lock + write cost alone');
    await measure('File log append, 4 processes, batches of 500, fsync per batch', 'events/s', () => appendRate(work, 4, 25_000, 500, true), 'total of the 4 writers');
    await measure('File log append, 4 processes, fsync per event', 'events/s', () => appendRate(work, 4, 500, 1, true), 'total of the 4 writers');

    // ---- default stack: file log + SQLite
    const ctx = makeCtx(path.join(work, 'default', '.planning'));
    fs.mkdirSync(ctx.root, { recursive: true });
    const fileLog = new FileWireLog(ctx.paths.wireDir);
    let e2eRun = 0;
    await measure('End to end, file log -> `wire listen` -> SQLite (20,000 scenario events)', 'events/s', async () => {
      const db = path.join(work, 'default', `e2e-${++e2eRun}.db`);
      fs.rmSync(ctx.paths.wireDir, { recursive: true, force: true });
      return endToEnd(ctx, fileLog, { DATABASE_URL: `file:${db}`, HEIMDALL_STREAM_URL: '' }, () => PrismaReadModelStore.open({ url: `file:${db}`, wireDir: ctx.paths.wireDir }), 20_000);
    });
    const replayCtx = makeCtx(path.join(work, 'replay', '.planning'));
    const replayLog = new FileWireLog(replayCtx.paths.wireDir, { fsync: false });
    const big = scenario(100_000);
    for (let i = 0; i < big.length; i += 5000) await replayLog.appendBatch('main', big.slice(i, i + 5000));
    const lite = await PrismaReadModelStore.open({ url: `file:${path.join(work, 'replay', 'rm.db')}`, wireDir: replayCtx.paths.wireDir });
    try {
      await measure('Replay 100,000 events, file log -> SQLite', 's', () => replaySeconds(replayCtx, replayLog, lite, 100_000), 'target <= 20 s');
    } finally {
      await lite.close();
    }

    // ---- at scale: NATS JetStream + PostgreSQL
    const prefix = uniquePrefix('BENCH');
    const js = await requireJetStream(prefix);
    const schemas: Awaited<ReturnType<typeof requirePostgres>>[] = [];
    try {
      const jsCtx = makeCtx(path.join(work, 'scale', '.planning'));
      fs.mkdirSync(jsCtx.root, { recursive: true }); // `wire listen` runs in an existing tree only
      await measure('End to end, JetStream -> `wire listen` -> PostgreSQL (10,000 scenario events)', 'events/s', async () => {
        const pg = await requirePostgres('bench');
        schemas.push(pg);
        await js.destroy();
        return endToEnd(jsCtx, js, { DATABASE_URL: pg.url, HEIMDALL_STREAM_URL: NATS_URL, HEIMDALL_STREAM_PREFIX: prefix }, () => PrismaReadModelStore.open({ url: pg.url, wireDir: jsCtx.paths.wireDir }), 10_000);
      });
      await js.destroy();
      const loaded = withStreamSeqs(big);
      const t0 = performance.now();
      for (let i = 0; i < loaded.length; i += 1000) await js.appendBatch('main', loaded.slice(i, i + 1000));
      log(`loaded 100,000 events into JetStream in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      const pg = await requirePostgres('replay');
      schemas.push(pg);
      const pgStore = await PrismaReadModelStore.open({ url: pg.url, wireDir: jsCtx.paths.wireDir });
      try {
        await measure('Replay 100,000 events, JetStream -> PostgreSQL', 's', () => replaySeconds(jsCtx, js, pgStore, 100_000));
      } finally {
        await pgStore.close();
      }
    } finally {
      await js.destroy().catch(() => undefined);
      await js.close();
      for (const s of schemas) await s.drop().catch(() => undefined);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }

  const table = ['| Measure | Median | Runs | Note |', '|---|---:|---|---|', ...rows.map((r) => `| ${r.what} | ${r.value} ${r.unit} | ${r.runs.map((x) => (r.unit === 's' ? x.toFixed(1) : fmt(x))).join(', ')} | ${r.note ?? ''} |`)];
  return [
    '## Wire stream',
    '',
    `Medians of ${RUNS} runs on ${os.cpus().length} cores. File log: \`.planning/wire/<topic>.jsonl\`, appends under the fsx lock. ` +
      'Producers are separate processes timed from a shared start instant. End to end: this process appends in batches of 100 while a real ' +
      '`heimdall wire listen` process reduces into the read model; the clock stops when the read model\'s offset reaches the last event. ' +
      'Replay: `replay()` drops the read model and rebuilds it (5,000 events per transaction). The JetStream replay log was loaded with ' +
      'producer-assigned stream_seq (setup, not measured); the end-to-end JetStream figure includes the log assigning stream_seq per append.',
    '',
    ...table,
  ].join('\n');
}
