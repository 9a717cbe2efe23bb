import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { tailLog } from '../log/protocolLog.js';
import { sequentialIds } from '../ports.js';
import { tmpCtx } from '../../testing/fixtures.js';
import { checkin, listAgents, peekInbox, agentAddress, send } from './checkin.js';
import { COMPACT_AT_LINES, herdPaths } from './store.js';
import { teamFile } from './team.js';
import { rootHaid } from '../identity/registry.js';
import { validateWire } from '../wire/envelope.js';
import { memoryWireLog } from '../handshake/fixtures.test-helpers.js';

async function team(ctx: ReturnType<typeof tmpCtx>) {
  await checkin(ctx, { as: 'steve.1@core', status: 'planning wave 2' });
  await checkin(ctx, { as: 'mason.1@core', status: 'starting w1' });
  await checkin(ctx, { as: 'fresco.1@core', status: 'starting w2' });
  await checkin(ctx, { as: 'rook.1@core', status: 'waiting for orders' });
  return ctx;
}

describe('herd check-in', () => {
  it('returns {messages, context, heartbeat_ack} and records the status and heartbeat', async () => {
    const ctx = tmpCtx();
    const r = (await checkin(ctx, { as: 'Mason.1@Core', status: 'validation layer done, starting unit tests', task: 'w2' }));
    expect(r).toMatchObject({ messages: [], context: null, heartbeat_ack: true, agent: 'mason.1@core', tier: 'Execution', context_budget: 200 });
    ctx.clock.advance(30_000);
    const [a] = listAgents(ctx).agents;
    expect(a).toMatchObject({ address: 'mason.1@core', tier: 'Execution', status: 'validation layer done, starting unit tests', task: 'w2', checkins: 1, seconds_since_checkin: 30 });
    expect(a?.last_checkin).toBe('2026-06-11T12:07:27.000Z');
    expect(tailLog(ctx).entries.at(-1)).toMatchObject({ mechanism: 'herd', action: 'checkin' });
  });

  it('a directive to one agent and an inform to @everyone; the Mechanical agent gets only the directive', async () => {
    const ctx = await team(tmpCtx());
    send(ctx, { from: 'steve.1@core', to: 'rook.1@core', type: 'directive', body: 'run the gate on w1' });
    const b = send(ctx, { from: 'steve.1@core', to: '@everyone', type: 'inform', body: 'w1 schema changed' });
    expect(b.recipients).toEqual(['fresco.1@core', 'mason.1@core']); // not the sender, not Mechanical
    const rook = (await checkin(ctx, { as: 'rook.1@core', status: 'ok' }));
    expect(rook.messages.map((m) => [m.type, m.body])).toEqual([['directive', 'run the gate on w1']]);
    const mason = (await checkin(ctx, { as: 'mason.1@core', status: 'ok' }));
    expect(mason.messages).toEqual([{ id: b.id, from: 'steve.1@core', to: '@everyone', type: 'inform', body: 'w1 schema changed', ts: b.ts }]);
    expect((await checkin(ctx, { as: 'steve.1@core', status: 'ok' })).messages).toEqual([]);
  });

  it('delivers each message exactly once, across fresh contexts (a new process reads the same files)', async () => {
    const ctx = await team(tmpCtx());
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'one' });
    send(ctx, { from: 'fresco.1@core', to: 'mason.1@core', type: 'flag', body: 'two' });
    const again = makeCtx(ctx.root, { clock: ctx.clock, ids: sequentialIds('x') });
    expect(peekInbox(again, 'mason.1@core').messages.map((m) => m.body)).toEqual(['one', 'two']);
    expect((await checkin(again, { as: 'mason.1@core', status: 's' })).messages.map((m) => m.body)).toEqual(['one', 'two']);
    expect((await checkin(ctx, { as: 'mason.1@core', status: 's' })).messages).toEqual([]);
    expect(peekInbox(ctx, 'mason.1@core').messages).toEqual([]);
  });

  it('@anyone goes to exactly one agent: the first eligible to check in, never the sender', async () => {
    const ctx = await team(tmpCtx());
    const s = send(ctx, { from: 'mason.1@core', to: '@anyone', type: 'inform', body: 'who can review F13?' });
    expect(s).toMatchObject({ pooled: true, recipients: [] });
    expect((await checkin(ctx, { as: 'mason.1@core', status: 's' })).messages).toEqual([]); // the sender
    expect((await checkin(ctx, { as: 'rook.1@core', status: 's' })).messages).toEqual([]); // Mechanical: no informs
    expect((await checkin(ctx, { as: 'fresco.1@core', status: 's' })).messages.map((m) => m.body)).toEqual(['who can review F13?']);
    expect((await checkin(ctx, { as: 'steve.1@core', status: 's' })).messages).toEqual([]);
    expect(listAgents(ctx).pooled).toBe(0);
  });

  it('unknown or malformed recipients are errors showing the accepted forms; nothing is queued', async () => {
    const ctx = await team(tmpCtx());
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'inform', body: 'the only message' });
    const before = fs.readFileSync(herdPaths(ctx).mailbox, 'utf8');
    expect(() => send(ctx, { from: 'steve.1@core', to: 'ghost.1@core', type: 'inform', body: 'x' })).toThrow(
      /unknown recipient ghost\.1@core.*Accepted forms: name\.instance@team \(e\.g\. mason\.1@core\), @anyone.*@everyone.*Known agents: fresco\.1@core, mason\.1@core/,
    );
    expect(() => send(ctx, { from: 'steve.1@core', to: 'ghost', type: 'inform', body: 'x' })).toThrow(/malformed recipient "ghost": accepted forms are/);
    expect(() => send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'order', body: 'x' })).toThrow(/message type must be one of directive, inform, flag/);
    expect(() => send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'inform', body: '  ' })).toThrow(/non-empty/);
    expect(() => send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'inform', body: 'x'.repeat(16_001) })).toThrow(/at most 16000/);
    expect(() => send(ctx, { from: '', to: 'mason.1@core', type: 'inform', body: 'x' })).toThrow(/--as ADDRESS/);
    expect(fs.readFileSync(herdPaths(ctx).mailbox, 'utf8')).toBe(before);
  });

  it('enforces tiers: an inform sent straight to a Mechanical agent is refused; directives come from leaders', async () => {
    const ctx = await team(tmpCtx());
    expect(() => send(ctx, { from: 'steve.1@core', to: 'rook.1@core', type: 'inform', body: 'x' })).toThrow(/rook\.1@core is Mechanical tier and receives directive only/);
    expect(() => send(ctx, { from: 'mason.1@core', to: 'fresco.1@core', type: 'directive', body: 'x' })).toThrow(/Execution tier, which may send inform, flag, not directive/);
    expect(send(ctx, { from: 'mason.1@core', to: 'steve.1@core', type: 'flag', body: 'F13 race' }).recipients).toEqual(['steve.1@core']);
  });

  it('team.json members are known before their first check-in', async () => {
    const ctx = await team(tmpCtx());
    fs.writeFileSync(teamFile(ctx), JSON.stringify({ version: '2.0.0', members: ['vigil.1@core'] }));
    send(ctx, { from: 'steve.1@core', to: 'vigil.1@core', type: 'directive', body: 'watch F12' });
    const v = listAgents(ctx).agents.find((a) => a.address === 'vigil.1@core');
    expect(v).toMatchObject({ status: null, last_checkin: null, pending: 1, tier: 'Mechanical' });
    expect((await checkin(ctx, { as: 'vigil.1@core', status: 'up' })).messages.map((m) => m.body)).toEqual(['watch F12']);
  });

  it('a tier that stops receiving a type gets those copies withdrawn, and says so', async () => {
    const ctx = await team(tmpCtx());
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'inform', body: 'fyi' });
    fs.writeFileSync(teamFile(ctx), JSON.stringify({ version: '2.0.0', tiers: { Execution: { receives: ['directive'] } } }));
    const r = (await checkin(ctx, { as: 'mason.1@core', status: 's' }));
    expect(r.messages).toEqual([]);
    expect(r.warnings?.join()).toMatch(/no longer receives were withdrawn/);
    expect(listAgents(ctx).agents.find((a) => a.address === 'mason.1@core')?.pending).toBe(0);
  });

  it('bad input at check-in is refused before anything is written', async () => {
    const ctx = tmpCtx();
    await expect(checkin(ctx, { as: 'mason.1@core', status: '' })).rejects.toThrow(/status must be a non-empty string/);
    await expect(checkin(ctx, { as: 'mason.1@core', status: 'x'.repeat(1001) })).rejects.toThrow(/at most 1000/);
    await expect(checkin(ctx, { as: 'mason.1@core', status: 'a\u0007b' })).rejects.toThrow(/control characters/);
    await expect(checkin(ctx, { as: '@anyone', status: 's' })).rejects.toThrow(/must name one agent/);
    await expect(checkin(ctx, { as: 'mason.1@core', status: 's', task: '../w1' })).rejects.toThrow(/invalid task id/);
    await expect(checkin(ctx, { as: 'mason.1@core', status: 's', depends: 'w1' as unknown as string[] })).rejects.toThrow(/depends must be a list/);
    expect(fs.existsSync(herdPaths(ctx).agents)).toBe(false);
  });

  it('a hand-broken registry or journal fails the call and is left untouched', async () => {
    const ctx = await team(tmpCtx());
    const p = herdPaths(ctx);
    const reg = fs.readFileSync(p.agents, 'utf8');
    fs.writeFileSync(p.agents, reg.replace('"checkins": 1', '"checkins": "one"'));
    const broken = fs.readFileSync(p.agents, 'utf8');
    await expect(checkin(ctx, { as: 'mason.1@core', status: 's' })).rejects.toThrow(/agents\.json: "agents\..*" must be a check-in record/);
    expect(fs.readFileSync(p.agents, 'utf8')).toBe(broken);
    fs.writeFileSync(p.agents, reg);

    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'keep me' });
    fs.appendFileSync(p.mailbox, '{"op":"send","id":"m9"}\n');
    const journal = fs.readFileSync(p.mailbox, 'utf8');
    await expect(checkin(ctx, { as: 'mason.1@core', status: 's' })).rejects.toThrow(/mailbox\.jsonl:2: a send line needs string id, copy, ts, to and body/);
    expect(() => send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'x' })).toThrow(/mailbox\.jsonl:2/);
    expect(fs.readFileSync(p.mailbox, 'utf8')).toBe(journal);
    fs.writeFileSync(p.mailbox, journal.split('\n')[0] + '\nnot json\n');
    expect(() => peekInbox(ctx, 'mason.1@core')).toThrow(/mailbox\.jsonl:2: not valid JSON/);
  });

  it('a torn last journal line (a writer killed mid-line) is cut off and reported, and the next send is intact', async () => {
    const ctx = await team(tmpCtx());
    const p = herdPaths(ctx);
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'first' });
    fs.appendFileSync(p.mailbox, '{"op":"send","id":"m7","copy":"m7.0","ts":"2026');
    expect(peekInbox(ctx, 'mason.1@core')).toMatchObject({ tornLine: 2, messages: [{ body: 'first' }] });
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'second' });
    const r = (await checkin(ctx, { as: 'mason.1@core', status: 's' }));
    expect(r.messages.map((m) => m.body)).toEqual(['first', 'second']);
    expect(fs.readFileSync(p.mailbox, 'utf8').split('\n').every((l) => l === '' || JSON.parse(l))).toBe(true);
  });

  it('compacts the journal once it grows, keeping exactly the pending copies', async () => {
    const ctx = await team(tmpCtx());
    for (let i = 0; i < COMPACT_AT_LINES / 2 + 1; i++) {
      send(ctx, { from: 'steve.1@core', to: 'fresco.1@core', type: 'inform', body: `n${i}` });
      await checkin(ctx, { as: 'fresco.1@core', status: 's' });
    }
    send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'inform', body: 'still pending' });
    await checkin(ctx, { as: 'fresco.1@core', status: 's' });
    const lines = fs.readFileSync(herdPaths(ctx).mailbox, 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(10);
    expect((await checkin(ctx, { as: 'mason.1@core', status: 's' })).messages.map((m) => m.body)).toEqual(['still pending']);
  });

  it('@everyone with no other receiver queues nothing and says why', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'steve.1@core', status: 's' });
    const r = send(ctx, { from: 'steve.1@core', to: '@everyone', type: 'inform', body: 'hello?' });
    expect(r.recipients).toEqual([]);
    expect(r.note).toMatch(/nothing was queued/);
  });

  it('keeps the last five statuses and the declared task links', async () => {
    const ctx = tmpCtx();
    for (let i = 0; i < 7; i++) (await checkin(ctx, { as: 'mason.1@core', status: `s${i}`, ...(i === 0 ? { task: 'w2', depends: ['w1'] } : {}) }));
    const reg = JSON.parse(fs.readFileSync(herdPaths(ctx).agents, 'utf8'));
    const rec = reg.agents['mason.1@core'];
    expect(rec.history.map((h: { status: string }) => h.status)).toEqual(['s2', 's3', 's4', 's5', 's6']);
    expect(rec).toMatchObject({ task: 'w2', depends: ['w1'], checkins: 7 });
    await checkin(ctx, { as: 'mason.1@core', status: 'new task', task: 'w9' });
    expect(listAgents(ctx).agents[0]).toMatchObject({ task: 'w9', depends: [] });
    await checkin(ctx, { as: 'mason.1@core', status: 'idle', task: null });
    expect(listAgents(ctx).agents[0]?.task).toBeNull();
  });

  it('names an agent by herd address, by `name.instance` or by its HAID: one identity, two names', async () => {
    const ctx = await team(tmpCtx());
    const root = rootHaid(ctx);
    expect(agentAddress(ctx, 'Mason.1@Core', 'caller').text).toBe('mason.1@core');
    expect(agentAddress(ctx, 'claude-code.2', 'caller').text).toBe('claude-code.2@team');
    expect(agentAddress(ctx, `${root}/core/mason.1`, 'caller').text).toBe('mason.1@core');
    expect(agentAddress(ctx, `${root}/claude-code.2`, 'caller').text).toBe('claude-code.2@team');
    expect(() => agentAddress(ctx, 'mason@core', 'caller')).toThrow(/malformed caller/);
    expect(() => agentAddress(ctx, `${root}/cursor`, 'caller')).toThrow(/names a client, not an agent session/);
    expect(() => agentAddress(ctx, 'h-zzzzzzzz/core/mason.1', 'caller')).toThrow(/not part of this planning tree/);
    // A check-in and a message by HAID land on the same mailbox as by address.
    await checkin(ctx, { as: `${root}/core/mason.1`, status: 'up' });
    send(ctx, { from: 'steve.1@core', to: `${root}/core/mason.1`, type: 'directive', body: 'rebase' });
    expect((await checkin(ctx, { as: 'mason.1@core', status: 'again' })).messages.map((m) => m.body)).toEqual(['rebase']);
  });

  it('every check-in appends an agent.heartbeat wire event (a valid Wire 1.1 envelope)', async () => {
    const ctx = tmpCtx();
    const wire = memoryWireLog(() => ctx.clock.now());
    const r = await checkin(ctx, { as: 'mason.1@core', status: 'w1 tests', task: 'w1' }, { wire });
    await checkin(ctx, { as: 'mason.1@core', status: 'w1 done' }, { wire });
    await checkin(ctx, { as: 'rook.1@core', status: 'idle' }, { wire, topic: 'herd' });
    expect(r.heartbeat_event).toMatchObject({ topic: 'main', sequence_number: 1 });
    expect(wire.records.map((x) => [x.topic, x.sequence_number])).toEqual([['main', 1], ['main', 2], ['herd', 1]]);
    const w = wire.records[1]?.body as Record<string, unknown>;
    expect(w).toMatchObject({ wire: '1.1', type: 'agent.heartbeat', stream_id: 'agent:mason.1@core', stream_seq: 2, sender: 'agent:mason.1@core', payload: { agent: 'mason.1@core', status: 'working', task_id: 'w1' } });
    expect(validateWire(w).errors).toEqual([]);
    expect((wire.records[2]?.body as { payload: object }).payload).toEqual({ agent: 'rook.1@core', status: 'working' });
  });

  it('a wire log that fails does not undo the check-in: messages are delivered and the failure is reported', async () => {
    const ctx = await team(tmpCtx());
    await send(ctx, { from: 'steve.1@core', to: 'mason.1@core', type: 'directive', body: 'go' });
    const r = await checkin(ctx, { as: 'mason.1@core', status: 's' }, { wire: memoryWireLog(() => 0, { failWith: 'NATS is down' }) });
    expect(r.messages.map((m) => m.body)).toEqual(['go']);
    expect(r.heartbeat_event).toBeUndefined();
    expect(r.warnings).toContainEqual(expect.stringMatching(/agent\.heartbeat wire event was not appended: NATS is down/));
  });

  it('reports liveness with the shared thresholds: active, deep work, stale, unresponsive', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'a.1@core', status: 's' });
    ctx.clock.advance(100_000);
    await checkin(ctx, { as: 'b.1@core', status: 's' });
    ctx.clock.advance(100_000);
    await checkin(ctx, { as: 'c.1@core', status: 's' });
    ctx.clock.advance(150_000); // a 350 s, b 250 s, c 150 s
    await checkin(ctx, { as: 'd.1@core', status: 's' });
    fs.writeFileSync(teamFile(ctx), JSON.stringify({ version: '2.0.0', members: ['e.1@core'] }));
    const h = () => Object.fromEntries(listAgents(ctx).agents.map((a) => [a.address, a.heartbeat]));
    expect(h()).toEqual({ 'a.1@core': 'stale', 'b.1@core': 'deep_work', 'c.1@core': 'deep_work', 'd.1@core': 'active', 'e.1@core': 'unresponsive' });
    ctx.clock.advance(300_000); // a 650 s
    expect(h()['a.1@core']).toBe('unresponsive');
    // thresholds are configurable per deployment (the wire's environment variables)
    const strict = makeCtx(ctx.root, { clock: ctx.clock, env: { HEIMDALL_HEARTBEAT_ACTIVE_S: '10', HEIMDALL_HEARTBEAT_DEEP_WORK_S: '20', HEIMDALL_HEARTBEAT_UNRESPONSIVE_S: '100000' } });
    expect(listAgents(strict).agents.find((a) => a.address === 'd.1@core')?.heartbeat).toBe('stale');
  });

  it('keeps the herd files under .planning/herd', async () => {
    const ctx = await team(tmpCtx());
    expect(path.relative(ctx.root, herdPaths(ctx).mailbox)).toBe(path.join('herd', 'mailbox.jsonl'));
  });
});
