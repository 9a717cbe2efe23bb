/**
 * Agents in the loop, end to end: the built MCP server (dist/mcp/stdio.js, `npm run build:cli`)
 * driven by the SDK's own Client over stdio, as an MCP host drives it. The clock is the server's
 * (HEIMDALL_NOW), so "400 seconds later" is a restart with a later HEIMDALL_NOW, not a wait.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBin } from '../server/testing/fixtures.js';
import { callTool as call, connectMcp } from './support/mcp.js';

const SERVER = path.join(REPO_ROOT, 'dist/mcp/stdio.js');
const T0 = Date.parse('2026-06-11T12:00:00Z');
const open: Array<{ close(): Promise<void> }> = [];
const dirs: string[] = [];

beforeAll(() => {
  if (!fs.existsSync(SERVER)) throw new Error('dist/mcp/stdio.js is missing: run npm run build:cli first');
});
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function planningDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-herd-mcp-'));
  dirs.push(d);
  fs.mkdirSync(path.join(d, '.planning')); // the server serves an existing tree
  return path.join(d, '.planning');
}

/** Start a server process on `planning` with its clock at `nowMs`, and connect a client to it. */
async function start(planning: string, nowMs: number, clientName = 'claude-code') {
  const { client, pid } = await connectMcp({ HEIMDALL_PLANNING_DIR: planning, HEIMDALL_NOW: String(nowMs) }, clientName);
  const handle = { client, pid, close: () => client.close() };
  open.push(handle);
  return handle;
}

const checkin = (c: Client, who: string, status: string, extra: Record<string, unknown> = {}) => call(c, 'herd_checkin', { client_identity: who, status, ...extra });

describe('herd over MCP (SDK client, stdio, built server)', () => {
  it('lists the herd and a2a tools on the ledger server, with short descriptions', async () => {
    const { client } = await start(planningDir(), T0);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['herd_checkin', 'herd_send', 'a2a_announce', 'a2a_dispatch', 'a2a_result', 'a2a_peers']) expect(names).toContain(n);
    expect(names).toContain('make_claim');
    for (const t of tools.filter((x) => /^(herd|a2a)_/.test(x.name))) expect((t.description ?? '').length).toBeLessThanOrEqual(160);
  });

  it('two agents check in; a leader sends a directive to one and an inform to @everyone; the Mechanical agent gets only the directive', async () => {
    const { client } = await start(planningDir(), T0);
    expect(await checkin(client, 'mason.1@core', 'starting w1', { task: 'w1' })).toMatchObject({ heartbeat_ack: true, messages: [], context: null, agent: 'mason.1@core', tier: 'Execution' });
    expect(await checkin(client, 'rook.1@core', 'waiting for orders')).toMatchObject({ heartbeat_ack: true, tier: 'Mechanical' });
    await checkin(client, 'steve.1@core', 'planning');

    const d = await call(client, 'herd_send', { client_identity: 'steve.1@core', to: 'rook.1@core', type: 'directive', body: 'run the gate on w1' });
    expect(d).toMatchObject({ recipients: ['rook.1@core'], pooled: false });
    const all = await call(client, 'herd_send', { client_identity: 'steve.1@core', to: '@everyone', type: 'inform', body: 'w1 schema changed' });
    expect(all.recipients).toEqual(['mason.1@core']);

    const rook = await checkin(client, 'rook.1@core', 'gate running');
    expect(rook.messages.map((m: { type: string; body: string }) => [m.type, m.body])).toEqual([['directive', 'run the gate on w1']]);
    expect(rook.context).toBeNull();
    const mason = await checkin(client, 'mason.1@core', 'w1 tests');
    expect(mason.messages).toEqual([expect.objectContaining({ type: 'inform', from: 'steve.1@core', to: '@everyone', body: 'w1 schema changed' })]);
    expect((await checkin(client, 'mason.1@core', 'again')).messages).toEqual([]);
  });

  it('unknown and malformed addresses are tool errors that show the accepted forms', async () => {
    const { client } = await start(planningDir(), T0);
    await checkin(client, 'steve.1@core', 'planning');
    const unknown = await call(client, 'herd_send', { client_identity: 'steve.1@core', to: 'ghost.9@core', type: 'inform', body: 'x' });
    expect(unknown).toMatchObject({ isError: true, error: { code: 'not_found', message: expect.stringMatching(/unknown recipient ghost\.9@core.*name\.instance@team.*@anyone.*@everyone/) } });
    const bad = await call(client, 'herd_send', { client_identity: 'steve.1@core', to: 'ghost', type: 'inform', body: 'x' });
    expect(bad.error.message).toMatch(/malformed recipient "ghost": accepted forms are/);
    // Without client_identity the session speaks as itself: its identity has a herd address.
    const self = await call(client, 'herd_checkin', { status: 'who am I' });
    expect(self).toMatchObject({ heartbeat_ack: true, agent: 'claude-code.s1@team' });
    const client2 = await call(client, 'herd_checkin', { status: 'x', client_identity: 'cursor' });
    expect(client2.error.message).toMatch(/names a client, not an agent session.*client_identity as name\.instance@team/);
    const wrongType = await call(client, 'herd_send', { client_identity: 'steve.1@core', to: '@everyone', type: 'order', body: 'x' });
    expect(wrongType.isError).toBe(true);
  });

  it('a message sent and not drained survives a server restart and is delivered exactly once', async () => {
    const planning = planningDir();
    const first = await start(planning, T0);
    await checkin(first.client, 'mason.1@core', 'up');
    await call(first.client, 'herd_send', { client_identity: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'rebase on main' });
    await first.close();
    expect(await exited(first.pid)).toBe(true); // a real restart: the first process is gone

    const second = await start(planning, T0 + 5_000);
    expect((await checkin(second.client, 'mason.1@core', 'back')).messages.map((m: { body: string }) => m.body)).toEqual(['rebase on main']);
    await second.close();
    const third = await start(planning, T0 + 10_000);
    expect((await checkin(third.client, 'mason.1@core', 'back again')).messages).toEqual([]);
    // and the CLI reads the same mailbox
    expect(runBin('heimdall', ['herd', 'inbox', '--as', 'mason.1@core', '--json'], { planning }).stdout).toContain('"messages":[]');
  });

  it('a stale agent is reported stale: 400 s after its last check-in (the server clock is HEIMDALL_NOW)', async () => {
    const planning = planningDir();
    const early = await start(planning, T0);
    await checkin(early.client, 'mason.1@core', 'migrating the schema', { task: 'w1' });
    await checkin(early.client, 'fresco.1@core', 'book view', { task: 'w2', depends: ['w1'] });
    await early.close();
    const later = await start(planning, T0 + 400_000);
    await checkin(later.client, 'fresco.1@core', 'still on the book view');
    const lead = await checkin(later.client, 'steve.1@core', 'who is quiet?');
    expect(lead.tier).toBe('Leader');
    expect(lead.context).toMatch(/^mason\.1@core \(w1, team, 7m ago, stale\): migrating the schema$/m);
    expect(lead.context).toMatch(/^fresco\.1@core \(w2, team, 0s ago\): still on the book view$/m);
    const fresco = await checkin(later.client, 'fresco.1@core', 'waiting on w1');
    expect(fresco.context).toBe('mason.1@core (w1, dependency, 7m ago, stale): migrating the schema');
    // the CLI's status, at the same instant, agrees (one heartbeat classification)
    const status = JSON.parse(runBin('heimdall', ['herd', 'status', '--json'], { planning, env: { HEIMDALL_NOW: String(T0 + 400_000) } }).stdout);
    expect(Object.fromEntries(status.agents.map((a: { address: string; heartbeat: string }) => [a.address, a.heartbeat]))).toEqual({
      'fresco.1@core': 'active',
      'mason.1@core': 'stale',
      'steve.1@core': 'active',
    });
    // and every check-in went to the wire log as agent.heartbeat: the read model has mason's last one
    const wire = JSON.parse(runBin('heimdall', ['wire', 'state', '--agent', 'mason.1@core', '--json'], { planning, env: { HEIMDALL_NOW: String(T0 + 400_000) } }).stdout);
    expect(wire).toMatchObject({ agent_id: 'mason.1@core', last_heartbeat_at: new Date(T0).toISOString(), liveness: 'stale' });
  });

  it('a dispatch needing a dead MCP server comes back blocked at once, with tokens_spent 0', async () => {
    const { client } = await start(planningDir(), T0);
    await checkin(client, 'steve.1@core', 'leading');
    const announce = {
      type: 'SESSION_ANNOUNCE',
      protocol_version: '2.0',
      worker: { agent_id: 'claude-code', model: 'claude-sonnet-4-20250514', model_tier: 'sonnet', context_window: 200000 },
      capabilities: { tools: ['terminal', 'file'], mcp_servers: ['context_mode', 'trek'] },
      mcp_health: { context_mode: 'ok', trek: 'timeout' },
      session: { context_id: 'handshake:e2e', active_tasks: 0, repo_state: { branch: 'main', clean: true } },
    };
    expect((await call(client, 'a2a_announce', { message: announce })).profile).toMatchObject({ agent_id: 'claude-code', mcp_health: { trek: 'timeout' } });
    const dispatch = {
      type: 'TASK_DISPATCH',
      protocol_version: '2.0',
      task: { task_id: 'abc-123', priority: 'high', reply_schema: 'structured', token_budget: 4000 },
      requirements: { required_mcp: ['trek'], required_capabilities: ['terminal'] },
      brief: 'Refactor the auth module.',
    };
    const out = await call(client, 'a2a_dispatch', { client_identity: 'steve.1@core', message: dispatch, to: 'claude-code' });
    expect(out).toMatchObject({
      decision: 'blocked',
      result: { type: 'TASK_RESULT', task_id: 'abc-123', status: 'blocked', tokens_spent: 0, blocked_reason: 'required MCP server trek is timeout on claude-code (needs "ok")' },
      handling: { queued: true, flagged: ['steve.1@core'] },
    });
    const lead = await checkin(client, 'steve.1@core', 'reading flags');
    expect(lead.messages).toEqual([expect.objectContaining({ type: 'flag', body: expect.stringMatching(/^task abc-123 is queued/) })]);
    expect((await call(client, 'a2a_peers', {})).count).toBe(1);
  });

  it('announced profiles are kept in the wire read model; re-announcing updates them', async () => {
    const planning = planningDir();
    const { client } = await start(planning, T0);
    const announce = (trek: string, active: number) => ({
      type: 'SESSION_ANNOUNCE',
      protocol_version: '2.0',
      worker: { agent_id: 'claude-code', model: 'claude-sonnet-4-20250514', model_tier: 'sonnet', context_window: 200000 },
      capabilities: { tools: ['terminal'], mcp_servers: ['trek'] },
      mcp_health: { trek },
      session: { active_tasks: active, repo_state: { branch: 'main', clean: true } },
    });
    expect((await call(client, 'a2a_announce', { message: announce('timeout', 0) })).wire_event).toMatchObject({ topic: 'main' });
    await call(client, 'a2a_announce', { message: announce('ok', 2) });
    const state = JSON.parse(runBin('heimdall', ['wire', 'state', '--agent', 'claude-code', '--json'], { planning }).stdout);
    expect(state.profile).toMatchObject({ agent_id: 'claude-code', model_tier: 'sonnet', mcp_health: { trek: 'ok' }, active_tasks: 2, announce_count: 2, repo_state: { clean: true } });
  });
});

async function exited(pid: number | null): Promise<boolean> {
  if (pid === null) return false;
  // No deadline of its own (the test's timeout is the bound): a loaded machine may take a while.
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
