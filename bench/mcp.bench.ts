/**
 * Team ledger and MCP: what the six tool definitions cost in context (tools/list, counted with the
 * real tokenizer), the make_claim round trip over stdio through the built server, and `list` with
 * 10,000 claims on disk (in-process, through the CLI, and through read_claims).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { listClaims } from '../server/core/claims/claims.js';
import { makeCtx } from '../server/core/context.js';
import { rootHaid } from '../server/core/identity/registry.js';
import { isoSeconds } from '../server/core/ports.js';
import { PROTOCOL_VERSION } from '../server/core/planning/version.js';
import { o200kTokenizer } from '../server/core/tokens/tokenizer.js';
import { median } from './stats.js';


function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number;
}

const ms = (x: number) => `${x.toFixed(2)} ms`;

async function connect(root: string, planning: string, name: string): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, 'bin/heimdall-ledger-mcp')],
    env: { PATH: process.env.PATH ?? '', HEIMDALL_PLANNING_DIR: planning },
    stderr: 'ignore',
  });
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Write claims.json with `n` unexpired claims of distinct HAIDs (as many agents would leave it). */
function seedClaims(planning: string, n: number): void {
  const ctx = makeCtx(planning);
  const root = rootHaid(ctx);
  const now = Date.now();
  const claims: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) {
    claims[`c-seed${String(i).padStart(6, '0')}`] = {
      haid: `${root}/agent-${i}`,
      status: 'active',
      surfaces: [`pkg${i}/src/**`, `pkg${i}/README.md`],
      task: `T-${i}`,
      task_ref: `${root}/agent-${i}:T-${i}`,
      created_at: isoSeconds(now),
      expires_at: isoSeconds(now + 7 * 24 * 3600_000 - 60_000),
    };
  }
  fs.mkdirSync(path.join(planning, 'ledger'), { recursive: true });
  fs.writeFileSync(path.join(planning, 'ledger/claims.json'), `${JSON.stringify({ version: PROTOCOL_VERSION, claims }, null, 2)}\n`);
}

export default async function ({ root }: { root: string }): Promise<string> {
  const built = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('npm run build:cli failed');
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-mcp-'));
  const lines: string[] = ['## Team ledger and MCP', ''];
  try {
    // 1. The context cost of the tool definitions.
    const planning1 = path.join(base, 'a/.planning');
    fs.mkdirSync(planning1, { recursive: true }); // the server serves an existing tree only
    const client = await connect(root, planning1, 'bench');
    const list = await client.listTools();
    const full = JSON.stringify(list);
    const total = o200kTokenizer.count(full);
    const ledgerNames = ['read_claims', 'make_claim', 'release_claim', 'read_capsules', 'append_decision', 'raise_conflict_pr'];
    const six = o200kTokenizer.count(JSON.stringify({ tools: list.tools.filter((t) => ledgerNames.includes(t.name)) }));
    lines.push(
      `### tools/list: ${six} tokens for the six team-ledger tools (target <= 1,500); ${total} tokens for all ${list.tools.length} tools the server serves`,
      '',
      `The tools/list result as the server sends it (${full.length} characters for all tools: names, descriptions, input and output schemas), counted with ${o200kTokenizer.name}; the first figure is the same result restricted to the six tools of the team-ledger spec, the second includes the check-in and handshake tools that join the same server. An MCP host puts this into every agent session.`,
      '',
      '| tool | tokens | description |',
      '|---|---:|---|',
      ...list.tools.map((t) => `| ${t.name} | ${o200kTokenizer.count(JSON.stringify(t))} | ${t.description} |`),
      '',
    );

    // 2. make_claim round trip over stdio.
    const CALLS = 1000;
    for (let i = 0; i < 20; i++) await client.callTool({ name: 'make_claim', arguments: { surfaces: ['src/a/**'], task: 'warm-up' } });
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      const r = await client.callTool({ name: 'make_claim', arguments: { surfaces: ['src/a/**'], task: 'T' } }); // one task: each call extends the agent's claim
      times.push(performance.now() - t);
      if (r.isError) throw new Error(`make_claim failed: ${JSON.stringify(r.content)}`);
    }
    await client.close();

    const planning2 = path.join(base, 'b/.planning');
    seedClaims(planning2, 1000);
    const busy = await connect(root, planning2, 'bench');
    const busyTimes: number[] = [];
    for (let i = 0; i < 220; i++) {
      const t = performance.now();
      const r = await busy.callTool({ name: 'make_claim', arguments: { surfaces: ['new/src/**'], task: 'T' } });
      if (i >= 20) busyTimes.push(performance.now() - t);
      if (r.isError) throw new Error(`make_claim failed: ${JSON.stringify(r.content)}`);
    }
    await busy.close();
    lines.push(
      `### make_claim round trip over stdio: p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))} (target p50 < 5 ms)`,
      '',
      'The SDK Client calling the built `bin/heimdall-ledger-mcp` over stdio; each call takes the claims lock, reads claims.json, runs the collision gate, writes the file atomically (fsync + rename) and appends a protocol.log line. 20 warm-up calls are not counted.',
      '',
      '| case | calls | p50 | p99 | mean | max |',
      '|---|---:|---:|---:|---:|---:|',
      `| one agent, claims.json holding its own claim | ${CALLS} | ${ms(percentile(times, 50))} | ${ms(percentile(times, 99))} | ${ms(times.reduce((a, b) => a + b, 0) / times.length)} | ${ms(Math.max(...times))} |`,
      `| 1,000 other agents' claims on disk (gate checks all) | ${busyTimes.length} | ${ms(percentile(busyTimes, 50))} | ${ms(percentile(busyTimes, 99))} | ${ms(busyTimes.reduce((a, b) => a + b, 0) / busyTimes.length)} | ${ms(Math.max(...busyTimes))} |`,
      '',
    );

    // 3. list with 10,000 claims on disk.
    const planning3 = path.join(base, 'c/.planning');
    seedClaims(planning3, 10_000);
    const size = fs.statSync(path.join(planning3, 'ledger/claims.json')).size;
    const ctx = makeCtx(planning3);
    const core: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t = performance.now();
      const l = listClaims(ctx);
      core.push(performance.now() - t);
      if (l.count !== 10_000) throw new Error(`expected 10000 claims, got ${l.count}`);
    }
    const cli: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = spawnSync(path.join(root, 'bin/heimdall-claim'), ['list', '--json'], { env: { ...process.env, HEIMDALL_PLANNING_DIR: planning3 }, maxBuffer: 64 * 1024 * 1024 });
      cli.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`heimdall-claim list failed: ${r.stderr}`);
    }
    const text: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = spawnSync(path.join(root, 'bin/heimdall-claim'), ['list'], { env: { ...process.env, HEIMDALL_PLANNING_DIR: planning3 }, maxBuffer: 64 * 1024 * 1024 });
      text.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`heimdall-claim list failed: ${r.stderr}`);
    }
    const reader = await connect(root, planning3, 'bench');
    const mcp: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const r = (await reader.callTool({ name: 'read_claims', arguments: {} })) as { structuredContent?: { count?: number } };
      mcp.push(performance.now() - t);
      if (r.structuredContent?.count !== 10_000) throw new Error('read_claims did not return 10000 claims');
    }
    await reader.close();
    lines.push(
      `### list with 10,000 claims on disk: ${ms(median(core))} in-process, ${ms(median(cli))} as \`heimdall-claim list --json\``,
      '',
      `claims.json with 10,000 unexpired claims of distinct HAIDs, two globs each (${(size / 1024 / 1024).toFixed(1)} MiB). Every read checks every claim's shape and globs before answering. Medians.`,
      '',
      '| path | runs | median |',
      '|---|---:|---:|',
      `| \`listClaims\` (core, in-process) | ${core.length} | ${ms(median(core))} |`,
      `| \`heimdall-claim list --json\` (process start included) | ${cli.length} | ${ms(median(cli))} |`,
      `| \`heimdall-claim list\` (text, process start included) | ${text.length} | ${ms(median(text))} |`,
      `| \`read_claims\` over MCP stdio | ${mcp.length} | ${ms(median(mcp))} |`,
    );
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
  return lines.join('\n');
}
