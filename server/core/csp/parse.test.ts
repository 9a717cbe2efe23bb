import { describe, expect, it } from 'vitest';
import { SEED_BLOCKS, seedBlock } from './fixtures/seed-examples.js';
import { formatCsp } from './format.js';
import { parseCsp } from './parse.js';
import type { CspDocument, CspError, CspMessage } from './types.js';

function ok(text: string): CspDocument {
  const r = parseCsp(text);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got ${JSON.stringify(r.errors, null, 2)}`);
  return r.message;
}

function errs(text: string): CspError[] {
  const r = parseCsp(text);
  if (r.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused, it parsed to ${JSON.stringify(r.message)}`);
  return r.errors;
}

function msg(body: string, header = 'CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK'): string {
  return `${header}\n\n${body}\n`;
}

describe('seed examples', () => {
  const examples = SEED_BLOCKS.filter((b) => b.kind === 'example');

  it('covers every concrete example of the seed', () => {
    expect(examples.map((b) => b.key)).toEqual(['patch', 'fileop', 'projectDefs', 'projectLaws', 'taskAssignment', 'taskResult', 'errorResponse', 'taskTpl']);
  });

  for (const b of examples) {
    it(`${b.heading}: parses and formats back to the same text`, () => {
      const doc = ok(b.text);
      expect(formatCsp(doc)).toBe(b.text);
      // And the formatted text parses to the same document again.
      expect(ok(formatCsp(doc))).toEqual(doc);
    });
  }

  it('reads the Task Assignment example field by field', () => {
    expect(ok(seedBlock('taskAssignment'))).toEqual({
      kind: 'message',
      from: 'MAIN',
      to: 'CODE_EXP',
      ctx: 'C0',
      body: { intent: 'TASK', id: 'T001', req: 'find auth middleware', in: ['SRC', 'LIB'], out: 'FILE_REFS', owner: 'CODE_EXP', priority: 'P1' },
    });
  });

  it('reads the Task Result and Error Response examples', () => {
    expect((ok(seedBlock('taskResult')) as CspMessage).body).toEqual({
      intent: 'RESULT',
      id: 'T001',
      status: 'OK',
      produced: ['FILE_REFS_001'],
      data: 'src/middleware/auth.ts:24-67;lib/utils/jwt.ts:12-45',
    });
    expect((ok(seedBlock('errorResponse')) as CspMessage).body).toEqual({
      intent: 'ERROR',
      id: 'E001',
      at: 'T001',
      cause: 'no matches found in SRC,LIB',
      next: 'try broader scope or different keywords',
    });
  });

  it('reads the PATCH, FILEOP, DEF, LAWS and TASK_TPL blocks', () => {
    expect(ok(seedBlock('patch'))).toEqual({
      kind: 'body',
      body: {
        intent: 'PATCH',
        id: 'P001',
        base: 'C0',
        ops: [
          { op: 'add', name: 'NEW_ITEM', value: 'value' },
          { op: 'change', name: 'OLD_ITEM', value: 'new_value' },
          { op: 'remove', name: 'REMOVED_ITEM' },
        ],
        target: 'C1',
      },
    });
    expect(ok(seedBlock('fileop'))).toEqual({
      kind: 'body',
      body: { intent: 'FILE', ops: [{ id: 'F001', op: 'PATCH', path: 'src/file.ts', base: 'hash123', content: '@@ -100,3 +100,5 @@\n+new_line_here', fence: '' }] },
    });
    const defs = ok(seedBlock('projectDefs'));
    expect(defs).toMatchObject({ kind: 'context', blocks: [{ kind: 'defs' }, { kind: 'defs' }] });
    expect(defs.kind === 'context' && defs.blocks[1]).toEqual({
      kind: 'defs',
      defs: [
        { name: 'CODE_EXP', value: 'code-explorer' },
        { name: 'WEB_RES', value: 'web-researcher' },
        { name: 'REF_FIND', value: 'ref-finder' },
        { name: 'CODER', value: 'coder' },
      ],
    });
    const laws = ok(seedBlock('projectLaws'));
    expect(laws.kind === 'context' && laws.blocks[0]).toEqual({
      kind: 'laws',
      laws: [
        { id: 'L1', text: 'Web search/fetch -> WEB_RES only' },
        { id: 'L2', text: 'Codebase exploration -> CODE_EXP only' },
        { id: 'L3', text: 'Refactoring -> REF_FIND first' },
        { id: 'L4', text: 'Multi-file edits -> CODER only' },
      ],
    });
    expect(ok(seedBlock('taskTpl'))).toEqual({
      kind: 'task_tpl',
      directives: [
        { kind: 'not', term: 'prose' },
        { kind: 'only', term: 'DATA' },
      ],
      result: [{ name: 'STATUS' }, { name: 'DATA', shape: 'file:line' }],
      task: { req: '<req>', in: '<scope>', out: '<type>' },
    });
  });

  // The grammar templates use <placeholders> and A|B alternatives: where a placeholder stands for
  // free text it is valid text, elsewhere the errors point at exactly the placeholder lines.
  for (const b of SEED_BLOCKS.filter((s) => s.kind === 'grammar')) {
    it(`grammar template ${b.heading}: accepted as text or refused at its placeholder lines`, () => {
      const r = parseCsp(b.text);
      const lines = b.text.split('\n');
      if (r.ok) {
        expect(formatCsp(r.message)).toBe(b.text);
        return;
      }
      expect(r.errors.length).toBeGreaterThan(0);
      for (const e of r.errors) expect(lines[e.line - 1]).toMatch(/[<|]/);
    });
  }

  it('refuses the grammar templates that contain alternatives (A|B is not a value)', () => {
    expect(errs(seedBlock('resultGrammar')).map((e) => e.line)).toEqual([2]);
    expect(errs(seedBlock('taskGrammar')).map((e) => e.line)).toEqual([5, 6]);
    expect(errs(seedBlock('messageFormat')).map((e) => e.line)).toEqual([2, 3, 4, 5, 7]);
  });

  it('does not mistake the state diagram for CSP', () => {
    const e = errs(seedBlock('stateDiagram'));
    expect(e[0]).toMatchObject({ line: 1 });
    expect(e[0]?.expected).toMatch(/CSP\/1/);
  });
});

describe('header and the VALIDATION checklist errors', () => {
  const good = seedBlock('taskAssignment');

  it('names a missing header line, what it expected and an example', () => {
    const e = errs(good.replace('CSP/1\n', 'CSP/2\n'));
    expect(e).toEqual([{ line: 1, expected: expect.stringMatching(/header line CSP\/1/), got: '"CSP/2"', example: expect.stringContaining('CSP/1\nFROM') }]);
  });

  it('reports a missing TO without hiding the lines after it', () => {
    const e = errs(good.replace('TO CODE_EXP\n', ''));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ line: 3, got: '"CTX C0"', example: 'TO CODE_EXP' });
    expect(e[0]?.expected).toMatch(/TO <an id/);
  });

  it('reports a missing CTX and a bad INTENT, each at its line', () => {
    const e = errs(good.replace('CTX C0\n', '').replace('INTENT TASK', 'INTENT DO'));
    expect(e.map((x) => x.line)).toEqual([4, 4]);
    expect(e[0]?.expected).toMatch(/CTX/);
    expect(e[1]?.expected).toMatch(/one of PLAN, TASK, RESULT, ERROR, QUERY, PATCH, FILE, MEM/);
    expect(e[1]?.example).toBe('INTENT TASK');
  });

  it('refuses a body that does not match INTENT', () => {
    const e = errs(good.replace('INTENT TASK', 'INTENT RESULT'));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ line: 7, got: '"TASK T001"' });
    expect(e[0]?.expected).toMatch(/matching INTENT RESULT/);
    expect(e[0]?.example).toMatch(/^RESULT T001\nSTATUS OK/);
  });

  it('wants exactly one blank line after the header and a body after it', () => {
    expect(errs(good.replace('INTENT TASK\n\n', 'INTENT TASK\n'))[0]).toMatchObject({ line: 6, got: '"TASK T001"' });
    expect(errs(good.replace('INTENT TASK\n\n', 'INTENT TASK\n\n\n'))[0]).toMatchObject({ line: 7, got: 'a blank line' });
    expect(errs('CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK\n\n')[0]?.expected).toMatch(/body block starting with TASK/);
  });

  it('refuses spacing and CRLF variants, so every message has one text', () => {
    expect(errs(good.replace('FROM MAIN', 'FROM  MAIN'))[0]).toMatchObject({ line: 2 });
    expect(errs(good.replace('REQ find auth middleware', 'REQ find auth middleware '))[0]).toMatchObject({ line: 8 });
    const crlf = errs(good.replace(/\n/g, '\r\n'));
    expect(crlf[0]?.got).toMatch(/carriage return/);
  });

  it('accepts the text without its final newline (the formatter adds it)', () => {
    const doc = ok(good.slice(0, -1));
    expect(formatCsp(doc)).toBe(good);
  });

  it('does not read object-prototype names as body keywords', () => {
    for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(errs(`${k} x\n`)[0]).toMatchObject({ line: 1 });
      const e = errs(`CSP/1\nFROM A\nTO B\nCTX C0\nINTENT BOGUS\n\n${k} T1\n`);
      expect(e.map((x) => x.line)).toEqual([5, 7]);
    }
  });

  it('handles empty and non-string input without throwing', () => {
    expect(errs('')[0]).toMatchObject({ line: 1, got: 'a blank line' });
    expect(parseCsp(undefined)).toMatchObject({ ok: false, errors: [{ line: 0, got: 'undefined' }] });
    expect(parseCsp(42)).toMatchObject({ ok: false });
  });
});

describe('TASK, RESULT, ERROR bodies', () => {
  it('accepts a TASK that only references its id, and keeps line order fixed', () => {
    expect(ok(msg('TASK T001'))).toMatchObject({ body: { intent: 'TASK', id: 'T001' } });
    const e = errs(msg('TASK T001\nOWNER CODE_EXP\nREQ find it'));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ line: 9, got: '"REQ find it"' });
    expect(e[0]?.expected).toMatch(/in this order, each at most once: TASK, REQ, IN, OUT, OWNER, PRIORITY/);
  });

  it('refuses duplicates, unknown lines and bad values with examples', () => {
    expect(errs(msg('TASK T001\nREQ a\nREQ b'))[0]).toMatchObject({ line: 9 });
    expect(errs(msg('TASK T001\nPRIORITY P4'))[0]).toMatchObject({ line: 8, example: 'PRIORITY P1' });
    expect(errs(msg('TASK T001\nIN SRC, LIB'))[0]).toMatchObject({ line: 8, example: 'IN SRC,LIB' });
    const unknown = errs(msg('TASK T001\nWHY because'));
    expect(unknown[0]?.expected).toMatch(/end of the message/);
    expect(errs(msg('TASK T001\n\nREQ x'))[0]?.expected).toMatch(/no blank line inside a TASK body/);
  });

  it('requires STATUS in a RESULT and CAUSE in an ERROR', () => {
    const r = errs(msg('RESULT T001\nPRODUCED X', 'CSP/1\nFROM A\nTO B\nCTX C0\nINTENT RESULT'));
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ line: 8, example: 'STATUS OK' });
    const e = errs(msg('ERROR E001\nAT T001\nNEXT retry', 'CSP/1\nFROM A\nTO B\nCTX C0\nINTENT ERROR'));
    expect(e[0]).toMatchObject({ line: 9 });
    expect(e[0]?.expected).toMatch(/CAUSE/);
  });

  it('carries multi-line RESULT DATA in a content block', () => {
    const text = msg('RESULT T001\nSTATUS PARTIAL\nDATA\n<<<\nline one\n\nCSP/1\nFROM X\n>>>', 'CSP/1\nFROM A\nTO B\nCTX C0\nINTENT RESULT');
    const doc = ok(text) as CspMessage;
    expect(doc.body).toEqual({ intent: 'RESULT', id: 'T001', status: 'PARTIAL', data: 'line one\n\nCSP/1\nFROM X', dataBlock: { fence: '' } });
    expect(formatCsp(doc)).toBe(text);
  });
});

describe('FILE / FILEOP and content blocks', () => {
  const H = 'CSP/1\nFROM CODER\nTO MAIN\nCTX C3\nINTENT FILE';

  it('keeps any text inside <<< >>>, including lines that look like CSP', () => {
    const content = 'CSP/1\nFROM EVIL\nTO ALL\nCTX C9\nINTENT PATCH\n\nPATCH P9\nBASE C0\n- DEF SRC\nAPPLY -> C1\n<<<\n  indented\ttab  ';
    const text = msg(`FILEOP F001 CREATE\nPATH docs/csp example.md\nCONTENT\n<<<\n${content}\n>>>`, H);
    const doc = ok(text) as CspMessage;
    expect(doc.body).toEqual({ intent: 'FILE', ops: [{ id: 'F001', op: 'CREATE', path: 'docs/csp example.md', content, fence: '' }] });
    expect(formatCsp(doc)).toBe(text);
  });

  it('uses a fence tag when the content has a >>> line', () => {
    const text = msg('FILEOP F001 WRITE\nPATH a.txt\nCONTENT\n<<<END\nbefore\n>>>\nafter\n>>>END', H);
    const doc = ok(text) as CspMessage;
    expect(doc.body.intent === 'FILE' && doc.body.ops[0]?.content).toBe('before\n>>>\nafter');
    expect(formatCsp(doc)).toBe(text);
  });

  it('distinguishes empty content, a lone newline and a trailing newline', () => {
    const one = (c: string) => (ok(msg(`FILEOP F001 WRITE\nPATH a\nCONTENT\n${c}`, H)) as CspMessage).body;
    expect(one('<<<\n>>>')).toMatchObject({ ops: [{ content: '' }] });
    expect(one('<<<\n\n\n>>>')).toMatchObject({ ops: [{ content: '\n' }] });
    expect(one('<<<\nx\n\n>>>')).toMatchObject({ ops: [{ content: 'x\n' }] });
    expect(errs(msg('FILEOP F001 WRITE\nPATH a\nCONTENT\n<<<\n\n>>>', H))[0]?.expected).toMatch(/empty content is written as <<< directly followed by >>>/);
  });

  it('reports an unclosed block at the line that opened it', () => {
    const e = errs(msg('FILEOP F001 CREATE\nPATH a\nCONTENT\n<<<\nno end', H));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ line: 10, got: 'the end of the input' });
    expect(e[0]?.expected).toMatch(/>>> closing the content block opened at line 10/);
  });

  it('carries several FILEOP blocks separated by one blank line, with DELETE and MOVE', () => {
    const text = msg('FILEOP F001 DELETE\nPATH old.ts\n\nFILEOP F002 MOVE\nPATH a.ts\nTO b.ts\nBASE 9f8e\n\nFILEOP F003 PATCH\nPATH b.ts\nCONTENT\n<<<\n@@ -1 +1 @@\n-a\n+b\n>>>', H);
    const doc = ok(text) as CspMessage;
    expect(doc.body.intent === 'FILE' && doc.body.ops.map((o) => o.op)).toEqual(['DELETE', 'MOVE', 'PATCH']);
    expect(formatCsp(doc)).toBe(text);
  });

  it('checks which operations carry TO and CONTENT', () => {
    expect(errs(msg('FILEOP F001 MOVE\nPATH a.ts', H))[0]?.expected).toMatch(/TO/);
    expect(errs(msg('FILEOP F001 DELETE\nPATH a.ts\nCONTENT\n<<<\nx\n>>>', H))[0]?.expected).toMatch(/no CONTENT in a DELETE/);
    expect(errs(msg('FILEOP F001 CREATE\nPATH a.ts', H))[0]?.expected).toMatch(/CONTENT followed by a <<< >>> block/);
    expect(errs(msg('FILEOP F001 WRITE\nPATH a.ts\nTO b.ts\nCONTENT\n<<<\nx\n>>>', H))[0]?.expected).toMatch(/TO only in a MOVE/);
    expect(errs(msg('FILEOP F001 RENAME\nPATH a.ts', H))[0]).toMatchObject({ line: 7, example: 'FILEOP F001 PATCH' });
    expect(errs(msg('FILEOP F001 DELETE\nPATH a\n\nFILEOP F001 DELETE\nPATH b', H))[0]?.expected).toMatch(/not used before/);
  });
});

describe('PATCH', () => {
  const H = 'CSP/1\nFROM MAIN\nTO ALL\nCTX C0\nINTENT PATCH';

  it('parses as a message, with CTX equal to BASE', () => {
    const text = msg('PATCH P1\nBASE C0\n+ DEF AUTH_MW = src/middleware/auth.ts\nAPPLY -> C1', H);
    expect(formatCsp(ok(text))).toBe(text);
    const e = errs(text.replace('CTX C0', 'CTX C4'));
    expect(e[0]).toMatchObject({ line: 8 });
    expect(e[0]?.expected).toMatch(/BASE equal to the message's CTX C4/);
  });

  it('wants APPLY -> the checkpoint right after BASE', () => {
    const e = errs('PATCH P1\nBASE C2\n- DEF X\nAPPLY -> C5\n');
    expect(e[0]).toMatchObject({ line: 4, example: 'APPLY -> C3' });
    expect(errs('PATCH P1\nBASE C2\n- DEF X\n')[0]).toMatchObject({ line: 4, example: 'APPLY -> C3' });
  });

  it('refuses malformed op lines, lower-case names, empty patches and a DEF touched twice', () => {
    expect(errs('PATCH P1\nBASE C0\n+ DEF X := 1\nAPPLY -> C1\n')[0]).toMatchObject({ line: 3, example: '+ DEF NEW_ITEM = value' });
    expect(errs('PATCH P1\nBASE C0\n~ DEF X = 1\nAPPLY -> C1\n')[0]).toMatchObject({ line: 3, example: '~ DEF OLD_ITEM := new_value' });
    expect(errs('PATCH P1\nBASE C0\n- DEF x\nAPPLY -> C1\n')[0]?.expected).toMatch(/upper-case name/);
    expect(errs('PATCH P1\nBASE C0\nAPPLY -> C1\n')[0]?.expected).toMatch(/at least one patch line/);
    const twice = errs('PATCH P1\nBASE C0\n+ DEF X = 1\n- DEF X\nAPPLY -> C1\n');
    expect(twice[0]).toMatchObject({ line: 4 });
    expect(twice[0]?.expected).toMatch(/already touched at line 3/);
    expect(errs('PATCH P1\nBASE 7\n- DEF X\nAPPLY -> C1\n')[0]).toMatchObject({ line: 2, example: 'BASE C0' });
  });
});

describe('PLAN, QUERY and MEM (grammars designed in the seed style)', () => {
  it('PLAN: GOAL and STEP lines, AFTER naming earlier steps only', () => {
    const text = msg('PLAN PL1\nGOAL ship the auth refactor\nSTEP T001 CODE_EXP\nSTEP T002 REF_FIND AFTER T001\nSTEP T003 CODER AFTER T001,T002', 'CSP/1\nFROM MAIN\nTO ALL\nCTX C2\nINTENT PLAN');
    const doc = ok(text) as CspMessage;
    expect(doc.body).toEqual({
      intent: 'PLAN',
      id: 'PL1',
      goal: 'ship the auth refactor',
      steps: [
        { task: 'T001', owner: 'CODE_EXP' },
        { task: 'T002', owner: 'REF_FIND', after: ['T001'] },
        { task: 'T003', owner: 'CODER', after: ['T001', 'T002'] },
      ],
    });
    expect(formatCsp(doc)).toBe(text);
    expect(errs('PLAN PL1\nGOAL g\nSTEP T002 CODER AFTER T009\n')[0]?.expected).toMatch(/unknown: T009/);
    expect(errs('PLAN PL1\nGOAL g\nSTEP T1 A\nSTEP T1 B\n')[0]).toMatchObject({ line: 4 });
    expect(errs('PLAN PL1\nGOAL g\n')[0]?.expected).toMatch(/at least one STEP/);
    expect(errs('PLAN PL1\nSTEP T1 A\n')[0]).toMatchObject({ line: 2, example: 'GOAL ship the auth refactor' });
  });

  it('QUERY: ASK and an optional ABOUT list', () => {
    const text = msg('QUERY Q001\nASK which module owns token refresh?\nABOUT SRC,AUTH_MW', 'CSP/1\nFROM CODER\nTO CODE_EXP\nCTX C1\nINTENT QUERY');
    const doc = ok(text) as CspMessage;
    expect(doc.body).toEqual({ intent: 'QUERY', id: 'Q001', ask: 'which module owns token refresh?', about: ['SRC', 'AUTH_MW'] });
    expect(formatCsp(doc)).toBe(text);
    expect(errs('QUERY Q001\nABOUT SRC\n')[0]?.expected).toMatch(/ASK/);
  });

  it('MEM: NODE lines then EDGE lines', () => {
    const text = msg('MEM M001\nNODE AUTH_MW = src/middleware/auth.ts:24-67\nNODE JWT = lib/utils/jwt.ts:12-45\nEDGE AUTH_MW USES JWT', 'CSP/1\nFROM CODE_EXP\nTO MAIN\nCTX C1\nINTENT MEM');
    const doc = ok(text) as CspMessage;
    expect(doc.body).toEqual({
      intent: 'MEM',
      id: 'M001',
      nodes: [
        { name: 'AUTH_MW', value: 'src/middleware/auth.ts:24-67' },
        { name: 'JWT', value: 'lib/utils/jwt.ts:12-45' },
      ],
      edges: [{ from: 'AUTH_MW', rel: 'USES', to: 'JWT' }],
    });
    expect(formatCsp(doc)).toBe(text);
    expect(errs('MEM M1\nEDGE A USES B\nNODE A = x\n')[0]).toMatchObject({ line: 3 });
    expect(errs('MEM M1\nEDGE A uses B\n')[0]?.example).toBe('EDGE AUTH_MW USES JWT');
    expect(errs('MEM M1\n')[0]?.expected).toMatch(/at least one NODE/);
  });
});

describe('DEF / LAWS context and TASK_TPL', () => {
  it('parses DEF groups and a LAWS block in one document', () => {
    const text = `${seedBlock('projectDefs')}\n${seedBlock('projectLaws')}`;
    const doc = ok(text);
    expect(doc.kind === 'context' && doc.blocks.map((b) => b.kind)).toEqual(['defs', 'defs', 'laws']);
    expect(formatCsp(doc)).toBe(text);
  });

  it('refuses duplicate DEFs and law ids, missing separators and stray lines', () => {
    expect(errs('DEF A = 1\nDEF A = 2\n')[0]).toMatchObject({ line: 2, example: '~ DEF A := 2' });
    expect(errs('LAWS\n- L1: a\n- L1: b\n')[0]).toMatchObject({ line: 3 });
    expect(errs('DEF A = 1\nLAWS\n- L1: a\n')[0]).toMatchObject({ line: 2 });
    expect(errs('DEF A = 1\n\n\nDEF B = 2\n')[0]).toMatchObject({ line: 3 });
    expect(errs('DEF A = 1\n\nhello\n')[0]).toMatchObject({ line: 3 });
    expect(errs('LAWS\n- 1: a\n')[0]).toMatchObject({ line: 2, example: '- L1: Web search/fetch -> WEB_RES only' });
    expect(errs('LAWS\n')[0]?.expected).toMatch(/at least one law line/);
  });

  it('parses a filled-in template and refuses an unknown directive', () => {
    const text = 'CSP/1;!prose;!restate;DATA ONLY\nTASK REQ:find auth middleware IN:SRC,LIB OUT:FILE_REFS\n';
    expect(ok(text)).toEqual({
      kind: 'task_tpl',
      directives: [
        { kind: 'not', term: 'prose' },
        { kind: 'not', term: 'restate' },
        { kind: 'only', term: 'DATA' },
      ],
      task: { req: 'find auth middleware', in: 'SRC,LIB', out: 'FILE_REFS' },
    });
    expect(formatCsp(ok(text))).toBe(text);
    expect(errs('CSP/1;be brief\nTASK REQ:a IN:b OUT:c\n')[0]).toMatchObject({ line: 1, got: '"be brief"' });
    expect(errs('CSP/1;!prose\nRESULT{status}\nTASK REQ:a IN:b OUT:c\n')[0]).toMatchObject({ line: 2 });
    expect(errs('CSP/1;!prose\nTASK REQ:a OUT:c\n')[0]).toMatchObject({ line: 2 });
  });
});
