/**
 * The environment variables that name a caller, and a check that they do, with no dependencies:
 * the CLI asks this on every start, and loading the identity rule itself (registry, hashing) is
 * kept for the commands that need it.
 */

/** The variable that names the agent session of a terminal or pane (set per pane by `heimdall setup`). */
export const AGENT_ENV = 'HEIMDALL_AGENT';
/** The 1.x CLI variable for the acting HAID (same forms as HEIMDALL_AGENT, which wins over it). */
export const HAID_ENV = 'HEIMDALL_HAID';

/**
 * Session ids MCP hosts put in the environment of the processes they spawn, with the client they
 * belong to. Claude Code sets CLAUDE_CODE_SESSION_ID for stdio MCP servers (2.1.154+; the same id as
 * its hooks and Bash tool since 2.1.163) and for Bash tool commands. Codex sets CODEX_THREAD_ID for
 * its shell tool (not yet for MCP servers). Cursor and VS Code pass none, and no host sends one in
 * `initialize`: their sessions are told apart by HEIMDALL_AGENT, or get a fresh identity.
 */
export const SESSION_ENV: ReadonlyArray<{ variable: string; client: string }> = [
  { variable: 'CLAUDE_CODE_SESSION_ID', client: 'claude-code' },
  { variable: 'CODEX_THREAD_ID', client: 'codex' },
];

/** A usable session id: a plain token; anything else is ignored rather than trusted as a key. */
export function usableSessionId(value: string | undefined): string | undefined {
  const id = value?.trim();
  return id && id.length <= 256 && /^[A-Za-z0-9._:-]+$/.test(id) ? id : undefined;
}

/**
 * The value of a naming variable, or undefined when it does not name anyone: unset, blank, or a
 * client's placeholder left unexpanded. `heimdall setup` writes `${HEIMDALL_AGENT:-}` (Claude Code
 * expands an unset variable to "") and `${env:HEIMDALL_AGENT}` (Cursor, VS Code: their docs do not say
 * what an unset variable becomes, so the text may arrive as written). Taking such text as a name
 * would give every unnamed session of that client one shared identity.
 */
export function namingValue(env: Record<string, string | undefined>, variable: string): string | undefined {
  const v = env[variable]?.trim();
  if (!v || /^\$\{[^}]*\}$/.test(v)) return undefined;
  return v;
}

/** True when the environment names the caller (HEIMDALL_AGENT, HEIMDALL_HAID or a client session id). */
export function envNamesCaller(env: Record<string, string | undefined>): boolean {
  return Boolean(namingValue(env, AGENT_ENV) || namingValue(env, HAID_ENV) || SESSION_ENV.some((s) => usableSessionId(env[s.variable])));
}
