import { describe, expect, it } from 'vitest';
import { logRefs, parseRefKey, refKey } from './refs.js';

const refs = (mechanism: string, action: string, detail: string) => logRefs({ mechanism, action, detail }).map(refKey);

describe('logRefs: the objects a protocol.log line names', () => {
  it.each([
    ['resolve', 'set', 'F12=src/matching/engine.ts', ['symbol:F12']],
    ['resolve', 'delete', 'F12', ['symbol:F12']],
    ['resolve', 'set-many', '15 symbols', []],
    ['blackboard', 'set', 'dev_port=5173', ['fact:dev_port']],
    ['blackboard', 'delete', 'dev_port', ['fact:dev_port']],
    ['capsule', 'write', 'w2b depends=w2,w1', ['capsule:w2b', 'capsule:w2', 'capsule:w1']],
    ['capsule', 'write', 'docs', ['capsule:docs']],
    ['capsule', 'hydrate', 'w2 -> w1,w2', ['capsule:w2', 'capsule:w1']],
    ['brief', 'build', 'task 3.1: 4 symbols, capsules w1,w2, 222 tokens', ['capsule:w1', 'capsule:w2']],
    ['brief', 'build', 'task 3.1: 0 symbols, capsules -, 12 tokens', []],
    ['claim', 'claim', 'h-1/cursor src/matching/** task=h-1/cursor:T-9 until=2026-06-11T13:00:00Z', ['claim:h-1/cursor']],
    ['claim', 'release', 'h-1/cursor src/** by=h-1/studio (active)', ['claim:h-1/cursor']],
    ['herd', 'checkin', 'mason.1@core status="writing" messages=0', ['agent:mason.1@core']],
    ['herd', 'send', 'm-1 steve.1@core -> mason.1@core directive', ['agent:steve.1@core', 'agent:mason.1@core']],
    ['herd', 'send', 'm-2 steve.1@core -> @everyone inform (3 copies)', ['agent:steve.1@core']],
    ['wire', 'emit', 'heimdall.wire#7 agent.heartbeat agent:mason#2 01JX', ['stream:agent:mason']],
    ['wire', 'emit', 'heimdall.wire#1-6 6 wires', []],
    ['ledger', 'run', 'gsd-2026 (gsd, exchange)', ['run:gsd-2026']],
    ['protocol', 'demo', 'start run demo-0mw (fixture exchange-lob, 3 spawns)', ['run:demo-0mw']],
    ['protocol', 'demo', 'run demo-0mw: orchestration: 5741 -> 1033 tokens', ['run:demo-0mw']],
    ['protocol', 'bench', 'run b-1: v1 900 -> v2 300', ['run:b-1']],
    ['a2a', 'announce', 'hermes-1 tier=sonnet active=1 mcp=trek:timeout #1', ['peer:hermes-1']],
    ['protocol', 'init', '/tmp/x/.planning (created 9, kept 0)', []],
  ])('%s %s "%s"', (m, a, d, expected) => {
    expect(refs(m, a, d)).toEqual(expected);
  });

  it('a hand-written detail without its mechanism\'s shape names nothing', () => {
    expect(refs('resolve', 'set', 'no equals sign here')).toEqual([]);
    expect(refs('herd', 'send', 'garbage')).toEqual([]);
    expect(refs('wire', 'emit', '')).toEqual([]);
  });

  it('kind:id keys round-trip; unknown kinds are refused', () => {
    expect(parseRefKey('stream:agent:mason')).toEqual({ kind: 'stream', id: 'agent:mason' });
    expect(parseRefKey('planet:mars')).toBeUndefined();
    expect(parseRefKey('symbol:')).toBeUndefined();
    expect(refKey({ kind: 'claim', id: 'h-1/cursor' })).toBe('claim:h-1/cursor');
  });
});
