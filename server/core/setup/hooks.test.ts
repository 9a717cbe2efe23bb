import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { thrown, tmpDir } from '../../testing/fixtures.js';
import { CLAUDE_HOOK_MATCHER, GIT_HOOK_MARK, type HookLauncher, claudeHookCommand, detectHookLauncher, editClaudeSettings, editGitHook, gitHookLine, isClaudeHookCommand } from './hooks.js';
import { appendJsonArrayItem } from './jsonc.js';
import { applySetup, planSetup } from './setup.js';

const LOCAL: HookLauncher = { kind: 'relative', path: 'node_modules/.bin/heimdall' };
const CMD = claudeHookCommand(LOCAL);
const LAUNCHER = { command: 'npx', args: ['--no-install', 'heimdall-ledger-mcp'] };

describe('the Claude Code hook command', () => {
  it('runs the program from the project root whatever the session folder, quoted for the shell', () => {
    expect(CMD).toBe('"$CLAUDE_PROJECT_DIR/node_modules/.bin/heimdall" hook claude-pre-tool-use');
    expect(claudeHookCommand({ kind: 'relative', path: 'we$ird "dir"/node_modules/.bin/heimdall' })).toBe('"$CLAUDE_PROJECT_DIR/we\\$ird \\"dir\\"/node_modules/.bin/heimdall" hook claude-pre-tool-use');
    expect(claudeHookCommand({ kind: 'path' })).toBe('heimdall hook claude-pre-tool-use');
    expect(claudeHookCommand({ kind: 'npx' })).toBe('npx --no-install heimdall hook claude-pre-tool-use');
    for (const l of [LOCAL, { kind: 'path' }, { kind: 'npx' }] as HookLauncher[]) expect(isClaudeHookCommand(claudeHookCommand(l))).toBe(true);
    expect(isClaudeHookCommand('prettier --write')).toBe(false);
  });
});

describe('editClaudeSettings', () => {
  const entry = { matcher: CLAUDE_HOOK_MATCHER, hooks: [{ type: 'command', command: CMD }] };

  it('creates the documented shape when there is no settings file', () => {
    expect(JSON.parse(editClaudeSettings(null, '.claude/settings.json', CMD))).toEqual({ hooks: { PreToolUse: [entry] } });
  });

  it("merges into the user's settings: other settings and hooks kept byte for byte, the entry appended", () => {
    const text = [
      '{',
      '    "model": "opus",',
      '    "permissions": {"allow": ["Bash(npm test)"]},',
      '    "hooks": {',
      '        "PreToolUse": [',
      '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}',
      '        ],',
      '        "Stop": []',
      '    }',
      '}',
      '',
    ].join('\n');
    const out = editClaudeSettings(text, 's.json', CMD);
    const parsed = JSON.parse(out);
    expect(parsed.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: './guard.sh' }] }, entry]);
    expect(parsed.model).toBe('opus');
    expect(parsed.hooks.Stop).toEqual([]);
    // Only the new item was inserted: everything before it is the old text, and so is the end.
    const at = text.indexOf('./guard.sh"}]}') + './guard.sh"}]}'.length;
    expect(out.slice(0, at)).toBe(text.slice(0, at));
    expect(out.endsWith(text.slice(text.indexOf('\n        ],')))).toBe(true);
    // It follows the file's 4-space indentation.
    expect(out).toContain('\n            {\n                "matcher": "Edit|Write|MultiEdit",');
    // Idempotent.
    expect(editClaudeSettings(out, 's.json', CMD)).toBe(out);
  });

  it('adds hooks or PreToolUse where they are missing, and handles an empty list', () => {
    expect(JSON.parse(editClaudeSettings('{"model": "opus"}\n', 's', CMD))).toEqual({ model: 'opus', hooks: { PreToolUse: [entry] } });
    expect(JSON.parse(editClaudeSettings('{"hooks": {"Stop": []}}', 's', CMD)).hooks).toEqual({ Stop: [], PreToolUse: [entry] });
    expect(JSON.parse(editClaudeSettings('{\n  "hooks": {\n    "PreToolUse": []\n  }\n}\n', 's', CMD)).hooks.PreToolUse).toEqual([entry]);
  });

  it("keeps an entry that already runs the check: the command brought up to date, the user's matcher left alone", () => {
    const old = JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'npx --no-install heimdall hook claude-pre-tool-use', timeout: 5 }] }] } }, null, 2);
    const out = editClaudeSettings(old, 's', CMD);
    expect(JSON.parse(out).hooks.PreToolUse).toEqual([{ matcher: 'Edit', hooks: [{ type: 'command', command: CMD, timeout: 5 }] }]);
    expect(out.replace(JSON.stringify(CMD), '"npx --no-install heimdall hook claude-pre-tool-use"')).toBe(old);
  });

  it('refuses a file that is not JSON or not the documented shape, naming the line', () => {
    expect(thrown(() => editClaudeSettings('{"hooks": {', 's.json', CMD)).message).toMatch(/^s\.json:1:\d+: not valid JSON/);
    expect(thrown(() => editClaudeSettings('{\n  "hooks": {\n    "PreToolUse": {}\n  }\n}', 's.json', CMD)).message).toContain('s.json:3: expected "hooks.PreToolUse" to be an array');
    expect(thrown(() => editClaudeSettings('{"hooks": "none"}', 's.json', CMD)).message).toContain('expected "hooks" to be an object');
    expect(thrown(() => editClaudeSettings('[]', 's.json', CMD)).message).toContain('expected a JSON object at the top level');
  });
});

describe('appendJsonArrayItem', () => {
  it('appends on one line to a one-line list, after a trailing comma and comment in JSONC, and inside a list of comments only', () => {
    expect(appendJsonArrayItem('{"a": [1, 2]}', { comments: false }, 'f', ['a'], 3)).toBe('{"a": [1, 2, 3]}');
    expect(appendJsonArrayItem('{\n  "a": [\n    1, // one\n  ]\n}', { comments: true }, 'f', ['a'], 2)).toBe('{\n  "a": [\n    1, // one\n    2,\n  ]\n}');
    expect(appendJsonArrayItem('{\n  "a": [\n    // nothing yet\n  ]\n}', { comments: true }, 'f', ['a'], 1)).toBe('{\n  "a": [\n    1\n    // nothing yet\n  ]\n}');
  });
});

describe('editGitHook', () => {
  it("writes Heimdall's script when there is none, and rewrites only its own", () => {
    const script = editGitHook(null, '.git/hooks/pre-commit', LOCAL);
    expect(script.split('\n').slice(0, 2)).toEqual(['#!/bin/sh', GIT_HOOK_MARK]);
    expect(script).toContain('exec "$heimdall" hook pre-commit');
    expect(editGitHook(script, 'x', LOCAL)).toBe(script);
    expect(editGitHook(script, 'x', { kind: 'path' })).toContain('exec heimdall hook pre-commit');
  });

  it("never replaces a hook of the user's own: refused with the line to add; once added by hand, left as it is", () => {
    const mine = '#!/bin/sh\nnpm run lint-staged\n';
    const e = thrown(() => editGitHook(mine, '.husky/pre-commit', LOCAL));
    expect(e.code).toBe('conflict');
    expect(e.message).toContain(".husky/pre-commit already exists and is not Heimdall's");
    expect(e.message).toContain(`\n  ${gitHookLine(LOCAL)}\n`);
    expect(gitHookLine(LOCAL)).toBe('./node_modules/.bin/heimdall hook pre-commit || exit 1');
    const chained = `#!/bin/sh\n${gitHookLine(LOCAL)}\nnpm run lint-staged\n`;
    expect(editGitHook(chained, 'x', LOCAL)).toBe(chained);
  });
});

describe('detectHookLauncher', () => {
  it('prefers the program installed in the repository (up the tree), then the package itself, then PATH, then npx with a warning', () => {
    const base = tmpDir('heimdall-hook-launcher-');
    const repo = path.join(base, 'mono/app');
    fs.mkdirSync(repo, { recursive: true });
    const onPath = path.join(base, 'bin');
    fs.mkdirSync(onPath);
    expect(detectHookLauncher(repo, [onPath])).toMatchObject({ launcher: { kind: 'npx' }, warning: expect.stringContaining('not installed in this repository') });
    fs.writeFileSync(path.join(onPath, 'heimdall'), '');
    expect(detectHookLauncher(repo, [onPath])).toEqual({ launcher: { kind: 'path' } });
    fs.mkdirSync(path.join(base, 'mono/node_modules/.bin'), { recursive: true });
    fs.writeFileSync(path.join(base, 'mono/node_modules/.bin/heimdall'), '');
    expect(detectHookLauncher(repo, [onPath])).toEqual({ launcher: { kind: 'relative', path: '../node_modules/.bin/heimdall' } });
    // A Heimdall checkout: the package's own bin.
    const checkout = path.join(base, 'checkout');
    fs.mkdirSync(path.join(checkout, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(checkout, 'bin/heimdall'), '');
    fs.writeFileSync(path.join(checkout, 'package.json'), JSON.stringify({ bin: { heimdall: 'bin/heimdall' } }));
    expect(detectHookLauncher(checkout, [])).toEqual({ launcher: { kind: 'relative', path: 'bin/heimdall' } });
    fs.rmSync(base, { recursive: true, force: true });
  });
});

describe('planSetup with hooks', () => {
  it('plans .claude/settings.json for --hooks and an executable pre-commit for the git hook; a second run changes nothing', () => {
    const root = tmpDir('heimdall-setup-hooks-');
    fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
    const opts = { root, clients: ['claude-code' as const], launcher: LAUNCHER, claudeHook: LOCAL, gitHook: { dir: path.join(root, '.git/hooks'), launcher: LOCAL } };
    const plan = planSetup(opts);
    expect(plan.files.map((f) => [f.display, f.purpose, f.action])).toEqual([
      ['.mcp.json', 'mcp-config', 'create'],
      ['CLAUDE.md', 'instructions', 'create'],
      ['.claude/settings.json', 'claude-hook', 'create'],
      ['.git/hooks/pre-commit', 'git-hook', 'create'],
    ]);
    expect(plan.next.map((n) => n.client)).toEqual(['claude-code', 'git']);
    applySetup(plan);
    expect(fs.statSync(path.join(root, '.git/hooks/pre-commit')).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(root, '.claude/settings.json')).mode & 0o111).toBe(0);
    expect(planSetup(opts).files.every((f) => f.action === 'unchanged')).toBe(true);
    // The git hook alone needs no client; --hooks needs claude-code.
    expect(planSetup({ root, clients: [], launcher: LAUNCHER, gitHook: opts.gitHook }).files.map((f) => f.display)).toEqual(['.git/hooks/pre-commit']);
    expect(thrown(() => planSetup({ root, clients: ['cursor'], launcher: LAUNCHER, claudeHook: LOCAL })).message).toContain('name claude-code');
    expect(thrown(() => planSetup({ root, clients: [], launcher: LAUNCHER })).code).toBe('usage');
    fs.rmSync(root, { recursive: true, force: true });
  });

  it("refuses the whole run, writing nothing, when the pre-commit hook is the user's own", () => {
    const root = tmpDir('heimdall-setup-hooks-');
    fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git/hooks/pre-commit'), '#!/bin/sh\nmake lint\n', { mode: 0o755 });
    const e = thrown(() => planSetup({ root, clients: ['claude-code'], launcher: LAUNCHER, gitHook: { dir: path.join(root, '.git/hooks'), launcher: LOCAL } }));
    expect(e.code).toBe('conflict');
    expect(fs.readdirSync(root).sort()).toEqual(['.git']);
    expect(fs.readFileSync(path.join(root, '.git/hooks/pre-commit'), 'utf8')).toBe('#!/bin/sh\nmake lint\n');
    fs.rmSync(root, { recursive: true, force: true });
  });
});
