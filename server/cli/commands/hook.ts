/**
 * `heimdall hook ...`: claims enforced where the edit happens (issue 12 item 4). One read-only core
 * call (`checkWrite`) per run; `heimdall setup claude-code --hooks` and `heimdall setup --git-hook`
 * install the two callers.
 *
 * claude-pre-tool-use (Claude Code's PreToolUse hook, matcher `Edit|Write|MultiEdit`)
 *   Input: the hook's JSON on stdin (code.claude.com/docs/en/hooks, "PreToolUse input"): session_id,
 *   cwd, hook_event_name, tool_name and tool_input. Edit and Write carry `tool_input.file_path`
 *   (absolute); MultiEdit carries one `file_path` with an `edits` list; NotebookEdit a
 *   `notebook_path`. Every path found there is checked.
 *   Output: the docs' "Exit code 2 behavior": for PreToolUse, exit 2 blocks the tool call, and
 *   Claude Code ignores stdout and feeds stderr back to Claude as the reason. That contract is
 *   used (rather than the JSON `permissionDecision: "deny"` on stdout) because every Claude Code
 *   release with hooks honours it. So: an edit of a file another agent holds exits 2 with the
 *   holder, task, claim and time left on stderr; an allowed edit prints nothing and exits 0.
 *   Failing open: any other exit code is a non-blocking error for Claude Code, and anything that
 *   goes wrong here (unreadable input, no planning tree, a claims file broken by hand) exits 0
 *   with a warning on stderr, so a fault of Heimdall's never stops an edit. The one exception is an
 *   input that is broken only in part: whatever file path can be read from it is still checked.
 *   Identity: the rule of server/core/identity/session.ts, read-only (`lookupCaller`):
 *   HEIMDALL_AGENT, then HEIMDALL_HAID, then the session: the input's `session_id` stands in for
 *   CLAUDE_CODE_SESSION_ID, which is what the MCP server of the same Claude Code session sees, so
 *   the hook and the MCP session are one agent. A session that has not yet touched Heimdall, or
 *   no identity at all, owns no claim: every active claim blocks it, and the message says how to
 *   name the session.
 *
 * pre-commit (git's pre-commit hook)
 *   The staged paths (renames: old and new path) checked the same way for the committing agent
 *   (HEIMDALL_AGENT, or a client session id in the environment; nobody: every active claim
 *   blocks). Exit 1 naming every block; `git commit --no-verify` bypasses it.
 *
 * check PATH... [--as AGENT] [--json]
 *   The same check by hand: exit 1 when a path is blocked.
 *
 * Speed: this runs before every edit. It loads no ajv, tokenizer, wire or MCP code, and bin/heimdall
 * starts it from its own bundle entry (dist/cli/hook.js, server/cli/hook-main.ts) without the rest of
 * the CLI (bench/hooks.bench.ts).
 */
import {
  HeimdallError,
  makeCtx,
  checkWrite,
  describeBlock,
  lookupCaller,
  readRegistry,
  usableSessionId,
  locatePlanningTree,
  noTreeMessage,
  type Ctx,
  type WriteCheck,
  type CallerLookup,
  type HaidRegistry,
} from '../../core/index.js';
import { applyStorageLimits, clockFrom } from '../../runtime.js';
import { bool, parseArgs, str, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import type { Io } from '../io.js';
import { stagedPaths } from '../git.js';

const USAGE = [
  'heimdall hook claude-pre-tool-use | pre-commit | check PATH... [--as AGENT] [--json]',
  '  claude-pre-tool-use  Claude Code PreToolUse hook: reads the hook JSON on stdin; exit 2 refuses an edit of a file another agent claimed',
  '  pre-commit           git pre-commit hook: exit 1 when a staged file is claimed by another agent (bypass: git commit --no-verify)',
  '  check                may the caller (HEIMDALL_AGENT, or --as) write these files now? exit 1 when one is claimed by another agent',
  'install them with: heimdall setup claude-code --hooks   and   heimdall setup --git-hook',
].join('\n');

type Env = Record<string, string | undefined>;

/** Where the tree is and the context on it, or why there is none. */
function treeAt(env: Env, cwd: string): { ctx: Ctx } | { problem: string } {
  const tree = locatePlanningTree(env, cwd);
  if (!tree.exists) return { problem: noTreeMessage(tree) };
  return { ctx: makeCtx(tree.root, { clock: clockFrom(env), env }) };
}

/** Who is writing, never failing: a name that resolves to nobody leaves the writer unknown, with the reason. */
function whoIsWriting(ctx: Ctx, env: Env, registry?: HaidRegistry): { lookup: CallerLookup; problem?: string } {
  try {
    return { lookup: lookupCaller(ctx, env, registry) };
  } catch (e) {
    return { lookup: { source: 'none' }, problem: (e as Error).message };
  }
}

/** haids.json, read once for both the writer and the check; undefined when it cannot be read (the check then says why). */
function registryOf(ctx: Ctx): HaidRegistry | undefined {
  try {
    return readRegistry(ctx);
  } catch {
    return undefined;
  }
}

function describeWriter(w: { lookup: CallerLookup; problem?: string }, context: 'edit' | 'commit'): string {
  const { lookup } = w;
  const session = context === 'edit' ? "this Claude Code session's session_id" : `$${lookup.via ?? 'CLAUDE_CODE_SESSION_ID'}`;
  if (lookup.identity) {
    const id = lookup.identity;
    const name = id.address ? `${id.haid} (${id.address})` : id.haid;
    return `You are ${name}, named by ${lookup.source === 'session' ? session : `$${lookup.source}`}.`;
  }
  const counts = "so every active claim counts as another agent's";
  if (w.problem) return `Heimdall could not tell which agent you are (${w.problem}), ${counts}.`;
  if (lookup.unbound) {
    return context === 'edit'
      ? `This Claude Code session has no Heimdall identity yet (its session_id is bound to no agent: it has not used Heimdall's tools), ${counts}.`
      : `The client session named by ${session} has no Heimdall identity yet, ${counts}.`;
  }
  return `Heimdall cannot tell which agent you are (no HEIMDALL_AGENT${context === 'edit' ? ' and no session_id' : ' and no client session id'}), ${counts}.${context === 'commit' ? ' If you are an agent that holds claims, commit with HEIMDALL_AGENT=<your name>.' : ''}`;
}

function blockLines(check: WriteCheck): string[] {
  const out: string[] = [];
  for (const p of check.paths) {
    if (p.blocks.length === 0) continue;
    out.push(`  ${p.path}`);
    for (const b of p.blocks) out.push(`    ${describeBlock(b)}`);
  }
  return out;
}

function holders(check: WriteCheck): string {
  const names = new Set<string>();
  for (const p of check.paths) for (const b of p.blocks) names.add(b.address ?? b.holder);
  return [...names].join(', ');
}

const NAME_THE_SESSION = 'If these claims are your own, this session is not the agent that made them: start Claude Code with HEIMDALL_AGENT=<name> (the same name the MCP server gets through .mcp.json) so the hook and your claims agree.';

/** The paths a PreToolUse input names: Edit/Write/MultiEdit `file_path`, NotebookEdit `notebook_path`. */
function toolPaths(input: Record<string, unknown>): string[] {
  const ti = input.tool_input;
  if (typeof ti !== 'object' || ti === null || Array.isArray(ti)) return [];
  const t = ti as Record<string, unknown>;
  return [t.file_path, t.notebook_path].filter((p): p is string => typeof p === 'string' && p !== '' && !p.includes('\0'));
}

async function claudePreToolUse(io: Io, env: Env, processCwd: string): Promise<number> {
  const warn = (why: string) => {
    io.err(`heimdall hook: warning: ${why}; the edit was not checked against claims.`);
    return 0;
  };
  let raw: string;
  try {
    raw = await io.readStdin();
  } catch (e) {
    return warn(`cannot read the hook input: ${(e as Error).message}`);
  }
  let input: unknown;
  try {
    input = JSON.parse(raw);
  } catch (e) {
    return warn(`the hook input is not JSON (${(e as Error).message}); expected Claude Code's PreToolUse input {"session_id", "cwd", "tool_name", "tool_input": {"file_path"}}`);
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return warn('the hook input is not a JSON object');
  const obj = input as Record<string, unknown>;
  // Wired to another event (PostToolUse: the edit is already made), there is nothing to refuse.
  if (typeof obj.hook_event_name === 'string' && obj.hook_event_name !== 'PreToolUse') return 0;
  const paths = toolPaths(obj);
  if (paths.length === 0) {
    // A tool this hook does not check (a wider matcher), or a write without a path.
    const tool = typeof obj.tool_name === 'string' ? obj.tool_name : undefined;
    return tool && !/^(Edit|Write|MultiEdit|NotebookEdit)$/.test(tool) ? 0 : warn(`no file path in tool_input for ${tool ?? 'the tool'}`);
  }
  const inputCwd = typeof obj.cwd === 'string' && obj.cwd !== '' ? obj.cwd : undefined;
  // The tree the MCP server of this session uses: it looks from CLAUDE_PROJECT_DIR, else its cwd.
  const project = env.CLAUDE_PROJECT_DIR?.trim() || inputCwd || processCwd;
  const found = treeAt(env, project);
  if ('problem' in found) return warn(found.problem);
  const sessionId = usableSessionId(typeof obj.session_id === 'string' ? obj.session_id : undefined);
  const writerEnv: Env = sessionId ? { ...env, CLAUDE_CODE_SESSION_ID: sessionId } : env;
  const registry = registryOf(found.ctx);
  const writer = whoIsWriting(found.ctx, writerEnv, registry);
  let check: WriteCheck;
  try {
    check = checkWrite(found.ctx, paths, writer.lookup.identity?.haid ?? null, { cwd: inputCwd ?? project, registry });
  } catch (e) {
    return warn((e as Error).message);
  }
  if (!check.blocked) return 0;
  const tool = typeof obj.tool_name === 'string' ? obj.tool_name : 'this edit';
  const n = check.paths.filter((p) => p.blocks.length).length;
  io.err(
    [
      `Heimdall refused ${tool}: ${n === 1 ? 'this file is' : `${n} files are`} claimed by another agent.`,
      ...blockLines(check),
      describeWriter(writer, 'edit'),
      `Do not edit ${n === 1 ? 'it' : 'them'} now. Ask the holder to release or hand over the claim (herd_send to ${holders(check)}), wait for the release or the expiry (read_claims shows them), take other work, or, if the change cannot wait, raise_conflict_pr.`,
      ...(writer.lookup.identity ? [] : [NAME_THE_SESSION]),
    ].join('\n'),
  );
  return 2;
}

async function preCommit(io: Io, env: Env, processCwd: string): Promise<number> {
  const warn = (why: string) => {
    io.err(`heimdall pre-commit: warning: ${why}; the commit was not checked against claims.`);
    return 0;
  };
  let staged: { top: string; paths: string[] };
  try {
    staged = await stagedPaths(processCwd, env);
  } catch (e) {
    return warn((e as Error).message);
  }
  if (staged.paths.length === 0) return 0;
  const found = treeAt(env, staged.top);
  if ('problem' in found) return warn(found.problem);
  const registry = registryOf(found.ctx);
  const writer = whoIsWriting(found.ctx, env, registry);
  let check: WriteCheck;
  try {
    check = checkWrite(found.ctx, staged.paths, writer.lookup.identity?.haid ?? null, { cwd: staged.top, registry });
  } catch (e) {
    return warn((e as Error).message);
  }
  if (!check.blocked) return 0;
  const n = check.paths.filter((p) => p.blocks.length).length;
  io.err(
    [
      `heimdall: commit refused: ${n === 1 ? 'a staged file is' : `${n} staged files are`} claimed by another agent.`,
      ...blockLines(check),
      describeWriter(writer, 'commit'),
      `To go ahead: wait for the claims to be released or to expire, ask the holder (${holders(check)}) to release them, commit as the holder if you are that agent (HEIMDALL_AGENT=<holder> git commit ...), or bypass this check once with \`git commit --no-verify\`.`,
    ].join('\n'),
  );
  return 1;
}

function checkPaths(argv: string[], io: Io, env: Env, processCwd: string): number {
  const p = parseArgs(argv, { usage: USAGE, flags: { as: 'string', json: 'boolean' }, positionals: [1, Infinity] });
  const found = treeAt(env, processCwd);
  if ('problem' in found) throw new HeimdallError('environment', found.problem);
  const as = str(p, 'as');
  let agent: string | null;
  let writer: { lookup: CallerLookup; problem?: string } | undefined;
  if (as !== undefined) agent = as;
  else {
    writer = whoIsWriting(found.ctx, env);
    if (writer.problem) throw new HeimdallError('invalid', writer.problem);
    agent = writer.lookup.identity?.haid ?? null;
  }
  const check = checkWrite(found.ctx, p.positionals, agent, { cwd: processCwd });
  if (bool(p, 'json')) io.out(JSON.stringify(check));
  else {
    for (const c of check.paths) {
      if (c.path === null) io.out(`${c.input}\toutside the repository: not checked`);
      else if (c.blocks.length === 0) io.out(`${c.path}\tfree`);
      else for (const b of c.blocks) io.out(`${c.path}\t${describeBlock(b)}`);
    }
  }
  return check.blocked ? 1 : 0;
}

/**
 * Run `heimdall hook <argv>` with this process's environment and working directory. The two hook
 * modes never throw: whatever fails, they fail open (exit 0 with a warning).
 */
const MODES = ['claude-pre-tool-use', 'pre-commit', 'check'] as const;

export async function runHook(argv: string[], io: Io, env: Env, cwd: string): Promise<number> {
  // --help anywhere prints the usage (with --json, as JSON: server/cli/README.md); --json before the
  // mode is the global flag, after it a mode's own (check --json).
  if (argv.includes('--help') || argv.includes('-h')) throw new HeimdallError('usage', `usage: ${USAGE}`, { help: true, usage: USAGE });
  const lead = argv[0] === '--json' ? 1 : 0;
  const [mode, ...rest] = argv.slice(lead);
  if (mode === 'claude-pre-tool-use' || mode === 'pre-commit') {
    if (rest.length) throw new HeimdallError('usage', `${mode} takes no arguments (its input is ${mode === 'pre-commit' ? 'what git has staged' : 'the hook JSON on stdin'})\nusage: ${USAGE}`);
    try {
      applyStorageLimits(env);
      return await (mode === 'pre-commit' ? preCommit(io, env, cwd) : claudePreToolUse(io, env, cwd));
    } catch (e) {
      io.err(`heimdall hook ${mode}: warning: ${(e as Error).message}; the ${mode === 'pre-commit' ? 'commit' : 'edit'} was not checked against claims.`);
      return 0;
    }
  }
  if (mode === 'check') {
    applyStorageLimits(env);
    return checkPaths(rest, io, env, cwd);
  }
  if (mode === undefined) throw new HeimdallError('usage', `usage: ${USAGE}`, { usage: USAGE });
  throw unknownWord(USAGE, mode, MODES, 'hook');
}

export const command: Command = {
  summary: 'claims enforced where the edit happens: hook claude-pre-tool-use | pre-commit | check PATH...',
  run: (argv, { io, runtime }) => runHook(argv, io, runtime.env, process.cwd()),
};
