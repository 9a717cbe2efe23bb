/**
 * Storage under chaos (issue 15): the chaos suite's scenarios run once more and measured, through
 * the real bundled executables (e2e/chaos/harness.ts), plus Studio's read latency while a lock is
 * held. Studio is measured through its tRPC router behind the tRPC HTTP handler, in process on a free
 * port (the standalone adapter; the Next route wraps the same router), reads as HTTP GETs.
 */
import http from 'node:http';
import path from 'node:path';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { buildCli, freshTree, runFullDisk, runMcpFrames, runStorageChaos } from '../e2e/chaos/harness.js';
import { makeCtx } from '../server/core/context.js';
import { initPlanning } from '../server/core/planning/init.js';
import { holdLock } from '../server/core/planning/testing/hold.js';
import { appRouter } from '../server/trpc/root.js';
import { median } from './stats.js';

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
}

const ms = (x: number) => `${x.toFixed(1)} ms`;

async function request(port: number, method: 'GET' | 'POST', route: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: '127.0.0.1', port, method, path: `/${route}`, headers: data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** p50/p99 of `n` sequential reads of the symbol table, through HTTP. */
async function reads(port: number, n: number): Promise<{ p50: number; p99: number; worst: number; failed: number }> {
  const times: number[] = [];
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const r = await request(port, 'GET', 'symbols.list');
    if (r.status !== 200) failed++;
    times.push(r.ms);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), worst: Math.max(...times), failed };
}

async function studioLatency(): Promise<{ idle: Awaited<ReturnType<typeof reads>>; held: Awaited<ReturnType<typeof reads>>; mutationWaited: boolean; heldMs: number }> {
  const { planning } = freshTree('heimdall-studio-lock-');
  const ctx = makeCtx(planning);
  initPlanning(ctx);
  const handler = createHTTPHandler({ router: appRouter, createContext: () => ({ core: ctx }) });
  const server = http.createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  try {
    await request(port, 'POST', 'symbols.set', { id: 'F1', value: 'one' });
    const idle = await reads(port, 300);
    // Another process holds the symbol table's lock and is stopped; a mutation arrives and must wait.
    const holder = await holdLock(path.join(planning, 'protocol', 'symbols.json'));
    holder.child.kill('SIGSTOP');
    const started = performance.now();
    let mutationDone = false;
    const mutation = request(port, 'POST', 'symbols.set', { id: 'F2', value: 'two' }).then((r) => {
      mutationDone = true;
      return r;
    });
    const held = await reads(port, 300);
    const mutationWaited = !mutationDone;
    const heldMs = performance.now() - started;
    await holder.let();
    const m = await mutation;
    if (m.status !== 200) throw new Error(`the waiting mutation failed with HTTP ${m.status}`);
    return { idle, held, mutationWaited, heldMs };
  } finally {
    server.close();
  }
}

export default async function (): Promise<string> {
  buildCli();
  const chaos = await runStorageChaos({ seed: 15 });
  const disk = await runFullDisk();
  const mcp = await runMcpFrames({ frames: 10_000 });
  const studioRuns: Array<Awaited<ReturnType<typeof studioLatency>>> = [];
  for (let i = 0; i < 3; i++) studioRuns.push(await studioLatency());
  const med = (f: (s: (typeof studioRuns)[number]) => number) => median(studioRuns.map(f));

  const rows = Object.entries(chaos.byKind).map(
    ([k, f]) => `| ${k} | ${f.attempted} | ${f.acknowledged} | ${f.keptOfAcknowledged} | ${f.failedCleanly} | ${f.killed} | ${f.keptUnacknowledged} |`,
  );
  return [
    '## Storage under chaos',
    '',
    `All writes through the bundled executables in bin/ (\`npm run chaos\` asserts the same figures). ${16} lanes of writers ran at once on every state file (symbols, blackboard, baselines, ledger, HAIDs, claims, herd mailbox and agents, capsules, handshake peers, built-in property names as blackboard keys), with ${chaos.randomKills} random SIGKILLs and ${chaos.lockKills} SIGKILLs aimed at writers holding a lock; one writer (the symbol table's own read-modify-write) was SIGSTOPped inside its critical section for ${chaos.slowWriter.stoppedMs / 1000} s, longer than the old 10 s stale timeout (${chaos.slowWriter.othersWaited} symbol writes waited for it), and ${chaos.plantedTorn} torn last lines were planted. Took ${chaos.seconds.toFixed(0)} s.`,
    '',
    '| state file | attempted | acknowledged (exit 0) | kept of acknowledged | refused with a reason | killed | kept though killed |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
    `| **all** | ${Object.values(chaos.byKind).reduce((n, f) => n + f.attempted, 0) + 1} | **${chaos.acknowledged}** | **${chaos.keptOfAcknowledged}** | | | |`,
    '',
    `- Writes acknowledged vs kept: **${chaos.acknowledged} vs ${chaos.keptOfAcknowledged}** (the stopped writer included: exit ${chaos.slowWriter.exit}, kept ${chaos.slowWriter.kept}).`,
    `- Files left unparseable: **${chaos.unparseable.length}**. Scratch, lock or journal files left after the dust settled (one more write per file, then \`heimdall-protocol init\`): **${chaos.leftovers.length}**.`,
    `- Kept changes without their protocol.log line: **${chaos.unaudited.length}**. Failures without a clear reason: **${chaos.unclearFailures.length}**.`,
    `- Hostile input during the run (/dev/zero, a FIFO, oversized stdin, JSON 100,000 deep, --tokens 1e23): ${chaos.hostile.filter((h) => h.ok).length} of ${chaos.hostile.length} refused with a clear error.`,
    '',
    '| full disk | acknowledged | kept of acknowledged | failed | failed naming the reason | unparseable | left over |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...disk.map((d) => `| ${d.mode} | ${d.acknowledged} | ${d.keptOfAcknowledged} | ${d.failed} | ${d.failedWithReason} | ${d.unparseable.length} | ${d.leftovers.length} |`),
    '',
    `MCP: ${mcp.frames} frames back to back to one stdio server (${mcp.requests} requests, the rest malformed JSON, absurd Content-Length, JSON nested 2,000 deep and notifications) in ${mcp.seconds.toFixed(1)} s: ${mcp.answered} answered, ${mcp.missing} missing, ${mcp.duplicates} answered twice, ${mcp.outOfOrder} out of order, ${mcp.parseErrors} parse errors reported; make_claim ${mcp.claimsAcknowledged} acknowledged, ${mcp.claimsKept} kept; server exited cleanly: ${mcp.serverAlive}.`,
    '',
    '### Studio while a lock is held',
    '',
    'Reads of the symbol table (`symbols.list`, HTTP GET) through the tRPC HTTP handler in process, 300 in a row, median of 3 runs: once idle, once while another process holds the symbol table\'s lock (stopped with SIGSTOP) and a `symbols.set` mutation waits for it.',
    '',
    '| | p50 | p99 | worst |',
    '|---|---:|---:|---:|',
    `| idle | ${ms(med((s) => s.idle.p50))} | ${ms(med((s) => s.idle.p99))} | ${ms(med((s) => s.idle.worst))} |`,
    `| lock held, a mutation waiting | ${ms(med((s) => s.held.p50))} | ${ms(med((s) => s.held.p99))} | ${ms(med((s) => s.held.worst))} |`,
    '',
    `The mutation was still waiting when the reads were done in ${studioRuns.filter((s) => s.mutationWaited).length} of 3 runs (held for a median ${ms(med((s) => s.heldMs))}); it then completed once the holder let go. Before this change the waiting mutation blocked the event loop (Atomics.wait), so every read waited for the lock too (9.5-10 s in the issue's measurement).`,
  ].join('\n');
}
