/**
 * The CLI conventions main() owns, in-process: --help and --version, did-you-mean for mechanisms,
 * subcommands and flags, and errors (text, or one JSON object under --json) with the exit codes of
 * core/errors.ts. Every registered command is checked for --json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../core/errors.js';
import { PROTOCOL_VERSION } from '../core/planning/version.js';
import { initPlanning } from '../core/planning/init.js';
import { setSymbol } from '../core/symbols/symbols.js';
import { REPO_ROOT, tmpCtx } from '../testing/fixtures.js';
import { memoryIo } from './io.js';
import { type JsonError, main, wantsJson } from './main.js';
import { REGISTRY } from './registry.js';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

async function cli(prog: string, argv: string[], stdin = '') {
  const ctx = tmpCtx();
  initPlanning(ctx);
  setSymbol(ctx, 'F12', 'src/matching/engine.ts');
  const io = memoryIo(stdin);
  const code = await main(prog, argv, io, () => ctx);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n'), stderr: io.stderr, stdout: io.stdout, ctx };
}

/** The one JSON error line on stderr (the last one), parsed. */
function jsonError(stderr: string[]): JsonError['error'] {
  const last = stderr[stderr.length - 1] as string;
  return (JSON.parse(last) as JsonError).error;
}

describe('--version', () => {
  it('prints the package, its version and the protocol version, for the dispatcher and every command', async () => {
    const expected = `${pkg.version} (${pkg.name}, protocol ${PROTOCOL_VERSION})`;
    expect(await cli('heimdall', ['--version'])).toMatchObject({ code: 0, out: `heimdall ${expected}`, err: '' });
    expect(await cli('heimdall', ['-V'])).toMatchObject({ code: 0, out: `heimdall ${expected}` });
    expect(await cli('heimdall-resolve', ['resolve', '--version'])).toMatchObject({ code: 0, out: `heimdall-resolve ${expected}` });
    // Anywhere among a command's flags, like --help.
    expect(await cli('heimdall-claim', ['claim', 'list', '--version'])).toMatchObject({ code: 0, out: `heimdall-claim ${expected}` });
    const j = await cli('heimdall', ['--version', '--json']);
    expect(JSON.parse(j.out)).toEqual({ program: 'heimdall', package: pkg.name, version: pkg.version, protocol: PROTOCOL_VERSION });
  });
});

describe('did you mean', () => {
  it('suggests the closest mechanism, in text and in JSON', async () => {
    const t = await cli('heimdall', ['reslove', 'F12']);
    expect(t.code).toBe(2);
    expect(t.err).toMatch(/^heimdall: unknown mechanism "reslove" \(did you mean resolve\?\)/);
    expect(t.out).toBe('');
    const j = await cli('heimdall', ['blackbord', 'list', '--json']);
    expect(j.code).toBe(2);
    expect(j.stderr).toHaveLength(1);
    expect(jsonError(j.stderr)).toMatchObject({ code: 'usage', exit: 2, suggestion: 'blackboard' });
    // Nothing close: no guess.
    expect((await cli('heimdall', ['frobnicate'])).err).not.toMatch(/did you mean/);
  });

  it('suggests the closest subcommand of every command that has subcommands', async () => {
    const cases: Array<[string, string[], string]> = [
      ['heimdall-blackboard', ['blackboard', 'lsit'], 'list'],
      ['heimdall-capsule', ['capsule', 'hydrat', 'w1'], 'hydrate'],
      ['heimdall-claim', ['claim', 'relase'], 'release'],
      ['heimdall-haid', ['haid', 'whoami2'], 'whoami'],
      ['heimdall-ledger', ['ledger', 'reprot'], 'report'],
      ['heimdall-gate', ['gate', 'to-mesage'], 'to-message'],
      ['heimdall-brief', ['brief', 'biuld'], 'build'],
      ['heimdall-resolve', ['resolve', 'sett', 'F1', 'x'], 'set'],
      ['heimdall', ['herd', 'inbx'], 'inbox'],
      ['heimdall', ['wire', 'tial'], 'tail'],
      ['heimdall', ['csp', 'pasre'], 'parse'],
      ['heimdall', ['a2a', 'peer'], 'peers'],
      ['heimdall', ['import', 'gds'], 'gsd'],
      ['heimdall', ['bench', 'gds', 'x'], 'gsd'],
    ];
    for (const [prog, argv, meant] of cases) {
      const r = await cli(prog, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err, argv.join(' ')).toContain(`(did you mean ${meant}?)`);
      expect(r.err, argv.join(' ')).toMatch(/\nusage: /);
      const j = await cli(prog, [...argv, '--json']);
      expect(jsonError(j.stderr), argv.join(' ')).toMatchObject({ code: 'usage', exit: 2, suggestion: meant });
    }
  });

  it('suggests the closest flag', async () => {
    const r = await cli('heimdall-resolve', ['resolve', 'F12', '--jsno']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown option --jsno \(did you mean --json\?\)/);
    const j = await cli('heimdall-claim', ['claim', 'claim', '--surface', 'src/**', '--task', 'T', '--json']);
    expect(jsonError(j.stderr)).toMatchObject({ code: 'usage', exit: 2, suggestion: '--surfaces' });
  });
});

describe('errors under --json', () => {
  it('is one object on stderr with code, message, exit and usage; nothing on stdout', async () => {
    const r = await cli('heimdall-resolve', ['resolve', '--bogus', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toEqual([]);
    expect(r.stderr).toHaveLength(1);
    const e = jsonError(r.stderr);
    expect(e).toMatchObject({ code: 'usage', exit: 2 });
    // The reason and the usage apart: the message does not repeat the usage.
    expect(e.message).toMatch(/^unknown option --bogus/);
    expect(e.message).not.toMatch(/usage:/);
    expect(e.usage).toMatch(/^heimdall-resolve ID/);
  });

  it('keeps the exit code of a negative answer (1) and of an environment error (2)', async () => {
    const missing = await cli('heimdall-resolve', ['resolve', 'F99', '--json']);
    expect(missing.code).toBe(EXIT_CODES.not_found);
    expect(jsonError(missing.stderr)).toMatchObject({ code: 'not_found', exit: 1 });
    expect(jsonError(missing.stderr).message).toMatch(/no symbol F99/);
    const text = await cli('heimdall-resolve', ['resolve', 'F99']);
    expect(text.code).toBe(1);
    expect(text.err).toMatch(/^heimdall-resolve: no symbol F99/);
    const gate = await cli('heimdall-gate', ['gate', 'to-message', '--report', '/nonexistent/report.json', '--from', 'a', '--msg-id', 'g1', '--json']);
    expect(gate.code).toBe(2);
    expect(jsonError(gate.stderr)).toMatchObject({ code: 'environment', exit: 2 });
  });

  it('carries the error details, as the MCP server does (a claim collision names the holder)', async () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    const run = async (argv: string[]) => {
      const io = memoryIo();
      const code = await main('heimdall-claim', argv, io, () => ctx);
      return { code, stderr: io.stderr };
    };
    expect((await run(['claim', 'claim', '--surfaces', 'src/a/**', '--task', 'T-1', '--as', 'alice.1@core'])).code).toBe(0);
    const clash = await run(['claim', 'claim', '--surfaces', 'src/a/b.ts', '--task', 'T-2', '--as', 'bob.1@core', '--json']);
    expect(clash.code).toBe(1);
    const e = jsonError(clash.stderr);
    expect(e).toMatchObject({ code: 'conflict', exit: 1 });
    expect(JSON.stringify(e.collisions)).toContain('alice.1');
  });

  it('writes the diagnostics of a command as JSON lines too', async () => {
    const ctx = tmpCtx();
    initPlanning(ctx);
    // A torn last line in protocol.log: `log` warns on stderr.
    fs.appendFileSync(ctx.paths.protocolLog, '2026-06-11T12:00:00.000Z\tresolve\tset');
    const io = memoryIo();
    expect(await main('heimdall', ['log', '5', '--json'], io, () => ctx)).toBe(0);
    expect(io.stderr.length).toBeGreaterThan(0);
    for (const line of io.stderr) expect(Object.keys(JSON.parse(line))).toEqual(['warning']);
    expect(JSON.parse(io.stderr[0] as string).warning.message).toMatch(/cut short/);
    for (const line of io.stdout) JSON.parse(line);
  });

  it('takes --json before the mechanism, and not after --', async () => {
    const before = await cli('heimdall', ['--json', 'resolve', 'F12']);
    expect(before).toMatchObject({ code: 0 });
    expect(JSON.parse(before.out)).toEqual({ id: 'F12', value: 'src/matching/engine.ts' });
    expect(wantsJson(['resolve', '--', '--json'])).toBe(false);
    expect(wantsJson(['resolve', 'F12', '--json'])).toBe(true);
  });

  it('prints help as {"usage"} under --json, and a missing mechanism as an error', async () => {
    const help = await cli('heimdall', ['--help', '--json']);
    expect(help.code).toBe(0);
    expect(JSON.parse(help.out).usage).toMatch(/^usage: heimdall <mechanism>/);
    const sub = await cli('heimdall-resolve', ['resolve', '--json', '--help']);
    expect(JSON.parse(sub.out).usage).toMatch(/^heimdall-resolve ID/);
    const none = await cli('heimdall', ['--json']);
    expect(none.code).toBe(2);
    expect(jsonError(none.stderr)).toMatchObject({ code: 'usage', exit: 2, message: 'no mechanism given' });
  });
});

describe('every command takes --json', () => {
  it('declares --json and documents it in its usage', async () => {
    for (const name of Object.keys(REGISTRY)) {
      // --json first: an undeclared flag would be refused before --help is read.
      const r = await cli('heimdall', [name, '--json', '--help']);
      expect(r.code, `${name}: ${r.err}`).toBe(0);
      const usage = JSON.parse(r.out).usage as string;
      expect(usage, name).toContain('--json');
    }
  });

  it('validate and gate print the same JSON with or without --json', async () => {
    const msg = '{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}';
    const plain = await cli('heimdall-validate', ['validate'], msg);
    const json = await cli('heimdall-validate', ['validate', '--json'], msg);
    expect(plain.out).toBe('{"valid":true,"errors":[]}');
    expect(json.out).toBe(plain.out);
    const bad = await cli('heimdall-validate', ['validate', '--json'], '{"type":"task_result"}');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out).valid).toBe(false);
    // A negative answer is a result, not an error: nothing on stderr.
    expect(bad.stderr).toEqual([]);

    const ctx = tmpCtx();
    initPlanning(ctx);
    const report = path.join(path.dirname(ctx.root), 'report.json');
    fs.writeFileSync(report, JSON.stringify({ gate_id: 'g', status: 'pass', wave: 3 }));
    const gate = async (extra: string[]) => {
      const io = memoryIo();
      const code = await main('heimdall-gate', ['gate', 'to-message', '--report', report, '--from', 'sentinel', '--msg-id', 'g1', ...extra], io, () => ctx);
      return { code, out: io.stdout.join('\n') };
    };
    const a = await gate([]);
    const b = await gate(['--json']);
    expect(a.code).toBe(0);
    expect(JSON.parse(a.out)).toMatchObject({ type: 'gate_report', gate_id: 'g', status: 'pass', wave: 3 });
    expect(b).toEqual(a);
  });
});
