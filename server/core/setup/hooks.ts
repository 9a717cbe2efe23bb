/**
 * The two hooks that enforce claims where the edit happens (issue 12 item 4), as setup writes them:
 * Claude Code's PreToolUse hook in `.claude/settings.json` (`heimdall setup claude-code --hooks`)
 * and git's pre-commit hook (`heimdall setup --git-hook`). Both run `heimdall hook ...` (see
 * server/cli/commands/hook.ts for what it checks and answers).
 *
 * How they start `heimdall`: unlike the MCP server (started once per session, through `npx
 * --no-install`), a hook runs before every edit, and npx adds a third of a second to each
 * (BENCHMARKS.md, "Claims hooks"). So a hook names the program directly: its path in the
 * repository (node_modules/.bin, or the package's own bin/ in a Heimdall checkout), the program on
 * PATH for a global install, and npx only when it is found nowhere (setup warns then).
 *
 * Claude Code (code.claude.com/docs/en/hooks): hooks live in settings files (`.claude/settings.json`
 * is the project's, shared through git) as
 *   { "hooks": { "PreToolUse": [ { "matcher": "Edit|Write|MultiEdit",
 *                                  "hooks": [ { "type": "command", "command": "..." } ] } ] } }
 * The matcher is a regular expression on the tool name; the command runs in a shell with
 * CLAUDE_PROJECT_DIR set to the project root ("Reference scripts by path" in those docs), which is
 * how a repository-relative program is found whatever the session's current folder. Setup appends
 * its entry to the PreToolUse list, leaving the user's other hooks and settings as they are; an
 * entry that already runs `heimdall hook claude-pre-tool-use` is kept (its command brought up to
 * date, its matcher left as the user may have narrowed it).
 *
 * Git (githooks(5)): `pre-commit` in the hooks folder (`git rev-parse --git-path hooks`: core.hooksPath
 * when set, shared by linked worktrees), run from the top of the working tree; a non-zero exit
 * stops the commit, and `git commit --no-verify` skips it. Git runs one pre-commit hook, so a hook
 * that is not Heimdall's is never replaced: setup refuses and prints the line to add to it by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HeimdallError } from '../errors.js';
import { type JsonNode, appendJsonArrayItem, formatJson, parseJsonDocument, replaceJsonNode } from './jsonc.js';

/** The CLI program the hooks run. */
export const CLI_PROGRAM = 'heimdall';
/** The tools whose edits the Claude Code hook checks. */
export const CLAUDE_HOOK_MATCHER = 'Edit|Write|MultiEdit';
/** The project settings file Claude Code reads hooks from (shared through git). */
export const CLAUDE_SETTINGS_FILE = path.join('.claude', 'settings.json');
/** The first line after the shebang of a pre-commit hook setup wrote: how it knows the hook is its own. */
export const GIT_HOOK_MARK = '# heimdall: claims check (written by `heimdall setup --git-hook`)';

/** How a hook starts `heimdall`: a repository-relative path, the program on PATH, or npx. */
export type HookLauncher = { kind: 'relative'; path: string } | { kind: 'path' } | { kind: 'npx' };

/**
 * How hooks in the repository at `base` should start `heimdall`: the program installed in the
 * repository (node_modules/.bin up the tree, or the package's own bin in a Heimdall checkout) by
 * its path from `base`; else on PATH; else npx, with a warning.
 */
export function detectHookLauncher(base: string, pathDirs: string[]): { launcher: HookLauncher; warning?: string } {
  const rel = (abs: string) => path.relative(base, abs).split(path.sep).join('/');
  for (let d = base; ; d = path.dirname(d)) {
    const bin = path.join(d, 'node_modules', '.bin', CLI_PROGRAM);
    if (fs.existsSync(bin)) return { launcher: { kind: 'relative', path: rel(bin) } };
    if (path.dirname(d) === d) break;
  }
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(base, 'package.json'), 'utf8')) as { bin?: unknown };
    const own = pkg.bin && typeof pkg.bin === 'object' && Object.hasOwn(pkg.bin, CLI_PROGRAM) ? (pkg.bin as Record<string, unknown>)[CLI_PROGRAM] : undefined;
    if (typeof own === 'string' && fs.existsSync(path.join(base, own))) return { launcher: { kind: 'relative', path: rel(path.join(base, own)) } };
  } catch {
    /* no package.json, or not Heimdall's */
  }
  for (const dir of pathDirs) {
    if (dir && fs.existsSync(path.join(dir, CLI_PROGRAM))) return { launcher: { kind: 'path' } };
  }
  return {
    launcher: { kind: 'npx' },
    warning: `${CLI_PROGRAM} is not installed in this repository (node_modules/.bin) nor on PATH: the hooks start it through npx --no-install, which fails until Heimdall is installed here and adds a third of a second to every check (npm install --save-dev <the Heimdall package>, then run setup again).`,
  };
}

/** A word for a POSIX shell, taken literally: in double quotes when it needs them. */
function shellWord(text: string): string {
  if (/^[\w./-]+$/.test(text)) return text;
  return `"${text.replace(/["\\`$]/g, '\\$&')}"`;
}

/** The command line that runs `heimdall hook <mode>` with this launcher; `base` prefixes a relative path. */
export function hookCommand(l: HookLauncher, mode: 'claude-pre-tool-use' | 'pre-commit', base?: string): string {
  if (l.kind === 'path') return `${CLI_PROGRAM} hook ${mode}`;
  if (l.kind === 'npx') return `npx --no-install ${CLI_PROGRAM} hook ${mode}`;
  // `base` is a variable reference ($CLAUDE_PROJECT_DIR) the shell expands; the path is taken literally.
  const program = base ? `"${base}/${l.path.replace(/["\\`$]/g, '\\$&')}"` : shellWord(l.path.startsWith('.') ? l.path : `./${l.path}`);
  return `${program} hook ${mode}`;
}

/** What `.claude/settings.json` runs: the program from the project root, whatever the session's folder. */
export function claudeHookCommand(l: HookLauncher): string {
  return hookCommand(l, 'claude-pre-tool-use', '$CLAUDE_PROJECT_DIR');
}

/** Does a hook command run Heimdall's Claude Code check (whatever launcher starts it)? */
export function isClaudeHookCommand(command: string): boolean {
  return /heimdall\S*["']?\s+hook\s+claude-pre-tool-use\b/.test(command);
}

function member(node: JsonNode | undefined, key: string): JsonNode | undefined {
  return node?.kind === 'object' ? node.members.find((m) => m.key === key)?.value : undefined;
}

/**
 * `.claude/settings.json` with Heimdall's PreToolUse hook: added to the list (created when absent)
 * unless an entry already runs it, whose command is then brought up to date. Everything else in
 * the file is kept byte for byte. Throws (naming the line) for a file that is not JSON or whose
 * `hooks` / `PreToolUse` is not the documented shape.
 */
export function editClaudeSettings(text: string | null, display: string, command: string): string {
  const entry = { matcher: CLAUDE_HOOK_MATCHER, hooks: [{ type: 'command', command }] };
  if (text === null || text.trim() === '') return `${formatJson({ hooks: { PreToolUse: [entry] } }, { eol: '\n', indent: '  ' }, '')}\n`;
  const dialect = { comments: false };
  const root = parseJsonDocument(text, dialect, display);
  const list = member(member(root, 'hooks'), 'PreToolUse');
  if (list?.kind === 'array') {
    for (const group of list.items) {
      const hooks = member(group, 'hooks');
      if (hooks?.kind !== 'array') continue;
      for (const h of hooks.items) {
        const cmd = member(h, 'command');
        if (cmd?.kind === 'string' && isClaudeHookCommand(cmd.value as string)) return cmd.value === command ? text : replaceJsonNode(text, cmd, command);
      }
    }
  }
  return appendJsonArrayItem(text, dialect, display, ['hooks', 'PreToolUse'], entry);
}

/** The pre-commit script setup writes. */
export function gitHookScript(l: HookLauncher): string {
  const lines = [
    '#!/bin/sh',
    GIT_HOOK_MARK,
    '# Refuses a commit that touches a file another agent has claimed, naming the holder, the task and',
    '# the time left. Bypass it once with `git commit --no-verify`; delete this file to turn it off.',
  ];
  if (l.kind === 'relative') {
    // Git runs hooks from the top of the working tree, where the repository's path starts.
    lines.push(
      `heimdall=${shellWord(l.path.startsWith('.') ? l.path : `./${l.path}`)}`,
      'if [ ! -x "$heimdall" ]; then',
      '  echo "heimdall pre-commit: $heimdall is missing (npm install?); the commit was not checked against claims" >&2',
      '  exit 0',
      'fi',
      'exec "$heimdall" hook pre-commit',
    );
  } else if (l.kind === 'path') {
    lines.push(
      `if ! command -v ${CLI_PROGRAM} >/dev/null 2>&1; then`,
      `  echo "heimdall pre-commit: ${CLI_PROGRAM} is not on PATH; the commit was not checked against claims" >&2`,
      '  exit 0',
      'fi',
      `exec ${hookCommand(l, 'pre-commit')}`,
    );
  } else lines.push(`exec ${hookCommand(l, 'pre-commit')}`);
  return `${lines.join('\n')}\n`;
}

/** The line a user adds to a pre-commit hook of their own to chain Heimdall's check. */
export function gitHookLine(l: HookLauncher): string {
  return `${hookCommand(l, 'pre-commit')} || exit 1`;
}

/**
 * The pre-commit hook with Heimdall's check: written when there is none, rewritten when it is the
 * one setup wrote, left alone when the user's own hook already runs `heimdall hook pre-commit`.
 * Any other hook is the user's and is never overwritten: `conflict`, with the line to add by hand.
 */
export function editGitHook(text: string | null, display: string, l: HookLauncher): string {
  const script = gitHookScript(l);
  if (text === null || text.trim() === '') return script;
  if (text.includes(GIT_HOOK_MARK)) return script;
  if (/heimdall\S*["']?\s+hook\s+pre-commit\b/.test(text)) return text;
  throw new HeimdallError(
    'conflict',
    `${display} already exists and is not Heimdall's; setup never replaces a hook (git runs only one pre-commit). To chain Heimdall's check, add this line to it, before anything that ends the script (an exit or exec):\n  ${gitHookLine(l)}\nthen run setup again (it will leave the hook as it is), or leave out --git-hook. Nothing was changed.`,
    { file: display },
  );
}
