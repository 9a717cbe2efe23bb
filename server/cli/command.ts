import type { Ctx, CallerIdentity } from '../core/index.js';
import type { Runtime } from '../runtime.js';
import type { Io } from './io.js';

export interface CliEnv {
  io: Io;
  /** The program name as the user typed it, for messages: heimdall-resolve, heimdall wire, ... */
  prog: string;
  /** The composition root of this command: the tree, the wire log and read model, the caller. */
  runtime: Runtime;
  /**
   * The core context, built on first use (so `--help` works without a planning tree). Throws the
   * "no planning tree" error (exit 2) when there is none. Its writes are authored by the agent the
   * environment names (HEIMDALL_AGENT, HEIMDALL_HAID, a client session id), if any.
   */
  ctx(): Ctx;
  /**
   * The caller: the agent a flag names (`--as`, `--haid`; any form: HAID, herd address,
   * name.instance), else the one the environment names, else `{root}/cli`; and the context whose
   * writes it authors (none for the plain `{root}/cli`).
   */
  caller(explicit?: string, kind?: string): Promise<{ ctx: Ctx; identity: CallerIdentity }>;
}

/**
 * One mechanism of the CLI. Conventions every command follows (flags, subcommands, `--json`, stdout
 * vs stderr, errors and exit codes, start-up cost): server/cli/README.md.
 */
export interface Command {
  summary: string;
  run(argv: string[], env: CliEnv): Promise<number>;
}
