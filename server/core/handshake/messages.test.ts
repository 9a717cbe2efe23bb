import { describe, expect, it } from 'vitest';
import { announceMsg, dispatchMsg, resultMsg } from './fixtures.test-helpers.js';
import { SESSION_ANNOUNCE_SCHEMA, TASK_DISPATCH_SCHEMA, TASK_RESULT_SCHEMA, majorVersion, parseHandshake, validateAnnounce, validateDispatch, validateResult } from './messages.js';
import { checkReply } from './reply.js';

describe('handshake schemas (draft-07)', () => {
  it('are draft-07 files with protocol 2.0 ids', () => {
    for (const s of [SESSION_ANNOUNCE_SCHEMA, TASK_DISPATCH_SCHEMA, TASK_RESULT_SCHEMA] as Array<Record<string, string>>) {
      expect(s.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(s.$id).toMatch(/handshake\/2\.0\//);
    }
  });

  it("accept the RFC's three example messages", () => {
    expect(validateAnnounce(announceMsg('claude-code'))).toEqual({ valid: true, errors: [] });
    expect(validateDispatch({ ...dispatchMsg(), deadline: '2026-05-31T21:00:00Z' })).toEqual({ valid: true, errors: [] });
    expect(validateResult(resultMsg())).toEqual({ valid: true, errors: [] });
  });

  it('SESSION_ANNOUNCE: required fields, types, and health only for listed servers', () => {
    const a = announceMsg('claude-code') as unknown as Record<string, any>;
    delete a.worker.model_tier;
    expect(validateAnnounce(a).errors).toContainEqual({ path: '/worker/model_tier', message: 'is required' });
    expect(validateAnnounce({ ...announceMsg('x'), type: 'ANNOUNCE' }).errors).toContainEqual({ path: '/type', message: 'must be "SESSION_ANNOUNCE"' });
    expect(validateAnnounce({ ...announceMsg('x'), protocol_version: 'two' }).valid).toBe(false);
    const b = announceMsg('x');
    b.session.active_tasks = -1;
    expect(validateAnnounce(b).errors[0]?.path).toBe('/session/active_tasks');
    const c = announceMsg('x');
    c.mcp_health.ghost = 'ok';
    expect(validateAnnounce(c).errors).toEqual([{ path: '/mcp_health/ghost', message: expect.stringMatching(/does not list/) }]);
    expect(validateAnnounce('hello').errors[0]?.message).toMatch(/must be a JSON object/);
    expect(validateAnnounce({ ...announceMsg('../../etc') }).valid).toBe(false);
  });

  it('TASK_DISPATCH: enums, a real deadline, output_schema only with json and compilable', () => {
    expect(validateDispatch(dispatchMsg('t', { priority: 'asap' as never })).errors[0]).toMatchObject({ path: '/task/priority' });
    expect(validateDispatch(dispatchMsg('t', { reply_schema: 'xml' as never })).errors[0]?.message).toBe('must be one of: "prose", "structured", "json"');
    expect(validateDispatch(dispatchMsg('t', { token_budget: 1.5 })).valid).toBe(false);
    expect(validateDispatch(dispatchMsg('t/../x')).valid).toBe(false);
    expect(validateDispatch(dispatchMsg('t', { deadline: 'tomorrow' })).errors[0]?.path).toBe('/deadline');
    expect(validateDispatch(dispatchMsg('t', { deadline: '2026-02-31T25:00:00Z' })).errors).toEqual([{ path: '/deadline', message: expect.stringMatching(/real ISO-8601 instant/) }]);
    expect(validateDispatch(dispatchMsg('t', { output_schema: { type: 'object' } })).errors[0]?.message).toMatch(/only meaningful with reply_schema "json"/);
    expect(validateDispatch(dispatchMsg('t', { reply_schema: 'json', output_schema: { type: 'nonsense' } })).errors[0]?.message).toMatch(/not a usable JSON Schema/);
    expect(validateDispatch(dispatchMsg('t', { reply_schema: 'json', output_schema: { $id: 'x', type: 'object' } })).valid).toBe(true);
    const noBrief = dispatchMsg() as unknown as Record<string, unknown>;
    delete noBrief.brief;
    expect(validateDispatch(noBrief).errors).toContainEqual({ path: '/brief', message: 'is required' });
  });

  it('TASK_RESULT status rules: blocked needs blocked_reason, error an error_summary, partial what remains', () => {
    expect(validateResult(resultMsg('t', { status: 'blocked', tokens_spent: 0 })).errors).toContainEqual({ path: '/blocked_reason', message: 'must be string' });
    expect(validateResult(resultMsg('t', { status: 'blocked', tokens_spent: 0, blocked_reason: '' })).valid).toBe(false);
    expect(validateResult(resultMsg('t', { status: 'blocked', tokens_spent: 0, blocked_reason: 'trek is down' })).valid).toBe(true);
    expect(validateResult(resultMsg('t', { status: 'error' })).errors).toContainEqual({ path: '/error_summary', message: 'is required' });
    expect(validateResult(resultMsg('t', { status: 'error', error_summary: 'tests crashed' })).valid).toBe(true);
    expect(validateResult(resultMsg('t', { status: 'partial' })).errors).toContainEqual({ path: '/remaining', message: 'is required' });
    expect(validateResult(resultMsg('t', { status: 'partial', remaining: [] })).valid).toBe(false);
    expect(validateResult(resultMsg('t', { status: 'partial', remaining: ['docs'] })).valid).toBe(true);
    expect(validateResult(resultMsg('t', { status: 'finished' as never })).valid).toBe(false);
    expect(validateResult(resultMsg('t', { tokens_spent: -3 })).valid).toBe(false);
  });

  it('parseHandshake reports JSON errors and the wrong message type without throwing', () => {
    expect(parseHandshake('{', 'TASK_RESULT')).toMatchObject({ valid: false, errors: [{ path: '/', message: expect.stringMatching(/not valid JSON/) }] });
    expect(parseHandshake(JSON.stringify(resultMsg()), 'TASK_DISPATCH').valid).toBe(false);
    expect(parseHandshake(JSON.stringify(resultMsg()), 'TASK_RESULT').valid).toBe(true);
  });

  it('majorVersion', () => {
    expect([majorVersion('2.0'), majorVersion('2.7'), majorVersion('10.1')]).toEqual([2, 2, 10]);
    expect(majorVersion('2')).toBeNaN();
  });
});

describe('reply_schema enforcement', () => {
  it('structured needs artifacts and next_steps', () => {
    const d = dispatchMsg('t', { reply_schema: 'structured' });
    expect(checkReply(d, resultMsg('t')).valid).toBe(true);
    const r = resultMsg('t');
    delete r.artifacts;
    delete r.next_steps;
    expect(checkReply(d, r).errors.map((e) => e.path)).toEqual(['/artifacts', '/next_steps']);
  });

  it('prose needs a summary', () => {
    const d = dispatchMsg('t', { reply_schema: 'prose' });
    expect(checkReply(d, resultMsg('t')).errors[0]?.path).toBe('/summary');
    expect(checkReply(d, resultMsg('t', { summary: 'Refactored token refresh.' })).valid).toBe(true);
  });

  it('json needs output, validated against output_schema when given', () => {
    const d = dispatchMsg('t', { reply_schema: 'json', output_schema: { type: 'object', required: ['pr'], properties: { pr: { type: 'integer' } } } });
    expect(checkReply(d, resultMsg('t')).errors[0]).toEqual({ path: '/output', message: 'is required by reply_schema "json"' });
    expect(checkReply(d, resultMsg('t', { output: { pr: 'seventy-two' } })).errors).toEqual([{ path: '/output/pr', message: 'must be integer (output_schema of the dispatch)' }]);
    expect(checkReply(d, resultMsg('t', { output: {} })).errors[0]?.path).toBe('/output/pr');
    expect(checkReply(d, resultMsg('t', { output: { pr: 72 } })).valid).toBe(true);
    // the same schema compiled twice (a second result) still works
    expect(checkReply(d, resultMsg('t', { output: { pr: 73 } })).valid).toBe(true);
  });

  it('blocked and error results carry no deliverable, so reply_schema does not apply', () => {
    const d = dispatchMsg('t', { reply_schema: 'json' });
    expect(checkReply(d, resultMsg('t', { status: 'blocked', blocked_reason: 'x', tokens_spent: 0 })).valid).toBe(true);
    expect(checkReply(d, resultMsg('t', { status: 'partial', remaining: ['y'] })).valid).toBe(false);
  });
});
