/**
 * `heimdall csp ...` end to end: in process through main() with an in-memory Io, and through the
 * real bin/heimdall (the bundle `node scripts/build-cli.mjs` writes to dist/, which `npm test`
 * builds before the suites run).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main.js';
import { memoryIo } from '../../cli/io.js';
import { makeCtx } from '../context.js';
import { tailLog } from '../log/protocolLog.js';
import { fixedClock } from '../ports.js';
import { seedBlock } from './fixtures/seed-examples.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let root: string;
let work: string;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'csp-cli-'));
  root = path.join(work, '.planning');
  fs.mkdirSync(root); // an empty tree: the CLI works in one and never creates one
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

async function run(args: string[], stdin = '') {
  const io = memoryIo(stdin);
  const code = await main('heimdall', ['csp', ...args], io, () => makeCtx(root, { clock: fixedClock(Date.UTC(2026, 5, 11, 12, 0, 0)) }));
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

function file(name: string, text: string): string {
  const f = path.join(work, name);
  fs.writeFileSync(f, text);
  return f;
}

describe('heimdall csp (in process)', () => {
  it('parse prints the document; format turns it back into the same text', async () => {
    const parsed = await run(['parse', '--json'], seedBlock('taskAssignment'));
    expect(parsed.code).toBe(0);
    const result = JSON.parse(parsed.out);
    expect(result).toMatchObject({ ok: true, message: { kind: 'message', from: 'MAIN', body: { intent: 'TASK', id: 'T001' } } });
    const formatted = await run(['format'], parsed.out);
    expect(formatted).toMatchObject({ code: 0, out: seedBlock('taskAssignment').replace(/\n$/, '') });
    const pretty = await run(['parse', file('r.csp', seedBlock('taskResult'))]);
    expect(JSON.parse(pretty.out)).toMatchObject({ body: { intent: 'RESULT', status: 'OK' } });
  });

  it('parse refuses invalid text with line, expectation and example on stderr (exit 1)', async () => {
    const r = await run(['parse'], seedBlock('taskAssignment').replace('TO CODE_EXP\n', ''));
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain('line 3: expected line 3 of a message: TO <');
    expect(r.err).toContain('e.g. TO CODE_EXP');
    const j = await run(['parse', '--json'], 'hello');
    expect(j.code).toBe(1);
    expect(JSON.parse(j.out)).toMatchObject({ ok: false, errors: [{ line: 1, got: '"hello"' }] });
  });

  it('format refuses bad JSON and unknown keys', async () => {
    expect((await run(['format'], '{oops')).code).toBe(1);
    const r = await run(['format', '--json'], JSON.stringify({ kind: 'body', body: { intent: 'TASK', id: 'T1', extra: 1 } }));
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).errors[0].expected).toMatch(/Unrecognized key: "extra"/);
  });

  it('validate shows the checklist', async () => {
    const good = await run(['validate'], seedBlock('errorResponse'));
    expect(good.code).toBe(0);
    expect(good.out.split('\n')).toEqual(['[x] CSP/1 header', '[x] FROM/TO agents', '[x] CTX reference', '[x] INTENT type', '[x] Matching body block', 'valid CSP/1 message']);
    const bad = await run(['validate', '--json'], seedBlock('errorResponse').replace('CTX C0', 'CTX'));
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toMatchObject({ valid: false, checklist: [{ ok: true }, { ok: true }, { ok: false }, { ok: true }, { ok: true }], errors: [{ line: 4, check: 'CTX reference' }] });
    expect((await run(['validate'], seedBlock('projectLaws'))).code).toBe(1);
    expect((await run(['validate', '--any'], seedBlock('projectLaws'))).code).toBe(0);
  });

  it('init, apply, state: C0 -> P1 -> C1, refusals exit 1, every mutation is logged', async () => {
    expect(await run(['init', file('defs.csp', seedBlock('projectDefs'))])).toMatchObject({ code: 0, out: 'C0: 7 DEFs, 0 LAWS' });
    const patch = 'CSP/1\nFROM MAIN\nTO ALL\nCTX C0\nINTENT PATCH\n\nPATCH P1\nBASE C0\n+ DEF AUTH_MW = src/middleware/auth.ts\n~ DEF SRC := src/app/\n- DEF LIB\nAPPLY -> C1\n';
    expect(await run(['apply'], patch)).toMatchObject({ code: 0, out: 'P1: C0 -> C1 (+1 ~1 -1)' });
    expect(await run(['apply'], patch)).toMatchObject({ code: 0, out: 'P1 was already applied: C0 -> C1 (nothing changed)' });
    const stale = await run(['apply'], patch.replace(/P1/g, 'P2'));
    expect(stale.code).toBe(1);
    expect(stale.err).toContain('line 8: expected BASE C1');
    const missing = await run(['apply', '--json'], 'PATCH P2\nBASE C1\n~ DEF LIB := lib2/\nAPPLY -> C2\n');
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.out).errors[0]).toMatchObject({ line: 3, example: '+ DEF LIB = lib2/' });
    const state = await run(['state']);
    expect(state.code).toBe(0);
    expect(state.out.split('\n')[0]).toBe('# C1 (head)   C0 -> P1 -> C1');
    expect(state.out).toContain('DEF AUTH_MW = src/middleware/auth.ts');
    expect(state.out).not.toContain('DEF LIB');
    const c0 = await run(['state', 'C0', '--json']);
    expect(JSON.parse(c0.out).checkpoint.defs).toContainEqual({ name: 'LIB', value: 'lib/' });
    expect(await run(['state', '--verify'])).toMatchObject({ code: 0, out: 'checked C0, C1' });
    expect((await run(['init', '--empty'])).code).toBe(1);
    expect(tailLog(makeCtx(root)).entries.map((e) => `${e.mechanism} ${e.action}`)).toEqual(['csp init', 'csp apply', 'csp refuse', 'csp refuse', 'csp refuse']);
  });

  it('to-json prints the typed message alone and lists unmapped fields on stderr; from-json goes back', async () => {
    const r = await run(['to-json', '--msg-id', 'm1'], seedBlock('taskAssignment'));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ type: 'task_claim', from: 'MAIN', msg_id: 'm1', task: 'T001', symbols: ['SRC', 'LIB'] });
    expect(r.err).toContain('unmapped REQ = "find auth middleware"');
    // The typed message passes `heimdall validate`.
    const io = memoryIo(r.out);
    expect(await main('heimdall', ['validate'], io, () => makeCtx(root))).toBe(0);
    const d = await run(['to-json', '--target', 'TASK_DISPATCH', '--token-budget', '4000', '--json'], seedBlock('taskAssignment'));
    expect(JSON.parse(d.out)).toMatchObject({ ok: true, target: 'TASK_DISPATCH', message: { protocol_version: '2.0', task: { token_budget: 4000 } } });
    const nobudget = await run(['to-json', '--target', 'TASK_DISPATCH'], seedBlock('taskAssignment'));
    expect(nobudget.code).toBe(1);
    expect(nobudget.err).toContain('e.g. --token-budget 4000');
    const tr = await run(['to-json', '--target', 'TASK_RESULT', '--tokens-spent', '12'], seedBlock('taskResult'));
    expect(JSON.parse(tr.out)).toMatchObject({ type: 'TASK_RESULT', agent_id: 'CODE_EXP', tokens_spent: 12 });
    const back = await run(['from-json', '--to', 'CODE_EXP', '--ctx', 'C0'], r.out);
    expect(back.code).toBe(0);
    expect(back.out).toBe('CSP/1\nFROM MAIN\nTO CODE_EXP\nCTX C0\nINTENT TASK\n\nTASK T001\nIN SRC,LIB');
    expect(back.err).toContain('unmapped /msg_id = "m1"');
    const missing = await run(['from-json'], r.out);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('pass --to <id>');
  });

  it('usage and environment errors exit 2', async () => {
    expect((await run([])).code).toBe(2);
    expect((await run(['frobnicate'])).code).toBe(2);
    expect((await run(['parse', '--target', 'x'], 'CSP/1')).code).toBe(2);
    expect((await run(['to-json', '--target', 'nope'], seedBlock('taskAssignment'))).code).toBe(2);
    expect((await run(['to-json', '--tokens-spent', 'many'], seedBlock('taskResult'))).code).toBe(2);
    const nofile = await run(['parse', path.join(work, 'missing.csp')]);
    expect(nofile.code).toBe(2);
    expect(nofile.err).toContain('no such file');
    fs.mkdirSync(path.join(root, 'csp'), { recursive: true });
    fs.writeFileSync(path.join(root, 'csp', 'index.json'), 'not json');
    expect((await run(['apply'], 'PATCH P1\nBASE C0\n- DEF X\nAPPLY -> C1\n')).code).toBe(2);
  });
});

describe('bin/heimdall csp (the built CLI in its own processes)', () => {
  const bin = path.join(repo, 'bin', 'heimdall');

  function cli(args: string[], input?: string) {
    const r = spawnSync(process.execPath, [bin, 'csp', ...args], { cwd: work, input, encoding: 'utf8', env: { ...process.env, HEIMDALL_PLANNING_DIR: root } });
    return { code: r.status, out: r.stdout, err: r.stderr };
  }

  it('is built (run `node scripts/build-cli.mjs` first)', () => {
    expect(fs.existsSync(path.join(repo, 'dist', 'cli', 'main.js'))).toBe(true);
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(help.stdout).toContain('csp');
  });

  it('parses, validates and round-trips a file and stdin', () => {
    const f = file('task.csp', seedBlock('taskAssignment'));
    const parsed = cli(['parse', f, '--json']);
    expect(parsed.code).toBe(0);
    const formatted = cli(['format'], parsed.out);
    expect(formatted).toMatchObject({ code: 0, out: seedBlock('taskAssignment') });
    expect(cli(['validate'], seedBlock('taskTpl'))).toMatchObject({ code: 1 });
    expect(cli(['validate', '-'], seedBlock('taskResult'))).toMatchObject({ code: 0 });
  });

  it('four processes apply competing patches on C0: exactly one wins, the state stays a chain', async () => {
    expect(cli(['init', '--empty']).code).toBe(0);
    const runs = ['P1', 'P2', 'P3', 'P4'].map(
      (id) =>
        new Promise<{ id: string; code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, [bin, 'csp', 'apply'], { cwd: work, env: { ...process.env, HEIMDALL_PLANNING_DIR: root } });
          let out = '';
          child.stdout.on('data', (d) => (out += d));
          child.on('close', (code) => resolve({ id, code, out }));
          child.stdin.end(`PATCH ${id}\nBASE C0\n+ DEF FROM_${id} = ${id}\nAPPLY -> C1\n`);
        }),
    );
    const results = await Promise.all(runs);
    const winners = results.filter((r) => r.code === 0);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.code === 1)).toHaveLength(3);
    const state = JSON.parse(cli(['state', '--json']).out);
    expect(state.chain).toBe(`C0 -> ${winners[0]?.id} -> C1`);
    expect(state.checkpoint.defs).toEqual([{ name: `FROM_${winners[0]?.id}`, value: winners[0]?.id }]);
    expect(cli(['state', '--verify']).code).toBe(0);
    // A later process continues from the persisted head.
    expect(cli(['apply'], 'PATCH P5\nBASE C1\n+ DEF NEXT = 1\nAPPLY -> C2\n')).toMatchObject({ code: 0, out: 'P5: C1 -> C2 (+1 ~0 -0)\n' });
  });
});
