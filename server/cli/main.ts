/**
 * The CLI entry: `heimdall <mechanism> args...`. Maps HeimdallError codes to exit codes in exactly
 * one place (0 ok, 1 a negative answer, 2 usage or environment error).
 */
import { EXIT_CODES, isHeimdallError } from '../core/errors.js';
import type { Ctx } from '../core/context.js';
import type { CliEnv } from './command.js';
import { type Io, processIo } from './io.js';
import { REGISTRY, SUMMARIES } from './registry.js';

export type CtxFactory = () => Ctx;

async function defaultCtx(): Promise<CtxFactory> {
  const { createRuntime } = await import('../runtime.js');
  return () => createRuntime().ctx;
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
    'environment: HEIMDALL_PLANNING_DIR overrides the .planning root',
  ].join('\n');
}

export async function main(prog: string, argv: string[], io: Io, makeCtx?: CtxFactory): Promise<number> {
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
  let cached: Ctx | undefined;
  const factory = makeCtx ?? (await defaultCtx());
  const env: CliEnv = {
    io,
    prog: prog === 'heimdall' || prog === 'heimdall-protocol' ? `${prog} ${mechanism}` : prog,
    ctx: () => (cached ??= factory()),
  };
  try {
    // Limits first: a command may read stdin before it builds its context.
    if (!makeCtx) (await import('../runtime.js')).applyStorageLimits();
    const { command } = await loader();
    return await command.run(rest, env);
  } catch (e) {
    if (isHeimdallError(e)) {
      if ((e.details as { help?: boolean } | undefined)?.help) {
        io.out(e.message);
        return 0;
      }
      io.err(`${env.prog}: ${e.message}`);
      return EXIT_CODES[e.code];
    }
    io.err(`${env.prog}: internal error: ${(e as Error).stack ?? String(e)}`);
    return 2;
  }
}

/** Process entry used by bin/ shims. */
export async function run(prog: string, argv: string[]): Promise<void> {
  const code = await main(prog, argv, processIo());
  process.exitCode = code;
}
