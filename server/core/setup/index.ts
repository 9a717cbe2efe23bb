/**
 * `heimdall setup <client>`: Heimdall's MCP server registered in each agent client's own config
 * (Claude Code, Cursor, VS Code / Copilot, Codex), merged into what is there, plus a managed
 * section in AGENTS.md / CLAUDE.md. Plan first (reads only), then apply (all or nothing).
 */
export {
  /** Read every file setup would touch and compute the new texts; writes nothing. */
  planSetup,
  /** Write a plan: checks every file first, restores the written ones if a later write fails. */
  applySetup,
  /** The unified diff of a plan (for --dry-run). */
  planDiff,
  /** How a client should start the server from this repository (npx --no-install, or PATH). */
  detectLauncher,
  /** The nearest directory up from a start that holds .git or .planning. */
  findRepositoryRoot,
  /** The managed AGENTS.md / CLAUDE.md section text. */
  instructionsSection,
  MAX_SETUP_FILE_BYTES,
  type SetupOptions,
  type SetupPlan,
  type PlannedFile,
  type FileAction,
} from './setup.js';
export {
  /** The supported clients, their aliases, and each one's config file, format and key. */
  CLIENTS,
  CLIENT_ALIASES,
  clientSpec,
  /** A client name or alias; an unknown one suggests the closest. */
  resolveClientName,
  SERVER_NAME,
  SERVER_PROGRAM,
  type ClientName,
  type ClientSpec,
  type Launcher,
} from './clients.js';
export {
  /** How the claims hooks start `heimdall`: its path in the repository, PATH, or npx (with a warning). */
  detectHookLauncher,
  /** The command `.claude/settings.json` runs before Edit, Write and MultiEdit. */
  claudeHookCommand,
  /** `.claude/settings.json` with Heimdall's PreToolUse hook merged in (idempotent, other bytes kept). */
  editClaudeSettings,
  /** The pre-commit hook with Heimdall's check; a hook of the user's own is refused with the line to add. */
  editGitHook,
  gitHookScript,
  gitHookLine,
  isClaudeHookCommand,
  CLAUDE_HOOK_MATCHER,
  CLAUDE_SETTINGS_FILE,
  CLI_PROGRAM,
  GIT_HOOK_MARK,
  type HookLauncher,
} from './hooks.js';
/** The text editors setup is built on: JSON(C) and TOML splices that keep every other byte, a managed Markdown section, a unified diff. */
export { setJsonValue, appendJsonArrayItem, replaceJsonNode, parseJsonDocument, type JsonValue, type JsonDialect } from './jsonc.js';
export { upsertTomlTable, parseToml, type TomlEntry } from './toml.js';
export { upsertSection, SECTION_BEGIN, SECTION_END } from './section.js';
export { unifiedDiff } from './diff.js';
