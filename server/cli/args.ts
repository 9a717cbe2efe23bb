/**
 * A small, strict argument parser: unknown flags and missing values are usage errors (exit 2) that
 * show the command's usage line (and the closest known flag), rather than being silently ignored.
 * `--help`/`-h` and `--version`/`-V` are accepted by every command; main.ts prints them.
 * The conventions every command follows are in ./README.md.
 */
import { HeimdallError, closest } from '../core/index.js';

export type FlagKind = 'string' | 'boolean' | 'int';

export interface ArgSpec {
  usage: string;
  flags?: Record<string, FlagKind>;
  /** Minimum and maximum positional arguments (max Infinity for "any number"). */
  positionals?: [number, number];
}

export interface ParsedArgs {
  flags: Record<string, string | boolean | number | undefined>;
  positionals: string[];
}

/** What a usage error carries besides its message, so `--json` can print the reason and the usage apart. */
export interface UsageDetails {
  usage?: string;
  reason?: string;
  /** The known name the user probably meant (an unknown subcommand, flag or mechanism). */
  suggestion?: string;
  /** `--help` was asked for: print the usage, exit 0. */
  help?: boolean;
  /** `--version` was asked for: print the version, exit 0. */
  version?: boolean;
}

export function usageError(usage: string, message: string, suggestion?: string): HeimdallError {
  const details: UsageDetails = { usage, reason: message, ...(suggestion !== undefined ? { suggestion } : {}) };
  return new HeimdallError('usage', `${message}\nusage: ${usage}`, details);
}

/**
 * The error for a subcommand (or any word from a fixed list) that is not one: names the closest
 * known one. `what` says what the word is (`subcommand`, `source`, `bench`).
 */
export function unknownWord(usage: string, got: string | undefined, known: readonly string[], what = 'subcommand'): HeimdallError {
  const suggestion = got === undefined ? undefined : closest(got, known);
  const hint = suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`;
  return usageError(usage, `unknown ${what} ${JSON.stringify(got)}${hint}; one of ${known.join(', ')}`, suggestion);
}

export function parseArgs(argv: string[], spec: ArgSpec): ParsedArgs {
  const kinds = spec.flags ?? {};
  const flags: ParsedArgs['flags'] = {};
  const positionals: string[] = [];
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (!rest && (a === '--help' || a === '-h')) throw new HeimdallError('usage', `usage: ${spec.usage}`, { help: true, usage: spec.usage } satisfies UsageDetails);
    if (!rest && (a === '--version' || a === '-V')) throw new HeimdallError('usage', 'version', { version: true } satisfies UsageDetails);
    if (rest || !a.startsWith('--') || a === '--') {
      if (a === '--' && !rest) {
        rest = true;
        continue;
      }
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
    const kind = Object.hasOwn(kinds, name) ? kinds[name] : undefined;
    if (!kind) {
      const known = Object.keys(kinds);
      const near = closest(name, known);
      const suggestion = near === undefined ? undefined : `--${near}`;
      throw usageError(
        spec.usage,
        `unknown option --${name}${suggestion ? ` (did you mean ${suggestion}?)` : ''}${known.length ? ` (accepted: ${known.map((k) => `--${k}`).join(', ')})` : ''}`,
        suggestion,
      );
    }
    if (kind === 'boolean') {
      if (eq !== -1) throw usageError(spec.usage, `--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = a.slice(eq + 1);
    else {
      value = argv[i + 1];
      if (value === undefined) throw usageError(spec.usage, `--${name} needs a value`);
      i++;
    }
    if (kind === 'int') {
      if (!/^-?\d+$/.test(value)) throw usageError(spec.usage, `--${name} must be an integer, got ${JSON.stringify(value)}`);
      const n = Number(value);
      // A 24-digit number would be stored rounded: only integers JavaScript holds exactly.
      if (!Number.isSafeInteger(n)) {
        throw usageError(spec.usage, `--${name} must be a whole number from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(value)}`);
      }
      flags[name] = n;
    } else flags[name] = value;
  }
  const [min, max] = spec.positionals ?? [0, 0];
  if (positionals.length < min) throw usageError(spec.usage, `expected at least ${min} argument${min === 1 ? '' : 's'}, got ${positionals.length}`);
  if (positionals.length > max) throw usageError(spec.usage, `unexpected argument ${JSON.stringify(positionals[max])}`);
  return { flags, positionals };
}

export function str(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags[name];
  return typeof v === 'string' ? v : undefined;
}

export function requireStr(p: ParsedArgs, name: string, usage: string): string {
  const v = str(p, name);
  if (v === undefined) throw usageError(usage, `--${name} is required`);
  return v;
}

export function int(p: ParsedArgs, name: string): number | undefined {
  const v = p.flags[name];
  return typeof v === 'number' ? v : undefined;
}

export function bool(p: ParsedArgs, name: string): boolean {
  return p.flags[name] === true;
}

/** Split a comma-separated list, dropping empty items. */
export function list(value: string | undefined): string[] {
  if (value === undefined) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
