import { describe, expect, it } from 'vitest';
import { parseAgentAddress } from '../herd/address.js';
import { thrown } from '../../testing/fixtures.js';
import { addressOfHaid, clientAgentName, haidOfAddress, parseAgentRef } from './agent.js';
import { roleOf } from './haid.js';

const R = 'h-3fa9c2e1';

describe('one identity, two names', () => {
  it.each([
    ['claude-code.2@team', `${R}/claude-code.2`],
    ['mason.1@core', `${R}/core/mason.1`],
    ['cursor.s14@team', `${R}/cursor.s14`],
    ['a_b-c.x-1@ops-2', `${R}/ops-2/a_b-c.x-1`],
  ])('%s <-> %s, both ways', (address, haid) => {
    expect(haidOfAddress(R, parseAgentAddress(address))).toBe(haid);
    expect(addressOfHaid(R, haid)).toBe(address);
  });

  it("the operator, Studio's {root}/studio, is studio.operator@team both ways; {root}/studio.operator is reserved", () => {
    expect(addressOfHaid(R, `${R}/studio`)).toBe('studio.operator@team');
    expect(haidOfAddress(R, parseAgentAddress('studio.operator@team'))).toBe(`${R}/studio`);
    expect(addressOfHaid(R, `${R}/studio.operator`)).toBeNull();
    expect(parseAgentRef(R, 'studio.operator', 'x')).toEqual({ haid: `${R}/studio`, address: 'studio.operator@team', role: 'studio' });
    expect(parseAgentRef(R, `${R}/studio`, 'x')).toEqual({ haid: `${R}/studio`, address: 'studio.operator@team', role: 'studio' });
    // Other sessions of a Studio-named agent keep the ordinary mapping.
    expect(addressOfHaid(R, `${R}/studio.2`)).toBe('studio.2@team');
  });

  it.each([`${R}/cli`, `${R}/studio.operator`, `${R}/cursor/w2`, `${R}/team/x.1`, `${R}/a/b/c.1`, 'h-other0000/x.1', R])('%s names no agent session: no address', (haid) => {
    expect(addressOfHaid(R, haid)).toBeNull();
  });

  it('the role is the agent name without its instance', () => {
    expect(roleOf(`${R}/claude-code.2`)).toBe('claude-code');
    expect(roleOf(`${R}/core/mason.1`)).toBe('mason');
    expect(roleOf(`${R}/cursor`)).toBe('cursor');
    expect(roleOf(`${R}/cursor/w2`)).toBe('w2');
  });

  it('clientInfo names as hosts send them become the client names setup uses', () => {
    expect(['claude-code', 'cursor-vscode', 'Visual Studio Code', 'Visual-Studio-Code', 'codex-mcp-client', 'github-copilot-developer', 'My Agent 2.0', '1password'].map(clientAgentName)).toEqual([
      'claude-code',
      'cursor',
      'vscode',
      'vscode',
      'codex',
      'copilot',
      'my-agent-2-0',
      'c-1password',
    ]);
  });
});

describe('parseAgentRef: every way an agent is named', () => {
  it('a HAID, a herd address, a session; bare client names only where clients are meant', () => {
    expect(parseAgentRef(R, `${R}/cursor`, 'x')).toEqual({ haid: `${R}/cursor`, address: null, role: 'cursor' });
    expect(parseAgentRef(R, 'Mason.1@Core', 'x')).toEqual({ haid: `${R}/core/mason.1`, address: 'mason.1@core', role: 'mason' });
    expect(parseAgentRef(R, 'claude-code.2', 'x')).toEqual({ haid: `${R}/claude-code.2`, address: 'claude-code.2@team', role: 'claude-code' });
    expect(parseAgentRef(R, 'Claude Code', 'x', { clients: true })).toEqual({ haid: `${R}/claude-code`, address: null, role: 'claude-code' });
    expect(thrown(() => parseAgentRef(R, 'cursor', '--as')).message).toMatch(/--as cursor is not part of this planning tree.*did you mean h-3fa9c2e1\/cursor/);
    expect(thrown(() => parseAgentRef(R, 'Not A Haid', '--as')).message).toMatch(/invalid --as "Not A Haid"/);
    expect(thrown(() => parseAgentRef(R, 'h-00000000/x', '--as')).message).toMatch(/not part of this planning tree, whose root HAID is h-3fa9c2e1/);
    expect(thrown(() => parseAgentRef(R, 'h-00000000', '--as', { clients: true })).message).toMatch(/not part of this planning tree/); // another root is no client name
    expect(thrown(() => parseAgentRef(R, 'mason@core', '--as')).message).toMatch(/malformed --as "mason@core"/);
    expect(thrown(() => parseAgentRef(R, '', '--as')).message).toMatch(/must name an agent/);
  });
});

describe('naming variables a client may leave blank or unexpanded', () => {
  it('treats "", spaces and ${...} placeholders as no name, and a real name as one', async () => {
    const { namingValue, envNamesCaller } = await import('./env.js');
    for (const v of ['', '  ', '${HEIMDALL_AGENT:-}', '${env:HEIMDALL_AGENT}']) {
      expect(namingValue({ HEIMDALL_AGENT: v }, 'HEIMDALL_AGENT')).toBeUndefined();
      expect(envNamesCaller({ HEIMDALL_AGENT: v })).toBe(false);
    }
    expect(namingValue({ HEIMDALL_AGENT: ' alice ' }, 'HEIMDALL_AGENT')).toBe('alice');
    expect(envNamesCaller({ HEIMDALL_AGENT: 'alice' })).toBe(true);
  });
});
