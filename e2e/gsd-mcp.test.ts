/**
 * gsd_ready, gsd_start and gsd_done over MCP: the bundled server (bin/heimdall-ledger-mcp) driven by
 * the SDK's own Client over stdio, one server process per agent session (HEIMDALL_AGENT), as two
 * agents' hosts would run it. Every structuredContent is checked against the tool's outputSchema by
 * the client itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { phaseProject, writeSummary } from '../server/core/phase/_testkit.js';
import { validateMessage } from '../server/core/messages/validate.js';
import { o200kTokenizer } from '../server/core/tokens/tokenizer.js';
import { REPO_ROOT, runBin } from '../server/testing/fixtures.js';
import { callTool as call, connectMcp } from './support/mcp.js';

const open: Client[] = [];
const dirs: string[] = [];

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist/mcp/stdio.js'))) throw new Error('dist/mcp/stdio.js is missing: run npm run build:cli first');
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function agent(planning: string, name: string): Promise<Client> {
  const { client } = await connectMcp({ HEIMDALL_PLANNING_DIR: planning, HEIMDALL_AGENT: name });
  open.push(client);
  return client;
}

function project(): { root: string; planning: string } {
  const root = phaseProject();
  dirs.push(root);
  const planning = path.join(root, '.planning');
  const r = runBin('heimdall', ['import', 'gsd'], { planning });
  expect(r.code, r.stderr).toBe(0);
  return { root, planning };
}

describe('the gsd tools over MCP', () => {
  it('ready, start (brief, claim), refusals naming the holder, done (typed result, capsule), then the next wave', async () => {
    const { root, planning } = project();
    const alice = await agent(planning, 'alice.1@core');
    const bob = await agent(planning, 'bob.1@core');
    const { tools } = await alice.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['gsd_ready', 'gsd_start', 'gsd_done']));

    const ready = await call(alice, 'gsd_ready', { phase: '01' });
    expect(ready).toMatchObject({ ready: ['01-01', '01-05'], complete: false });
    expect(ready.plans.find((p: { id: string }) => p.id === '01-02').reasons).toEqual([{ kind: 'dependency', plan: '01-01', status: 'ready' }]);

    const started = await call(alice, 'gsd_start', { plan: '01-01' });
    expect(started).toMatchObject({ plan: '01-01', attempt: 1, resumed: false, claim: { task: '01-01', surfaces: ['src/core/base.ts', '.planning/phases/01-core/01-01-SUMMARY.md'] } });
    expect(started.brief).toMatch(/^TASK 01-01 phases\/01-core\/01-01-PLAN\.md\nSPEC\n/);
    expect(started.brief_tokens).toBe(o200kTokenizer.count(started.brief));
    const cliBrief = JSON.parse(runBin('heimdall', ['brief', 'gsd', '01-01', '--json'], { planning }).stdout);
    expect(started.total_tokens).toBe(cliBrief.total_tokens);

    const taken = await call(bob, 'gsd_start', { plan: '01-01' });
    expect(taken.isError).toBe(true);
    expect(taken.error).toMatchObject({ code: 'conflict', plan: '01-01', holder: { address: 'alice.1@core' } });
    expect(taken.error.message).toMatch(/already started by alice\.1@core/);
    const notYours = await call(bob, 'gsd_done', { plan: '01-01', status: 'pass' });
    expect(notYours.error).toMatchObject({ code: 'forbidden' });
    const badStatus = await call(alice, 'gsd_done', { plan: '01-01', status: 'great' });
    expect(badStatus.error.code).toBe('invalid');

    writeSummary(root, '01-01');
    const done = await call(alice, 'gsd_done', { plan: '01-01', status: 'pass', commit: 'a2ef507', criteria: [1] });
    expect(done).toMatchObject({ plan: '01-01', attempt: 1, status: 'pass', capsule: { id: '01-01' }, released: [started.claim.id] });
    expect(validateMessage(done.result).valid).toBe(true);

    // The next wave: its two plans share src/core/index.ts, so of two starts at once exactly one wins.
    const after = await call(bob, 'gsd_ready', { phase: '01' });
    expect(after.ready).toEqual(['01-05', '01-02', '01-03']);
    const [a, b] = await Promise.all([call(alice, 'gsd_start', { plan: '01-02' }), call(bob, 'gsd_start', { plan: '01-03' })]);
    const outcomes = [a, b].map((x) => (x.isError ? 'refused' : 'started')).sort();
    expect(outcomes).toEqual(['refused', 'started']);
    const loser = (a.isError ? a : b) as { error: { code: string; message: string } };
    expect(loser.error.code).toBe('conflict');
    expect(loser.error.message).toMatch(/src\/core\/index\.ts/);
    expect(loser.error.message).toMatch(a.isError ? /for task 01-03/ : /for task 01-02/);
  }, 120_000);
});
