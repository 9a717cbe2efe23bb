/**
 * The CLI entry: `heimdall <mechanism> args...`. Maps HeimdallError codes to exit codes in exactly
 * one place (0 ok, 1 a negative answer, 2 usage or environment error), and prints help, versions and
 * errors the same way for every command: as text, or under `--json` as one JSON object per line
 * (the conventions are in ./README.md).
 */
import { EXIT_CODES, HeimdallError, isHeimdallError, closest, type Ctx, type CallerIdentity } from '../core/index.js';
import type { Runtime } from '../runtime.js';
import { versionInfo, versionLine } from '../version.js';
import type { UsageDetails } from './args.js';
import type { CliEnv } from './command.js';
import { type Io, processIo } from './io.js';
import { REGISTRY, SUMMARIES } from './registry.js';

/** What main() runs on: a runtime, or (tests) a ready context that becomes one. */
export type RuntimeFactory = () => Runtime | Ctx;

async function makeRuntime(factory?: RuntimeFactory): Promise<Runtime> {
  const { createRuntime } = await import('../runtime.js');
  if (!factory) return createRuntime();
  const made = factory();
  return 'paths' in made ? createRuntime({ ctx: made }) : made;
}

function helpText(prog: string): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((k) => k.length));
  const lines = Object.entries(SUMMARIES).map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  return [
    `usage: ${prog} <mechanism> [args...]`,
    '',
    'mechanisms:',
    ...lines,
    '',
    'every command takes --help, --version and --json (its result, and any error, as JSON lines)',
    'exit codes: 0 ok, 1 a negative answer (invalid message, refused capsule, collision), 2 usage or environment error',
    'planning tree: the nearest .planning/ in this folder or above it (create one with `heimdall init`); HEIMDALL_PLANNING_DIR overrides',
    'identity: HEIMDALL_AGENT names the agent session this shell acts as (claude-code.2, mason.1@core or a HAID)',
  ].join('\n');
}

/** True when the command line asks for JSON: `--json` anywhere before a `--`. */
export function wantsJson(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--json') return true;
  }
  return false;
}

/**
 * The error object `--json` prints: one line on stderr, `{"error": {...}}`. The same fields as the
 * MCP server's errors (server/mcp/errors.ts: code, message and the error's own details) plus the
 * exit code; a usage error adds the command's `usage` and, for a mistyped word, `suggestion`.
 */
export interface JsonError {
  error: { code: string; message: string; exit: number; usage?: string; suggestion?: string; [detail: string]: unknown };
}

/**
 * Under `--json` every line the program writes is one JSON object: results on stdout; on stderr
 * the diagnostics a command writes (`{"warning": {"message"}}`, anything else `{"note": {"message"}}`)
 * and, last, the error if there is one.
 */
function jsonDiagnostics(io: Io, shown: string): Io {
  const prefix = `${shown}: `;
  return {
    out: io.out,
    err: (text) => {
      const m = text.startsWith(prefix) ? text.slice(prefix.length) : text;
      const warning = /^warning: /.exec(m);
      io.err(JSON.stringify(warning ? { warning: { message: m.slice(warning[0].length) } } : { note: { message: m } }));
    },
    readStdin: () => io.readStdin(),
    stdinLines: () => io.stdinLines(),
    get stdinIsTTY() {
      return io.stdinIsTTY;
    },
  };
}

function printVersion(io: Io, prog: string, json: boolean): number {
  const v = versionInfo(prog);
  io.out(json ? JSON.stringify(v) : versionLine(v));
  return 0;
}

/**
 * How a failure leaves the program: the exit code for its HeimdallError code (the one mapping,
 * core/errors.ts EXIT_CODES), the message on stderr (`prog: message`, or the JSON error). `--help`
 * and `--version`, raised by the argument parser, print on stdout and exit 0.
 */
function finish(io: Io, prog: string, shown: string, json: boolean, e: unknown): number {
  if (isHeimdallError(e)) {
    const details = e.details !== null && typeof e.details === 'object' && !Array.isArray(e.details) ? (e.details as UsageDetails & Record<string, unknown>) : {};
    if (details.help) {
      io.out(json ? JSON.stringify({ usage: details.usage ?? e.message.replace(/^usage: /, '') }) : e.message);
      return 0;
    }
    if (details.version) return printVersion(io, prog, json);
    const exit = EXIT_CODES[e.code];
    if (json) {
      const { reason, help: _h, version: _v, ...rest } = details;
      const error: JsonError['error'] = { code: e.code, message: reason ?? e.message, exit, ...rest };
      let line: string;
      try {
        line = JSON.stringify({ error });
      } catch {
        line = JSON.stringify({ error: { code: e.code, message: reason ?? e.message, exit } });
      }
      io.err(line);
    } else io.err(`${shown}: ${e.message}`);
    return exit;
  }
  const err = e as Error;
  if (json) io.err(JSON.stringify({ error: { code: 'internal', message: `internal error: ${err?.message ?? String(e)}`, exit: 2 } } satisfies JsonError));
  else io.err(`${shown}: internal error: ${err?.stack ?? String(e)}`);
  return 2;
}

export async function main(prog: string, argv: string[], io: Io, factory?: RuntimeFactory): Promise<number> {
  const json = wantsJson(argv);
  // `heimdall --json resolve F12`: a --json given before the mechanism is the command's.
  const args = json && argv[0] === '--json' && argv.length > 1 ? [argv[1] as string, '--json', ...argv.slice(2)] : argv;
  const [mechanism, ...rest] = args;
  if (!mechanism || mechanism === '--json' || mechanism === '--help' || mechanism === '-h' || mechanism === 'help') {
    if (mechanism && mechanism !== '--json') {
      io.out(json ? JSON.stringify({ usage: helpText(prog) }) : helpText(prog));
      return 0;
    }
    if (json) return finish(io, prog, prog, true, new HeimdallError('usage', 'no mechanism given', { usage: helpText(prog) } satisfies UsageDetails));
    io.err(helpText(prog));
    return 2;
  }
  if (mechanism === '--version' || mechanism === '-V') return printVersion(io, prog, json);
  const loader = Object.hasOwn(REGISTRY, mechanism) ? REGISTRY[mechanism] : undefined;
  if (!loader) {
    const known = Object.keys(REGISTRY);
    const suggestion = closest(mechanism, known);
    const reason = `unknown mechanism ${JSON.stringify(mechanism)}${suggestion ? ` (did you mean ${suggestion}?)` : ''}; run \`${prog} --help\` for the list`;
    if (json) return finish(io, prog, prog, true, new HeimdallError('usage', reason, { ...(suggestion ? { suggestion } : {}) } satisfies UsageDetails));
    io.err(`${prog}: ${reason}\nmechanisms: ${known.join(', ')}`);
    return 2;
  }
  const shown = prog === 'heimdall' || prog === 'heimdall-protocol' ? `${prog} ${mechanism}` : prog;
  // Answered before anything loads: `heimdall-resolve --version` costs no command module.
  if (rest[0] === '--version' || rest[0] === '-V') return printVersion(io, prog, json);
  const cio = json ? jsonDiagnostics(io, shown) : io;
  let runtime: Runtime | undefined;
  try {
    const rt = (runtime = await makeRuntime(factory));
    // A call made by an agent the environment names (HEIMDALL_AGENT, a client session) is that
    // agent's: resolved before the command runs, so a bad name fails before anything is written. A
    // plain call has no author and does not load the identity rule at all.
    let envCaller: { ok: CallerIdentity } | { error: unknown } | undefined;
    if (rt.envNamesCaller && rt.tree.exists) {
      envCaller = await rt.identify({ otherwise: { fallback: 'cli', known: false } }).then(
        (ok) => ({ ok }),
        (error: unknown) => ({ error }),
      );
    }
    let cached: Ctx | undefined;
    const env: CliEnv = {
      io: cio,
      prog: shown,
      runtime: rt,
      ctx: () => {
        if (cached) return cached;
        if (envCaller && 'error' in envCaller) throw envCaller.error;
        cached = envCaller ? rt.actingAs(envCaller.ok) : rt.ctx;
        return cached;
      },
      caller: async (explicit, kind) => {
        const identity = await rt.identify({ explicit, explicitKind: kind, otherwise: { fallback: 'cli', known: false } });
        return { ctx: rt.actingAs(identity), identity };
      },
    };
    const { command } = await loader();
    return await command.run(rest, env);
  } catch (e) {
    return finish(io, prog, shown, json, e);
  } finally {
    await runtime?.close().catch((e: Error) => cio.err(`${shown}: warning: closing the wire log: ${e.message}`));
  }
}

/** Process entry used by bin/ shims. */
export async function run(prog: string, argv: string[]): Promise<void> {
  const code = await main(prog, argv, processIo());
  process.exitCode = code;
}
