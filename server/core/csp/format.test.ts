import { describe, expect, it } from 'vitest';
import { seedBlock } from './fixtures/seed-examples.js';
import { chooseFence, formatCsp, formatUnknown } from './format.js';
import { parseCsp } from './parse.js';
import type { CspDocument } from './types.js';
import { validateCsp } from './validate.js';

describe('formatCsp', () => {
  it('writes a message built as data in the seed layout', () => {
    const doc: CspDocument = {
      kind: 'message',
      from: 'CODE_EXP',
      to: 'MAIN',
      ctx: 'C0',
      body: { intent: 'ERROR', id: 'E001', at: 'T001', cause: 'no matches found in SRC,LIB', next: 'try broader scope or different keywords' },
    };
    expect(formatCsp(doc)).toBe(seedBlock('errorResponse'));
  });

  it('puts multi-line or padded DATA in a block and picks a fence that does not collide', () => {
    const text = formatCsp({ kind: 'body', body: { intent: 'RESULT', id: 'T1', status: 'OK', data: 'a\n>>>\n>>>END\nb' } });
    expect(text).toBe('RESULT T1\nSTATUS OK\nDATA\n<<<END1\na\n>>>\n>>>END\nb\n>>>END1\n');
    expect(formatCsp({ kind: 'body', body: { intent: 'RESULT', id: 'T1', status: 'OK', data: ' padded' } })).toBe('RESULT T1\nSTATUS OK\nDATA\n<<<\n padded\n>>>\n');
    expect(chooseFence('x\ny')).toBe('');
    expect(chooseFence('x\n>>>')).toBe('END');
    expect(chooseFence('x', 'TAG')).toBe('TAG');
  });
});

describe('formatUnknown (documents from JSON)', () => {
  it('formats the parse output of every seed example back to the seed text', () => {
    for (const key of ['patch', 'fileop', 'projectDefs', 'projectLaws', 'taskAssignment', 'taskResult', 'errorResponse', 'taskTpl']) {
      const parsed = parseCsp(seedBlock(key));
      if (!parsed.ok) throw new Error(key);
      const r = formatUnknown(JSON.parse(JSON.stringify(parsed.message)));
      expect(r).toMatchObject({ ok: true, text: seedBlock(key) });
    }
  });

  it('refuses unknown keys instead of dropping them, naming the JSON path', () => {
    const r = formatUnknown({ kind: 'body', body: { intent: 'TASK', id: 'T1', deadline: 'tomorrow' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]).toMatchObject({ line: 0 });
    expect(r.errors[0]?.expected).toMatch(/^\/body: Unrecognized key: "deadline"/);
  });

  it('refuses values that cannot sit on their line, with the rule', () => {
    const r = formatUnknown({ kind: 'body', body: { intent: 'TASK', id: 'T 1', req: 'two\nlines' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.expected.split(':')[0])).toEqual(['/body/id', '/body/req']);
    expect(r.errors[0]?.got).toBe('"T 1"');
  });

  it('refuses a document whose text would read back differently', () => {
    const r = formatUnknown({ kind: 'task_tpl', directives: [{ kind: 'not', term: 'prose' }], task: { req: 'find x IN:y', in: 'SRC', out: 'REFS' } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]?.expected).toMatch(/read back as written/);
  });

  it('refuses structurally wrong bodies through the parser, with the generated line quoted', () => {
    const r = formatUnknown({ kind: 'body', body: { intent: 'FILE', ops: [{ id: 'F1', op: 'MOVE', path: 'a.ts' }] } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]?.expected).toMatch(/TO .*in the text written from your document/);
  });

  it('never throws on junk', () => {
    for (const junk of [null, undefined, 1, 'text', [], { kind: 'message' }, { kind: 'body', body: null }]) {
      expect(formatUnknown(junk).ok).toBe(false);
    }
  });
});

describe('validateCsp (the seed checklist)', () => {
  it('ticks every box for a valid message', () => {
    const v = validateCsp(seedBlock('taskAssignment'));
    expect(v.valid).toBe(true);
    expect(v.checklist).toEqual([
      { item: 'CSP/1 header', ok: true },
      { item: 'FROM/TO agents', ok: true },
      { item: 'CTX reference', ok: true },
      { item: 'INTENT type', ok: true },
      { item: 'Matching body block', ok: true },
    ]);
  });

  it('sorts each error under the box it unticks', () => {
    const text = seedBlock('taskResult').replace('TO MAIN', 'TO <MAIN>').replace('CTX C0\n', '').replace('STATUS OK', 'STATUS DONE');
    const v = validateCsp(text);
    expect(v.valid).toBe(false);
    expect(v.checklist.filter((c) => !c.ok).map((c) => c.item)).toEqual(['FROM/TO agents', 'CTX reference', 'Matching body block']);
    expect(v.errors.map((e) => [e.line, e.check])).toEqual([
      [3, 'FROM/TO agents'],
      [4, 'CTX reference'],
      [7, 'Matching body block'],
    ]);
  });

  it('flags a wrong header and a wrong INTENT', () => {
    expect(validateCsp(seedBlock('taskResult').replace('CSP/1', 'CSP/2')).checklist.filter((c) => !c.ok).map((c) => c.item)).toEqual(['CSP/1 header']);
    expect(validateCsp(seedBlock('taskResult').replace('INTENT RESULT', 'INTENT REPLY')).checklist.filter((c) => !c.ok).map((c) => c.item)).toEqual(['INTENT type']);
  });

  it('does not take a bare body or a DEF block for a message, unless asked to accept any document', () => {
    const bare = validateCsp(seedBlock('patch'));
    expect(bare.valid).toBe(false);
    expect(bare.kind).toBe('body');
    expect(bare.errors[0]?.expected).toMatch(/bare body block, not a message/);
    expect(bare.checklist.find((c) => c.item === 'Matching body block')?.ok).toBe(true);
    expect(validateCsp(seedBlock('projectDefs')).valid).toBe(false);
    expect(validateCsp(seedBlock('patch'), { any: true })).toMatchObject({ valid: true, kind: 'body' });
    expect(validateCsp(seedBlock('taskTpl'), { any: true })).toMatchObject({ valid: true, kind: 'task_tpl' });
  });
});
