/**
 * One error type for the whole core. Transports map `code` to their own vocabulary in exactly one
 * place each (CLI exit code, MCP isError result, TRPCError).
 *
 * Codes beyond the architecture doc's five: `usage` (a caller passed bad arguments; CLI exit 2) and
 * `environment` (the machine or a state file is not as expected, e.g. a corrupted JSON file; exit 2).
 * The spec distinguishes "a negative answer" (exit 1) from "usage or environment error" (exit 2), and
 * one code per class keeps that mapping in one table.
 */
export type ErrorCode =
  | 'invalid' // a negative answer about the input: invalid message, refused capsule, bad id
  | 'not_found'
  | 'conflict'
  | 'forbidden'
  | 'usage'
  | 'environment'
  | 'internal';

export class HeimdallError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = 'HeimdallError';
    this.code = code;
    this.details = details;
  }
}

/** Exit code per error code: 1 is a negative answer, 2 is usage or environment. */
export const EXIT_CODES: Record<ErrorCode, number> = {
  invalid: 1,
  not_found: 1,
  conflict: 1,
  forbidden: 1,
  usage: 2,
  environment: 2,
  internal: 2,
};

export function isHeimdallError(e: unknown): e is HeimdallError {
  return e instanceof HeimdallError || (typeof e === 'object' && e !== null && (e as { name?: string }).name === 'HeimdallError');
}
