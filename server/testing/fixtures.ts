/**
 * Test helpers: an isolated planning tree per test, a deterministic context, and a runner for the
 * real bundled executables in bin/ (built by scripts/build-cli.mjs before the suites run).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Ctx, makeCtx } from '../core/context.js';
import { HeimdallError } from '../core/errors.js';
import { fixedClock, sequentialIds } from '../core/ports.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BIN = path.join(REPO_ROOT, 'bin');

export function tmpDir(prefix = 'heimdall-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * A new, empty planning tree for the bin/ programs: an empty `.planning/` folder is a tree (they
 * work in it), a missing one is not (only `heimdall init` creates one).
 */
export function tmpPlanning(prefix?: string): string {
  const p = path.join(tmpDir(prefix), '.planning');
  fs.mkdirSync(p);
  return p;
}

/** A fresh planning root (not yet initialised) and a context on it with a fixed clock. */
export function tmpCtx(startIso = '2026-06-11T12:07:27Z'): Ctx & { clock: ReturnType<typeof fixedClock> } {
  const root = path.join(tmpDir(), '.planning');
  const clock = fixedClock(Date.parse(startIso));
  return Object.assign(makeCtx(root, { clock, ids: sequentialIds('t') }), { clock });
}

/**
 * The environment for a spawned program: this process's, without the variables that name the caller
 * or locate the tree (HEIMDALL_AGENT, a client session id such as CLAUDE_CODE_SESSION_ID, ...), so a
 * test run inside an agent session behaves as one run in a plain terminal. Tests set them explicitly.
 */
export function hermeticEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ['HEIMDALL_AGENT', 'HEIMDALL_HAID', 'HEIMDALL_PLANNING_DIR', 'HEIMDALL_CEILING_DIRECTORIES', 'CLAUDE_CODE_SESSION_ID', 'CODEX_THREAD_ID', 'CLAUDE_PROJECT_DIR']) delete env[k];
  return { ...env, ...extra };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a bin/ executable synchronously against a planning root. */
export function runBin(name: string, args: string[], opts: { planning: string; input?: string; env?: Record<string, string> }): RunResult {
  const r = spawnSync(path.join(BIN, name), args, {
    input: opts.input ?? '',
    env: hermeticEnv({ HEIMDALL_PLANNING_DIR: opts.planning, ...opts.env }),
    encoding: 'utf8',
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Start `n` copies of a command at the same moment; resolves with every result. */
export function runConcurrently(n: number, make: (i: number) => { name: string; args: string[] }, planning: string): Promise<RunResult[]> {
  return Promise.all(
    Array.from({ length: n }, (_, i) => {
      const { name, args } = make(i);
      return new Promise<RunResult>((resolve) => {
        const child = spawn(path.join(BIN, name), args, { env: hermeticEnv({ HEIMDALL_PLANNING_DIR: planning }) });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => (stdout += d));
        child.stderr.on('data', (d) => (stderr += d));
        child.stdin.end();
        child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
      });
    }),
  );
}

/** The HeimdallError `fn` throws (to assert on its code and details); fails if it throws nothing or something else. */
export function thrown(fn: () => unknown): HeimdallError {
  try {
    fn();
  } catch (e) {
    if (e instanceof HeimdallError) return e;
    throw e;
  }
  throw new Error('expected a HeimdallError');
}

/**
 * Wait until `done()` holds, checking every `pollMs`. No deadline of its own: a condition that never
 * holds fails by the test's timeout, so no assertion depends on how fast a loaded machine is.
 */
export async function until(done: () => boolean | Promise<boolean>, pollMs = 10): Promise<void> {
  while (!(await done())) await new Promise((r) => setTimeout(r, pollMs));
}
