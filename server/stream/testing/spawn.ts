/** Helpers for tests that run real processes (producers, listeners) from source through tsx. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '../../..');
export const WORKER = path.join(here, 'append-worker.ts');
export const CLI = path.join(here, 'cli-entry.ts');

export interface Done {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Start `node --import tsx script args...` in the project root. */
export function start(script: string, args: string[], env: Record<string, string | undefined> = {}, stdin?: string): { child: ChildProcess; done: Promise<Done> } {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  if (stdin !== undefined) child.stdin?.end(stdin);
  else child.stdin?.end();
  const done = new Promise<Done>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export async function runCli(args: string[], env: Record<string, string | undefined>, stdin?: string): Promise<Done> {
  return start(CLI, args, env, stdin).done;
}

/** Run producer workers in parallel; rejects if any fails. */
export async function runWorkers(opts: object[]): Promise<string[]> {
  const results = await Promise.all(opts.map((o) => start(WORKER, [JSON.stringify(o)]).done));
  for (const r of results) if (r.code !== 0) throw new Error(`worker failed (${r.code}): ${r.stderr}`);
  return results.map((r) => r.stdout.trim());
}
