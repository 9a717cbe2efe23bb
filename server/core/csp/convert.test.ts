import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateMessage } from '../messages/validate.js';
import { validateDispatch, validateResult } from '../handshake/messages.js';
import { type JsonTarget, cspToJson, jsonToCsp, type MappingNote } from './convert.js';
import { seedBlock } from './fixtures/seed-examples.js';
import { parseCsp } from './parse.js';
import type { CspMessage } from './types.js';

function toJson(text: string, opts: Parameters<typeof cspToJson>[1] = {}) {
  const r = cspToJson(text, opts);
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r;
}
function fromJson(json: unknown, opts: Parameters<typeof jsonToCsp>[1] = {}) {
  const r = jsonToCsp(json, opts);
  if (!r.ok) throw new Error(JSON.stringify(r.errors, null, 2));
  return r;
}
const fields = (ns: MappingNote[]) => ns.map((n) => n.field);

describe('CSP -> typed JSON', () => {
  it('TASK -> task_claim: schema-valid, with every unmapped line listed', () => {
    const r = toJson(seedBlock('taskAssignment'));
    expect(r.target).toBe('task_claim');
    expect(r.message).toEqual({ type: 'task_claim', from: 'MAIN', msg_id: expect.stringMatching(/^csp-[0-9a-f]{16}$/), task: 'T001', symbols: ['SRC', 'LIB'] });
    expect(validateMessage(r.message).valid).toBe(true);
    expect(fields(r.unmapped)).toEqual(['TO', 'CTX', 'REQ', 'OUT', 'OWNER', 'PRIORITY']);
    expect(r.unmapped.find((u) => u.field === 'REQ')).toMatchObject({ value: 'find auth middleware' });
    expect(fields(r.derived)).toEqual(['/msg_id']);
    // The derived id is stable for the same text, and --msg-id replaces it.
    expect(toJson(seedBlock('taskAssignment')).message.msg_id).toBe(r.message.msg_id);
    expect(toJson(seedBlock('taskAssignment'), { msgId: 'm7' })).toMatchObject({ message: { msg_id: 'm7' }, derived: [] });
  });

  it('TASK -> TASK_DISPATCH (protocol 2.0, valid against the handshake schema): REQ is the brief, P1 is high', () => {
    const r = toJson(seedBlock('taskAssignment'), { target: 'TASK_DISPATCH', tokenBudget: 4000 });
    expect(r.message).toEqual({
      type: 'TASK_DISPATCH',
      protocol_version: '2.0',
      from: 'MAIN',
      task: { task_id: 'T001', priority: 'high', reply_schema: 'structured', token_budget: 4000 },
      brief: 'find auth middleware',
    });
    expect(validateDispatch(r.message)).toEqual({ valid: true, errors: [] });
    expect(fields(r.unmapped)).toEqual(['TO', 'CTX', 'IN', 'OUT', 'OWNER']);
    expect(fields(r.derived)).toEqual(['/protocol_version', '/task/reply_schema', '/task/token_budget']);
    // The schema's required fields CSP does not carry must be supplied, not invented.
    expect(cspToJson(seedBlock('taskAssignment'), { target: 'TASK_DISPATCH' })).toMatchObject({ ok: false, errors: [{ example: '--token-budget 4000' }] });
    const noReq = seedBlock('taskAssignment').replace('REQ find auth middleware\n', '');
    expect(cspToJson(noReq, { target: 'TASK_DISPATCH', tokenBudget: 10 })).toMatchObject({ ok: false, errors: [{ example: 'REQ find auth middleware' }] });
    const noPriority = toJson(seedBlock('taskAssignment').replace('PRIORITY P1\n', ''), { target: 'TASK_DISPATCH', tokenBudget: 10, replySchema: 'json' });
    expect(noPriority.message.task).toEqual({ task_id: 'T001', priority: 'normal', reply_schema: 'json', token_budget: 10 });
    expect(fields(noPriority.derived)).toEqual(['/protocol_version', '/task/priority', '/task/token_budget']);
  });

  it('RESULT -> task_result and TASK_RESULT', () => {
    const a = toJson(seedBlock('taskResult'));
    expect(a.message).toMatchObject({ type: 'task_result', from: 'CODE_EXP', task: 'T001', status: 'pass' });
    expect(validateMessage(a.message).valid).toBe(true);
    expect(fields(a.unmapped)).toEqual(['TO', 'CTX', 'PRODUCED', 'DATA']);
    const b = toJson(seedBlock('taskResult'), { target: 'TASK_RESULT', tokensSpent: 3240 });
    expect(b.message).toEqual({
      type: 'TASK_RESULT',
      protocol_version: '2.0',
      task_id: 'T001',
      agent_id: 'CODE_EXP',
      status: 'done',
      tokens_spent: 3240,
      summary: 'src/middleware/auth.ts:24-67;lib/utils/jwt.ts:12-45',
      artifacts: { files_changed: ['FILE_REFS_001'] },
    });
    expect(validateResult(b.message)).toEqual({ valid: true, errors: [] });
    expect(fields(b.unmapped)).toEqual(['TO', 'CTX']);
    expect(cspToJson(seedBlock('taskResult'), { target: 'TASK_RESULT' })).toMatchObject({ ok: false, errors: [{ example: '--tokens-spent 3240' }] });
    // The schema wants error_summary for "error" and remaining for "partial": DATA and --remaining give them.
    const fail = toJson(seedBlock('taskResult').replace('STATUS OK', 'STATUS FAIL'), { target: 'TASK_RESULT', tokensSpent: 0 });
    expect(fail.message).toMatchObject({ status: 'error', error_summary: 'src/middleware/auth.ts:24-67;lib/utils/jwt.ts:12-45' });
    expect(fail.message.summary).toBeUndefined();
    const noData = seedBlock('taskResult').replace('STATUS OK', 'STATUS FAIL').replace(/DATA .*\n/, '');
    expect(cspToJson(noData, { target: 'TASK_RESULT', tokensSpent: 0 })).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/error_summary/) }] });
    const partial = seedBlock('taskResult').replace('STATUS OK', 'STATUS PARTIAL');
    expect(cspToJson(partial, { target: 'TASK_RESULT', tokensSpent: 0 })).toMatchObject({ ok: false, errors: [{ example: expect.stringMatching(/^--remaining/) }] });
    const part = toJson(partial, { target: 'TASK_RESULT', tokensSpent: 0, remaining: ['rename callers'] });
    expect(part.message).toMatchObject({ status: 'partial', remaining: ['rename callers'] });
    expect(validateResult(part.message).valid).toBe(true);
    // An id the handshake schema does not allow is refused with the schema's reason.
    const colon = cspToJson(seedBlock('taskResult').replace('RESULT T001', 'RESULT T:1'), { target: 'TASK_RESULT', tokensSpent: 1 });
    expect(colon).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/\/task_id/) }] });
  });

  it('ERROR -> escalation: the error id is the msg_id, AT the ref, severity derived', () => {
    const r = toJson(seedBlock('errorResponse'));
    expect(r.message).toEqual({ type: 'escalation', from: 'CODE_EXP', msg_id: 'E001', reason: 'no matches found in SRC,LIB', severity: 'blocker', refs: ['T001'] });
    expect(validateMessage(r.message).valid).toBe(true);
    expect(fields(r.unmapped)).toEqual(['TO', 'CTX', 'NEXT']);
    expect(fields(r.derived)).toEqual(['/severity']);
    expect(toJson(seedBlock('errorResponse'), { severity: 'warning' })).toMatchObject({ message: { severity: 'warning' }, derived: [] });
  });

  it('refuses intents and documents without a typed counterpart, and wrong targets', () => {
    expect(cspToJson(seedBlock('patch'))).toMatchObject({ ok: false, errors: [{ got: 'a body document' }] });
    const patchMsg = 'CSP/1\nFROM MAIN\nTO ALL\nCTX C0\nINTENT PATCH\n\nPATCH P1\nBASE C0\n- DEF X\nAPPLY -> C1\n';
    expect(cspToJson(patchMsg)).toMatchObject({ ok: false, errors: [{ line: 5, got: 'INTENT PATCH' }] });
    expect(cspToJson(seedBlock('taskAssignment'), { target: 'escalation' })).toMatchObject({ ok: false, errors: [{ example: '--target task_claim' }] });
    expect(cspToJson('CSP/1\nnope').ok).toBe(false);
  });

  it('reports a value the schema refuses instead of producing an invalid message', () => {
    const long = seedBlock('errorResponse').replace('no matches found in SRC,LIB', 'x'.repeat(2001));
    const r = cspToJson(long);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.expected).toMatch(/valid against its schema: \/reason/);
  });
});

describe('typed JSON -> CSP', () => {
  it('task_claim -> TASK: header values JSON lacks come from options and are listed as derived', () => {
    const r = fromJson({ type: 'task_claim', from: 'CODE_EXP', msg_id: 'm1', task: '3.2', symbols: ['F12', 'F13'], capsules: ['w1'], ts: '2026-06-11T12:00:00Z' }, { to: 'MAIN', ctx: 'C4' });
    expect(r.text).toBe('CSP/1\nFROM CODE_EXP\nTO MAIN\nCTX C4\nINTENT TASK\n\nTASK 3.2\nIN F12,F13\n');
    expect(r.unmapped).toEqual([
      { field: '/msg_id', value: 'm1', reason: 'CSP messages carry no message id' },
      { field: '/capsules', value: ['w1'], reason: 'CSP TASK has no capsule list (IN carries the symbols)' },
      { field: '/ts', value: '2026-06-11T12:00:00Z', reason: 'CSP messages carry no send time' },
    ]);
    expect(fields(r.derived)).toEqual(['TO', 'CTX']);
  });

  it('asks for the header values it cannot invent', () => {
    const r = jsonToCsp({ type: 'task_claim', from: 'A', msg_id: 'm1', task: 'T1' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.example)).toEqual(['--to MAIN', '--ctx C0']);
  });

  it('TASK_DISPATCH (the seed 003 example) -> TASK, listing budget, schema, requirements and deadline', () => {
    const dispatch = {
      type: 'TASK_DISPATCH',
      protocol_version: '2.0',
      task: { task_id: 'abc-123', priority: 'high', reply_schema: 'structured', token_budget: 4000 },
      requirements: { required_mcp: ['context_mode'], required_capabilities: ['terminal', 'file'] },
      deadline: '2026-05-31T21:00:00Z',
      brief: 'Refactor the auth module. Focus on token refresh logic...',
    };
    const r = fromJson(dispatch, { from: 'HERMES', to: 'CLAUDE', ctx: 'C0' });
    expect(r.text).toBe('CSP/1\nFROM HERMES\nTO CLAUDE\nCTX C0\nINTENT TASK\n\nTASK abc-123\nREQ Refactor the auth module. Focus on token refresh logic...\nPRIORITY P1\n');
    expect(fields(r.unmapped)).toEqual(['/task/reply_schema', '/task/token_budget', '/requirements/required_mcp', '/requirements/required_capabilities', '/deadline']);
    expect(r.unmapped.find((u) => u.field === '/task/token_budget')).toEqual({ field: '/task/token_budget', value: 4000, reason: 'CSP TASK has no budget field' });
    // The schema refuses a priority outside low|normal|high|urgent (so a "constructor" never reaches the lookup).
    expect(jsonToCsp({ ...dispatch, task: { ...dispatch.task, priority: 'constructor' } }, { from: 'H', to: 'W', ctx: 'C0' }).ok).toBe(false);
    const urgent = fromJson({ ...dispatch, from: 'hermes', task: { task_id: 'x', priority: 'urgent', reply_schema: 'prose', token_budget: 1 }, brief: 'two\nlines' }, { to: 'W', ctx: 'C0' });
    expect(urgent.text).toMatch(/^CSP\/1\nFROM hermes\n/);
    expect(urgent.text).not.toMatch(/PRIORITY|REQ/);
    expect(urgent.unmapped.find((u) => u.field === '/task/priority')?.reason).toMatch(/no level above P1/);
    expect(fields(urgent.unmapped)).toEqual(['/task/priority', '/task/reply_schema', '/task/token_budget', '/requirements/required_mcp', '/requirements/required_capabilities', '/deadline', '/brief']);
  });

  it('TASK_RESULT (the seed 003 example) -> RESULT; agent_id is FROM, summary is DATA; blocked becomes FAIL and says so', () => {
    const result = {
      type: 'TASK_RESULT',
      protocol_version: '2.0',
      task_id: 'abc-123',
      status: 'done',
      tokens_spent: 3240,
      next_steps: ['Run the full test suite to verify refactor', 'Open PR for review'],
      blocked_reason: null,
      artifacts: { pr: 'https://example.invalid/pull/72', files_changed: ['src/auth/token_refresh.py', 'tests/auth/test_token_refresh.py'] },
    };
    const r = fromJson(result, { from: 'CLAUDE', to: 'HERMES', ctx: 'C0' });
    expect(r.text).toBe('CSP/1\nFROM CLAUDE\nTO HERMES\nCTX C0\nINTENT RESULT\n\nRESULT abc-123\nSTATUS OK\nPRODUCED src/auth/token_refresh.py,tests/auth/test_token_refresh.py\n');
    expect(fields(r.unmapped)).toEqual(['/tokens_spent', '/next_steps', '/artifacts/pr']);
    const withText = fromJson({ ...result, agent_id: 'claude-code', summary: 'refactored refresh\nsee PR' }, { to: 'HERMES', ctx: 'C0' });
    expect(withText.text).toMatch(/^CSP\/1\nFROM claude-code\n/);
    expect(withText.text).toMatch(/DATA\n<<<\nrefactored refresh\nsee PR\n>>>\n$/);
    const blocked = fromJson({ type: 'TASK_RESULT', protocol_version: '2.0', task_id: 'abc-123', status: 'blocked', tokens_spent: 0, blocked_reason: 'context_mode is down' }, { from: 'W', to: 'H', ctx: 'C0' });
    expect(blocked.text).toMatch(/STATUS FAIL/);
    expect(blocked.unmapped.map((u) => [u.field, u.value])).toEqual([
      ['/status', 'blocked'],
      ['/tokens_spent', 0],
      ['/blocked_reason', 'context_mode is down'],
    ]);
    expect(jsonToCsp({ type: 'TASK_RESULT', protocol_version: '2.0', task_id: 'x', status: 'done' }, { from: 'W', to: 'H', ctx: 'C0' })).toMatchObject({
      ok: false,
      errors: [{ expected: expect.stringMatching(/tokens_spent is required/) }],
    });
  });

  it('task_result, escalation and question', () => {
    const tr = fromJson({ type: 'task_result', from: 'w1', msg_id: 'm2', task: '3.2', status: 'partial', criteria: [1, 2], commit: 'abc1234' }, { to: 'lead', ctx: 'C1' });
    expect(tr.text).toMatch(/RESULT 3.2\nSTATUS PARTIAL\n$/);
    expect(fields(tr.unmapped)).toEqual(['/msg_id', '/criteria', '/commit']);
    const esc = fromJson({ type: 'escalation', from: 'w1', msg_id: 'E7', reason: 'gate failed twice', severity: 'warning', refs: ['T9'] }, { to: 'lead', ctx: 'C1' });
    expect(esc.text).toMatch(/ERROR E7\nAT T9\nCAUSE gate failed twice\n$/);
    expect(esc.unmapped).toEqual([{ field: '/severity', value: 'warning', reason: 'CSP ERROR has no severity' }]);
    const many = fromJson({ type: 'escalation', from: 'w1', msg_id: 'E8', reason: 'r', severity: 'info', refs: ['a', 'b'] }, { to: 'lead', ctx: 'C1' });
    expect(many.text).not.toMatch(/AT /);
    expect(fields(many.unmapped)).toEqual(['/severity', '/refs']);
    const q = fromJson({ type: 'question', from: 'w2', msg_id: 'Q1', question: 'which module owns refresh?', refs: ['F12'] }, { to: 'lead', ctx: 'C1' });
    expect(q.text).toMatch(/QUERY Q1\nASK which module owns refresh\?\nABOUT F12\n$/);
    expect(q.unmapped).toEqual([]);
  });

  it('refuses invalid or unconvertible JSON with the schema error', () => {
    expect(jsonToCsp('{nope')).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/JSON object/) }] });
    expect(jsonToCsp({ type: 'gate_report', from: 'g', msg_id: 'm', gate_id: 'G1', status: 'pass' })).toMatchObject({ ok: false });
    expect(jsonToCsp({ type: 'task_claim', from: 'A', msg_id: 'm1' }, { to: 'B', ctx: 'C0' })).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/\/task is required/) }] });
    expect(jsonToCsp({ type: 'task_claim', from: 'A', msg_id: 'm1', task: 'has space' }, { to: 'B', ctx: 'C0' })).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/\/task usable as the CSP TASK id/) }] });
    expect(jsonToCsp({ type: 'escalation', from: 'A', msg_id: 'E1', reason: 'two\nlines', severity: 'info' }, { to: 'B', ctx: 'C0' }).ok).toBe(false);
  });
});

describe('round trips: nothing is dropped silently', () => {
  /** Every CSP field of `m`, as keyword -> value. */
  function cspFields(m: CspMessage): Map<string, string> {
    const out = new Map<string, string>([
      ['FROM', m.from],
      ['TO', m.to],
      ['CTX', m.ctx],
    ]);
    const b = m.body as unknown as Record<string, unknown>;
    const keys: Record<string, string> = { id: m.body.intent, req: 'REQ', in: 'IN', out: 'OUT', owner: 'OWNER', priority: 'PRIORITY', status: 'STATUS', produced: 'PRODUCED', data: 'DATA', at: 'AT', cause: 'CAUSE', next: 'NEXT', ask: 'ASK', about: 'ABOUT' };
    for (const [k, v] of Object.entries(b)) if (keys[k] && v !== undefined) out.set(keys[k] as string, JSON.stringify(v));
    return out;
  }

  const idArb = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,8}$/);
  const textArb = fc.stringMatching(/^[a-z][a-z ,.:;=]{0,20}[a-z]$/);
  const listArb = fc.array(fc.stringMatching(/^[A-Za-z0-9_./-]{1,8}$/), { minLength: 1, maxLength: 3 });
  const messageArb = fc
    .record({
      from: idArb,
      to: idArb,
      ctx: idArb,
      body: fc.oneof(
        fc.record({ intent: fc.constant('TASK' as const), id: idArb, req: textArb, in: listArb, out: textArb, owner: idArb, priority: fc.constantFrom('P1' as const, 'P2' as const, 'P3' as const) }, { requiredKeys: ['intent', 'id'] }),
        fc.record({ intent: fc.constant('RESULT' as const), id: idArb, status: fc.constantFrom('OK' as const, 'PARTIAL' as const, 'FAIL' as const), produced: listArb, data: textArb }, { requiredKeys: ['intent', 'id', 'status'] }),
        fc.record({ intent: fc.constant('ERROR' as const), id: idArb, at: idArb, cause: textArb, next: textArb }, { requiredKeys: ['intent', 'id', 'cause'] }),
        fc.record({ intent: fc.constant('QUERY' as const), id: idArb, ask: textArb, about: listArb }, { requiredKeys: ['intent', 'id', 'ask'] }),
      ),
    })
    .map((m) => ({ kind: 'message' as const, ...m }) as CspMessage);

  it('CSP -> JSON -> CSP: each field comes back or is listed as unmapped (every target, 500 messages)', () => {
    fc.assert(
      fc.property(messageArb, (m) => {
        const targets = { TASK: ['task_claim', 'TASK_DISPATCH'], RESULT: ['task_result', 'TASK_RESULT'], ERROR: ['escalation'], QUERY: ['question'] }[m.body.intent as 'TASK'] as JsonTarget[];
        for (const target of targets) {
          const there = cspToJson(m, { target, tokenBudget: 100, tokensSpent: 50, remaining: ['the rest'] });
          if (!there.ok) {
            // The refusals allowed: a dispatch needs a brief (REQ); a FAIL result needs DATA for
            // error_summary; handshake ids are stricter than CSP ids.
            const b = m.body;
            const allowed =
              (target === 'TASK_DISPATCH' && b.intent === 'TASK' && b.req === undefined) ||
              (target === 'TASK_RESULT' && b.intent === 'RESULT' && b.status === 'FAIL' && b.data === undefined) ||
              ((target === 'TASK_DISPATCH' || target === 'TASK_RESULT') && !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(b.intent === 'TASK' || b.intent === 'RESULT' ? b.id : ''));
            expect(allowed, JSON.stringify(there.errors)).toBe(true);
            continue;
          }
          const back = jsonToCsp(there.message, { from: m.from, to: m.to, ctx: m.ctx });
          if (!back.ok) throw new Error(JSON.stringify(back.errors));
          const before = cspFields(m);
          const after = cspFields(back.message);
          const unmapped = new Set(fields(there.unmapped));
          for (const [k, v] of before) {
            if (after.get(k) === v) continue;
            // TO and CTX always come back from the options; a lost FROM must have been reported.
            expect(unmapped.has(k), `${target}: ${k}=${v} came back as ${after.get(k)} and is not listed as unmapped`).toBe(true);
          }
          const parsed = parseCsp(back.text);
          expect(parsed.ok).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('JSON -> CSP -> JSON keeps every field that was not listed as unmapped', () => {
    const claim = { type: 'task_claim', from: 'CODE_EXP', msg_id: 'm1', task: 'T1', symbols: ['F1'], capsules: ['w1'] };
    const csp = fromJson(claim, { to: 'MAIN', ctx: 'C0' });
    const back = toJson(csp.text, { msgId: 'm1' });
    expect(back.message).toEqual({ type: 'task_claim', from: 'CODE_EXP', msg_id: 'm1', task: 'T1', symbols: ['F1'] });
    expect(fields(csp.unmapped)).toEqual(['/msg_id', '/capsules']);
    const esc = { type: 'escalation', from: 'w1', msg_id: 'E1', reason: 'no matches', severity: 'blocker', refs: ['T1'] };
    expect(toJson(fromJson(esc, { to: 'MAIN', ctx: 'C0' }).text).message).toEqual(esc);
  });
});
