import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { logTokens } from '../ledger/ledger.js';
import { tailLog } from '../log/protocolLog.js';
import { tmpCtx } from '../../testing/fixtures.js';
import { checkin } from '../herd/checkin.js';
import { blockedResult, checkAgainstPeer, checkDispatch } from './checks.js';
import { announceMsg, dispatchMsg, memoryWireLog, resultMsg } from './fixtures.test-helpers.js';
import { Projector } from '../wire/projector.js';
import { validateWire } from '../wire/envelope.js';
import { announce, dispatch, listPeers, listTasks, routeOnly, submitResult, tokenCheck } from './handshake.js';
import { buildProfile, handshakeDir } from './profile.js';
import { route } from './route.js';

const NOW = Date.parse('2026-05-31T20:00:00Z');
const profile = (id: string, over: Parameters<typeof announceMsg>[1] = {}) => buildProfile(announceMsg(id, over), '2026-05-31T19:00:00.000Z');

describe('peer profiles', () => {
  it('announce builds the profile: tier, context window, tools, MCP servers with health, tasks, repo state', async () => {
    const ctx = tmpCtx();
    const { profile: p } = await announce(ctx, announceMsg('claude-code', { active: 2 }));
    expect(p).toMatchObject({
      agent_id: 'claude-code',
      model_tier: 'sonnet',
      context_window: 200000,
      tools: ['browser', 'terminal', 'file', 'patch'],
      mcp_health: { context_mode: 'ok', claude_mem: 'ok', trek: 'timeout' },
      active_tasks: 2,
      repo_state: { branch: 'main', clean: true },
      announce_count: 1,
    });
    expect(tailLog(ctx).entries.at(-1)).toMatchObject({ mechanism: 'a2a', action: 'announce' });
  });

  it('re-announcing replaces the profile, keeps first-seen and counts', async () => {
    const ctx = tmpCtx();
    await announce(ctx, announceMsg('w1'));
    ctx.clock.advance(60_000);
    const { profile: p } = await announce(ctx, announceMsg('w1', { health: { context_mode: 'down' }, clean: false }), { as: 'mason.1@core' });
    expect(p).toMatchObject({ announce_count: 2, mcp_health: { context_mode: 'down' }, repo_state: { clean: false }, announced_by: 'mason.1@core' });
    expect(p.first_announced_at).not.toBe(p.announced_at);
    expect(await listPeers(ctx)).toHaveLength(1);
  });

  it('each announce appends agent.started carrying the profile, which the wire read model keeps; re-announcing updates it', async () => {
    const ctx = tmpCtx();
    const wire = memoryWireLog(() => ctx.clock.now());
    const first = await announce(ctx, announceMsg('claude-code'), { wire });
    expect(first.wire_event).toMatchObject({ topic: 'main', sequence_number: 1 });
    ctx.clock.advance(60_000);
    await announce(ctx, announceMsg('claude-code', { health: { context_mode: 'ok', trek: 'ok' }, active: 3 }), { wire });
    for (const r of wire.records) expect(validateWire(r.body).errors).toEqual([]);
    const projector = new Projector({ limits: { maxPayloadBytes: 16 * 1024 } });
    projector.apply(wire.records);
    const rows = projector.takeBatch().agents;
    expect(rows.map((a) => a.agent_id)).toEqual(['claude-code']);
    const profile = rows[0]?.state.profile as Record<string, unknown>;
    expect(profile).toEqual((await listPeers(ctx)).map(({ load: _l, unhealthy_mcp: _u, ...p }) => p)[0]);
    expect(profile).toMatchObject({ announce_count: 2, active_tasks: 3, mcp_health: { context_mode: 'ok', trek: 'ok' } });
  });

  it('a wire log that fails leaves the hub profile in place and says so', async () => {
    const ctx = tmpCtx();
    const r = await announce(ctx, announceMsg('x'), { wire: memoryWireLog(() => 0, { failWith: 'disk full' }) });
    expect(r.warnings).toEqual([expect.stringMatching(/not appended to the wire log \(agent\.started\): disk full/)]);
    expect((await listPeers(ctx)).map((p) => p.agent_id)).toEqual(['x']);
  });

  it('a server listed without health is "unknown", which is not healthy', async () => {
    const a = announceMsg('x');
    delete a.mcp_health.trek;
    expect(buildProfile(a, 't').mcp_health.trek).toBe('unknown');
  });

  it('refuses invalid announces and a different protocol major; writes nothing', async () => {
    const ctx = tmpCtx();
    await expect(announce(ctx, { type: 'SESSION_ANNOUNCE' })).rejects.toThrow(/invalid SESSION_ANNOUNCE: \/protocol_version is required/);
    await expect(announce(ctx, announceMsg('x', { version: '3.0' }))).rejects.toThrow(/speaks protocol 3\.0; this hub speaks 2\.0/);
    expect(fs.existsSync(path.join(handshakeDir(ctx), 'peers.json'))).toBe(false);
  });

  it('a hand-broken peers.json is refused and left untouched', async () => {
    const ctx = tmpCtx();
    await announce(ctx, announceMsg('x'));
    const file = path.join(handshakeDir(ctx), 'peers.json');
    const text = fs.readFileSync(file, 'utf8').replace('"active_tasks": 0', '"active_tasks": "none"');
    fs.writeFileSync(file, text);
    await expect(listPeers(ctx)).rejects.toThrow(/peers\.json: "peers\.x" must be a peer profile/);
    await expect(announce(ctx, announceMsg('y'))).rejects.toThrow(/peers\.json/);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('dispatch checks (before any work starts)', () => {
  const ok = profile('w1');
  it('passes a dispatch the peer can do', async () => {
    expect(checkDispatch(dispatchMsg(), ok, NOW)).toEqual([]);
  });

  it.each([
    ['a required MCP server that is not "ok"', dispatchMsg('t', { required_mcp: ['trek'] }), ok, 'mcp', /required MCP server trek is timeout on w1/],
    ['a required MCP server that is not installed', dispatchMsg('t', { required_mcp: ['github'] }), ok, 'mcp', /github is not installed on w1/],
    ['a missing capability', dispatchMsg('t', { caps: ['terminal', 'gpu'] }), ok, 'capability', /w1 lacks capability gpu/],
    ['a write task to a dirty tree', dispatchMsg('t'), profile('w1', { clean: false }), 'dirty_tree', /write task to a dirty working tree on w1 \(branch main\)/],
    ['a deadline already past', dispatchMsg('t', { deadline: '2026-05-31T19:59:59Z' }), ok, 'deadline', /deadline 2026-05-31T19:59:59Z has already passed/],
    ['a protocol major mismatch (dispatch)', dispatchMsg('t', { version: '3.0' }), ok, 'protocol', /major versions must match/],
    ['a protocol major mismatch (peer)', dispatchMsg('t'), { ...ok, protocol_version: '1.4' }, 'protocol', /w1 speaks protocol 1\.4/],
  ])('blocks %s', (_name, d, p, check, reason) => {
    const f = checkDispatch(d, p, NOW);
    expect(f.map((x) => x.check)).toContain(check);
    expect(f.map((x) => x.reason).join('; ')).toMatch(reason);
  });

  it('a read task may go to a dirty tree; a minor version difference is fine', async () => {
    expect(checkAgainstPeer(dispatchMsg('t', { mode: 'read' }), profile('w1', { clean: false }))).toEqual([]);
    expect(checkDispatch(dispatchMsg('t', { version: '2.3' }), ok, NOW)).toEqual([]);
  });

  it('the blocked TASK_RESULT: status blocked, the reasons, tokens_spent 0', async () => {
    expect(blockedResult(dispatchMsg('t'), ['a', 'b'], 'w1')).toEqual({
      type: 'TASK_RESULT', protocol_version: '2.0', task_id: 't', agent_id: 'w1', status: 'blocked', tokens_spent: 0, blocked_reason: 'a; b', next_steps: [],
    });
  });
});

describe('routing', () => {
  const load = (p: { active_tasks: number }) => p.active_tasks;

  it('chooses among qualifying peers the one with the fewest active tasks', async () => {
    const peers = [profile('busy', { tier: 'opus', active: 3 }), profile('idle', { tier: 'sonnet', active: 0 }), profile('dead', { tier: 'opus', health: { context_mode: 'down' } })];
    const d = route(dispatchMsg(), peers, { load });
    expect(d.executor).toBe('idle');
    expect(d.candidates.map((c) => [c.agent_id, c.qualifies])).toEqual([['idle', true], ['busy', true], ['dead', false]]);
    expect(d.candidates[2]?.reasons.join()).toMatch(/context_mode is down/);
  });

  it('matches the model tier to the priority, and breaks load ties by tier preference', async () => {
    const peers = [profile('h', { tier: 'haiku' }), profile('s', { tier: 'sonnet' }), profile('o', { tier: 'opus' })];
    expect(route(dispatchMsg('t', { priority: 'high' }), peers, { load }).executor).toBe('o');
    expect(route(dispatchMsg('t', { priority: 'low' }), peers, { load }).executor).toBe('h');
    const onlyHaiku = route(dispatchMsg('t', { priority: 'urgent' }), [profile('h', { tier: 'haiku' })], { load });
    expect(onlyHaiku.executor).toBeNull();
    expect(onlyHaiku.reason).toMatch(/model tier haiku does not match priority urgent \(accepted: opus, sonnet\)/);
    expect(route(dispatchMsg('t', { priority: 'urgent' }), [profile('h', { tier: 'haiku' })], { load, priorityTiers: { low: ['haiku'], normal: ['haiku'], high: ['haiku'], urgent: ['haiku'] } }).executor).toBe('h');
  });

  it('skips peers that already blocked the task; says so when nobody is left', async () => {
    const peers = [profile('a'), profile('b', { active: 5 })];
    expect(route(dispatchMsg(), peers, { load, exclude: new Set(['a']) }).executor).toBe('b');
    const none = route(dispatchMsg(), peers, { load, exclude: new Set(['a', 'b']) });
    expect(none.executor).toBeNull();
    expect(none.reason).toMatch(/^no peer qualifies: a: a already blocked this task; b: b already blocked this task$/);
    expect(route(dispatchMsg(), [], { load }).reason).toMatch(/no peer has announced/);
  });
});

describe('dispatch, result, re-route, queue and flag', () => {
  async function hub() {
    const ctx = tmpCtx('2026-05-31T20:00:00Z');
    await checkin(ctx, { as: 'steve.1@core', status: 'leading' });
    await announce(ctx, announceMsg('mason.1@core', { tier: 'opus', active: 0 }));
    await announce(ctx, announceMsg('fresco.1@core', { tier: 'sonnet', active: 0 }));
    await checkin(ctx, { as: 'mason.1@core', status: 'ready' });
    await checkin(ctx, { as: 'fresco.1@core', status: 'ready' });
    return ctx;
  }

  it('routes, records the task, and delivers the dispatch as a herd directive at the next check-in', async () => {
    const ctx = await hub();
    const out = await dispatch(ctx, dispatchMsg('t1'), { as: 'steve.1@core' });
    expect(out).toMatchObject({ decision: 'routed', task_id: 't1', executor: 'mason.1@core', delivered_to: 'mason.1@core' });
    const msgs = (await checkin(ctx, { as: 'mason.1@core', status: 'got it' })).messages;
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({ type: 'directive', from: 'steve.1@core' });
    expect(JSON.parse(msgs[0]?.body as string).task.task_id).toBe('t1');
    expect(listTasks(ctx)[0]).toMatchObject({ task_id: 't1', state: 'routed', executor: 'mason.1@core', dispatched_by: 'steve.1@core' });
    // the routed task now counts against mason (0 announced + 1 routed): the next one goes to fresco
    const second = await dispatch(ctx, dispatchMsg('t2'), { as: 'steve.1@core' });
    expect(second).toMatchObject({ executor: 'fresco.1@core' });
    expect((await listPeers(ctx)).map((p) => [p.agent_id, p.load])).toEqual([['fresco.1@core', 1], ['mason.1@core', 1]]);
  });

  it('a dispatch needing a dead MCP server comes back blocked at once, then goes to the next qualifying peer', async () => {
    const ctx = await hub();
    await announce(ctx, announceMsg('mason.1@core', { tier: 'opus', health: { context_mode: 'timeout' } }));
    const out = await dispatch(ctx, dispatchMsg('t1'), { to: 'mason.1@core', as: 'steve.1@core' });
    if (out.decision !== 'blocked') throw new Error('expected blocked');
    expect(out.result).toMatchObject({ type: 'TASK_RESULT', status: 'blocked', tokens_spent: 0, agent_id: 'mason.1@core', blocked_reason: 'required MCP server context_mode is timeout on mason.1@core (needs "ok")' });
    expect(out.handling).toMatchObject({ rerouted_to: 'fresco.1@core', queued: false, flagged: [] });
    expect(listTasks(ctx)[0]?.attempts.map((a) => [a.agent_id, a.outcome])).toEqual([['mason.1@core', 'blocked'], ['fresco.1@core', 'routed']]);
  });

  it('when none qualifies: blocked result, task queued, the leader flagged; a healthy re-announce routes it', async () => {
    const ctx = await hub();
    const out = await dispatch(ctx, dispatchMsg('t1', { required_mcp: ['trek'] }), { as: 'steve.1@core' });
    if (out.decision !== 'blocked') throw new Error('expected blocked');
    expect(out.result.blocked_reason).toMatch(/^no peer qualifies: /);
    expect(out.result.blocked_reason).toContain('fresco.1@core: required MCP server trek is timeout on fresco.1@core');
    expect(out.result.blocked_reason).toContain('mason.1@core: required MCP server trek is timeout on mason.1@core');
    expect(out.handling).toEqual({ rerouted_to: null, queued: true, flagged: ['steve.1@core'] });
    const flag = (await checkin(ctx, { as: 'steve.1@core', status: 's' })).messages;
    expect(flag).toMatchObject([{ type: 'flag', body: expect.stringMatching(/^task t1 is queued: no peer qualifies/) }]);
    expect(listTasks(ctx)[0]).toMatchObject({ state: 'queued', flagged: ['steve.1@core'] });
    const again = await announce(ctx, announceMsg('fresco.1@core', { tier: 'sonnet', health: { trek: 'ok', context_mode: 'ok' } }));
    expect(again.routed).toEqual([{ task_id: 't1', executor: 'fresco.1@core' }]);
    expect((await checkin(ctx, { as: 'fresco.1@core', status: 's' })).messages[0]?.type).toBe('directive');
  });

  it('a blocked TASK_RESULT from the executor is re-routed, then queued when nobody is left', async () => {
    const ctx = await hub();
    await dispatch(ctx, dispatchMsg('t1'), { as: 'steve.1@core' });
    const r1 = await submitResult(ctx, resultMsg('t1', { status: 'blocked', blocked_reason: 'needs a GPU', tokens_spent: 120 }), { as: 'mason.1@core' });
    expect(r1).toMatchObject({ state: 'routed', handling: { rerouted_to: 'fresco.1@core', queued: false } });
    const r2 = await submitResult(ctx, resultMsg('t1', { status: 'blocked', blocked_reason: 'me neither', tokens_spent: 0, agent_id: 'fresco.1@core' }));
    expect(r2).toMatchObject({ state: 'queued', handling: { rerouted_to: null, queued: true, flagged: ['steve.1@core'] } });
  });

  it('enforces reply_schema on results; a refused result records nothing', async () => {
    const ctx = await hub();
    await dispatch(ctx, dispatchMsg('t1', { reply_schema: 'json', output_schema: { type: 'object', required: ['pr'] } }), { as: 'steve.1@core' });
    await expect(submitResult(ctx, resultMsg('t1', { output: { files: [] } }), { as: 'mason.1@core' })).rejects.toThrow(
      /does not satisfy reply_schema "json" of t1: \/output\/pr is required \(output_schema of the dispatch\)/,
    );
    expect(listTasks(ctx)[0]).toMatchObject({ state: 'routed', last_result: null });
    const ok = await submitResult(ctx, resultMsg('t1', { output: { pr: 72 } }), { as: 'mason.1@core' });
    expect(ok).toMatchObject({ status: 'done', state: 'done' });
  });

  it('shows tokens_spent beside the ledger count for the task', async () => {
    const ctx = await hub();
    await dispatch(ctx, dispatchMsg('t1'), { as: 'steve.1@core' });
    logTokens(ctx, { role: 'execution', kind: 'spawn', msgId: 'm1', tokens: 2000, run: 't1' });
    logTokens(ctx, { role: 'execution', kind: 'result', msgId: 't1', text: 'a short result text' });
    logTokens(ctx, { role: 'execution', kind: 'spawn', msgId: 'other', tokens: 999 });
    const out = await submitResult(ctx, resultMsg('t1', { tokens_spent: 3240 }), { as: 'mason.1@core' });
    const counted = ctx.tokenizer.count('a short result text');
    expect(out.tokens).toEqual({
      self_reported: 3240, ledger_tokens: 2000 + counted, ledger_entries: 2, ledger_counted: counted, ledger_reported: 2000, tokenizer: ctx.tokenizer.name, difference: 3240 - 2000 - counted,
    });
    expect(tokenCheck(ctx, 'nothing', 5).difference).toBeNull();
  });

  it('results: unknown task, wrong executor, finished task and bad messages are refused', async () => {
    const ctx = await hub();
    await expect(submitResult(ctx, resultMsg('nope'))).rejects.toThrow(/no dispatched task nope/);
    await dispatch(ctx, dispatchMsg('t1'), { as: 'steve.1@core' });
    await expect(submitResult(ctx, resultMsg('t1'), { as: 'fresco.1@core' })).rejects.toThrow(/routed to mason\.1@core, not fresco\.1@core/);
    await expect(submitResult(ctx, { ...resultMsg('t1'), protocol_version: '3.0' })).rejects.toThrow(/major versions must match/);
    await expect(submitResult(ctx, resultMsg('t1', { status: 'error' }))).rejects.toThrow(/\/error_summary is required/);
    await submitResult(ctx, resultMsg('t1'), { as: 'mason.1@core' });
    await expect(submitResult(ctx, resultMsg('t1'), { as: 'mason.1@core' })).rejects.toThrow(/t1 is done, not waiting/);
    await expect(dispatch(ctx, dispatchMsg('t1'), { as: 'steve.1@core' })).rejects.toThrow(/already done/);
  });

  it('a past deadline or a protocol mismatch is rejected outright and flagged; unknown --to is an error', async () => {
    const ctx = await hub();
    const out = await dispatch(ctx, dispatchMsg('late', { deadline: '2026-05-31T19:00:00Z' }), { as: 'steve.1@core' });
    expect(out).toMatchObject({ decision: 'blocked', result: { tokens_spent: 0, blocked_reason: expect.stringMatching(/has already passed/) }, handling: { queued: false, flagged: ['steve.1@core'] } });
    expect(listTasks(ctx)[0]?.state).toBe('rejected');
    await expect(dispatch(ctx, dispatchMsg('t9'), { to: 'ghost' })).rejects.toThrow(/no peer "ghost" has announced itself; known peers: fresco\.1@core, mason\.1@core/);
    await expect(dispatch(ctx, { type: 'TASK_DISPATCH' })).rejects.toThrow(/invalid TASK_DISPATCH/);
  });

  it('routeOnly decides without recording anything', async () => {
    const ctx = await hub();
    const d = await routeOnly(ctx, dispatchMsg('t1'));
    expect(d).toMatchObject({ task_id: 't1', executor: 'mason.1@core' });
    expect(listTasks(ctx)).toEqual([]);
    const dead = await routeOnly(ctx, dispatchMsg('t2', { required_mcp: ['nothing'] }));
    expect(dead).toMatchObject({ executor: null, blocked: { status: 'blocked', tokens_spent: 0 } });
  });

  it('without a known leader the task still queues, with a warning', async () => {
    const ctx = tmpCtx('2026-05-31T20:00:00Z');
    const out = await dispatch(ctx, dispatchMsg('t1'));
    expect(out).toMatchObject({ decision: 'blocked', handling: { queued: true, flagged: [] }, warnings: [expect.stringMatching(/no Leader-tier agent is known/)] });
  });

  it('routing.json overrides priority tiers; a broken one is refused', async () => {
    const ctx = await hub();
    const file = path.join(handshakeDir(ctx), 'routing.json');
    fs.writeFileSync(file, JSON.stringify({ version: '2.0.0', priority_tiers: { high: ['sonnet'] } }));
    expect((await routeOnly(ctx, dispatchMsg('t1'))).executor).toBe('fresco.1@core');
    fs.writeFileSync(file, JSON.stringify({ version: '2.0.0', priority_tiers: { asap: ['opus'] } }));
    await expect(routeOnly(ctx, dispatchMsg('t1'))).rejects.toThrow(/priority "asap" must be one of urgent, high, normal, low/);
    fs.writeFileSync(file, JSON.stringify({ version: '2.0.0', priority_tiers: { high: [] } }));
    await expect(routeOnly(ctx, dispatchMsg('t1'))).rejects.toThrow(/non-empty list of model tiers/);
  });
});
