import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { DEFAULT_MAX_PAYLOAD_BYTES, WIRE_PAYLOAD_SCHEMAS, deriveStreamId, validateDraft, validateLogBody, validateWire, wireLimits } from './envelope.js';
import { parseWireJson, prepareWire } from './producer.js';
import { WIRE_EVENT_TYPES } from './types.js';
import { T0 } from './fixtures.test-helpers.js';

const LIMITS = { maxPayloadBytes: DEFAULT_MAX_PAYLOAD_BYTES };
const SHA = 'a'.repeat(64);

const seedStarted = {
  wire: '1.1',
  wire_id: 'wire_01',
  stream_id: 'task:0.0.8830671:attempt:1',
  stream_seq: 12,
  correlation_id: 'project:knowledgevault-m01r',
  causation_id: 'wire_00',
  type: 'task.started',
  sender: 'agent:quinn-03',
  ts: '2026-05-01T15:12:03Z',
  payload: { task_id: '0.0.8830671', attempt: 1 },
};

describe('Wire 1.1 envelope', () => {
  it("accepts the seed's examples", () => {
    expect(validateWire(seedStarted, LIMITS)).toMatchObject({ valid: true, errors: [] });
    const claim = {
      wire: '1.1',
      wire_id: 'wire_claim_01',
      stream_id: 'task:0.0.9001:attempt:1',
      stream_seq: 2,
      correlation_id: 'project:kv-m02',
      type: 'task.claimed',
      sender: 'agent:quinn-07',
      ts: '2026-05-01T16:00:00Z',
      payload: { task_id: '0.0.9001', agent: 'quinn-07', role: 'developer', lease_expires_at: '2026-05-01T16:30:00Z', capacity_units_reserved: 3 },
    };
    expect(validateWire(claim, LIMITS).valid).toBe(true);
    const capacity = {
      wire: '1.1',
      wire_id: 'wire_capacity_01',
      stream_id: 'agent:quinn-07',
      stream_seq: 44,
      type: 'agent.capacity.updated',
      sender: 'agent:quinn-07',
      ts: '2026-05-01T16:01:00Z',
      payload: { available_units: 4, max_units: 6, skills: ['typescript', 'nextjs', 'supabase'] },
    };
    expect(validateWire(capacity, LIMITS).valid).toBe(true);
  });

  it('has one payload schema per event type the seed names, and no other', () => {
    const payloads = (WIRE_PAYLOAD_SCHEMAS as { payloads: Record<string, unknown> }).payloads;
    expect(Object.keys(payloads).sort()).toEqual([...WIRE_EVENT_TYPES].sort());
    for (const family of ['task.', 'artifact.', 'contract.ready', 'review.concern', 'gate.', 'agent.', 'project.', 'phase.', 'dependency.created']) {
      expect(WIRE_EVENT_TYPES.some((t) => t.startsWith(family))).toBe(true);
    }
  });

  it('reports every envelope error with its path', () => {
    const r = validateWire({ ...seedStarted, stream_seq: 0, wire_id: 'has space', extra: 1, ts: 'yesterday' }, LIMITS);
    expect(r.valid).toBe(false);
    const paths = r.errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/stream_seq', '/wire_id', '/extra', '/ts']));
  });

  it('refuses unknown event types and payloads that do not match their type', () => {
    expect(validateWire({ ...seedStarted, type: 'task.thought' }, LIMITS).errors[0]?.path).toBe('/type');
    const r = validateWire({ ...seedStarted, type: 'task.claimed', payload: { task_id: 'T', lease_expires_at: 'soon', junk: true } }, LIMITS);
    expect(r.valid).toBe(false);
    expect(r.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['/payload/lease_expires_at', '/payload/junk']));
  });

  it('refuses a payload over 16 KiB and points to artifact_ref + sha256', () => {
    const big = { ...seedStarted, type: 'review.concern', payload: { concern: 'x'.repeat(2000), task_id: 'T', artifact_ref: 'y'.repeat(900), extra: 'z'.repeat(16 * 1024) } };
    const r = validateWire(big, LIMITS);
    expect(r.valid).toBe(false);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]?.path).toBe('/payload');
    expect(r.errors[0]?.message).toMatch(/over the 16384-byte limit/);
    expect(r.errors[0]?.message).toMatch(/artifact_ref/);
    expect(r.errors[0]?.message).toMatch(/sha256/);
  });

  it('takes the limit from HEIMDALL_WIRE_MAX_PAYLOAD_BYTES', () => {
    expect(wireLimits({}).maxPayloadBytes).toBe(16 * 1024);
    expect(wireLimits({ HEIMDALL_WIRE_MAX_PAYLOAD_BYTES: '1024' }).maxPayloadBytes).toBe(1024);
    expect(wireLimits({ HEIMDALL_WIRE_MAX_PAYLOAD_BYTES: 'lots' }).maxPayloadBytes).toBe(16 * 1024);
    const payload = { task_id: 'T', blocker: 'b'.repeat(1500) };
    expect(validateWire({ ...seedStarted, type: 'task.blocked', payload }, { maxPayloadBytes: 1024 }).errors[0]?.message).toMatch(/1024-byte limit/);
    expect(validateWire({ ...seedStarted, type: 'task.blocked', payload }, LIMITS).valid).toBe(true);
  });

  it('artifact.ready requires both artifact_ref and sha256', () => {
    const base = { ...seedStarted, type: 'artifact.ready' };
    expect(validateWire({ ...base, payload: { artifact_type: 'migration', artifact_ref: 'git://r/005.sql', sha256: SHA } }, LIMITS).valid).toBe(true);
    for (const payload of [{ artifact_ref: 'git://r/005.sql' }, { sha256: SHA }, { artifact_ref: 'git://r/005.sql', sha256: 'abc123' }]) {
      const r = validateWire({ ...base, payload }, LIMITS);
      expect(r.valid).toBe(false);
      expect(r.errors.map((e) => e.message).join(' ')).toMatch(/artifact.ready must carry both artifact_ref .* and sha256/);
    }
  });

  it('never throws on garbage', () => {
    for (const v of [null, 42, 'wire', [], [seedStarted], { wire: '2.0' }, { payload: 'x'.repeat(20_000) }]) {
      expect(validateWire(v, LIMITS).valid).toBe(false);
      expect(validateDraft(v, LIMITS, { wireId: 'w1', fallbackTs: '2026-05-01T00:00:00Z' }).valid).toBe(false);
    }
  });
});

describe('Wire 1.0 envelopes are accepted and upgraded', () => {
  const level1 = { wire: '1.0', type: 'task.claim', sender: 'agent:quinn-03', ts: '2026-05-01T15:00:00Z', payload: { task_id: '0.0.9001' } };

  it('upgrades at the producer: wire_id given, stream_id derived, stream_seq left to the log', () => {
    const r = validateDraft(level1, LIMITS, { wireId: 'w_new', fallbackTs: '2026-05-01T16:00:00Z' });
    expect(r.valid && r.upgraded).toBe(true);
    expect(r.wire).toEqual({
      wire: '1.1',
      wire_id: 'w_new',
      stream_id: 'task:0.0.9001:attempt:1',
      correlation_id: null,
      causation_id: null,
      type: 'task.claim',
      sender: 'agent:quinn-03',
      ts: '2026-05-01T15:00:00Z',
      payload: { task_id: '0.0.9001' },
    });
  });

  it('upgrades on read with a wire_id derived from the log position (the same on every replay)', () => {
    const where = { topic: 'roles.developer', sequence_number: 7, consensus_timestamp: '2026-05-01T16:00:00.123Z' };
    const a = validateLogBody({ ...level1, ts: undefined }, where, LIMITS);
    const b = validateLogBody({ ...level1, ts: undefined }, where, LIMITS);
    expect(a.valid && b.valid).toBe(true);
    expect(a.wire?.wire_id).toBe('w10.roles.developer.7');
    expect(a.wire).toEqual(b.wire);
    expect(a.wire?.ts).toBe(where.consensus_timestamp);
  });

  it('derives the stream from the payload', () => {
    expect(deriveStreamId('task.complete', 'agent:a', { task_id: 'T9', attempt: 2 })).toBe('task:T9:attempt:2');
    expect(deriveStreamId('agent.heartbeat', 'agent:quinn-03', {})).toBe('agent:quinn-03');
    expect(deriveStreamId('project.created', 'human', { project_id: 'kv' })).toBe('project:kv');
    expect(deriveStreamId('dependency.created', 'system', { task_id: 'R2', depends_on_task: 'R1' })).toBe('legacy:system');
  });

  it('still checks the 1.0 payload and type', () => {
    expect(validateDraft({ ...level1, payload: {} }, LIMITS, { wireId: 'w', fallbackTs: 'x' }).errors[0]?.path).toBe('/payload/task_id');
    expect(validateDraft({ ...level1, type: 'task.dance' }, LIMITS, { wireId: 'w', fallbackTs: 'x' }).errors[0]?.message).toMatch(/not a known wire event type/);
  });
});

describe('producer input', () => {
  it('fills wire_id and ts and keeps the schema field order', () => {
    const ctx = makeCtx('/nonexistent', { clock: fixedClock(T0), ids: sequentialIds() });
    const { draft } = prepareWire(ctx, { payload: { task_id: 'T1' }, sender: 'system', type: 'task.available', stream_id: 'task:T1:attempt:1', wire: '1.1' });
    expect(Object.keys(draft)).toEqual(['wire', 'wire_id', 'stream_id', 'type', 'sender', 'ts', 'payload']);
    expect(draft.wire_id).toBe('w_0001');
    expect(draft.ts).toBe('2026-05-01T16:00:00.000Z');
  });

  it('explains JSON syntax errors with line and column, and empty input', () => {
    expect(() => parseWireJson('{\n  "wire": "1.1",\n  oops\n}')).toThrow(/not valid JSON at line 3/);
    expect(() => parseWireJson('   ')).toThrow(/no wire on stdin/);
  });
});
