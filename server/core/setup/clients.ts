/**
 * The agent clients `heimdall setup` knows: where each one reads its MCP servers, in which format,
 * under which key, how it passes an environment variable to a server, and which instructions file
 * its agents read. Everything here was checked against each client's own documentation (cited at
 * each entry); where a client documents no feature, setup relies on none.
 *
 * Each session names itself with HEIMDALL_AGENT (the identity rules live in server/core/identity):
 * a user sets it per terminal, pane or window before starting the client, and the config below
 * carries it to the server. Unset, every connection gets a fresh identity.
 *
 * Later (issue 12 item 4) a Claude Code PreToolUse hook goes into `.claude/settings.json`, whose
 * documented shape is
 *   { "hooks": { "PreToolUse": [ { "matcher": "Edit|Write|MultiEdit",
 *                                  "hooks": [ { "type": "command", "command": "..." } ] } ] } }
 * (code.claude.com/docs/en/hooks: settings in ~/.claude/settings.json, .claude/settings.json,
 * .claude/settings.local.json; exit code 2 blocks the tool call). That is one more `SetupTarget`
 * with `format: 'json'` whose edit appends to that array: the planner, the diff, the
 * all-or-nothing write and the tests below take it as is.
 */
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import type { JsonValue } from './jsonc.js';
import { closest } from '../suggest.js';

export const CLIENTS = ['claude-code', 'cursor', 'vscode', 'codex'] as const;
export type ClientName = (typeof CLIENTS)[number];

/** Other names people type for the same clients. */
export const CLIENT_ALIASES: Readonly<Record<string, ClientName>> = Object.freeze({ claude: 'claude-code', copilot: 'vscode' });

/** The name of Heimdall's entry in every client's server list. */
export const SERVER_NAME = 'heimdall';
/** The program the installed package puts in node_modules/.bin (or on PATH for a global install). */
export const SERVER_PROGRAM = 'heimdall-ledger-mcp';
/** The variable that names an agent session. */
// The variable that names an agent session is the identity module's; setup only passes it on.
import { AGENT_ENV } from '../identity/env.js';
export { AGENT_ENV };

/** How a client starts the server: a program and its arguments. */
export interface Launcher {
  command: string;
  args: string[];
}

export type FileFormat = 'json' | 'jsonc' | 'toml';

export interface McpTarget {
  /** Repository-relative, or absolute for a user-level file outside the repository. */
  file: string;
  format: FileFormat;
  /** JSON: the top-level key holding the servers. TOML: the table path of Heimdall's entry. */
  key: string[];
  /** JSON: Heimdall's entry. */
  entry?: { [key: string]: JsonValue };
  /** TOML: the keys setup owns in the table; `include` leaves the user's other array items alone. */
  toml?: { key: string; value: string | string[]; mode: 'set' | 'include' }[];
  /** Comment lines written above a TOML table when setup creates it. */
  comment?: string[];
}

export interface ClientSpec {
  name: ClientName;
  /** How the client is called in messages. */
  label: string;
  mcp: McpTarget;
  /** The instructions file its agents read at the start of a session. */
  instructions: 'CLAUDE.md' | 'AGENTS.md';
  /** What the user does next, printed after setup (approval prompts, naming a session). */
  next: string[];
}

export interface ClientOptions {
  launcher: Launcher;
  /** Codex only: write the user-level config.toml in this directory ($CODEX_HOME, else ~/.codex). */
  codexUserHome?: string;
}

export function clientSpec(name: ClientName, opts: ClientOptions): ClientSpec {
  const { command, args } = opts.launcher;
  switch (name) {
    case 'claude-code':
      // code.claude.com/docs/en/mcp: project scope is `.mcp.json` at the project root, servers under
      // "mcpServers", stdio entries `{type: "stdio", command, args, env}`; "Environment variable
      // expansion in .mcp.json": `${VAR}` and `${VAR:-default}` in command, args, env, url and
      // headers. An unset `${VAR}` stays literal text, hence the empty default: unset means "".
      // Read as plain JSON: the docs show no comments, and `claude mcp add --scope project` rewrites
      // the whole file (anthropics/claude-code#18692), so a comment is refused rather than kept.
      return {
        name,
        label: 'Claude Code',
        mcp: { file: '.mcp.json', format: 'json', key: ['mcpServers'], entry: { type: 'stdio', command, args, env: { [AGENT_ENV]: `\${${AGENT_ENV}:-}` } } },
        instructions: 'CLAUDE.md',
        next: [
          'Claude Code asks you to approve the project server from .mcp.json the first time it starts here.',
          `Name each session: ${AGENT_ENV}=alice claude (one name per terminal or pane); .mcp.json passes it to the server.`,
        ],
      };
    case 'cursor':
      // cursor.com/docs/mcp: project config `.cursor/mcp.json` (global ~/.cursor/mcp.json), servers
      // under "mcpServers" ({command, args, env}, optional type "stdio"); "Config interpolation":
      // `${env:NAME}`, `${userHome}`, `${workspaceFolder}` in command, args, env, url and headers.
      // The file may hold comments (VS Code heritage): read as JSONC, comments kept as they are.
      return {
        name,
        label: 'Cursor',
        mcp: { file: path.join('.cursor', 'mcp.json'), format: 'jsonc', key: ['mcpServers'], entry: { type: 'stdio', command, args, env: { [AGENT_ENV]: `\${env:${AGENT_ENV}}` } } },
        instructions: 'AGENTS.md',
        next: [
          'Cursor lists the server under Settings > MCP; enable it there if it is off.',
          `Name a window: start Cursor from a terminal with ${AGENT_ENV}=alice cursor . (Cursor runs one server per window).`,
        ],
      };
    case 'vscode':
      // code.visualstudio.com/docs/copilot/reference/mcp-configuration: workspace file
      // `.vscode/mcp.json`, servers under "servers" (not "mcpServers"), stdio fields type "stdio"
      // (required), command, args, env, envFile; "You can use predefined variables", and the
      // variables reference (code.visualstudio.com/docs/reference/variables-reference) gives
      // `${env:Name}` for environment variables. VS Code's JSON files take comments and trailing commas.
      return {
        name,
        label: 'VS Code (GitHub Copilot)',
        mcp: { file: path.join('.vscode', 'mcp.json'), format: 'jsonc', key: ['servers'], entry: { type: 'stdio', command, args, env: { [AGENT_ENV]: `\${env:${AGENT_ENV}}` } } },
        instructions: 'AGENTS.md',
        next: [
          'VS Code asks you to trust the server the first time Copilot starts it (MCP: List Servers shows it).',
          `Name a window: start VS Code from a terminal with ${AGENT_ENV}=alice code . (a window opened in an already running VS Code keeps that instance's environment).`,
        ],
      };
    case 'codex': {
      // developers.openai.com/codex/mcp: "By default this is ~/.codex/config.toml, but you can also
      // scope MCP servers to a project with .codex/config.toml (trusted projects only)"; config-basic:
      // "Codex loads project .codex/ layers only when you trust the project". Servers are
      // `[mcp_servers.NAME]` tables with command, args, env, `env_vars` ("Environment variables to
      // allow and forward") and cwd. Codex documents no `${...}` expansion: env_vars forwards the
      // variable from the environment Codex was started in. The user-level file sits in CODEX_HOME.
      const file = opts.codexUserHome ? path.join(opts.codexUserHome, 'config.toml') : path.join('.codex', 'config.toml');
      return {
        name,
        label: 'Codex',
        mcp: {
          file,
          format: 'toml',
          key: ['mcp_servers', SERVER_NAME],
          toml: [
            { key: 'command', value: command, mode: 'set' },
            { key: 'args', value: args, mode: 'set' },
            { key: 'env_vars', value: AGENT_ENV, mode: 'include' },
          ],
          comment: [
            "Heimdall's MCP server (written by `heimdall setup codex`).",
            `Name a session: ${AGENT_ENV}=alice codex; env_vars forwards it to the server.`,
          ],
        },
        instructions: 'AGENTS.md',
        next: [
          opts.codexUserHome
            ? `Codex reads ${file} in every project; the server finds this repository's planning tree from the directory you start codex in.`
            : 'Codex reads .codex/config.toml only in a trusted project (it asks on first start); --user writes ~/.codex/config.toml instead.',
          `Name each session: ${AGENT_ENV}=alice codex (one name per terminal or pane).`,
        ],
      };
    }
  }
}

/** A client name (or alias), case-insensitive; an unknown one is a usage error that suggests the closest. */
export function resolveClientName(input: string): ClientName {
  const n = input.trim().toLowerCase();
  if ((CLIENTS as readonly string[]).includes(n)) return n as ClientName;
  const alias = Object.hasOwn(CLIENT_ALIASES, n) ? CLIENT_ALIASES[n] : undefined;
  if (alias) return alias;
  const best = closest(n, [...CLIENTS, ...Object.keys(CLIENT_ALIASES)]);
  const hint = best ? ` Did you mean ${Object.hasOwn(CLIENT_ALIASES, best) ? CLIENT_ALIASES[best] : best}?` : '';
  throw new HeimdallError('usage', `unknown client ${JSON.stringify(input)}.${hint} Supported: ${CLIENTS.join(', ')} (aliases: claude = claude-code, copilot = vscode).`);
}
