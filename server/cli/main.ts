/**
 * The CLI entry: `heimdall <mechanism> args...`. Maps HeimdallError codes to exit codes in exactly
 * one place (0 ok, 1 a negative answer, 2 usage or environment error).
 */
import { EXIT_CODES, isHeimdallError } from '../core/errors.js';
import type { Ctx } from '../core/context.js';
import type { CallerIdentity } from '../core/identity/session.js';
import type { Runtime } from '../runtime.js';
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
    'exit codes: 0 ok, 1 a negative answer (invalid message, refused capsule, collision), 2 usage or environment error',
    'planning tree: the nearest .planning/ in this folder or above it (create one with `heimdall init`); HEIMDALL_PLANNING_DIR overrides',
    'identity: HEIMDALL_AGENT names the agent session this shell acts as (claude-code.2, mason.1@core or a HAID)',
  ].join('\n');
}

export async function main(prog: string, argv: string[], io: Io, factory?: RuntimeFactory): Promise<number> {
  const [mechanism, ...rest] = argv;
  if (!mechanism || mechanism === '--help' || mechanism === '-h' || mechanism === 'help') {
    (mechanism ? io.out : io.err)(helpText(prog));
    return mechanism ? 0 : 2;
  }
  const loader = REGISTRY[mechanism];
  if (!loader) {
    io.err(`${prog}: unknown mechanism ${JSON.stringify(mechanism)}\n${helpText(prog)}`);
    return 2;
  }
  const shown = prog === 'heimdall' || prog === 'heimdall-protocol' ? `${prog} ${mechanism}` : prog;
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
      io,
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
    if (isHeimdallError(e)) {
      if ((e.details as { help?: boolean } | undefined)?.help) {
        io.out(e.message);
        return 0;
      }
      io.err(`${shown}: ${e.message}`);
      return EXIT_CODES[e.code];
    }
    io.err(`${shown}: internal error: ${(e as Error).stack ?? String(e)}`);
    return 2;
  } finally {
    await runtime?.close().catch((e: Error) => io.err(`${shown}: warning: closing the wire log: ${e.message}`));
  }
}

/** Process entry used by bin/ shims. */
export async function run(prog: string, argv: string[]): Promise<void> {
  const code = await main(prog, argv, processIo());
  process.exitCode = code;
}
