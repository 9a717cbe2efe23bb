/**
 * The spec's own examples (heimdall-core-spec §H-4), typed verbatim against the real bundled
 * executables in an isolated planning tree, with their documented outputs and exit codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBin, tmpDir, tmpPlanning } from '../server/testing/fixtures.js';

let planning: string;
const run = (name: string, args: string[], input?: string) => runBin(name, args, { planning, input });

beforeAll(() => {
  planning = tmpPlanning();
});

describe('executables', () => {
  it('declares every spec bin in package.json and ships an executable shim for it', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    for (const name of ['heimdall', 'heimdall-protocol', 'heimdall-validate', 'heimdall-resolve', 'heimdall-capsule', 'heimdall-brief', 'heimdall-blackboard', 'heimdall-ledger', 'heimdall-gate']) {
      expect(pkg.bin[name], name).toBe(`bin/${name}`);
      fs.accessSync(path.join(REPO_ROOT, 'bin', name), fs.constants.X_OK);
    }
  });

  it('prints help and documents exit codes; an unknown mechanism is a usage error (2)', () => {
    const help = run('heimdall', ['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/exit codes: 0 ok, 1 a negative answer/);
    const bad = run('heimdall', ['frobnicate']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown mechanism "frobnicate"/);
    const sub = run('heimdall-capsule', ['--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toMatch(/^usage: heimdall-capsule write ID --what TEXT/);
    const flag = run('heimdall-resolve', ['--bogus', 'x']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/unknown option --bogus/);
    expect(flag.stderr).toMatch(/usage: heimdall-resolve/);
  });
});

describe('the spec, verbatim', () => {
  it('init creates the tree', () => {
    const r = run('heimdall-protocol', ['init']);
    expect(r.code).toBe(0);
    expect(fs.existsSync(path.join(planning, 'protocol/message-schema.json'))).toBe(true);
  });

  it('validate: the task_result example is valid', () => {
    const r = run('heimdall-validate', [], '{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}\n');
    expect(r.stdout.trim()).toBe('{"valid":true,"errors":[]}');
    expect(r.code).toBe(0);
  });

  it('validate: an invalid message lists every error and exits 1', () => {
    const r = run('heimdall-validate', [], '{"type":"task_result","from":"coder","status":"ok"}');
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.valid).toBe(false);
    expect(out.errors.map((e: { path: string }) => e.path).sort()).toEqual(['/msg_id', '/status', '/task']);
  });

  it('validate --on-receipt: one retry, then escalation with a protocol.log line and exit 1', () => {
    const good = '{"type":"question","from":"a","msg_id":"q1","question":"which port?"}';
    const bad = '{"type":"question","from":"a"}';
    const retried = run('heimdall-validate', ['--on-receipt'], `${good}\n${bad}\n${good}\n`);
    expect(retried.code).toBe(0);
    expect(retried.stdout.trim().split('\n').map((l) => JSON.parse(l).outcome)).toEqual(['accepted', 'retry', 'accepted']);
    const escalated = run('heimdall-validate', ['--on-receipt'], `${bad}\nnot json\n${good}\n`);
    expect(escalated.code).toBe(1);
    expect(escalated.stderr).toMatch(/escalated at line 2/);
    expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toMatch(/\tvalidate\tescalate\tline 2: second invalid message/);
  });

  it('resolve: set, forward, reverse, list', () => {
    expect(run('heimdall-resolve', ['set', 'F12', 'src/matching/engine.ts']).code).toBe(0);
    expect(run('heimdall-resolve', ['set', 'C3', 'balances sum to zero']).code).toBe(0);
    expect(run('heimdall-resolve', ['F12']).stdout).toBe('src/matching/engine.ts\n');
    expect(run('heimdall-resolve', ['C3']).stdout).toBe('balances sum to zero\n');
    expect(run('heimdall-resolve', ['--reverse', 'src/matching/engine.ts']).stdout).toBe('F12\n');
    expect(run('heimdall-resolve', ['list']).stdout).toBe('C3\tbalances sum to zero\nF12\tsrc/matching/engine.ts\n');
    const missing = run('heimdall-resolve', ['F99']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no symbol F99/);
    expect(JSON.parse(run('heimdall-resolve', ['F12', '--json']).stdout)).toEqual({ id: 'F12', value: 'src/matching/engine.ts' });
  });

  it('resolve: a value with a tab or newline is refused and cannot break the table or the log', () => {
    const r = run('heimdall-resolve', ['set', 'X1', 'a\tb\nc']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/without tabs, newlines/);
    for (const line of run('heimdall-resolve', ['list']).stdout.trim().split('\n')) expect(line.split('\t')).toHaveLength(2);
    for (const line of fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8').trim().split('\n')) expect(line.split('\t').length).toBe(4);
  });

  it('capsules: write, hydrate (closure only), deps', () => {
    expect(run('heimdall-capsule', ['write', 'w1', '--what', 'added LOB engine', '--where', 'F12', '--gotcha', 'seed must be fixed']).code).toBe(0);
    expect(run('heimdall-capsule', ['write', 'w2', '--what', 'added book diff', '--where', 'F13', '--depends', 'w1']).code).toBe(0);
    expect(run('heimdall-capsule', ['write', 'w3', '--what', 'unrelated docs', '--where', 'README']).code).toBe(0);
    const h = run('heimdall-capsule', ['hydrate', 'w2']);
    expect(h.stdout).toContain('# w1');
    expect(h.stdout).toContain('# w2');
    expect(h.stdout).not.toContain('w3');
    expect(h.stdout.indexOf('# w1')).toBeLessThan(h.stdout.indexOf('# w2'));
    expect(run('heimdall-capsule', ['deps', 'w2']).stdout).toBe('w1\nw2\n');
  });

  it('capsules: an 11-line capsule is refused (exit 1) with the reason; a path id is refused', () => {
    const what = Array.from({ length: 9 }, (_, i) => `line ${i}`).join('\n');
    const r = run('heimdall-capsule', ['write', 'big', '--what', what, '--where', 'F1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/would be 11 lines; the cap is 10/);
    expect(fs.existsSync(path.join(planning, 'protocol/capsules/big.md'))).toBe(false);
    const p = run('heimdall-capsule', ['write', '../x', '--what', 'a', '--where', 'b']);
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/invalid capsule id "\.\.\/x"/);
    expect(fs.existsSync(path.join(planning, 'protocol/x.md'))).toBe(false);
    const missing = run('heimdall-capsule', ['write', 'w9', '--where', 'b']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--what is required/);
  });

  it('brief: build with the spec flags; a planted PLAN body never appears; cost goes to the ledger', () => {
    fs.writeFileSync(path.join(planning, 'PLAN-3.md'), 'PLANTED-PLAN-BODY');
    const r = run('heimdall-brief', ['build', '--task', '3.2', '--spec', 'implement book diff', '--symbols', 'F12,C3', '--capsules', 'w2', '--invariants', 'INVARIANTS.md']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('F12\tsrc/matching/engine.ts');
    expect(r.stdout).toContain('INVARIANTS see INVARIANTS.md');
    expect(r.stdout).not.toContain('PLANTED-PLAN-BODY');
    expect(r.stdout).not.toContain('unrelated docs');
    const ledger = fs.readFileSync(path.join(planning, 'protocol/ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger.at(-1)).toMatchObject({ role: 'orchestration', kind: 'delta_brief', msg_id: 'brief-3.2', source: 'tokenizer' });
  });

  it('blackboard: set, get, list, delete', () => {
    expect(run('heimdall-blackboard', ['set', 'dev_port', '5173']).code).toBe(0);
    expect(run('heimdall-blackboard', ['set', 'node_version', '20.11.0']).code).toBe(0);
    expect(run('heimdall-blackboard', ['get', 'dev_port']).stdout).toBe('5173\n');
    expect(run('heimdall-blackboard', ['list']).stdout).toBe('dev_port\t5173\nnode_version\t20.11.0\n');
    expect(run('heimdall-blackboard', ['delete', 'node_version']).code).toBe(0);
    expect(run('heimdall-blackboard', ['get', 'node_version']).code).toBe(1);
  });

  it('ledger: the spec delta line, and a --json form naming the tokenizer', () => {
    const dir = tmpPlanning();
    const r = (args: string[], input?: string) => runBin('heimdall-ledger', args, { planning: dir, input });
    expect(r(['log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '3300', '--msg-id', 'b1']).code).toBe(0);
    expect(r(['log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '7950', '--msg-id', 'b2']).code).toBe(0);
    expect(r(['baseline', '--role', 'orchestration', '--tokens', '41000']).code).toBe(0);
    expect(r(['delta', '--role', 'orchestration']).stdout).toBe('orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)\n');
    const j = JSON.parse(r(['delta', '--role', 'orchestration', '--json']).stdout);
    expect(j).toMatchObject({ baseline: 41000, measured: 11250, pct: -73 });
    expect(j.tokenizer).toMatch(/o200k_base/);
    const counted = JSON.parse(r(['log', '--role', 'coder', '--kind', 'task_result', '--msg-id', 'm1', '--json'], 'the text to count').stdout);
    expect(counted).toMatchObject({ source: 'tokenizer', tokens: 4 });
    const rep = JSON.parse(r(['report', '--json']).stdout);
    expect(rep.roles.map((x: { role: string }) => x.role)).toEqual(['coder', 'orchestration']);
    expect(r(['log', '--role', 'o', '--kind', 'k', '--msg-id', 'x', '--tokens', 'many']).code).toBe(2);
  });

  it('gate: to-message emits a valid, reference-only gate_report', () => {
    const report = path.join(tmpDir(), 'report.json');
    fs.writeFileSync(report, JSON.stringify({ gate_id: 'exchange-lob', status: 'fail', wave: 3, metrics: { body: 'INLINE-BODY' } }));
    const g = run('heimdall-gate', ['to-message', '--report', report, '--from', 'sentinel-bloat', '--msg-id', 'g1']);
    expect(g.code).toBe(0);
    expect(g.stdout).not.toContain('INLINE-BODY');
    const v = run('heimdall-validate', [], g.stdout);
    expect(v.stdout.trim()).toBe('{"valid":true,"errors":[]}');
  });

  it('log: every action appended one tab-separated line; log N tails', () => {
    const lines = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8').trim().split('\n');
    for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\t[a-z-]+\t[a-z-]+\t/);
    const tail = run('heimdall-protocol', ['log', '3']).stdout.trim().split('\n');
    expect(tail).toEqual(lines.slice(-3));
    expect(run('heimdall-protocol', ['log', 'x']).code).toBe(2);
  });

  it('heimdall-protocol dispatches to every mechanism', () => {
    expect(run('heimdall-protocol', ['resolve', 'F12']).stdout).toBe('src/matching/engine.ts\n');
    expect(run('heimdall', ['blackboard', 'get', 'dev_port']).stdout).toBe('5173\n');
  });
});

describe('demo', () => {
  it('runs one wave twice, measures both with the tokenizer and prints the summary card', () => {
    const dir = tmpPlanning();
    const r = runBin('heimdall-protocol', ['demo'], { planning: dir });
    expect(r.code).toBe(0);
    const m = /v1 orchestration \(briefing 3 spawns, verbatim\): (\d+) tokens \(baseline\)\nv2 orchestration \(symbol table \+ 3 delta briefs \+ 3 typed results\): (\d+) tokens\nmeasured delta: orchestration: (\d+) -> (\d+) tokens \(-(\d+)%\)\nThe summary-card line: orchestration: (\d+)k → (\d+) tokens, measured\./.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const [, v1, v2, d1, d2, pct, k, card2] = (m as RegExpExecArray).map(Number);
    expect(d1).toBe(v1);
    expect(d2).toBe(v2);
    expect(card2).toBe(v2);
    expect(k).toBe(Math.round((v1 as number) / 1000));
    expect(pct).toBe(Math.round((((v1 as number) - (v2 as number)) / (v1 as number)) * 100));
    // The ledger holds the measured figure; the demo's typed results are valid messages.
    const delta = runBin('heimdall-ledger', ['delta', '--role', 'orchestration'], { planning: dir });
    expect(delta.stdout).toContain(`-> ${v2} tokens`);
  });

  it('gives different numbers on a different fixture, and --show prints the briefs', () => {
    const fixture = path.join(tmpDir(), 'fixture');
    fs.cpSync(path.join(REPO_ROOT, 'server/core/demo/fixture/exchange-lob'), fixture, { recursive: true });
    fs.appendFileSync(path.join(fixture, 'PLAN.md'), `\n## Appendix\n${'The settlement ledger must reconcile nightly against the bank statement. '.repeat(40)}\n`);
    const a = runBin('heimdall-protocol', ['demo', '--json'], { planning: tmpPlanning() });
    const b = runBin('heimdall-protocol', ['demo', '--json', '--fixture', fixture], { planning: tmpPlanning() });
    const ja = JSON.parse(a.stdout);
    const jb = JSON.parse(b.stdout);
    expect(jb.v1.total).toBeGreaterThan(ja.v1.total);
    expect(jb.v2.total).toBe(ja.v2.total); // v2 never carries the plan
    const show = runBin('heimdall-protocol', ['demo', '--show'], { planning: tmpPlanning() });
    expect(show.stdout).toContain('===== v1 brief 3.1');
    expect(show.stdout).toContain('===== v2 brief 3.2');
    expect(show.stdout).toContain('TASK 3.2');
  });
});
