import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { thrown, tmpCtx } from '../../testing/fixtures.js';
import { makeClaim, readClaims, releaseClaim } from '../claims/claims.js';
import type { Ctx } from '../context.js';
import { releaseClaimAsDecision } from '../decisions/release.js';
import { checkin, peekInbox, send } from '../herd/checkin.js';
import { OPERATOR_ADDRESS } from '../herd/address.js';
import { teamFile } from '../herd/team.js';
import { operatorHaid } from '../identity/agent.js';
import { registerHaid, retireHaid, rootHaid, spawnHaid } from '../identity/registry.js';
import { tailLog } from '../log/protocolLog.js';
import { PROTOCOL_VERSION } from '../planning/version.js';
import type { TaskView } from '../wire/reducers/task.js';
import { agentBoard, joinAgentBoard, operatorView } from './agents.js';
import { claimBoard } from './claims.js';
import { URGENCY, byUrgency } from './urgency.js';

type Clocked = ReturnType<typeof tmpCtx>;

/** Check in `as` so that, at the board's read time `readAt`, its last check-in is `ageS` seconds old. */
async function checkinAged(ctx: Clocked, start: number, readAt: number, as: string, ageS: number, task?: string) {
  ctx.clock.set(start + (readAt - ageS) * 1000);
  await checkin(ctx, { as, status: `working (${ageS}s)`, ...(task ? { task } : {}) });
}

function team(ctx: Ctx, extra: Record<string, unknown>) {
  fs.mkdirSync(ctx.paths.herdDir, { recursive: true });
  fs.writeFileSync(teamFile(ctx), JSON.stringify({ version: PROTOCOL_VERSION, ...extra }));
}

/** A wire task run as the read model shows it; only what the board reads is filled in. */
function task(task_id: string, claimed_by: string | null, status: TaskView['status'], attempt = 1): TaskView {
  return { task_id, stream_id: `task:${task_id}:attempt:${attempt}`, attempt, status, claimed_by, lease_expires_at: null, blocker: null } as TaskView;
}

describe('urgency', () => {
  const row = (address: string, heartbeat: (typeof URGENCY)[number], seconds_since_checkin: number | null) => ({ address, heartbeat, seconds_since_checkin });

  it('unresponsive, stale, deep work, active; within one, the longest silence first (never is longest), then the address', () => {
    const rows = [
      row('a.1@t', 'active', 5),
      row('b.1@t', 'deep_work', 200),
      row('c.1@t', 'unresponsive', 700),
      row('d.1@t', 'stale', 400),
      row('e.1@t', 'active', 60),
      row('f.1@t', 'unresponsive', null),
      row('g.1@t', 'stale', 550),
      row('h.1@t', 'unresponsive', 5000),
      row('i.1@t', 'active', 60),
    ];
    expect([...rows].sort(byUrgency).map((r) => r.address)).toEqual(['f.1@t', 'h.1@t', 'c.1@t', 'g.1@t', 'd.1@t', 'b.1@t', 'e.1@t', 'i.1@t', 'a.1@t']);
    expect(URGENCY).toEqual(['unresponsive', 'stale', 'deep_work', 'active']);
  });
});

describe('agent board', () => {
  it('every liveness state in urgency order, by the clock; a fresh check-in moves an agent to the end', async () => {
    const ctx = tmpCtx();
    const start = ctx.clock.now();
    const readAt = 2000;
    team(ctx, { members: ['vigil.9@ops'] });
    await checkinAged(ctx, start, readAt, 'steve.1@core', 30);
    await checkinAged(ctx, start, readAt, 'mason.1@core', 200);
    await checkinAged(ctx, start, readAt, 'fresco.1@core', 400);
    await checkinAged(ctx, start, readAt, 'rook.1@core', 700);
    await checkinAged(ctx, start, readAt, 'tufte.1@core', 1500);
    await checkinAged(ctx, start, readAt, 'scribe.1@core', 550);
    await checkinAged(ctx, start, readAt, 'mason.2@core', 100);
    ctx.clock.set(start + readAt * 1000);
    const board = joinAgentBoard(ctx, { tasks: [] });
    expect(board.agents.map((a) => [a.address, a.heartbeat, a.seconds_since_checkin])).toEqual([
      ['vigil.9@ops', 'unresponsive', null],
      ['tufte.1@core', 'unresponsive', 1500],
      ['rook.1@core', 'unresponsive', 700],
      ['scribe.1@core', 'stale', 550],
      ['fresco.1@core', 'stale', 400],
      ['mason.1@core', 'deep_work', 200],
      ['mason.2@core', 'active', 100],
      ['steve.1@core', 'active', 30],
    ]);
    expect(board.agents.map((a) => a.urgency)).toEqual([0, 0, 0, 1, 1, 2, 3, 3]);

    await checkin(ctx, { as: 'rook.1@core', status: 'back' });
    expect(joinAgentBoard(ctx, { tasks: [] }).agents.map((a) => a.address).slice(-3)).toEqual(['mason.2@core', 'steve.1@core', 'rook.1@core']);
  });

  it('joins each agent with its claims (made under its HAID), its wire tasks (by address or HAID) and its current task', async () => {
    const ctx = tmpCtx();
    const root = rootHaid(ctx);
    await checkin(ctx, { as: 'mason.1@core', status: 'book diff', task: 'w2' });
    await checkin(ctx, { as: 'fresco.1@core', status: 'between tasks' });
    await checkin(ctx, { as: 'rook.1@core', status: 'lint' });
    await checkin(ctx, { as: 'steve.1@core', status: 'reviewing' });
    // Claims name the agent any way: its address or its HAID; another agent's claim is not joined.
    const a = makeClaim(ctx, { haid: 'mason.1@core', surfaces: ['src/matching/**'], task: 'T-9' }).claim;
    const b = makeClaim(ctx, { haid: `${root}/core/mason.1`, surfaces: ['docs/book.md'], task: 'T-10' }).claim;
    makeClaim(ctx, { haid: 'rook.1@core', surfaces: ['lint/**'], task: 'T-5' });
    const gone = makeClaim(ctx, { haid: 'steve.1@core', surfaces: ['plan/**'], task: 'T-1' }).claim;
    releaseClaim(ctx, { haid: 'steve.1@core', id: gone.id });
    const tasks = [
      task('T-9', 'mason.1@core', 'started'),
      task('T-7', `${root}/core/fresco.1`, 'claimed', 1),
      task('T-7', `${root}/core/fresco.1`, 'blocked', 2),
      task('T-3', 'fresco.1@core', 'complete'),
      task('T-8', 'mason', 'started'),
    ];
    const board = joinAgentBoard(ctx, { tasks });
    const by = (addr: string) => board.agents.find((x) => x.address === addr);
    expect(by('mason.1@core')?.claims.map((c) => [c.id, c.task, c.surfaces])).toEqual([
      [a.id, 'T-9', ['src/matching/**']],
      [b.id, 'T-10', ['docs/book.md']],
    ]);
    expect(by('mason.1@core')?.haid).toBe(`${root}/core/mason.1`);
    expect(by('mason.1@core')?.wire_tasks.map((t) => [t.task_id, t.status])).toEqual([['T-9', 'started']]);
    expect(by('mason.1@core')?.current_task).toEqual({ id: 'w2', source: 'checkin' });
    // The latest attempt only; a completed task is not current.
    expect(by('fresco.1@core')?.wire_tasks.map((t) => [t.task_id, t.attempt, t.status])).toEqual([['T-7', 2, 'blocked']]);
    expect(by('fresco.1@core')?.current_task).toEqual({ id: 'T-7', source: 'wire' });
    expect(by('rook.1@core')?.current_task).toEqual({ id: 'T-5', source: 'claim' });
    // A released claim is history, not something the agent holds.
    expect(by('steve.1@core')?.claims).toEqual([]);
    expect(by('steve.1@core')?.current_task).toBeNull();
    expect(by('mason.1@core')?.identity).toBe('unregistered');
  });

  it('a retired identity is shown as such, with its claims (held, no longer blocking)', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'mason.1@core', status: 'x' });
    makeClaim(ctx, { haid: 'mason.1@core', surfaces: ['src/**'], task: 'T-1' });
    registerHaid(ctx, `${rootHaid(ctx)}/core/mason.1`);
    retireHaid(ctx, `${rootHaid(ctx)}/core/mason.1`);
    const [m] = joinAgentBoard(ctx, { tasks: [] }).agents;
    expect(m?.identity).toBe('retired');
    expect(m?.claims.map((c) => c.status)).toEqual(['retired']);
  });

  it('without the wire read model the rows are still there, and the board says why the tasks are missing', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'mason.1@core', status: 'x', task: 'w1' });
    const board = await agentBoard(ctx, () => Promise.reject(new Error('no driver for the read model')));
    expect(board.agents.map((a) => a.address)).toEqual(['mason.1@core']);
    expect(board.wire_problem).toContain('no driver for the read model');
    const ok = await agentBoard(ctx, () => Promise.resolve([task('T-1', 'mason.1@core', 'started')]));
    expect(ok.wire_problem).toBeUndefined();
    expect(ok.agents[0]?.wire_tasks.map((t) => t.task_id)).toEqual(['T-1']);
  });
});

describe('the operator', () => {
  it('is {root}/studio with the herd address studio.operator@team, a Leader unless team.json says otherwise', () => {
    const ctx = tmpCtx();
    expect(operatorView(ctx)).toEqual({ haid: null, address: OPERATOR_ADDRESS, tier: 'Leader', sends: ['directive', 'inform', 'flag'] });
    const root = rootHaid(ctx);
    expect(operatorView(ctx).haid).toBe(`${root}/studio`);
    expect(spawnHaid(ctx, 'studio')).toBe(operatorHaid(root));
    team(ctx, { agents: { studio: 'Execution' } });
    expect(operatorView(ctx)).toMatchObject({ tier: 'Execution', sends: ['inform', 'flag'] });
  });

  it('sends as itself: the recipient sees the operator as the sender and protocol.log names the operator as author', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'fresco.1@core', status: 'x' });
    const op: Ctx = { ...ctx, actor: operatorHaid(rootHaid(ctx)) };
    const r = send(op, { from: op.actor as string, to: 'fresco.1@core', type: 'directive', body: 'hold src/matching/' });
    expect(r.from).toBe(OPERATOR_ADDRESS);
    expect(peekInbox(ctx, 'fresco.1@core').messages).toEqual([expect.objectContaining({ from: OPERATOR_ADDRESS, type: 'directive', body: 'hold src/matching/' })]);
    expect(tailLog(ctx).entries.at(-1)).toMatchObject({ mechanism: 'herd', action: 'send', author: op.actor });
    // Demoted by the team file, the operator may no longer direct.
    team(ctx, { agents: { 'studio.operator@team': 'Execution' } });
    expect(thrown(() => send(op, { from: op.actor as string, to: 'fresco.1@core', type: 'directive', body: 'x' })).code).toBe('forbidden');
  });
});

describe('claim board', () => {
  async function setup() {
    const ctx = tmpCtx();
    const root = rootHaid(ctx);
    const studio = operatorHaid(root);
    await checkin(ctx, { as: 'mason.1@core', status: 'x' });
    const held = makeClaim(ctx, { haid: 'mason.1@core', surfaces: ['src/a/**'], task: 'T-1' }).claim;
    const short = makeClaim(ctx, { haid: `${root}/cursor`, surfaces: ['docs/**'], task: 'T-2', ttlMinutes: 5 }).claim;
    const freed = makeClaim(ctx, { haid: 'fresco.1@core', surfaces: ['src/b/**'], task: 'T-3' }).claim;
    const own = makeClaim(ctx, { haid: 'rook.1@core', surfaces: ['src/c/**'], task: 'T-4' }).claim;
    const ret = makeClaim(ctx, { haid: 'vigil.1@ops', surfaces: ['ops/**'], task: 'T-6' }).claim;
    registerHaid(ctx, `${root}/ops/vigil.1`);
    retireHaid(ctx, `${root}/ops/vigil.1`);
    ctx.clock.advance(10 * 60_000);
    const d = releaseClaimAsDecision({ ...ctx, actor: studio }, { by: studio, id: freed.id, reason: 'agent went silent' });
    ctx.clock.advance(60_000);
    releaseClaim(ctx, { haid: 'rook.1@core', id: own.id, reason: 'done' });
    return { ctx, root, studio, held, short, freed, own, ret, d };
  }

  it('filters active (held), released, expired and all, with counts of every status', async () => {
    const { ctx, held, short, freed, own, ret } = await setup();
    const ids = (f?: string) => claimBoard(ctx, { filter: f }).claims.map((c) => c.id);
    expect(ids()).toEqual([held.id, ret.id]);
    expect(ids('active')).toEqual([held.id, ret.id]);
    expect(ids('expired')).toEqual([short.id]);
    // Most recently released first.
    expect(ids('released')).toEqual([own.id, freed.id]);
    expect(new Set(ids('all'))).toEqual(new Set([held.id, short.id, freed.id, own.id, ret.id]));
    expect(claimBoard(ctx).counts).toEqual({ active: 1, retired: 1, held: 2, released: 2, expired: 1, all: 5 });
    expect(thrown(() => claimBoard(ctx, { filter: 'gone' })).message).toMatch(/one of active, released, expired, all/);
  });

  it('a released claim shows who released it (both names) and links the decision that recorded it', async () => {
    const { ctx, root, studio, freed, own, d } = await setup();
    const rows = claimBoard(ctx, { filter: 'released' }).claims;
    const f = rows.find((c) => c.id === freed.id);
    expect(f).toMatchObject({ haid: `${root}/core/fresco.1`, address: 'fresco.1@core', released_by: studio, released_by_address: OPERATOR_ADDRESS, reason: 'agent went silent' });
    expect(f?.decision).toEqual({ id: d.decision.id, title: `Released the claim of ${root}/core/fresco.1`, at: expect.any(String), haid: studio });
    // Released by its own holder through the CLI's path: who and why, no decision.
    const o = rows.find((c) => c.id === own.id);
    expect(o).toMatchObject({ released_by: `${root}/core/rook.1`, released_by_address: 'rook.1@core', reason: 'done' });
    expect(o?.decision).toBeUndefined();
    // The holder's row exists on the agents board only for an agent the herd knows.
    expect(claimBoard(ctx).claims.map((c) => [c.address, c.holder_known])).toEqual([
      ['mason.1@core', true],
      ['vigil.1@ops', false],
    ]);
  });

  it('a decision id whose entry is gone from decisions.md is shown as missing, not dropped', async () => {
    const { ctx, freed, d } = await setup();
    fs.writeFileSync(ctx.paths.decisions, '# Decisions\n');
    expect(claimBoard(ctx, { filter: 'released' }).claims.find((c) => c.id === freed.id)?.decision).toEqual({ id: d.decision.id, missing: true });
    expect(readClaims(ctx).get(freed.id)?.decision).toBe(d.decision.id);
  });
});
