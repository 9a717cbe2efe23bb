/**
 * Where the planning tree is, as a user meets it in their own repository: found like git finds
 * `.git` (walking up from the working directory), created by `heimdall init` only, and never
 * written by the demo when it holds state. Every program is the bundled one (bin/), started in a
 * subfolder of a temporary repository with no HEIMDALL_PLANNING_DIR; HEIMDALL_CEILING_DIRECTORIES
 * stops the walk at the temporary folder, so a `.planning/` elsewhere on the machine cannot leak in.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, hermeticEnv } from '../server/testing/fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
beforeAll(() => {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: run npm run build:cli first');
});

/** A temporary repository with src/deep/er in it, and no planning tree yet. */
function repo(): { top: string; deep: string } {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-repo-')));
  dirs.push(top);
  const deep = path.join(top, 'src/deep/er');
  fs.mkdirSync(deep, { recursive: true });
  fs.writeFileSync(path.join(top, 'report.json'), JSON.stringify({ gate_id: 'g', status: 'pass', wave: 1 }));
  fs.writeFileSync(path.join(top, 'INVARIANTS.md'), '- balances sum to zero\n');
  return { top, deep };
}

function run(cwd: string, name: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(path.join(BIN, name), args, {
    cwd,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: hermeticEnv({ HEIMDALL_CEILING_DIRECTORIES: fs.realpathSync(os.tmpdir()), ...opts.env }),
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Every `.planning` folder under `dir`. */
function trees(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const full = path.join(d, e.name);
      if (e.name === '.planning') out.push(path.relative(dir, full) || '.');
      else walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

/** Every file under `dir` with its bytes, for byte-for-byte comparisons. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.set(path.relative(dir, full), fs.readFileSync(full).toString('base64'));
    }
  };
  walk(dir);
  return out;
}

const message = '{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}';
const wire = JSON.stringify({ wire: '1.1', stream_id: 'task:T-1:attempt:1', type: 'task.available', sender: 'orchestrator', payload: { task_id: 'T-1', role: 'developer' } });
const initialize = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"cursor"}}}';
const readClaims = '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_claims","arguments":{}}}';

/** One command of every kind (each mechanism, the team ledger, herd, a2a, CSP, the wire, the MCP server), each touching the tree. */
const COMMANDS: Array<{ name: string; args: string[]; input?: string }> = [
  { name: 'heimdall-haid', args: ['root'] },
  { name: 'heimdall-resolve', args: ['set', 'F1', 'src/a.ts'] },
  { name: 'heimdall-resolve', args: ['F1'] },
  { name: 'heimdall-blackboard', args: ['set', 'dev_port', '5173'] },
  { name: 'heimdall-capsule', args: ['write', 'w1', '--what', 'engine', '--where', 'F1'] },
  { name: 'heimdall-brief', args: ['build', '--task', '3.2', '--spec', 'diff', '--symbols', 'F1', '--capsules', 'w1', '--invariants', 'INVARIANTS.md'] },
  { name: 'heimdall-ledger', args: ['log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '30', '--msg-id', 'b1'] },
  { name: 'heimdall-validate', args: [], input: message },
  { name: 'heimdall-gate', args: ['to-message', '--report', '../../../report.json', '--from', 'gate', '--msg-id', 'g1'] },
  { name: 'heimdall-claim', args: ['claim', '--surfaces', 'src/**', '--task', 'T-1'] },
  { name: 'heimdall', args: ['herd', 'checkin', '--as', 'mason.1@core', '--status', 'deep in src'] },
  { name: 'heimdall', args: ['a2a', 'peers'] },
  { name: 'heimdall', args: ['csp', 'init', '--empty'] },
  { name: 'heimdall', args: ['wire', 'emit'], input: wire },
  { name: 'heimdall-protocol', args: ['log', '3'] },
  { name: 'heimdall-ledger-mcp', args: [], input: `${initialize}\n${readClaims}\n` },
];

describe('the planning tree is found like git finds .git', () => {
  it('every kind of command run from a deep subfolder acts on the tree of the repository root, and makes no second tree', () => {
    const { top, deep } = repo();
    expect(run(top, 'heimdall', ['init']).code).toBe(0);
    const root = run(top, 'heimdall-haid', ['root']).stdout.trim();
    for (const c of COMMANDS) {
      const r = run(deep, c.name, c.args, { input: c.input });
      expect(r.code, `${c.name} ${c.args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(trees(top)).toEqual(['.planning']);
    expect(run(deep, 'heimdall-haid', ['root']).stdout.trim()).toBe(root);
    // Each command's state is in the root's tree, read back from yet another folder.
    const mid = path.join(top, 'src');
    expect(run(mid, 'heimdall-resolve', ['F1']).stdout).toBe('src/a.ts\n');
    expect(run(mid, 'heimdall-blackboard', ['get', 'dev_port']).stdout).toBe('5173\n');
    expect(JSON.parse(run(mid, 'heimdall-claim', ['list', '--json']).stdout).claims.map((c: { task: string }) => c.task)).toEqual(['T-1']);
    expect(JSON.parse(run(mid, 'heimdall', ['herd', 'status', '--json']).stdout).agents.map((a: { address: string }) => a.address)).toEqual(['mason.1@core']);
    expect(run(mid, 'heimdall', ['wire', 'tail', '1']).stdout).toContain('task.available');
    const log = fs.readFileSync(path.join(top, '.planning/protocol.log'), 'utf8');
    for (const m of ['resolve\tset', 'capsule\twrite', 'ledger\tlog', 'validate\taccept', 'gate\tto-message', 'claim\tclaim', 'herd\tcheckin', 'csp\tinit']) expect(log).toContain(`\t${m}\t`);
    // The MCP server found the same tree.
    expect(run(deep, 'heimdall-ledger-mcp', [], { input: `${initialize}\n` }).stderr).toContain(`planning root ${path.join(top, '.planning')}`);
  });

  it('HEIMDALL_PLANNING_DIR still overrides the walk', () => {
    const { top, deep } = repo();
    const other = path.join(top, 'elsewhere/.planning');
    fs.mkdirSync(other, { recursive: true });
    run(top, 'heimdall', ['init']);
    expect(run(deep, 'heimdall-resolve', ['set', 'X', 'y'], { env: { HEIMDALL_PLANNING_DIR: other } }).code).toBe(0);
    expect(fs.readFileSync(path.join(other, 'protocol/symbols.json'), 'utf8')).toContain('"X"');
    expect(run(deep, 'heimdall-resolve', ['X']).code).toBe(1); // not in the walked-to tree
  });

  it('no command but init creates a tree: each says so and how to make one (exit 2), and nothing is written', () => {
    const { top, deep } = repo();
    const before = snapshot(top);
    for (const c of COMMANDS) {
      const r = run(deep, c.name, c.args, { input: c.input });
      expect(r.code, `${c.name} ${c.args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/no planning tree: there is no \.planning\/ in .*src\/deep\/er or any folder above it\. Create one with `heimdall init`/);
    }
    // HEIMDALL_PLANNING_DIR at a folder that does not exist is no tree either.
    const named = run(deep, 'heimdall-resolve', ['set', 'X', 'y'], { env: { HEIMDALL_PLANNING_DIR: path.join(top, 'nope') } });
    expect(named).toMatchObject({ code: 2, stderr: expect.stringMatching(/no planning tree at .*nope \(HEIMDALL_PLANNING_DIR\): create it with `heimdall init`/) });
    expect(trees(top)).toEqual([]);
    expect(snapshot(top)).toEqual(before);
    // Commands that read no tree still work anywhere.
    expect(run(deep, 'heimdall', ['--help']).code).toBe(0);
    expect(run(deep, 'heimdall', ['csp', 'parse'], { input: 'DEF A = 1\n' }).code).toBe(0);

    // init creates it where it is run; heimdall-protocol init is the same command.
    const made = run(top, 'heimdall-protocol', ['init', '--json']);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ root: path.join(top, '.planning'), found_above: false });
    // Run again deeper inside, init checks the tree it finds instead of making a second one.
    const again = run(deep, 'heimdall', ['init']);
    expect(again.stdout).toContain(`planning root: ${path.join(top, '.planning')}`);
    expect(again.stdout).toContain('no second tree was made');
    expect(trees(top)).toEqual(['.planning']);
  });
});

describe('heimdall-protocol demo never writes into a workspace that holds state', () => {
  it('leaves an existing workspace byte for byte unchanged, runs in a folder of its own (printed), with the same figures every run', () => {
    const { top, deep } = repo();
    run(top, 'heimdall', ['init']);
    for (const c of COMMANDS.slice(0, 10)) run(deep, c.name, c.args, { input: c.input });
    const before = snapshot(path.join(top, '.planning'));
    const figures: string[] = [];
    for (let i = 0; i < 2; i++) {
      const r = run(deep, 'heimdall-protocol', ['demo']);
      expect(r.code, r.stderr).toBe(0);
      const m = /^demo workspace: (\S+) \(.*\.planning holds state \((.+)\), so the demo ran in a folder of its own/.exec(r.stdout);
      expect(m, r.stdout).not.toBeNull();
      const own = (m as RegExpExecArray)[1] as string;
      dirs.push(path.dirname(own));
      expect(own.startsWith(path.join(top, '.planning'))).toBe(false);
      // The demo's state is in its own folder.
      expect(JSON.parse(fs.readFileSync(path.join(own, 'protocol/symbols.json'), 'utf8')).symbols.F12).toBe('src/matching/engine.ts');
      figures.push(r.stdout.split('\n').filter((l) => l.startsWith('measured delta:')).join('\n'));
    }
    expect(snapshot(path.join(top, '.planning'))).toEqual(before);
    expect(figures[0]).toMatch(/^measured delta: orchestration: \d+ -> \d+ tokens \(-\d+%\)$/);
    expect(figures[1]).toBe(figures[0]);
    // Pointed at the workspace, it refuses and says how, changing nothing.
    const refused = run(deep, 'heimdall-protocol', ['demo', '--dir', path.join(top, '.planning')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/holds state .*give a missing or empty folder, a demo workspace, or leave out --dir/);
    expect(snapshot(path.join(top, '.planning'))).toEqual(before);
  });

  it('with no tree it runs in a folder of its own and creates none here; in a tree just made by init it runs in place', () => {
    const { top } = repo();
    const none = run(top, 'heimdall-protocol', ['demo', '--json']);
    expect(none.code, none.stderr).toBe(0);
    const j = JSON.parse(none.stdout);
    dirs.push(path.dirname(j.workspace));
    expect(j.own_workspace).toBe(true);
    expect(trees(top)).toEqual([]);
    run(top, 'heimdall', ['init']);
    const inPlace = JSON.parse(run(top, 'heimdall-protocol', ['demo', '--json']).stdout);
    expect(inPlace).toMatchObject({ workspace: path.join(top, '.planning'), own_workspace: false, pct: j.pct, delta: j.delta });
  });
});

describe('the CLI acts as the agent the environment names', () => {
  it('HEIMDALL_AGENT authors its writes in protocol.log; a plain call has no author; either name of the agent finds its claims', () => {
    const { top } = repo();
    run(top, 'heimdall', ['init']);
    const root = run(top, 'heimdall-haid', ['root']).stdout.trim();
    const env = { HEIMDALL_AGENT: 'claude-code.2' };
    expect(JSON.parse(run(top, 'heimdall-haid', ['whoami', '--json'], { env }).stdout)).toMatchObject({ haid: `${root}/claude-code.2`, address: 'claude-code.2@team', source: 'HEIMDALL_AGENT' });
    run(top, 'heimdall-resolve', ['set', 'A', 'a'], { env });
    run(top, 'heimdall-resolve', ['set', 'B', 'b']);
    const lines = fs.readFileSync(path.join(top, '.planning/protocol.log'), 'utf8').trimEnd().split('\n');
    expect(lines.find((l) => l.includes('\tresolve\tset\tA=a'))?.split('\t')[4]).toBe(`${root}/claude-code.2`);
    expect(lines.find((l) => l.includes('\tresolve\tset\tB=b'))?.split('\t')).toHaveLength(4);
    // Claims made as the agent; its herd address checks in as the same agent; the list shows both names.
    const c = JSON.parse(run(top, 'heimdall-claim', ['claim', '--surfaces', 'src/**', '--task', 'T', '--json'], { env }).stdout);
    expect(c).toMatchObject({ haid: `${root}/claude-code.2`, claim: { address: 'claude-code.2@team' } });
    expect(JSON.parse(run(top, 'heimdall', ['herd', 'checkin', '--status', 'up', '--json'], { env }).stdout).agent).toBe('claude-code.2@team');
    expect(run(top, 'heimdall-claim', ['release', '--as', 'claude-code.2@team']).stdout).toContain(`held by ${root}/claude-code.2`);
    // A bad name is refused before anything is written.
    const bad = run(top, 'heimdall-resolve', ['set', 'C', 'c'], { env: { HEIMDALL_AGENT: 'h-zzzzzzzz/x' } });
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/\$HEIMDALL_AGENT h-zzzzzzzz\/x is not part of this planning tree/) });
    expect(fs.readFileSync(path.join(top, '.planning/protocol.log'), 'utf8')).not.toContain('C=c');
  });
});

describe('a demo workspace takes more demo runs; a changed one does not', () => {
  it('runs again in place in the tree it made, adding a run, and refuses once a demo value was edited', () => {
    const { top } = repo();
    run(top, 'heimdall', ['init']);
    const first = run(top, 'heimdall-protocol', ['demo', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).own_workspace).toBe(false);
    const second = run(top, 'heimdall-protocol', ['demo', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ own_workspace: false, workspace: path.join(top, '.planning') });
    const runs = fs.readdirSync(path.join(top, '.planning/protocol/runs'));
    expect(runs).toHaveLength(2);
    // A person edits a value the demo wrote: the tree is theirs now, and the demo leaves it alone.
    expect(run(top, 'heimdall-resolve', ['set', 'F12', 'src/mine.ts']).code).toBe(0);
    const before = snapshot(path.join(top, '.planning'));
    const third = run(top, 'heimdall-protocol', ['demo']);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/is a demo workspace whose symbol F12 was changed to "src\/mine.ts"/);
    expect(snapshot(path.join(top, '.planning'))).toEqual(before);
    const dirOwn = /^demo workspace: (\S+)/.exec(third.stdout)?.[1];
    if (dirOwn) dirs.push(path.dirname(dirOwn));
  });
});
