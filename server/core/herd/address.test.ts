import { describe, expect, it } from 'vitest';
import { ADDRESS_FORMS, isAgentAddress, parseAddress, parseAgentAddress } from './address.js';

describe('herd addressing', () => {
  it('parses agentName.Instance@Team, lowercased', () => {
    expect(parseAddress('Mason.002@Core')).toEqual({ kind: 'agent', name: 'mason', instance: '002', team: 'core', text: 'mason.002@core' });
    expect(parseAddress('  steve.1@ops-2 ').text).toBe('steve.1@ops-2');
  });

  it('parses @anyone and @everyone', () => {
    expect(parseAddress('@anyone')).toEqual({ kind: 'anyone', text: '@anyone' });
    expect(parseAddress('@EVERYONE')).toEqual({ kind: 'everyone', text: '@everyone' });
  });

  it.each([
    ['mason@core'],
    ['mason.1'],
    ['.1@core'],
    ['mason.1@'],
    ['1mason.1@core'],
    ['mason.1@core@x'],
    ['mason..1@core'],
    ['@someone'],
    ['mason.1@co re'],
    ['../etc.1@core'],
    [''],
  ])('refuses the malformed address %j and shows the accepted forms', (bad) => {
    expect(() => parseAddress(bad)).toThrow(ADDRESS_FORMS);
    expect(isAgentAddress(bad)).toBe(false);
  });

  it('refuses non-strings with the accepted forms', () => {
    for (const bad of [undefined, null, 42, { to: 'x' }]) expect(() => parseAddress(bad)).toThrow(/accepted forms are name\.instance@team/);
  });

  it('a caller must be a single agent, not a group', () => {
    expect(parseAgentAddress('rook.1@core').name).toBe('rook');
    expect(() => parseAgentAddress('@everyone', 'caller')).toThrow(/caller must name one agent as name\.instance@team/);
  });

  it('errors carry the invalid code', () => {
    try {
      parseAddress('nope');
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe('invalid');
    }
  });
});
