/**
 * The real command-line programs, run against a planning tree: the browser tests build their fixture
 * with them and check what the browser wrote with them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run `bin/<name> args` with HEIMDALL_PLANNING_DIR set; throws on a non-zero exit unless `allowFail`. */
export function cli(planning: string, name: string, args: string[], opts: { input?: string; env?: Record<string, string>; allowFail?: boolean } = {}): CliResult {
  const r = spawnSync(process.execPath, [path.join(REPO, 'bin', name), ...args], {
    cwd: REPO,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, HEIMDALL_PLANNING_DIR: planning, NEXT_TELEMETRY_DISABLED: '1', ...opts.env },
  });
  const res = { code: r.status ?? -1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  if (res.code !== 0 && !opts.allowFail) {
    throw new Error(`${name} ${args.join(' ')} exited ${res.code}\n${res.stderr}${res.stdout}`);
  }
  return res;
}

export function cliJson<T>(planning: string, name: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}): T {
  return JSON.parse(cli(planning, name, [...args, '--json'], opts).stdout) as T;
}

/** ISO-8601 without milliseconds, `seconds` before `nowIso`. */
export function isoBefore(nowIso: string, seconds: number): string {
  return new Date(Date.parse(nowIso) - seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
