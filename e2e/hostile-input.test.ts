/**
 * Hostile names and hostile input through the real bundled executables (issue 15, items 2 and 3):
 * built-in property names as ids, a FIFO, /dev/zero, a folder in place of a state file, JSON nested
 * 100,000 deep, an endless stdin, a number past 2^53. Each gets a clear error (or ordinary
 * treatment), never a hang, a stack trace or a damaged tree.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { BIN, runBin, tmpDir } from '../server/testing/fixtures.js';

let planning: string;
let dir: string;
const run = (name: string, args: string[], input?: string, env: Record<string, string> = {}) => runBin(name, args, { planning, input, env });

beforeEach(() => {
  dir = tmpDir();
  planning = path.join(dir, '.planning');
  expect(run('heimdall-protocol', ['init']).code).toBe(0);
});

const NAMES = [...new Set([...Object.getOwnPropertyNames(Object.prototype), ...Object.getOwnPropertyNames(Function.prototype), ...Object.getOwnPropertyNames(Function), '__proto__', 'prototype'])].sort();

function noStack(r: { stderr: string }): void {
  expect(r.stderr).not.toMatch(/\n\s+at .*\(.*:\d+:\d+\)|internal error|RangeError|TypeError/);
}

describe('built-in property names through bin/', () => {
  it('heimdall-haid retire constructor is not_found and haids.json stays readable', () => {
    const r = run('heimdall-haid', ['retire', 'constructor']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HAID constructor is not registered/);
    expect(run('heimdall-haid', ['list', '--json']).code).toBe(0);
  });

  it('heimdall-resolve toString is "no symbol", not a native function', () => {
    const r = run('heimdall-resolve', ['toString']);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/native code/);
    expect(r.stderr).toMatch(/no symbol toString/);
  });

  it('a herd agent named constructor checks in, is sent to, and is listed', () => {
    expect(run('heimdall', ['herd', 'checkin', '--as', 'constructor.1@core', '--status', 'here']).code).toBe(0);
    const s = run('heimdall', ['herd', 'send', '--as', 'mason.1@core', '--to', 'constructor.1@core', '--type', 'inform', '--body', 'hi']);
    expect(s.code, s.stderr).toBe(0);
    const st = run('heimdall', ['herd', 'status', '--json']);
    expect(st.code, st.stderr).toBe(0);
    expect(JSON.parse(st.stdout).agents.map((a: { address: string }) => a.address)).toContain('constructor.1@core');
  });

  it(`every one of ${NAMES.length} built-in names as a symbol id: stored as data or refused, and the table stays readable`, () => {
    const stored: Record<string, string> = {};
    for (const name of NAMES) {
      const set = run('heimdall-resolve', ['set', name, `v-${name}`]);
      noStack(set);
      if (set.code === 0) {
        stored[name] = `v-${name}`;
        const get = run('heimdall-resolve', [name]);
        expect(get.code).toBe(0);
        expect(get.stdout.trim()).toBe(`v-${name}`);
      } else {
        expect(set.code).toBe(1);
        expect(set.stderr).toMatch(/invalid symbol id/);
      }
    }
    const list = run('heimdall-resolve', ['list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).symbols).toEqual(stored);
    expect(Object.keys(stored)).toEqual(expect.arrayContaining(['constructor', 'toString', 'valueOf', 'hasOwnProperty']));
  });
});

describe('bounded input through bin/', () => {
  it('--report /dev/zero and a FIFO are refused at once; a missing file is named', () => {
    const z = run('heimdall-gate', ['to-message', '--report', '/dev/zero', '--from', 'a', '--msg-id', 'm1']);
    expect(z.code).toBe(2);
    expect(z.stderr).toBe('heimdall-gate: cannot read --report /dev/zero: it is a character device, expected a regular file\n');
    const fifo = path.join(dir, 'report.fifo');
    execFileSync('mkfifo', [fifo]);
    const f = spawnSync(path.join(BIN, 'heimdall-gate'), ['to-message', '--report', fifo, '--from', 'a', '--msg-id', 'm1'], { env: { ...process.env, HEIMDALL_PLANNING_DIR: planning }, encoding: 'utf8', timeout: 60_000 });
    expect(f.status).toBe(2);
    expect(f.stderr).toMatch(/it is a FIFO \(named pipe\), expected a regular file/);
  });

  it('a folder in place of a state file is a clear error, and nothing else is touched', () => {
    const symbols = path.join(planning, 'protocol', 'symbols.json');
    fs.rmSync(symbols);
    fs.mkdirSync(symbols);
    for (const args of [['F1'], ['set', 'F1', 'x']]) {
      const r = run('heimdall-resolve', args);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/cannot read .*symbols\.json: it is a directory, expected a file/);
      noStack(r);
    }
    expect(fs.statSync(symbols).isDirectory()).toBe(true);
  });

  it('JSON nested 100,000 deep is refused before any recursive walk: wire emit, csp format, csp from-json, a2a dispatch', () => {
    const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    for (const [name, args] of [
      ['heimdall', ['wire', 'emit']],
      ['heimdall', ['csp', 'format']],
      ['heimdall', ['csp', 'from-json']],
      ['heimdall', ['a2a', 'dispatch']],
      ['heimdall-validate', []],
    ] as Array<[string, string[]]>) {
      const r = run(name, args, deep);
      noStack(r);
      expect([1, 2]).toContain(r.code);
      expect(`${r.stdout}${r.stderr}`).toMatch(/more than 256 levels deep/);
    }
  });

  it('stdin over the limit is refused, naming the limit and the variable that raises it', () => {
    const big = 'x'.repeat(5000);
    const r = run('heimdall-ledger', ['log', '--role', 'r', '--kind', 'k', '--msg-id', 'm'], big, { HEIMDALL_MAX_READ_BYTES: '4096' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stdin is larger than the limit of 4 KiB; nothing was read\. .*HEIMDALL_MAX_READ_BYTES/);
    expect(run('heimdall-ledger', ['log', '--role', 'r', '--kind', 'k', '--msg-id', 'm'], big, { HEIMDALL_MAX_READ_BYTES: '8192' }).code).toBe(0);
  });

  it('an integer past 2^53 is refused, not stored rounded', () => {
    for (const tokens of ['100000000000000000000000', '9007199254740993']) {
      const r = run('heimdall-ledger', ['baseline', '--role', 'r', '--tokens', tokens]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--tokens must be a whole number from -9007199254740991 to 9007199254740991/);
    }
    expect(fs.readFileSync(path.join(planning, 'protocol', 'baselines.json'), 'utf8')).not.toMatch(/"r"/);
  });
});
