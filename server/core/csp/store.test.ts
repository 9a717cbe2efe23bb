import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../context.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { seedBlock } from './fixtures/seed-examples.js';
import { parseCsp } from './parse.js';
import { applyPatch, checkpointToContext, initialCheckpoint } from './state.js';
import { applyPatchText, cspPaths, initState, readCheckpoint, readIndex, rebuildCheckpoint, stateReport, verifyState } from './store.js';
import type { CspContext, PatchBody } from './types.js';

let root: string;
let ctx: Ctx;

function context(text: string): CspContext {
  const r = parseCsp(text);
  if (!r.ok || r.message.kind !== 'context') throw new Error(JSON.stringify(r));
  return r.message;
}

function patchMsg(id: string, base: string, ops: string[]): string {
  const n = Number(base.slice(1));
  return `CSP/1\nFROM MAIN\nTO ALL\nCTX ${base}\nINTENT PATCH\n\nPATCH ${id}\nBASE ${base}\n${ops.join('\n')}\nAPPLY -> C${n + 1}\n`;
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'csp-store-'));
  ctx = makeCtx(root, { clock: fixedClock(Date.UTC(2026, 5, 11, 12, 0, 0)), ids: sequentialIds() });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('applyPatch (pure)', () => {
  const c0 = initialCheckpoint(context(seedBlock('projectDefs')));
  const lines = { base: 2, op: (i: number) => 3 + i };

  it('applies + ~ - to give the next checkpoint, keeping DEF order', () => {
    const p: PatchBody = {
      intent: 'PATCH',
      id: 'P1',
      base: 'C0',
      ops: [
        { op: 'add', name: 'AUTH_MW', value: 'src/middleware/auth.ts' },
        { op: 'change', name: 'SRC', value: 'src/app/' },
        { op: 'remove', name: 'LIB' },
      ],
      target: 'C1',
    };
    const r = applyPatch(c0, p, lines);
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    expect(r.checkpoint.id).toBe('C1');
    expect(r.checkpoint.defs.map((d) => `${d.name}=${d.value}`)).toEqual([
      'SRC=src/app/',
      'TESTS=tests/',
      'CODE_EXP=code-explorer',
      'WEB_RES=web-researcher',
      'REF_FIND=ref-finder',
      'CODER=coder',
      'AUTH_MW=src/middleware/auth.ts',
    ]);
    expect(r.summary).toEqual({ added: ['AUTH_MW'], changed: ['SRC'], removed: ['LIB'] });
    // The input checkpoint is not modified.
    expect(c0.defs.find((d) => d.name === 'SRC')?.value).toBe('src/');
  });

  it('refuses every bad op at once, each at its line, with the fix as example', () => {
    const p: PatchBody = {
      intent: 'PATCH',
      id: 'P1',
      base: 'C0',
      ops: [
        { op: 'add', name: 'SRC', value: 'x/' },
        { op: 'change', name: 'NOPE', value: 'y' },
        { op: 'remove', name: 'GONE' },
      ],
      target: 'C1',
    };
    const r = applyPatch(c0, p, lines);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors.map((e) => e.line)).toEqual([3, 4, 5]);
    expect(r.errors[0]).toMatchObject({ got: '+ DEF SRC = x/', example: '~ DEF SRC := x/' });
    expect(r.errors[1]).toMatchObject({ example: '+ DEF NOPE = y' });
    expect(r.errors[1]?.expected).toMatch(/NOPE does not exist there \(it has SRC, LIB/);
    expect(r.errors[2]?.expected).toMatch(/GONE does not exist/);
  });

  it('refuses a patch whose BASE is not the checkpoint it is applied to', () => {
    const r = applyPatch(c0, { intent: 'PATCH', id: 'P2', base: 'C1', ops: [{ op: 'remove', name: 'SRC' }], target: 'C2' }, lines);
    expect(r).toMatchObject({ ok: false, errors: [{ line: 2, got: 'BASE C1' }] });
  });

  it('renders a checkpoint as a DEF/LAWS document', () => {
    const cp = initialCheckpoint(context(`${seedBlock('projectDefs')}\n${seedBlock('projectLaws')}`));
    expect(checkpointToContext(cp)?.blocks.map((b) => b.kind)).toEqual(['defs', 'laws']);
    expect(checkpointToContext(initialCheckpoint())).toBeUndefined();
  });
});

describe('persisted state under .planning/csp', () => {
  it('init writes C0 and the index; a second init is refused', () => {
    const r = initState(ctx, context(`${seedBlock('projectDefs')}\n${seedBlock('projectLaws')}`));
    expect(r).toMatchObject({ ok: true, checkpoint: { id: 'C0' } });
    const p = cspPaths(ctx);
    expect(p.dir).toBe(path.join(root, 'csp'));
    expect(JSON.parse(fs.readFileSync(path.join(p.checkpointsDir, 'C0.json'), 'utf8'))).toMatchObject({ id: 'C0', base: null, defs: { SRC: 'src/', CODER: 'coder' }, laws: [{ id: 'L1' }, { id: 'L2' }, { id: 'L3' }, { id: 'L4' }] });
    expect(readIndex(ctx)).toEqual({ version: 1, head: 'C0', chain: [] });
    expect(initState(ctx).ok).toBe(false);
    expect(tailLog(ctx).entries.map((e) => [e.mechanism, e.action, e.detail])).toEqual([
      ['csp', 'init', 'C0 (7 DEFs, 4 LAWS)'],
      ['csp', 'refuse', 'init: C0 exists (head C0)'],
    ]);
  });

  it('C0 -> P1 -> C1 -> P2 -> C2: applies, persists, logs, and rebuilds from C0 and the patches', () => {
    initState(ctx, context(seedBlock('projectDefs')));
    const r1 = applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF AUTH_MW = src/middleware/auth.ts', '~ DEF SRC := src/app/']));
    expect(r1).toMatchObject({ ok: true, applied: true, base: 'C0', target: 'C1' });
    const r2 = applyPatchText(ctx, 'PATCH P2\nBASE C1\n- DEF LIB\n~ DEF AUTH_MW := src/auth/index.ts\nAPPLY -> C2\n');
    expect(r2).toMatchObject({ ok: true, applied: true, target: 'C2', summary: { added: [], changed: ['AUTH_MW'], removed: ['LIB'] } });
    const p = cspPaths(ctx);
    expect(fs.readFileSync(path.join(p.patchesDir, 'P2.csp'), 'utf8')).toBe('PATCH P2\nBASE C1\n- DEF LIB\n~ DEF AUTH_MW := src/auth/index.ts\nAPPLY -> C2\n');
    expect(stateReport(ctx).chain).toBe('C0 -> P1 -> C1 -> P2 -> C2');
    expect(readIndex(ctx)?.chain).toEqual([
      { patch: 'P1', base: 'C0', target: 'C1', ts: '2026-06-11T12:00:00Z' },
      { patch: 'P2', base: 'C1', target: 'C2', ts: '2026-06-11T12:00:00Z' },
    ]);
    const c2 = readCheckpoint(ctx, 'C2');
    expect(c2.defs.find((d) => d.name === 'AUTH_MW')?.value).toBe('src/auth/index.ts');
    expect(c2.defs.some((d) => d.name === 'LIB')).toBe(false);
    // Any checkpoint is rebuilt from C0 and the patches, and equals its snapshot.
    for (const id of ['C0', 'C1', 'C2']) expect(rebuildCheckpoint(ctx, id)).toEqual(readCheckpoint(ctx, id));
    expect(verifyState(ctx)).toEqual({ ok: true, checked: ['C0', 'C1', 'C2'], problems: [] });
    expect(tailLog(ctx).entries.map((e) => e.detail)).toEqual(['C0 (7 DEFs, 0 LAWS)', 'P1 C0 -> C1 (+1 ~1 -0)', 'P2 C1 -> C2 (+0 ~1 -1)']);
  });

  it('refuses a stale BASE, a missing DEF and an existing DEF, and leaves the state as it was', () => {
    initState(ctx, context(seedBlock('projectDefs')));
    expect(applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 1'])).ok).toBe(true);
    const before = fs.readFileSync(cspPaths(ctx).index, 'utf8');
    const stale = applyPatchText(ctx, patchMsg('P2', 'C0', ['+ DEF Y = 2']));
    expect(stale).toMatchObject({ ok: false, errors: [{ line: 8, got: 'BASE C0', example: expect.stringContaining('BASE C1') }] });
    const missing = applyPatchText(ctx, patchMsg('P2', 'C1', ['~ DEF NOPE := 1', '- DEF GONE', '+ DEF X = 2']));
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.errors.map((e) => e.line)).toEqual([9, 10, 11]);
    expect(fs.readFileSync(cspPaths(ctx).index, 'utf8')).toBe(before);
    expect(fs.existsSync(path.join(cspPaths(ctx).patchesDir, 'P2.csp'))).toBe(false);
    expect(tailLog(ctx).entries.filter((e) => e.action === 'refuse')).toHaveLength(2);
  });

  it('treats re-applying the same patch as a no-op and refuses the id with other content', () => {
    initState(ctx);
    const text = patchMsg('P1', 'C0', ['+ DEF X = 1']);
    expect(applyPatchText(ctx, text)).toMatchObject({ ok: true, applied: true });
    expect(applyPatchText(ctx, text)).toMatchObject({ ok: true, applied: false, target: 'C1' });
    expect(applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 2']))).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/was applied already/) }] });
    expect(readIndex(ctx)?.head).toBe('C1');
  });

  it('refuses non-patches, invalid text and a missing C0 without writing anything', () => {
    expect(applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 1']))).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/heimdall csp init/) }] });
    initState(ctx);
    expect(applyPatchText(ctx, seedBlock('taskAssignment'))).toMatchObject({ ok: false, errors: [{ got: 'a TASK message' }] });
    expect(applyPatchText(ctx, 'PATCH P1\nBASE C0\nAPPLY -> C1\n').ok).toBe(false);
    expect(applyPatchText(ctx, 'PATCH p/../x\nBASE C0\n+ DEF X = 1\nAPPLY -> C1\n')).toMatchObject({ ok: false, errors: [{ expected: expect.stringMatching(/file name/) }] });
    expect(readIndex(ctx)?.head).toBe('C0');
  });

  it('another process continues from the files alone (a fresh context on the same root)', () => {
    initState(ctx, context(seedBlock('projectDefs')));
    applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 1']));
    const other = makeCtx(root);
    expect(applyPatchText(other, patchMsg('P2', 'C1', ['~ DEF X := 2']))).toMatchObject({ ok: true, target: 'C2' });
    expect(readCheckpoint(ctx, 'C2').defs.find((d) => d.name === 'X')?.value).toBe('2');
  });

  it('rebuilds a checkpoint whose snapshot was deleted, and verify reports it', () => {
    initState(ctx, context(seedBlock('projectDefs')));
    applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 1']));
    applyPatchText(ctx, patchMsg('P2', 'C1', ['- DEF SRC']));
    const c2 = readCheckpoint(ctx, 'C2');
    fs.rmSync(path.join(cspPaths(ctx).checkpointsDir, 'C2.json'));
    fs.rmSync(path.join(cspPaths(ctx).checkpointsDir, 'C1.json'));
    expect(readCheckpoint(ctx, 'C2')).toEqual(c2);
    const v = verifyState(ctx);
    expect(v.ok).toBe(false);
    expect(v.problems).toHaveLength(2);
    // And the next apply continues from the rebuilt head.
    expect(applyPatchText(ctx, patchMsg('P3', 'C2', ['+ DEF SRC = again/'])).ok).toBe(true);
  });

  it('detects a tampered snapshot and a damaged index without overwriting them', () => {
    initState(ctx, context(seedBlock('projectDefs')));
    applyPatchText(ctx, patchMsg('P1', 'C0', ['+ DEF X = 1']));
    const c1 = path.join(cspPaths(ctx).checkpointsDir, 'C1.json');
    const j = JSON.parse(fs.readFileSync(c1, 'utf8'));
    j.defs.X = 'tampered';
    fs.writeFileSync(c1, JSON.stringify(j));
    expect(verifyState(ctx).problems[0]).toMatch(/C1.json differs from the rebuild/);
    fs.writeFileSync(cspPaths(ctx).index, '{"version":1,');
    expect(() => applyPatchText(ctx, patchMsg('P2', 'C1', ['+ DEF Y = 1']))).toThrow(/index.json is not valid JSON at line 1/);
    expect(fs.readFileSync(cspPaths(ctx).index, 'utf8')).toBe('{"version":1,');
    expect(() => readCheckpoint(ctx, 'C9')).toThrow();
    fs.writeFileSync(cspPaths(ctx).index, 'null');
    expect(() => readIndex(ctx)).toThrow(/not a CSP index file/);
    fs.writeFileSync(c1, 'null');
    fs.writeFileSync(cspPaths(ctx).index, JSON.stringify({ version: 1, head: 'C1', chain: [{ patch: 'P1', base: 'C0', target: 'C1', ts: 'x' }] }));
    expect(() => readCheckpoint(ctx, 'C1')).toThrow(/C1.json is not a CSP checkpoint file/);
  });
});
