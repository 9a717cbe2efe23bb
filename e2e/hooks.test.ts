/**
 * Claims enforced where the edit happens, as users run them: the bundled bin/heimdall in temporary
 * git repositories where Heimdall is "installed" (node_modules/.bin links to this checkout's
 * programs). Claude Code's PreToolUse hook gets real-shaped hook inputs on stdin; the MCP server of
 * "the same Claude Code session" is the real one, driven by the SDK client; git runs the pre-commit
 * hook setup wrote. Clocks are fixed with HEIMDALL_NOW, so "45 min left" is exact.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT, type RunResult, hermeticEnv, tmpDir } from '../server/testing/fixtures.js';

const T0 = Date.parse('2026-06-11T12:00:00Z');
const LATER = String(T0 + 15 * 60_000);
const dirs: string[] = [];
const clients: Client[] = [];

beforeAll(() => {
  for (const f of ['dist/cli/main.js', 'dist/cli/hook.js', 'dist/mcp/stdio.js']) {
    if (!fs.existsSync(path.join(REPO_ROOT, f))) throw new Error(`${f} is missing: run npm run build:cli first`);
  }
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function sh(cmd: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}, input = ''): RunResult {
  const r = spawnSync(cmd, args, { cwd, env: hermeticEnv({ HEIMDALL_NOW: String(T0), ...env }), input, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const heimdall = (cwd: string, args: string[], env: Record<string, string | undefined> = {}, input = '') => sh(path.join(BIN, 'heimdall'), args, cwd, env, input);
const git = (cwd: string, args: string[], env: Record<string, string | undefined> = {}) => sh('git', ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', ...args], cwd, env);

/** A git repository with Heimdall installed in node_modules and a planning tree (`heimdall init`). */
function userRepo(opts: { init?: boolean } = {}): string {
  const root = fs.realpathSync(tmpDir('heimdall-hooks-repo-'));
  dirs.push(root);
  expect(sh('git', ['init', '-q', '-b', 'main', root], root).code).toBe(0);
  fs.mkdirSync(path.join(root, 'node_modules/.bin'), { recursive: true });
  for (const p of ['heimdall', 'heimdall-ledger-mcp']) fs.symlinkSync(path.join(BIN, p), path.join(root, 'node_modules/.bin', p));
  fs.writeFileSync(path.join(root, '.gitignore'), 'node_modules/\n');
  fs.mkdirSync(path.join(root, 'src/api'), { recursive: true });
  fs.writeFileSync(path.join(root, 'src/api/users.ts'), 'export const users = [];\n');
  fs.writeFileSync(path.join(root, 'README.md'), '# app\n');
  if (opts.init !== false) expect(heimdall(root, ['init']).code).toBe(0);
  return root;
}

function claim(root: string, agent: string, surfaces: string, task: string): string {
  const r = heimdall(root, ['claim', 'claim', '--surfaces', surfaces, '--task', task, '--ttl-minutes', '60', '--json'], { HEIMDALL_AGENT: agent });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).claim.id;
}
const rootHaid = (root: string) => heimdall(root, ['haid', 'root']).stdout.trim();

/** Claude Code's PreToolUse input (code.claude.com/docs/en/hooks) for one tool call. */
function hookInput(root: string, tool: 'Edit' | 'Write' | 'MultiEdit', file: string, extra: Record<string, unknown> = {}): string {
  const filePath = path.isAbsolute(file) ? file : path.join(root, file);
  const toolInput =
    tool === 'Edit'
      ? { file_path: filePath, old_string: 'export const users = [];', new_string: 'export const users: User[] = [];', replace_all: false }
      : tool === 'Write'
        ? { file_path: filePath, content: 'export const created = true;\n' }
        : { file_path: filePath, edits: [{ old_string: 'users', new_string: 'people', replace_all: true }, { old_string: '[]', new_string: '[1]' }] };
  return JSON.stringify({
    session_id: '0b8c9d5e-6f61-4bb2-9c1e-1f2a3b4c5d6e',
    transcript_path: path.join(root, '.claude-transcript.jsonl'),
    cwd: root,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: toolInput,
    tool_use_id: 'toolu_01ABC123',
    ...extra,
  });
}
const hook = (root: string, input: string, env: Record<string, string | undefined> = {}, cwd = root) => heimdall(cwd, ['hook', 'claude-pre-tool-use'], { HEIMDALL_NOW: LATER, ...env }, input);

describe('heimdall hook claude-pre-tool-use', () => {
  it('refuses Edit, Write and MultiEdit of a file another agent claimed (exit 2), naming holder, address, task, claim and time left; allowed edits print nothing', () => {
    const root = userRepo();
    const id = claim(root, 'bob.1', 'src/api/**', 'T-9');
    const r0 = rootHaid(root);
    const alice = { HEIMDALL_AGENT: 'alice.1' };
    for (const tool of ['Edit', 'Write', 'MultiEdit'] as const) {
      const r = hook(root, hookInput(root, tool, tool === 'Write' ? 'src/api/new.ts' : 'src/api/users.ts'), alice);
      expect(r.code, `${tool}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Heimdall refused ${tool}: this file is claimed by another agent.`);
      expect(r.stderr).toContain(`held by ${r0}/bob.1 (bob.1@team) for task T-9 (claim ${id}, surfaces src/api/**), until 2026-06-11T13:00:00Z: 45 min left`);
      expect(r.stderr).toContain(`You are ${r0}/alice.1 (alice.1@team), named by $HEIMDALL_AGENT.`);
      expect(r.stderr).toContain('herd_send to bob.1@team');
      expect(r.stderr).toContain('raise_conflict_pr');
    }
    // Allowed: a file nobody claimed, the holder's own file, a file outside the repository.
    for (const [input, env] of [
      [hookInput(root, 'Edit', 'README.md'), alice],
      [hookInput(root, 'MultiEdit', 'src/api/users.ts'), { HEIMDALL_AGENT: 'bob.1' }],
      [hookInput(root, 'Write', path.join(path.dirname(root), 'elsewhere.ts')), alice],
    ] as const) {
      expect(hook(root, input, env)).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    // After the expiry the same edit goes through.
    expect(hook(root, hookInput(root, 'Edit', 'src/api/users.ts'), { ...alice, HEIMDALL_NOW: String(T0 + 61 * 60_000) }).code).toBe(0);
  });

  it('takes the agent from session_id the way the MCP server of the same Claude Code session does: its own claim is allowed, another session is refused', async () => {
    const root = userRepo();
    const session = '7d1f3a2b-9c4e-4f5a-8b6c-0d1e2f3a4b5c';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(BIN, 'heimdall-ledger-mcp')],
      cwd: root,
      env: hermeticEnv({ CLAUDE_CODE_SESSION_ID: session, HEIMDALL_NOW: String(T0) }) as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'claude-code', version: '2.1.170' });
    clients.push(client);
    await client.connect(transport);
    const made = (await client.callTool({ name: 'make_claim', arguments: { surfaces: ['src/core/**'], task: 'T-1' } })) as CallToolResult;
    expect(made.isError).toBeFalsy();
    const claimed = JSON.parse((made.content[0] as { text: string }).text);
    await client.close();
    const r0 = rootHaid(root);
    expect(claimed.haid).toBe(`${r0}/claude-code.s1`);
    const haids = fs.readFileSync(path.join(root, '.planning/ledger/haids.json'), 'utf8');

    const edit = (sessionId: string | undefined) => hookInput(root, 'Edit', 'src/core/engine.ts', { session_id: sessionId });
    expect(hook(root, edit(session))).toEqual({ code: 0, stdout: '', stderr: '' });
    const other = hook(root, edit('a-different-session'));
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`held by ${r0}/claude-code.s1 (claude-code.s1@team) for task T-1 (claim ${claimed.claim.id}`);
    expect(other.stderr).toContain('This Claude Code session has no Heimdall identity yet');
    expect(other.stderr).toContain('HEIMDALL_AGENT=<name>');
    // No session at all: an unknown agent, refused, told how to name itself.
    const none = hook(root, JSON.stringify({ ...JSON.parse(edit(undefined)), session_id: undefined }));
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Heimdall cannot tell which agent you are (no HEIMDALL_AGENT and no session_id)');
    // HEIMDALL_AGENT wins over the session, as it does for the MCP server.
    expect(hook(root, edit(session), { HEIMDALL_AGENT: 'zed.1' }).code).toBe(2);
    expect(hook(root, edit('a-different-session'), { HEIMDALL_AGENT: 'claude-code.s1' }).code).toBe(0);
    // The hook only reads: the other session was not bound, nothing was registered.
    expect(fs.readFileSync(path.join(root, '.planning/ledger/haids.json'), 'utf8')).toBe(haids);
  });

  it('fails open with a warning (exit 0) on input it cannot read, without a planning tree, or with a claims file broken by hand', () => {
    const root = userRepo();
    claim(root, 'bob.1', 'src/**', 'T-1');
    const warned = (r: RunResult, what: string) => {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(what);
      expect(r.stderr).toContain('not checked against claims');
    };
    warned(hook(root, 'not json'), 'the hook input is not JSON');
    warned(hook(root, '[1, 2]'), 'not a JSON object');
    warned(hook(root, JSON.stringify({ tool_name: 'Edit', tool_input: {} })), 'no file path in tool_input for Edit');
    // Another event (the edit is already made), or a tool the hook does not check (a wider
    // matcher in settings), passes silently.
    expect(hook(root, hookInput(root, 'Edit', 'src/api/users.ts', { hook_event_name: 'PostToolUse' }))).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(hook(root, JSON.stringify({ tool_name: 'Bash', tool_input: { command: 'ls' } }))).toEqual({ code: 0, stdout: '', stderr: '' });
    const bare = userRepo({ init: false });
    warned(hook(bare, hookInput(bare, 'Edit', 'src/api/users.ts')), 'no planning tree');
    warned(hook(root, hookInput(root, 'Edit', 'src/api/users.ts'), { HEIMDALL_MAX_READ_BYTES: 'lots' }), 'HEIMDALL_MAX_READ_BYTES');
    // Clearly a write to a claimed file: refused even with the rest of the input missing (no
    // session_id, no cwd, no tool_name; the path relative to the hook's folder).
    expect(hook(root, JSON.stringify({ tool_input: { file_path: 'api/users.ts' } }), {}, path.join(root, 'src')).code).toBe(2);
    const claims = path.join(root, '.planning/ledger/claims.json');
    fs.writeFileSync(claims, '{"version": "2.0.0", "claims": {"c-1": {"haid": 42}}}');
    warned(hook(root, hookInput(root, 'Edit', 'src/api/users.ts')), 'claims.json');
  });

  it('runs as setup writes it: the command in .claude/settings.json, from a subfolder of the project', () => {
    const root = userRepo();
    const id = claim(root, 'bob.1', 'src/api/**', 'T-9');
    expect(heimdall(root, ['setup', 'claude-code', '--hooks']).code).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8'));
    const [entry] = settings.hooks.PreToolUse;
    expect(entry.matcher).toBe('Edit|Write|MultiEdit');
    const command = entry.hooks[0].command as string;
    // Claude Code runs the command in a shell with CLAUDE_PROJECT_DIR set, from the session's folder.
    const run = (input: string) => sh('sh', ['-c', command], path.join(root, 'src'), { CLAUDE_PROJECT_DIR: root, HEIMDALL_AGENT: 'alice.1', HEIMDALL_NOW: LATER }, input);
    const refused = run(hookInput(root, 'Edit', 'src/api/users.ts'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`claim ${id}`);
    expect(run(hookInput(root, 'Edit', 'README.md'))).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('heimdall hook pre-commit (installed by heimdall setup --git-hook)', () => {
  function committed(root: string): string[] {
    return git(root, ['log', '--format=%s']).stdout.split('\n').filter(Boolean);
  }

  it('refuses a commit touching a file another agent claimed, naming every block; the holder commits; --no-verify bypasses', () => {
    const root = userRepo();
    const setup = heimdall(root, ['setup', '--git-hook']);
    expect(setup.code, setup.stderr).toBe(0);
    expect(setup.stdout).toContain('created      .git/hooks/pre-commit');
    expect(git(root, ['add', '.gitignore', 'README.md']).code).toBe(0);
    expect(git(root, ['commit', '-qm', 'first']).code).toBe(0); // nothing claimed yet
    const r0 = rootHaid(root);
    const id = claim(root, 'bob.1', 'src/api/**', 'T-9');
    fs.mkdirSync(path.join(root, 'docs'));
    fs.writeFileSync(path.join(root, 'docs/a.md'), 'a\n');
    git(root, ['add', 'src', 'docs']);

    for (const env of [{}, { HEIMDALL_AGENT: 'alice.1' }]) {
      const r = git(root, ['commit', '-qm', 'second'], env);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('heimdall: commit refused: a staged file is claimed by another agent.');
      expect(r.stderr).toContain(`  src/api/users.ts\n    held by ${r0}/bob.1 (bob.1@team) for task T-9 (claim ${id}, surfaces src/api/**)`);
      expect(r.stderr).toContain('git commit --no-verify');
    }
    expect(committed(root)).toEqual(['first']);
    expect(git(root, ['commit', '-qm', 'second'], { HEIMDALL_AGENT: 'bob.1' }).code).toBe(0);
    // A rename out of the claimed folder touches the claimed path too; `git commit -a` is checked.
    git(root, ['mv', 'src/api/users.ts', 'docs/users.ts']);
    expect(git(root, ['commit', '-qm', 'move'], { HEIMDALL_AGENT: 'alice.1' }).code).toBe(1);
    git(root, ['reset', '-q', '--hard']);
    fs.appendFileSync(path.join(root, 'src/api/users.ts'), '// more\n');
    expect(git(root, ['commit', '-qam', 'all'], { HEIMDALL_AGENT: 'alice.1' }).code).toBe(1);
    const bypass = git(root, ['commit', '-qam', 'bypassed', '--no-verify'], { HEIMDALL_AGENT: 'alice.1' });
    expect(bypass.code).toBe(0);
    // Unclaimed files commit as usual.
    fs.appendFileSync(path.join(root, 'README.md'), 'more\n');
    expect(git(root, ['commit', '-qam', 'readme'], { HEIMDALL_AGENT: 'alice.1' })).toMatchObject({ code: 0, stderr: '' });
    expect(committed(root)).toEqual(['readme', 'bypassed', 'second', 'first']);
  });

  it('respects core.hooksPath and a linked worktree (a .git file): the hook goes where git runs hooks, and works there', () => {
    const root = userRepo();
    git(root, ['config', 'core.hooksPath', '.githooks']);
    expect(heimdall(root, ['setup', '--git-hook']).code).toBe(0);
    expect(fs.existsSync(path.join(root, '.githooks/pre-commit'))).toBe(true);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
    claim(root, 'bob.1', 'src/**', 'T-1');
    git(root, ['add', 'src']);
    expect(git(root, ['commit', '-qm', 'x']).code).toBe(1);

    const main = userRepo();
    git(main, ['add', 'README.md']);
    git(main, ['commit', '-qm', 'first']);
    const wt = path.join(path.dirname(main), `${path.basename(main)}-wt`);
    dirs.push(wt);
    expect(git(main, ['worktree', 'add', '-q', wt]).code).toBe(0);
    fs.mkdirSync(path.join(wt, 'node_modules/.bin'), { recursive: true });
    fs.symlinkSync(path.join(BIN, 'heimdall'), path.join(wt, 'node_modules/.bin/heimdall'));
    expect(fs.statSync(path.join(wt, '.git')).isFile()).toBe(true);
    const r = heimdall(wt, ['setup', '--git-hook']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`created      ${path.join(main, '.git/hooks/pre-commit')}  (outside the repository)`);
  });

  it("never replaces the user's own pre-commit hook: refused with the line to add, nothing written; chained by hand, it is left as it is and works", () => {
    const root = userRepo();
    const mine = path.join(root, '.git/hooks/pre-commit');
    fs.writeFileSync(mine, '#!/bin/sh\necho linting >&2\n', { mode: 0o755 });
    const r = heimdall(root, ['setup', 'claude-code', '--hooks', '--git-hook']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(".git/hooks/pre-commit already exists and is not Heimdall's");
    expect(r.stderr).toContain('\n  ./node_modules/.bin/heimdall hook pre-commit || exit 1\n');
    expect(fs.readFileSync(mine, 'utf8')).toBe('#!/bin/sh\necho linting >&2\n');
    expect(fs.existsSync(path.join(root, '.mcp.json'))).toBe(false);
    expect(fs.existsSync(path.join(root, '.claude'))).toBe(false);
    // The user adds the line; setup then leaves the hook alone, and the check runs from it.
    fs.writeFileSync(mine, '#!/bin/sh\n./node_modules/.bin/heimdall hook pre-commit || exit 1\necho linting >&2\n');
    const again = heimdall(root, ['setup', '--git-hook']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing to change');
    claim(root, 'bob.1', 'src/**', 'T-1');
    git(root, ['add', 'src']);
    expect(git(root, ['commit', '-qm', 'x']).code).toBe(1);
  });
});

describe('heimdall setup --hooks / --git-hook', () => {
  it('merges into .claude/settings.json keeping the user\'s settings, dry-runs, and is idempotent', () => {
    const root = userRepo();
    const userSettings = '{\n  "model": "opus",\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./guard.sh" } ] }\n    ]\n  }\n}\n';
    fs.mkdirSync(path.join(root, '.claude'));
    fs.writeFileSync(path.join(root, '.claude/settings.json'), userSettings);
    const dry = heimdall(root, ['setup', 'claude-code', '--hooks', '--git-hook', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('+++ b/.claude/settings.json');
    expect(dry.stdout).toContain('+        "matcher": "Edit|Write|MultiEdit",');
    expect(dry.stdout).toContain('+++ b/.git/hooks/pre-commit');
    expect(dry.stdout).toContain('dry run: nothing was written.');
    expect(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8')).toBe(userSettings);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);

    const json = JSON.parse(heimdall(root, ['setup', 'claude-code', '--hooks', '--git-hook', '--json']).stdout);
    expect(json.files.map((f: { path: string; purpose: string; action: string }) => [f.path, f.purpose, f.action])).toEqual([
      ['.mcp.json', 'mcp-config', 'create'],
      ['CLAUDE.md', 'instructions', 'create'],
      ['.claude/settings.json', 'claude-hook', 'update'],
      ['.git/hooks/pre-commit', 'git-hook', 'create'],
    ]);
    const settings = JSON.parse(fs.readFileSync(path.join(root, '.claude/settings.json'), 'utf8'));
    expect(settings.model).toBe('opus');
    expect(settings.hooks.PreToolUse.map((e: { matcher: string }) => e.matcher)).toEqual(['Bash', 'Edit|Write|MultiEdit']);
    expect(fs.statSync(path.join(root, '.git/hooks/pre-commit')).mode & 0o111).not.toBe(0);
    const again = heimdall(root, ['setup', 'claude-code', '--hooks', '--git-hook']);
    expect(again.stdout).toContain('nothing to change: claude-code, the git hook are already set up.');
  });

  it('refuses --hooks without claude-code and --git-hook outside a git repository', () => {
    const root = userRepo();
    const r = heimdall(root, ['setup', 'cursor', '--hooks']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('name claude-code');
    const plain = fs.realpathSync(tmpDir('heimdall-hooks-nogit-'));
    dirs.push(plain);
    fs.mkdirSync(path.join(plain, '.planning'));
    const g = heimdall(plain, ['setup', '--git-hook'], { GIT_CEILING_DIRECTORIES: path.dirname(plain) });
    expect(g.code).toBe(2);
    expect(g.stderr).toContain('--git-hook needs a git repository');
  });
});

describe('heimdall hook check', () => {
  it('answers for the caller, exit 1 when a path is claimed by another agent, with --json', () => {
    const root = userRepo();
    const id = claim(root, 'bob.1', 'src/**', 'T-1');
    const r = heimdall(root, ['hook', 'check', 'src/api/users.ts', 'README.md', '/etc/hosts'], { HEIMDALL_AGENT: 'alice.1' });
    expect(r.code).toBe(1);
    expect(r.stdout.split('\n')).toEqual([expect.stringMatching(new RegExp(`^src/api/users.ts\\theld by .*/bob\\.1 \\(bob\\.1@team\\) for task T-1 \\(claim ${id}`)), 'README.md\tfree', '/etc/hosts\toutside the repository: not checked', '']);
    expect(heimdall(root, ['hook', 'check', 'src/api/users.ts'], { HEIMDALL_AGENT: 'bob.1' }).code).toBe(0);
    const json = JSON.parse(heimdall(root, ['hook', 'check', 'src/a.ts', '--as', 'alice.1', '--json']).stdout);
    expect(json).toMatchObject({ blocked: true, paths: [{ path: 'src/a.ts', blocks: [{ claim: id, address: 'bob.1@team' }] }] });
    expect(heimdall(root, ['hook', 'nope']).code).toBe(2);
  });
});
