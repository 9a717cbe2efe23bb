/**
 * `heimdall gsd edit-shared FILE -- CMD`: two agents' read-modify-writes of STATE.md, through the
 * real bin/heimdall. The interleaving is forced, not hoped for: each edit (e2e/support/rmw.mjs)
 * reads, says so with a file, and writes only when the test creates its "go" file. Without the
 * wrapper both read before either writes, and one line is lost; with it the second agent is seen
 * waiting (its own stderr says so) and has not read while the first holds the file, so both lines
 * survive. No assertion depends on how fast anything runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, hermeticEnv, runBin, until } from '../server/testing/fixtures.js';

const RMW = path.join(REPO_ROOT, 'e2e/support/rmw.mjs');
let project: string;
let planning: string;
let gate: string;
let state: string;
const children: ChildProcess[] = [];

beforeEach(() => {
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-shared-'));
  planning = path.join(project, '.planning');
  gate = path.join(project, 'gate');
  fs.mkdirSync(planning);
  fs.mkdirSync(gate);
  state = path.join(planning, 'STATE.md');
  fs.writeFileSync(state, '# State\n');
});

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(project, { recursive: true, force: true });
});

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(cmd: string, args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(cmd, args, { cwd: project, env: hermeticEnv({ HEIMDALL_PLANNING_DIR: planning, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { child, out: () => out, err: () => err, exit };
}

/** An agent appending LINE to STATE.md through the wrapper. */
function wrapped(agent: string, name: string, line: string, extra: string[] = []): Proc {
  return start(path.join(BIN, 'heimdall'), ['gsd', 'edit-shared', '.planning/STATE.md', ...extra, '--', process.execPath, RMW, state, line, gate, name], { HEIMDALL_AGENT: agent });
}

const has = (f: string) => fs.existsSync(path.join(gate, f));
const go = (name: string) => fs.writeFileSync(path.join(gate, `${name}.go`), '');

function activeClaims(): { task: string; status: string }[] {
  const r = runBin('heimdall-claim', ['list', '--json'], { planning });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).claims.filter((c: { status: string }) => c.status === 'active');
}

describe('edit-shared', () => {
  it('without the wrapper, two forced-interleaved read-modify-writes lose one line', async () => {
    const a = start(process.execPath, [RMW, state, 'line from A', gate, 'A']);
    const b = start(process.execPath, [RMW, state, 'line from B', gate, 'B']);
    // Both have read the same STATE.md before either writes.
    await until(() => has('A.read') && has('B.read'));
    go('A');
    expect((await a.exit).code).toBe(0);
    go('B');
    expect((await b.exit).code).toBe(0);
    const text = fs.readFileSync(state, 'utf8');
    expect(text).toBe('# State\nline from B\n');
    expect(text).not.toContain('line from A');
  });

  it('with it, the second agent waits for the first (it has not even read) and both lines survive', async () => {
    const procs = { A: wrapped('alice.1@core', 'A', 'line from A'), B: wrapped('bob.1@core', 'B', 'line from B') };
    // Whoever got the claim first has read; the other must be refused and waiting, not reading.
    await until(() => has('A.read') || has('B.read'));
    const [first, second] = has('A.read') ? (['A', 'B'] as const) : (['B', 'A'] as const);
    const holder = first === 'A' ? 'alice.1' : 'bob.1';
    await until(() => /waiting for \.planning\/STATE\.md: h-[0-9a-f]+\/core\/(alice|bob)\.1 holds it for task shared:\.planning\/STATE\.md/.test(procs[second].err()));
    expect(procs[second].err()).toContain(`/core/${holder} holds it`);
    expect(has(`${second}.read`)).toBe(false);
    expect(activeClaims().map((c) => c.task)).toEqual(['shared:.planning/STATE.md']);
    go(first);
    expect((await procs[first].exit).code).toBe(0);
    // Now the second gets the file, reads the first one's line, and writes after it.
    await until(() => has(`${second}.read`));
    expect(fs.readFileSync(path.join(gate, `${second}.read`), 'utf8')).toContain(`line from ${first}`);
    go(second);
    expect((await procs[second].exit).code).toBe(0);
    const text = fs.readFileSync(state, 'utf8');
    expect(text).toBe(`# State\nline from ${first}\nline from ${second}\n`);
    expect(activeClaims()).toEqual([]);
  });

  it('refuses at once with --wait-seconds 0 while another agent holds the file, and never runs the command', async () => {
    const a = wrapped('alice.1@core', 'A', 'line from A');
    await until(() => has('A.read'));
    const b = runBin('heimdall', ['gsd', 'edit-shared', state, '--wait-seconds', '0', '--', process.execPath, RMW, state, 'line from B', gate, 'B'], {
      planning,
      env: { HEIMDALL_AGENT: 'bob.1@core' },
    });
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/\.planning\/STATE\.md is being edited: h-[0-9a-f]+\/core\/alice\.1 holds \.planning\/STATE\.md for task shared:\.planning\/STATE\.md/);
    expect(has('B.read')).toBe(false);
    go('A');
    expect((await a.exit).code).toBe(0);
    expect(fs.readFileSync(state, 'utf8')).toBe('# State\nline from A\n');
  });

  it('releases the file when the command fails, is killed, or the wrapper is stopped; exits with the command\'s status', async () => {
    const fail = runBin('heimdall', ['gsd', 'edit-shared', state, '--', process.execPath, '-e', 'process.exit(3)'], { planning, env: { HEIMDALL_AGENT: 'alice.1@core' } });
    expect(fail.code).toBe(3);
    expect(activeClaims()).toEqual([]);

    const pidFile = path.join(gate, 'pid');
    const hang = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`;
    const killed = start(path.join(BIN, 'heimdall'), ['gsd', 'edit-shared', '.planning/STATE.md', '--', process.execPath, '-e', hang], { HEIMDALL_AGENT: 'alice.1@core' });
    await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '');
    expect(activeClaims()).toHaveLength(1);
    process.kill(Number(fs.readFileSync(pidFile, 'utf8')), 'SIGKILL');
    expect((await killed.exit).code).toBe(128 + 9);
    expect(activeClaims()).toEqual([]);

    fs.rmSync(pidFile);
    const stopped = start(path.join(BIN, 'heimdall'), ['gsd', 'edit-shared', '.planning/STATE.md', '--', process.execPath, '-e', hang], { HEIMDALL_AGENT: 'alice.1@core' });
    await until(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8') !== '');
    stopped.child.kill('SIGTERM');
    expect((await stopped.exit).code).toBe(128 + 15);
    expect(activeClaims()).toEqual([]);
  });

  it('says how to call it', () => {
    const none = runBin('heimdall', ['gsd', 'edit-shared', '.planning/STATE.md'], { planning });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give the command after "--"/);
    const outside = runBin('heimdall', ['gsd', 'edit-shared', '/etc/hosts', '--', 'true'], { planning });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/is not a file inside the project/);
  });
});
