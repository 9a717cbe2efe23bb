/**
 * The tRPC context: the core context built once per process by the composition root.
 */
import type { Ctx } from '../core/context.js';
import { type Runtime, createRuntime } from '../runtime.js';

export interface TrpcContext {
  core: Ctx;
}

let runtime: Runtime | undefined;

export function getRuntime(): Runtime {
  runtime ??= createRuntime();
  return runtime;
}

export function createContext(): TrpcContext {
  return { core: getRuntime().ctx };
}
