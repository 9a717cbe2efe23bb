/**
 * The CLI conventions on the real programs in bin/ (bundled by scripts/build-cli.mjs): --version on
 * every program, `heimdall-ledger-mcp --help` instead of serving, errors as one JSON line under
 * --json, and a shim with no bundle behind it explaining itself.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { setFact } from '../server/core/blackboard/blackboard.js';
import { makeCtx } from '../server/core/context.js';
import { initPlanning } from '../server/core/planning/init.js';
import { PROTOCOL_VERSION } from '../server/core/planning/version.js';
import { BIN, REPO_ROOT, hermeticEnv, runBin, tmpDir, tmpPlanning } from '../server/testing/fixtures.js';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string> };

function run(file: string, args: string[], cwd: string, input = '') {
  const r = spawnSync(file, args, { cwd, input, encoding: 'utf8', env: hermeticEnv(), timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist/cli/main.js'))) throw new Error('dist/cli/main.js is missing: run node scripts/build-cli.mjs first');
});

describe('--version', () => {
  it('answers on every program of the package, with the package version and the protocol version', () => {
    const cwd = tmpDir();
    const programs = Object.keys(pkg.bin);
    expect(programs).toContain('heimdall-ledger-mcp');
    for (const name of programs) {
      for (const flag of ['--version', '-V']) {
        const r = run(path.join(REPO_ROOT, pkg.bin[name] as string), [flag], cwd);
        expect(r, `${name} ${flag}`).toEqual({ code: 0, stdout: `${name} ${pkg.version} (${pkg.name}, protocol ${PROTOCOL_VERSION})\n`, stderr: '' });
      }
    }
  });
});

describe('heimdall-ledger-mcp', () => {
  const mcp = path.join(BIN, 'heimdall-ledger-mcp');

  it('--help prints what it is, how clients start it and the variables it reads, and does not serve', () => {
    // In a folder with a planning tree, where serving would start (and log "serving ... tools").
    const cwd = path.dirname(tmpPlanning());
    const r = run(mcp, ['--help'], cwd, '{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^usage: heimdall-ledger-mcp \[--help \| --version\]/);
    for (const v of ['HEIMDALL_AGENT', 'HEIMDALL_PLANNING_DIR', 'CLAUDE_PROJECT_DIR', 'CLAUDE_CODE_SESSION_ID', 'HEIMDALL_STREAM_URL', 'heimdall setup']) expect(r.stdout).toContain(v);
    // Not one JSON-RPC answer on stdout.
    expect(r.stdout).not.toMatch(/jsonrpc/);
  });

  it('refuses any other argument with its usage (exit 2), naming the closest flag', () => {
    const r = run(mcp, ['--hlep'], tmpDir());
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unexpected argument "--hlep" \(did you mean --help\?\)/);
    expect(r.stderr).toMatch(/usage: heimdall-ledger-mcp/);
    expect(run(mcp, ['serve'], tmpDir()).code).toBe(2);
    expect(run(mcp, ['--help', '--version'], tmpDir()).code).toBe(2);
  });

  it('serves with no arguments, as hosts start it', () => {
    const cwd = path.dirname(tmpPlanning());
    const r = run(mcp, [], cwd, `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { clientInfo: { name: 'cursor' } } })}\n`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout.split('\n')[0] as string)).toMatchObject({ id: 1, result: { serverInfo: { name: 'heimdall-ledger-mcp' } } });
    expect(r.stderr).toMatch(/serving \d+ tools on stdio/);
  });
});

describe('errors under --json, through the bundle', () => {
  it('prints one JSON line on stderr and nothing on stdout, with the documented exit code', () => {
    const planning = tmpPlanning();
    expect(runBin('heimdall-protocol', ['init'], { planning }).code).toBe(0);
    const missing = runBin('heimdall-resolve', ['F99', '--json'], { planning });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    const lines = missing.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ error: { code: 'not_found', exit: 1 } });
    const typo = runBin('heimdall', ['reslove', 'F12', '--json'], { planning });
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stderr)).toMatchObject({ error: { code: 'usage', exit: 2, suggestion: 'resolve' } });
  });
});

describe('output to a reader that stops early', () => {
  it('ends quietly when the pipe closes (`| head -c 10`), exit 0, no stack', () => {
    const planning = tmpPlanning();
    const ctx = makeCtx(planning);
    initPlanning(ctx);
    // 400 KB of lines, more than a pipe holds: the writes after head exits get EPIPE.
    for (let i = 0; i < 400; i++) setFact(ctx, `k${i}`, 'x'.repeat(1000));
    const r = spawnSync('bash', ['-c', `'${path.join(BIN, 'heimdall-blackboard')}' list | head -c 10; echo " status=\${PIPESTATUS[0]}" >&2`], {
      encoding: 'utf8',
      env: hermeticEnv({ HEIMDALL_PLANNING_DIR: planning }),
    });
    expect(r.stdout).toHaveLength(10);
    expect(r.stderr.trim()).toBe('status=0');
  });
});

describe('a checkout whose programs were never built', () => {
  it('says so in one sentence (exit 2) instead of a stack', () => {
    const dir = tmpDir();
    fs.mkdirSync(path.join(dir, 'bin'));
    for (const f of ['heimdall-resolve', 'heimdall-ledger-mcp', 'not-built.js', 'package.json']) fs.copyFileSync(path.join(BIN, f), path.join(dir, 'bin', f));
    for (const name of ['heimdall-resolve', 'heimdall-ledger-mcp']) {
      const r = run(process.execPath, [path.join(dir, 'bin', name), 'F12'], dir);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(new RegExp(`^${name}: this copy of Heimdall has no built programs \\(\\.\\./dist/(cli|mcp)/\\w+\\.js is missing\\): in a checkout, run \`npm run build:cli\``));
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });
});
