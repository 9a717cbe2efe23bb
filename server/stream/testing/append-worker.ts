/**
 * A producer process for the multi-process tests and the benchmark:
 *   node --import tsx server/stream/testing/append-worker.ts '<json options>'
 * It builds its context and log through the composition root (so the environment picks the file
 * log or JetStream), waits for the shared start time, appends, and prints one JSON line per append
 * (mode "race") or one summary line (mode "load").
 */
import { createRuntime } from '../../runtime.js';
import { emitWire, emitWires, type WireLog, type WireDraft } from '../../core/index.js';

interface Options {
  /** steps: append `count / rounds` events for each line read on stdin, print "ok" after each (the test drives the rounds). */
  mode: 'race' | 'load' | 'steps';
  rounds?: number;
  env: Record<string, string>;
  topic: string;
  /** Epoch ms at which every worker starts appending. */
  startAt: number;
  agent: string;
  task?: string;
  /** load: how many events, in batches of `batch` (1 = one append call per event). */
  count?: number;
  batch?: number;
  /** load: how many distinct wire streams the events spread over. */
  streams?: number;
  /** load: use the adapter directly (no validation, no protocol.log line), as the benchmark does. */
  raw?: boolean;
}

const opts = JSON.parse(process.argv[2] ?? '{}') as Options;
const runtime = createRuntime({ env: { ...process.env, ...opts.env } });
const ctx = runtime.ctx;
const log: WireLog = await runtime.wireLog();
const wait = opts.startAt - Date.now();
if (wait > 0) await new Promise((r) => setTimeout(r, wait));

async function appendEvents(from: number, count: number, batch: number, streams: number): Promise<void> {
  let n = from;
  while (n < from + count) {
    const size = Math.min(batch, from + count - n);
    const drafts: WireDraft[] = [];
    for (let i = 0; i < size; i++, n++) {
      const k = n % streams;
      drafts.push({
        wire: '1.1',
        wire_id: `${opts.agent}-${n}`,
        stream_id: `agent:${opts.agent}-${k}`,
        type: 'agent.heartbeat',
        sender: `agent:${opts.agent}-${k}`,
        ts: new Date().toISOString(),
        payload: { status: 'working' },
      } as WireDraft);
    }
    if (opts.raw) {
      if (drafts.length === 1) await log.append(opts.topic, drafts[0] as WireDraft);
      else await log.appendBatch(opts.topic, drafts);
    } else if (drafts.length === 1) await emitWire(ctx, log, drafts[0], { topic: opts.topic });
    else await emitWires(ctx, log, drafts, { topic: opts.topic });
  }
}

if (opts.mode === 'steps') {
  const rounds = Math.max(1, opts.rounds ?? 1);
  const per = Math.ceil((opts.count ?? 100) / rounds);
  let round = 0;
  const { createInterface } = await import('node:readline');
  for await (const _line of createInterface({ input: process.stdin })) {
    await appendEvents(round * per, per, Math.max(1, opts.batch ?? 1), Math.max(1, opts.streams ?? 10));
    round++;
    process.stdout.write('ok\n');
  }
} else if (opts.mode === 'race') {
  const a = await emitWire(
    ctx,
    log,
    {
      wire: '1.1',
      stream_id: `task:${opts.task}:attempt:1`,
      type: 'task.claimed',
      sender: `agent:${opts.agent}`,
      payload: { task_id: opts.task, agent: opts.agent, role: 'developer', lease_expires_at: new Date(Date.now() + 30 * 60_000).toISOString() },
    },
    { topic: opts.topic },
  );
  process.stdout.write(`${JSON.stringify({ agent: opts.agent, sequence_number: a.sequence_number, stream_seq: a.wire.stream_seq })}\n`);
} else {
  const count = opts.count ?? 1000;
  const batch = Math.max(1, opts.batch ?? 1);
  const streams = Math.max(1, opts.streams ?? 10);
  const started = performance.now();
  await appendEvents(0, count, batch, streams);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`${JSON.stringify({ agent: opts.agent, events: count, seconds })}\n`);
}
await runtime.close();
