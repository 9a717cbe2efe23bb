import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { parseAgentAddress } from './address.js';
import { DEFAULT_TEAM, mergeTeam, readTeam, teamFile, tierOf, writeDefaultTeam } from './team.js';

const addr = parseAgentAddress;

describe('herd tiers and team.json', () => {
  it('defaults to the seed table: budgets 500/300/200/0 and Mechanical gets directives only', () => {
    const team = readTeam(tmpCtx());
    expect(tierOf(team, addr('steve.1@core'))).toMatchObject({ name: 'Leader', context_budget: 500, visibility: 'team' });
    expect(tierOf(team, addr('scribe.1@core'))).toMatchObject({ name: 'Senior', context_budget: 300 });
    expect(tierOf(team, addr('mason.7@core'))).toMatchObject({ name: 'Execution', context_budget: 200, visibility: 'direct' });
    expect(tierOf(team, addr('rook.1@core'))).toMatchObject({ name: 'Mechanical', context_budget: 0, receives: ['directive'] });
    // Studio's operator leads by default; the team file may place it elsewhere by address or name.
    expect(tierOf(team, addr('studio.operator@team')).name).toBe('Leader');
    expect(tierOf(team, addr('studio.2@team')).name).toBe('Execution');
    expect(tierOf(mergeTeam({ version: '2.0.0', agents: { studio: 'Senior' } }), addr('studio.operator@team')).name).toBe('Senior');
    expect(tierOf(mergeTeam({ version: '2.0.0', default_tier: 'Mechanical' }), addr('studio.operator@team')).name).toBe('Leader');
    expect(tierOf(team, addr('newcomer.1@core')).name).toBe('Execution');
  });

  it('reads team.json: per-tier merge, full-address overrides, members, custom tiers', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(path.dirname(teamFile(ctx)), { recursive: true });
    fs.writeFileSync(
      teamFile(ctx),
      JSON.stringify({
        version: '2.0.0',
        default_tier: 'Mechanical',
        tiers: { Senior: { context_budget: 400 }, Reviewer: { context_budget: 50, receives: ['flag', 'directive'], sends: ['flag'], visibility: 'direct' } },
        agents: { mason: 'Execution', 'mason.2@core': 'Senior', 'QA': 'Reviewer' },
        members: ['Rook.1@core', 'rook.1@core'],
      }),
    );
    const team = readTeam(ctx);
    expect(tierOf(team, addr('mason.1@core')).name).toBe('Execution');
    expect(tierOf(team, addr('mason.2@core'))).toMatchObject({ name: 'Senior', context_budget: 400, receives: ['directive', 'inform', 'flag'] });
    expect(tierOf(team, addr('qa.1@core')).name).toBe('Reviewer');
    // agents replaces the default table, so steve falls back to the default tier
    expect(tierOf(team, addr('steve.1@core')).name).toBe('Mechanical');
    expect(team.members).toEqual(['rook.1@core']);
    // the default table itself is untouched by merging
    expect(DEFAULT_TEAM.tiers.Senior?.context_budget).toBe(300);
  });

  it.each([
    [{ version: '2.0.0', tiers: { Senior: { context_budget: -1 } } }, /tiers\.Senior\.context_budget must be an integer number of tokens/],
    [{ version: '2.0.0', tiers: { Senior: { context_budget: '300' } } }, /context_budget/],
    [{ version: '2.0.0', tiers: { Mechanical: { receives: ['orders'] } } }, /tiers\.Mechanical\.receives must be a list of distinct message types/],
    [{ version: '2.0.0', tiers: { Mechanical: { receives: [] } } }, /non-empty list/],
    [{ version: '2.0.0', tiers: { New: { context_budget: 5 } } }, /tiers\.New\.receives must be given for a new tier/],
    [{ version: '2.0.0', tiers: { Senior: { budget: 5 } } }, /tiers\.Senior\.budget must be one of context_budget/],
    [{ version: '2.0.0', tiers: { Senior: { visibility: 'all' } } }, /visibility must be one of team, graph, direct/],
    [{ version: '2.0.0', agents: { mason: 'Boss' } }, /agents\.mason must be one of the tiers/],
    [{ version: '2.0.0', agents: { 'mason/../x': 'Leader' } }, /agents key .* must be an agent name/],
    [{ version: '2.0.0', members: ['rook'] }, /members\[0\] must be an address/],
    [{ version: '2.0.0', agent: {} }, /key "agent" must be one of version/],
    [{ version: '2.0.0', default_tier: 'Boss' }, /default_tier/],
    [{ tiers: {} }, /no valid "version" field/],
    [{ version: '9.0.0' }, /newer than this heimdall/],
    [[1, 2], /must be a JSON object/],
  ])('refuses a hand-broken team.json %j with the field and what was expected', (raw, msg) => {
    expect(() => mergeTeam(raw, 'team.json')).toThrow(msg);
  });

  it('a file that is not JSON is refused with its line, and left untouched', () => {
    const ctx = tmpCtx();
    fs.mkdirSync(path.dirname(teamFile(ctx)), { recursive: true });
    fs.writeFileSync(teamFile(ctx), '{\n  "version": "2.0.0",\n  "agents": {,}\n}\n');
    expect(() => readTeam(ctx)).toThrow(/team\.json is not valid JSON at line 3/);
    expect(fs.readFileSync(teamFile(ctx), 'utf8')).toContain('{,}');
  });

  it('writes the defaults once and never overwrites', () => {
    const ctx = tmpCtx();
    const file = writeDefaultTeam(ctx);
    const written = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(written.version).toBe('2.0.0');
    expect(written.tiers.Leader.context_budget).toBe(500);
    expect(readTeam(ctx)).toEqual(mergeTeam(written));
    fs.writeFileSync(file, JSON.stringify({ version: '2.0.0', agents: { mason: 'Leader' } }));
    expect(() => writeDefaultTeam(ctx)).toThrow(/already exists/);
    expect(tierOf(readTeam(ctx), addr('mason.1@core')).name).toBe('Leader');
  });
});
