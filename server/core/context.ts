/**
 * What every core call receives: the planning root and the ports. Built once per process by
 * server/runtime.ts; tests build their own with a fixed clock and sequential ids.
 */
import { o200kTokenizer } from './tokens/tokenizer.js';
import { type Clock, type Ids, type Tokenizer, randomIds, systemClock } from './ports.js';
import { type PlanningPaths, planningPaths } from './planning/paths.js';

export interface Ctx {
  root: string;
  paths: PlanningPaths;
  clock: Clock;
  ids: Ids;
  tokenizer: Tokenizer;
  /** Environment variables the core may consult (thresholds, URLs); never process.env directly. */
  env: Record<string, string | undefined>;
  /**
   * The HAID the current writes are made for, when the transport knows the caller (an MCP session,
   * Studio's operator, an agent session named by HEIMDALL_AGENT). protocol.log records it as the
   * line's author. Unset: the line has no author (a plain CLI call).
   */
  actor?: string;
}

export function makeCtx(root: string, opts: Partial<Omit<Ctx, 'root' | 'paths'>> = {}): Ctx {
  return {
    root,
    paths: planningPaths(root),
    clock: opts.clock ?? systemClock,
    ids: opts.ids ?? randomIds,
    tokenizer: opts.tokenizer ?? o200kTokenizer,
    env: opts.env ?? {},
    ...(opts.actor ? { actor: opts.actor } : {}),
  };
}
