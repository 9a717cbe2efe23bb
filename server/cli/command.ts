import type { Ctx } from '../core/context.js';
import type { Io } from './io.js';

export interface CliEnv {
  io: Io;
  /** The program name as the user typed it, for messages: heimdall-resolve, heimdall wire, ... */
  prog: string;
  /** The core context, built on first use (so `--help` works without a planning tree). */
  ctx(): Ctx;
}

export interface Command {
  summary: string;
  run(argv: string[], env: CliEnv): Promise<number>;
}
