import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeCapsule } from '../capsules/capsules.js';
import { makeClaim } from '../claims/claims.js';
import { spawnHaid } from '../identity/registry.js';
import { o200kTokenizer } from '../tokens/tokenizer.js';
import { tmpCtx } from '../../testing/fixtures.js';
import { checkin } from './checkin.js';
import { type LinkSources, type PaneAgent, findLinks, formatAge, renderPane } from './pane.js';

const NOW = Date.parse('2026-06-11T12:00:00Z');

function agent(address: string, task: string | null, statuses: string[], agoS = 10, surfaces: string[] = []): PaneAgent {
  const team = address.split('@')[1] as string;
  return {
    address,
    team,
    task,
    surfaces,
    lastMs: NOW - agoS * 1000,
    history: statuses.map((s, i) => ({ ms: NOW - (agoS + (statuses.length - 1 - i) * 60) * 1000, status: s, task })),
  };
}

/** w1 <- w2 <- w3 <- w4 (w2 depends on w1, ...), plus an unrelated x1. */
const deps = new Map<string, Set<string>>([
  ['w2', new Set(['w1'])],
  ['w3', new Set(['w2'])],
  ['w4', new Set(['w3'])],
]);
const prefixOverlap: LinkSources['overlaps'] = (a, b) => a.some((x) => b.some((y) => x.startsWith(y) || y.startsWith(x)));
const src: LinkSources = { deps, overlaps: prefixOverlap };

describe('context pane links', () => {
  const me = agent('mason.1@core', 'w2', ['working'], 0, ['src/book/']);
  const others = [
    agent('a.1@core', 'w1', ['w1 schema migration in progress']),
    agent('b.1@core', 'w3', ['w3 waiting on w2']),
    agent('c.1@core', 'w4', ['w4 idle']),
    agent('d.1@core', 'x1', ['docs'], 10, ['src/book/diff.ts']),
    agent('e.1@core', 'x2', ['unrelated']),
    agent('f.1@other', 'x3', ['other team']),
    agent('g.1@core', 'w2', ['pairing on w2']),
  ];

  it('direct: dependencies, dependents, same task and overlapping claims only', async () => {
    const l = findLinks(me, others, 'direct', src);
    expect(Object.fromEntries([...l].map(([k, v]) => [k, v.kind]))).toEqual({
      'a.1@core': 'dependency',
      'b.1@core': 'dependent',
      'd.1@core': 'claims',
      'g.1@core': 'same task',
    });
  });

  it('graph: adds agents reachable through the task graph, with the distance', async () => {
    const l = findLinks(me, others, 'graph', src);
    expect(l.get('c.1@core')).toEqual({ kind: 'graph', distance: 2 });
    expect(l.has('e.1@core')).toBe(false);
  });

  it('team: the leader sees every teammate, structural links first', async () => {
    const l = findLinks(me, others, 'team', src);
    expect(l.get('e.1@core')).toEqual({ kind: 'team', distance: 9 });
    expect(l.get('a.1@core')?.kind).toBe('dependency');
    expect(l.has('f.1@other')).toBe(false);
  });

  it('no task and no claims: nothing is linked below team visibility', async () => {
    expect(findLinks(agent('z.1@core', null, ['s']), others, 'graph', src).size).toBe(0);
  });
});

describe('context pane rendering', () => {
  const opts = { tokenizer: o200kTokenizer, nowMs: NOW };

  it('null when nothing is linked, or the budget is 0', async () => {
    const a = [agent('a.1@core', 'w1', ['x'])];
    expect(renderPane(a, new Map(), { ...opts, budget: 500 })).toBeNull();
    expect(renderPane(a, new Map([['a.1@core', { kind: 'dependency', distance: 1 }]]), { ...opts, budget: 0 })).toBeNull();
  });

  it('shows who, which task, how linked, how long ago, and the status; closest first', async () => {
    const agents = [agent('b.1@core', 'w4', ['far'], 5), agent('a.1@core', 'w1', ['schema migration in progress'], 40)];
    const links = new Map([
      ['a.1@core', { kind: 'dependency' as const, distance: 1 }],
      ['b.1@core', { kind: 'graph' as const, distance: 2 }],
    ]);
    const text = renderPane(agents, links, { ...opts, budget: 500 });
    expect(text).toBe('a.1@core (w1, dependency, 40s ago): schema migration in progress\nb.1@core (w4, graph 2, 5s ago): far');
  });

  it('adds earlier statuses while they fit, and a liveness tag when given', async () => {
    const a = agent('a.1@core', 'w1', ['first', 'second', 'third'], 400);
    const text = renderPane([a], new Map([['a.1@core', { kind: 'dependency', distance: 1 }]]), { ...opts, budget: 500, tag: () => 'stale' });
    expect(text).toBe('a.1@core (w1, dependency, 7m ago, stale): third\n  earlier (8m ago): second\n  earlier (9m ago): first');
  });

  it.each([200, 300, 500, 60, 25])('never exceeds a budget of %i tokens, counted with the tokenizer', (budget) => {
    const long = 'refactoring the order book diff engine and its snapshot codec while keeping the replay tests green '.repeat(3);
    const agents = Array.from({ length: 30 }, (_, i) => agent(`agent${i}.1@core`, `t${i}`, [`${long} step ${i}a`, `${long} step ${i}b`], i * 7));
    const links = new Map(agents.map((a, i) => [a.address, { kind: 'graph' as const, distance: 1 + (i % 3) }]));
    const text = renderPane(agents, links, { ...opts, budget }) as string;
    expect(text).not.toBeNull();
    expect(o200kTokenizer.count(text)).toBeLessThanOrEqual(budget);
    // the budget is used, not wasted: at least 60% of it
    expect(o200kTokenizer.count(text)).toBeGreaterThan(budget * 0.6);
    if (budget >= 200) expect(text).toMatch(/\(\+\d+ more linked agents\)$/);
  });

  it('shortens a status that alone is over budget rather than dropping the closest agent', async () => {
    const a = agent('a.1@core', 'w1', ['word '.repeat(400)]);
    const text = renderPane([a], new Map([['a.1@core', { kind: 'dependency', distance: 1 }]]), { ...opts, budget: 40 }) as string;
    expect(text.startsWith('a.1@core (w1, dependency, 10s ago): word word')).toBe(true);
    expect(text.endsWith('...')).toBe(true);
    expect(o200kTokenizer.count(text)).toBeLessThanOrEqual(40);
  });

  it('formats ages compactly', async () => {
    expect([formatAge(40_000), formatAge(400_000), formatAge(3 * 3600_000), formatAge(3 * 86400_000)]).toEqual(['40s', '7m', '3h', '3d']);
  });
});

describe('context pane through check-in', () => {
  it('an Execution agent sees its capsule dependency and dependents; unrelated agents are not shown', async () => {
    const ctx = tmpCtx();
    writeCapsule(ctx, 'w1', { what: 'LOB engine', where: 'F12' });
    writeCapsule(ctx, 'w2', { what: 'book diff', where: 'F13', depends: ['w1'] });
    await checkin(ctx, { as: 'mason.1@core', status: 'schema migration in progress', task: 'w1' });
    await checkin(ctx, { as: 'tufte.1@core', status: 'drawing charts', task: 'c9' });
    ctx.clock.advance(40_000);
    const r = (await checkin(ctx, { as: 'mason.2@core', status: 'starting the diff', task: 'w2' }));
    expect(r.context).toBe('mason.1@core (w1, dependency, 40s ago): schema migration in progress');
    expect(r.context_tokens).toBe(ctx.tokenizer.count(r.context as string));
    const back = (await checkin(ctx, { as: 'mason.1@core', status: 'still migrating' }));
    expect(back.context).toBe('mason.2@core (w2, dependent, 0s ago): starting the diff');
  });

  it('links declared at check-in work without capsules; the leader sees the team; Mechanical gets null', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'fresco.1@core', status: 'ui for w5', task: 'w5', depends: ['w4'] });
    await checkin(ctx, { as: 'mason.1@core', status: 'api for w4', task: 'w4' });
    expect((await checkin(ctx, { as: 'fresco.1@core', status: 'ui for w5' })).context).toMatch(/^mason\.1@core \(w4, dependency/);
    const lead = (await checkin(ctx, { as: 'steve.1@core', status: 'reviewing' }));
    expect(lead.context?.split('\n').filter((l) => !l.startsWith(' ')).map((l) => l.split(' ')[0])).toEqual(['fresco.1@core', 'mason.1@core']);
    expect(lead.context).toMatch(/fresco\.1@core \(w5, team, 0s ago\): ui for w5\n  earlier \(0s ago\): ui for w5/);
    expect((await checkin(ctx, { as: 'rook.1@core', status: 'ready', task: 'w4' })).context).toBeNull();
    expect((await checkin(ctx, { as: 'scribe.1@core', status: 'notes', task: 'n1' })).context).toBeNull();
  });

  it('tags a linked agent that has gone quiet as stale, by the shared heartbeat thresholds', async () => {
    const ctx = tmpCtx();
    await checkin(ctx, { as: 'mason.1@core', status: 'migrating the schema', task: 'w1' });
    ctx.clock.advance(400_000);
    const lead = await checkin(ctx, { as: 'steve.1@core', status: 'reviewing' });
    expect(lead.context).toBe('mason.1@core (w1, team, 7m ago, stale): migrating the schema');
    ctx.clock.advance(300_000);
    expect((await checkin(ctx, { as: 'steve.1@core', status: 'still here' })).context).toMatch(/^mason\.1@core \(w1, team, 12m ago, unresponsive\)/);
  });

  it('overlapping claims link agents: a claim that expired overlaps the one that followed it', async () => {
    const ctx = tmpCtx();
    makeClaim(ctx, { haid: spawnHaid(ctx, 'fresco.1@core'), surfaces: ['src/book/**'], task: 'ui', ttlMinutes: 1 });
    makeClaim(ctx, { haid: spawnHaid(ctx, 'tufte.1@core'), surfaces: ['docs/**'], task: 'charts' });
    await checkin(ctx, { as: 'fresco.1@core', status: 'reworked the book view', task: 'u1' });
    await checkin(ctx, { as: 'tufte.1@core', status: 'charts', task: 'c1' });
    ctx.clock.advance(120_000);
    // fresco's claim has expired, so the gate lets mason claim a file inside it
    makeClaim(ctx, { haid: spawnHaid(ctx, 'mason.1@core'), surfaces: ['src/book/diff.ts'], task: 'diff' });
    const r = (await checkin(ctx, { as: 'mason.1@core', status: 'editing diff.ts', task: 'd1' }));
    expect(r.context).toBe('fresco.1@core (u1, claims, 2m ago, deep work): reworked the book view');
    expect((await checkin(ctx, { as: 'fresco.1@core', status: 'next thing' })).context).toBe('mason.1@core (d1, claims, 0s ago): editing diff.ts');
  });

  it('a broken claims file leaves claims out of the pane with a warning', async () => {
    const ctx = tmpCtx();
    const fs = await import('node:fs');
    const { claimsFile } = await import('../claims/claims.js');
    fs.mkdirSync(path.dirname(claimsFile(ctx)), { recursive: true });
    fs.writeFileSync(claimsFile(ctx), '{"version": "2.0.0", "claims": []}');
    const r = (await checkin(ctx, { as: 'mason.1@core', status: 's', task: 'w1' }));
    expect(r.warnings?.join()).toMatch(/claims were left out of the context pane/);
    expect(fs.readFileSync(claimsFile(ctx), 'utf8')).toBe('{"version": "2.0.0", "claims": []}');
  });

  it('a broken capsule is skipped for the pane with a warning, and the check-in still succeeds', async () => {
    const ctx = tmpCtx();
    writeCapsule(ctx, 'w1', { what: 'x', where: 'y' });
    const fs = await import('node:fs');
    fs.writeFileSync(`${ctx.paths.capsulesDir}/bad.md`, 'this is not a field\n');
    const r = (await checkin(ctx, { as: 'mason.1@core', status: 's', task: 'w1' }));
    expect(r.warnings?.join()).toMatch(/capsule bad was skipped/);
  });
});
