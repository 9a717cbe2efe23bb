/**
 * The one place where core errors become MCP results. A HeimdallError (a refusal the agent can act
 * on: a collision, a bad glob, an unknown capsule) becomes an `isError` tool result whose text is
 * JSON `{"error": {"code", "message", ...details}, "haid"}`, so the model reads why and can retry.
 * Anything else is an internal error: reported the same way, with the stack on stderr only.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isHeimdallError } from '../core/index.js';

export function toolErrorResult(e: unknown, haid: string | undefined, log: (m: string) => void): CallToolResult {
  let error: Record<string, unknown>;
  if (isHeimdallError(e)) {
    const details = typeof e.details === 'object' && e.details !== null && !Array.isArray(e.details) ? (e.details as Record<string, unknown>) : {};
    error = { code: e.code, message: e.message, ...details };
  } else {
    log(`internal error: ${(e as Error)?.stack ?? String(e)}`);
    error = { code: 'internal', message: `internal error: ${(e as Error)?.message ?? String(e)}` };
  }
  const payload = haid === undefined ? { error } : { error, haid };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], isError: true };
}
