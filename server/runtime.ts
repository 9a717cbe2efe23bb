/**
 * Composition root: the only place that reads process.env and process.cwd() to build the core
 * context. Every transport (CLI, MCP, tRPC) constructs its context here.
 */
import { type Ctx, makeCtx } from './core/context.js';
import { resolvePlanningRoot } from './core/planning/paths.js';

export interface Runtime {
  ctx: Ctx;
}

export function createRuntime(env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): Runtime {
  const root = resolvePlanningRoot(env, cwd);
  return { ctx: makeCtx(root, { env }) };
}
