/**
 * `heimdall herd ...` and `heimdall a2a ...` as real processes (bin/heimdall, bundled by
 * scripts/build-cli.mjs): every call is a fresh process, so these also prove the mailbox and the
 * profiles survive a restart, and that concurrent check-ins are serialised.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, runConcurrently, tmpDir } from '../../testing/fixtures.js';
import { announceMsg, dispatchMsg } from '../handshake/fixtures.test-helpers.js';

/** An empty planning tree: commands work in one, and never create one. */
const planning = () => {
  const p = path.join(tmpDir(), '.planning');
  fs.mkdirSync(p);
  return p;
};
const herd = (p: string, args: string[], input?: string) => runBin('heimdall', ['herd', ...args], { planning: p, input });
const a2a = (p: string, args: string[], input?: string) => runBin('heimdall', ['a2a', ...args], { planning: p, input });

describe('heimdall herd (processes)', () => {
  it('@anyone goes to exactly one of many agents checking in at the same moment', async () => {
    const p = planning();
    const agents = Array.from({ length: 6 }, (_, i) => `mason.${i}@core`);
    for (const a of agents) expect(herd(p, ['checkin', '--as', a, '--status', 'ready']).code).toBe(0);
    for (let round = 0; round < 5; round++) {
      expect(herd(p, ['send', '--as', 'steve.1@core', '--to', '@anyone', '--type', 'inform', '--body', `job ${round}`]).code).toBe(0);
      const results = await runConcurrently(agents.length, (i) => ({ name: 'heimdall', args: ['herd', 'checkin', '--as', agents[i] as string, '--status', `round ${round}`, '--json'] }), p);
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      const winners = results.map((r) => JSON.parse(r.stdout)).filter((j) => j.messages.length > 0);
      expect(winners).toHaveLength(1);
      expect(winners[0].messages).toEqual([expect.objectContaining({ body: `job ${round}`, to: '@anyone' })]);
    }
  });

  it('a message survives between processes and is delivered exactly once', () => {
    const p = planning();
    herd(p, ['checkin', '--as', 'rook.1@core', '--status', 'up']);
    const s = herd(p, ['send', '--as', 'steve.1@core', '--to', 'rook.1@core', '--type', 'directive', '--json'], 'run the gate\non w1\n');
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ recipients: ['rook.1@core'], type: 'directive' });
    const inbox = herd(p, ['inbox', '--as', 'rook.1@core', '--json']);
    expect(JSON.parse(inbox.stdout).messages).toHaveLength(1);
    const first = JSON.parse(herd(p, ['checkin', '--client-identity', 'rook.1@core', '--status', 's', '--json']).stdout);
    expect(first).toMatchObject({ heartbeat_ack: true, context: null, messages: [{ body: 'run the gate\non w1', type: 'directive' }] });
    expect(JSON.parse(herd(p, ['checkin', '--as', 'rook.1@core', '--status', 's', '--json']).stdout).messages).toEqual([]);
  });

  it('status lists every known agent with tier, last status and last check-in', () => {
    const p = planning();
    herd(p, ['checkin', '--as', 'steve.1@core', '--status', 'leading']);
    const r = herd(p, ['checkin', '--as', 'mason.1@core', '--status', 'w1 tests', '--task', 'w1'], '');
    expect(r.stdout).toMatch(/^heartbeat_ack mason\.1@core \(Execution\)/);
    const st = herd(p, ['status']);
    expect(st.stdout).toMatch(/^address\ttier\theartbeat\tlast check-in\tpending\ttask\tstatus$/m);
    expect(st.stdout).toMatch(/^mason\.1@core\tExecution\tactive\t\d+s ago\t0\tw1\tw1 tests$/m);
    const later = runBin('heimdall', ['herd', 'status'], { planning: p, env: { HEIMDALL_NOW: new Date(Date.now() + 400_000).toISOString() } });
    expect(later.stdout).toMatch(/^mason\.1@core\tExecution\tstale\t\d+s ago/m);
    expect(JSON.parse(herd(p, ['status', '--json']).stdout).agents.map((a: { tier: string }) => a.tier)).toEqual(['Execution', 'Leader']);
  });

  it('each CLI check-in appends an agent.heartbeat to the wire log', () => {
    const p = planning();
    herd(p, ['checkin', '--as', 'mason.1@core', '--status', 'one']);
    herd(p, ['checkin', '--as', 'mason.1@core', '--status', 'two']);
    const lines = fs.readFileSync(path.join(p, 'wire', 'main.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines[1])).toMatch(/"type":"agent\.heartbeat".*"stream_seq":2/);
    const bad = runBin('heimdall', ['herd', 'checkin', '--as', 'mason.1@core', '--status', 'three'], { planning: p, env: { HEIMDALL_STREAM_URL: 'http://nope' } });
    expect(bad.code).toBe(0);
    expect(bad.stderr).toMatch(/warning: no agent\.heartbeat wire event: HEIMDALL_STREAM_URL must be a nats:\/\/ URL/);
  });

  it('bad input: exit 2 for usage, 1 for a refused address, and nothing is written', () => {
    const p = planning();
    expect(herd(p, ['checkin', '--status', 'x'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/name the caller with --as ADDRESS/) });
    expect(herd(p, ['checkin', '--as', 'mason.1@core'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/--status is required/) });
    expect(herd(p, ['checkin', '--as', 'mason.1@core', '--status', 'x', '--tsk', 'w1'])).toMatchObject({ code: 2, stderr: expect.stringMatching(/unknown option --tsk/) });
    expect(herd(p, ['checkin', '--as', 'mason.1@core', '--status', 'x', '--task', 'w1', '--no-task']).code).toBe(2);
    expect(herd(p, ['checkin', '--as', 'mason', '--status', 'x'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/accepted forms are name\.instance@team/) });
    expect(herd(p, ['send', '--as', 'steve.1@core', '--to', 'nobody.1@core', '--type', 'inform', '--body', 'x'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/unknown recipient nobody\.1@core.*@anyone.*@everyone/) });
    expect(herd(p, ['frobnicate']).code).toBe(2);
    expect(fs.existsSync(path.join(p, 'herd', 'agents.json'))).toBe(false);
    expect(fs.existsSync(path.join(p, 'herd', 'mailbox.jsonl'))).toBe(false);
  });

  it('a hand-broken team.json stops every call (exit 2) and is left as it was', () => {
    const p = planning();
    expect(herd(p, ['team', '--init']).code).toBe(0);
    const file = path.join(p, 'herd', 'team.json');
    fs.writeFileSync(file, JSON.stringify({ version: '2.0.0', tiers: { Leader: { context_budget: 'lots' } } }));
    const r = herd(p, ['checkin', '--as', 'steve.1@core', '--status', 'x']);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringMatching(/team\.json: tiers\.Leader\.context_budget must be an integer number of tokens/) });
    expect(fs.readFileSync(file, 'utf8')).toContain('lots');
    expect(herd(p, ['team', '--init'])).toMatchObject({ code: 1, stderr: expect.stringMatching(/already exists/) });
  });
});

describe('heimdall a2a (processes)', () => {
  it('announce, peers, then a dispatch needing a dead MCP server prints the blocked TASK_RESULT (exit 1)', () => {
    const p = planning();
    const ann = a2a(p, ['announce'], JSON.stringify(announceMsg('claude-code')));
    expect(ann.code, ann.stderr).toBe(0);
    expect(JSON.parse(ann.stdout).profile).toMatchObject({ agent_id: 'claude-code', mcp_health: { trek: 'timeout' } });
    expect(a2a(p, ['peers']).stdout).toMatch(/^claude-code\tsonnet\t0\tyes\tcontext_mode:ok,claude_mem:ok,trek:timeout\t/m);
    const d = a2a(p, ['dispatch', '--to', 'claude-code'], JSON.stringify(dispatchMsg('abc-123', { required_mcp: ['trek'] })));
    expect(d.code).toBe(1);
    expect(JSON.parse(d.stdout)).toMatchObject({
      type: 'TASK_RESULT', protocol_version: '2.0', task_id: 'abc-123', status: 'blocked', tokens_spent: 0,
      blocked_reason: 'required MCP server trek is timeout on claude-code (needs "ok")', handling: { queued: true },
    });
    expect(d.stderr).toMatch(/no Leader-tier agent is known/);
  });

  it('dispatch routes (exit 0), result is accepted with tokens beside the ledger, route records nothing', () => {
    const p = planning();
    a2a(p, ['announce'], JSON.stringify(announceMsg('claude-code', { tier: 'opus' })));
    const rt = a2a(p, ['route'], JSON.stringify(dispatchMsg('t1')));
    expect(JSON.parse(rt.stdout)).toMatchObject({ executor: 'claude-code', task_id: 't1' });
    const d = a2a(p, ['dispatch'], JSON.stringify(dispatchMsg('t1')));
    expect(d.code, d.stderr).toBe(0);
    expect(JSON.parse(d.stdout)).toMatchObject({ decision: 'routed', executor: 'claude-code', delivered_to: null });
    runBin('heimdall-ledger', ['log', '--role', 'execution', '--kind', 'spawn', '--msg-id', 'm1', '--tokens', '3000', '--run', 't1'], { planning: p });
    const res = a2a(p, ['result', '--as', 'claude-code'], JSON.stringify({ type: 'TASK_RESULT', protocol_version: '2.0', task_id: 't1', status: 'done', tokens_spent: 3240, next_steps: [], artifacts: {} }));
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ state: 'done', tokens: { self_reported: 3240, ledger_tokens: 3000, difference: 240 } });
  });

  it('bad stdin and flags are clear errors', () => {
    const p = planning();
    expect(a2a(p, ['announce'], '{nope')).toMatchObject({ code: 1, stderr: expect.stringMatching(/stdin is not valid JSON/) });
    expect(a2a(p, ['announce'], '')).toMatchObject({ code: 2, stderr: expect.stringMatching(/stdin is empty/) });
    expect(a2a(p, ['dispatch'], JSON.stringify({ type: 'TASK_DISPATCH', protocol_version: '2.0' }))).toMatchObject({ code: 1, stderr: expect.stringMatching(/invalid TASK_DISPATCH: \/task is required; \/brief is required/) });
    expect(a2a(p, ['peers', '--to', 'x']).code).toBe(2);
    expect(a2a(p, ['result'], JSON.stringify({ type: 'TASK_RESULT', protocol_version: '2.0', task_id: 'zz', status: 'done', tokens_spent: 1 }))).toMatchObject({ code: 1, stderr: expect.stringMatching(/no dispatched task zz/) });
  });
});
