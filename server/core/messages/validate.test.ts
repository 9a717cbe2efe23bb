import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import { tailLog } from '../log/protocolLog.js';
import { MESSAGE_SCHEMA, onReceipt, validateMessage, validateMessageText } from './validate.js';

const ok = {
  task_claim: { type: 'task_claim', from: 'coder', msg_id: 'c1', task: '3.2', symbols: ['F12'], capsules: ['w2'] },
  task_result: { type: 'task_result', from: 'coder', msg_id: 'm1', task: '3.2', status: 'pass', criteria: [1, 2], commit: 'a2ef507' },
  gate_report: { type: 'gate_report', from: 'sentinel', msg_id: 'g1', gate_id: 'exchange-lob', status: 'fail', wave: 3, report_ref: 'evals/r.json' },
  escalation: { type: 'escalation', from: 'coder', msg_id: 'e1', reason: 'schema drift', severity: 'blocker', refs: ['F12'] },
  question: { type: 'question', from: 'coder', msg_id: 'q1', question: 'which port?', refs: [] },
  checkpoint: { type: 'checkpoint', from: 'orch', msg_id: 'k1', wave: 3, state: 'complete', capsules: ['w3'] },
};

describe('typed messages', () => {
  it('accepts a valid message of each of the six types', () => {
    for (const m of Object.values(ok)) expect(validateMessage(m)).toEqual({ valid: true, errors: [] });
  });

  it('publishes draft-07 with the protocol version in $id', () => {
    expect((MESSAGE_SCHEMA as { $schema: string }).$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect((MESSAGE_SCHEMA as { $id: string }).$id).toContain('2.0.0');
  });

  it.each([
    ['task_claim', 'task'],
    ['task_result', 'status'],
    ['gate_report', 'gate_id'],
    ['escalation', 'severity'],
    ['question', 'question'],
    ['checkpoint', 'state'],
  ] as const)('%s without %s is rejected with that path', (type, field) => {
    const m: Record<string, unknown> = { ...ok[type] };
    delete m[field];
    const r = validateMessage(m);
    expect(r.valid).toBe(false);
    expect(r.errors).toContainEqual({ path: `/${field}`, message: 'is required' });
  });

  it('lists every error with a path, not just the first', () => {
    const r = validateMessage({ type: 'task_result', from: 'coder', msg_id: 'm1', task: '3.2', status: 'done', criteria: ['one'], body: 'inline text' });
    expect(r.valid).toBe(false);
    const paths = r.errors.map((e) => e.path).sort();
    expect(paths).toEqual(['/body', '/criteria/0', '/status']);
    expect(r.errors.find((e) => e.path === '/status')?.message).toBe('must be one of: "pass", "fail", "partial"');
  });

  it('rejects unknown types, missing envelope fields, non-objects and bad JSON', () => {
    expect(validateMessage({ type: 'chat', from: 'a', msg_id: 'b' }).errors[0]?.path).toBe('/type');
    expect(validateMessage({ type: 'question', question: 'x' }).errors.map((e) => e.path).sort()).toEqual(['/from', '/msg_id']);
    expect(validateMessage([1, 2]).valid).toBe(false);
    expect(validateMessage(null).valid).toBe(false);
    expect(validateMessageText('{"type":').errors[0]?.message).toMatch(/^not valid JSON/);
  });

  it('enforces enums: gate status pass|fail, escalation severity, checkpoint state', () => {
    expect(validateMessage({ ...ok.gate_report, status: 'partial' }).valid).toBe(false);
    expect(validateMessage({ ...ok.escalation, severity: 'critical' }).valid).toBe(false);
    expect(validateMessage({ ...ok.checkpoint, state: 'done' }).valid).toBe(false);
    expect(validateMessage({ ...ok.checkpoint, wave: -1 }).valid).toBe(false);
  });
});

async function* lines(...ls: string[]) {
  for (const l of ls) yield l;
}

describe('validate on receipt', () => {
  const good = JSON.stringify(ok.task_result);
  const bad = '{"type":"task_result","from":"coder"}';

  it('gives an invalid message one retry: a valid next line continues', async () => {
    const ctx = tmpCtx();
    const out = [];
    for await (const o of onReceipt(ctx, lines(good, bad, good, good))) out.push(o.kind);
    expect(out).toEqual(['accepted', 'retry', 'accepted', 'accepted']);
    expect(tailLog(ctx).entries.some((e) => e.action === 'escalate')).toBe(false);
  });

  it('escalates on the second failure in a row and logs it', async () => {
    const ctx = tmpCtx();
    const out = [];
    for await (const o of onReceipt(ctx, lines(good, bad, 'not json', good))) out.push(o.kind);
    expect(out).toEqual(['accepted', 'retry', 'escalated']);
    const esc = tailLog(ctx).entries.filter((e) => e.action === 'escalate');
    expect(esc).toHaveLength(1);
    expect(esc[0]?.detail).toMatch(/^line 3: second invalid message/);
  });

  it('escalates when the stream ends while a retry is owed', async () => {
    const ctx = tmpCtx();
    const out = [];
    for await (const o of onReceipt(ctx, lines(good, bad))) out.push(o.kind);
    expect(out).toEqual(['accepted', 'retry', 'escalated']);
  });

  it('logs accept and reject lines for protocol.log auditors', async () => {
    const ctx = tmpCtx();
    for await (const _ of onReceipt(ctx, lines(good, bad, good))) void _;
    const log = fs.readFileSync(ctx.paths.protocolLog, 'utf8');
    expect(log).toMatch(/^2026-06-11T12:07:27Z\tvalidate\taccept\tm1$/m);
    expect(log).toMatch(/\tvalidate\treject\t/);
  });
});
