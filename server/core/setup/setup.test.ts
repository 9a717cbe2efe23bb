import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { thrown, tmpDir } from '../../testing/fixtures.js';
import { type ClientName, clientSpec } from './clients.js';
import { type SetupPlan, applySetup, detectLauncher, findRepositoryRoot, planDiff, planSetup } from './setup.js';

const LAUNCHER = { command: 'npx', args: ['--no-install', 'heimdall-ledger-mcp'] };
const made: string[] = [];
afterEach(() => {
  // Read-only files and folders made by a test must not outlive it.
  for (const p of made.splice(0)) if (fs.existsSync(p)) fs.chmodSync(p, 0o755);
});

function repo(files: Record<string, string> = {}): string {
  const root = tmpDir('heimdall-setup-');
  fs.mkdirSync(path.join(root, '.git'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}
const read = (root: string, rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const setup = (root: string, clients: ClientName[], extra: { codexUserHome?: string } = {}) => {
  const plan = planSetup({ root, clients, launcher: LAUNCHER, ...extra });
  applySetup(plan);
  return plan;
};
/** Every file under root (but .git) with its bytes, to prove nothing was written. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.name === '.git') continue;
      if (e.isDirectory()) walk(p);
      else out[path.relative(root, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(root);
  return out;
}

/** Per client: its file, and how its Heimdall entry reads back. */
const JSON_CLIENTS: { client: ClientName; file: string; key: string; env: string; instructions: string }[] = [
  { client: 'claude-code', file: '.mcp.json', key: 'mcpServers', env: '${HEIMDALL_AGENT:-}', instructions: 'CLAUDE.md' },
  { client: 'cursor', file: '.cursor/mcp.json', key: 'mcpServers', env: '${env:HEIMDALL_AGENT}', instructions: 'AGENTS.md' },
  { client: 'vscode', file: '.vscode/mcp.json', key: 'servers', env: '${env:HEIMDALL_AGENT}', instructions: 'AGENTS.md' },
];

describe.each(JSON_CLIENTS)('setup $client ($file)', ({ client, file, key, env, instructions }) => {
  const entry = { type: 'stdio', command: 'npx', args: ['--no-install', 'heimdall-ledger-mcp'], env: { HEIMDALL_AGENT: env } };

  it('creates a fresh config and the instructions section', () => {
    const root = repo();
    const plan = setup(root, [client]);
    expect(plan.files.map((f) => [f.display, f.action])).toEqual([
      [file, 'create'],
      [instructions, 'create'],
    ]);
    expect(JSON.parse(read(root, file))).toEqual({ [key]: { heimdall: entry } });
    expect(read(root, instructions)).toMatch(/herd_checkin[\s\S]*make_claim[\s\S]*release_claim/);
  });

  it("merges into a config with the user's other servers and keys, keeping their bytes", () => {
    const user = `{\n  "${key}": {\n    "github": {\n      "command": "gh-mcp",\n      "env": {"TOKEN": "\${GH}"}\n    }\n  },\n  "inputs": [{"id": "k", "type": "promptString"}]\n}\n`;
    const root = repo({ [file]: user });
    setup(root, [client]);
    const after = read(root, file);
    const github = `    "github": {\n      "command": "gh-mcp",\n      "env": {"TOKEN": "\${GH}"}\n    },\n`;
    expect(after.startsWith(`{\n  "${key}": {\n${github}    "heimdall": {`)).toBe(true);
    expect(after.endsWith(`  },\n  "inputs": [{"id": "k", "type": "promptString"}]\n}\n`)).toBe(true);
    expect(JSON.parse(after)).toEqual({ [key]: { github: { command: 'gh-mcp', env: { TOKEN: '${GH}' } }, heimdall: entry }, inputs: [{ id: 'k', type: 'promptString' }] });
  });

  it('updates a stale Heimdall entry in place, keeping keys the user added to it', () => {
    const user = `{ "${key}": {\n  "heimdall": { "command": "bin/heimdall-ledger-mcp", "timeout": 30 },\n  "z": {"command": "z"}\n} }\n`;
    const root = repo({ [file]: user });
    setup(root, [client]);
    const after = JSON.parse(read(root, file));
    expect(after[key].heimdall).toEqual({ ...entry, timeout: 30 });
    expect(after[key].z).toEqual({ command: 'z' });
    expect(read(root, file)).toContain('\n  "z": {"command": "z"}\n} }\n');
  });

  it('a second run changes nothing and says so', () => {
    const root = repo({ [instructions]: '# Rules\n' });
    setup(root, [client]);
    const first = snapshot(root);
    const again = planSetup({ root, clients: [client], launcher: LAUNCHER });
    expect(again.files.map((f) => f.action)).toEqual(['unchanged', 'unchanged']);
    expect(planDiff(again)).toBe('');
    expect(applySetup(again)).toEqual([]);
    expect(snapshot(root)).toEqual(first);
  });

  it('a dry run writes nothing and its diff is what a real run writes', () => {
    const user = `{\n  "${key}": {}\n}\n`;
    const root = repo({ [file]: user, [instructions]: '# Rules\n' });
    const before = snapshot(root);
    const plan = planSetup({ root, clients: [client], launcher: LAUNCHER });
    const diff = planDiff(plan);
    expect(snapshot(root)).toEqual(before);
    expect(diff).toContain(`--- a/${file}\n+++ b/${file}\n`);
    expect(diff).toContain(`+    "heimdall": {`);
    expect(diff).toContain(`--- a/${instructions}\n+++ b/${instructions}\n`);
    applySetup(plan);
    expect(read(root, file)).toBe(plan.files[0]?.after);
  });

  it('reports a malformed config with its line and leaves every file untouched', () => {
    const bad = `{\n  "${key}": {\n    "github": {"command": "gh"}\n    "x": 1\n  }\n}\n`;
    const root = repo({ [file]: bad, [instructions]: '# Rules\n' });
    const before = snapshot(root);
    const e = thrown(() => planSetup({ root, clients: [client], launcher: LAUNCHER }));
    expect(e.code).toBe('environment');
    expect(e.message).toMatch(new RegExp(`^${file.replace(/\./g, '\\.')}:4:5: not valid JSON.*expected "," or "\\}" after the value`));
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses a read-only config before writing anything else', () => {
    const root = repo({ [file]: `{"${key}": {}}\n`, [instructions]: '# Rules\n' });
    fs.chmodSync(path.join(root, file), 0o444);
    made.push(path.join(root, file));
    const before = snapshot(root);
    const e = thrown(() => setup(root, [client]));
    expect(e.message).toMatch(new RegExp(`^cannot write ${file.replace(/\./g, '\\.')}: the file is read-only \\(mode 0444\\)\\. Nothing was changed`));
    expect(snapshot(root)).toEqual(before);
  });
});

describe('JSON with comments', () => {
  it('cursor and vscode keep the comments and trailing commas of their JSONC files', () => {
    const user = '{\n  // my servers\n  "servers": {\n    /* GitHub */ "github": {"url": "https://x"},\n  },\n}\n';
    const root = repo({ '.vscode/mcp.json': user, '.cursor/mcp.json': user.replace('"servers"', '"mcpServers"') });
    setup(root, ['vscode', 'cursor']);
    for (const f of ['.vscode/mcp.json', '.cursor/mcp.json']) {
      const after = read(root, f);
      expect(after).toContain('  // my servers\n');
      expect(after).toContain('    /* GitHub */ "github": {"url": "https://x"},\n    "heimdall": {\n');
      expect(after.endsWith('    },\n  },\n}\n')).toBe(true);
    }
  });

  it('claude-code reads .mcp.json as plain JSON: a comment is reported, not kept or dropped', () => {
    const root = repo({ '.mcp.json': '{\n  // no\n  "mcpServers": {}\n}\n' });
    expect(thrown(() => planSetup({ root, clients: ['claude-code'], launcher: LAUNCHER })).message).toMatch(/^\.mcp\.json:2:3: not valid JSON: .*comments are not allowed/);
  });
});

describe('setup codex (.codex/config.toml)', () => {
  const TABLE = '[mcp_servers.heimdall]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n';

  it('creates the project config with a comment saying how to name a session', () => {
    const root = repo();
    setup(root, ['codex']);
    expect(read(root, '.codex/config.toml')).toBe(`# Heimdall's MCP server (written by \`heimdall setup codex\`).\n# Name a session: HEIMDALL_AGENT=alice codex; env_vars forwards it to the server.\n${TABLE}`);
  });

  it("appends to a config with the user's tables and keeps their bytes; a second run changes nothing", () => {
    const user = 'model = "gpt-5.4"\n\n[mcp_servers.docs]\ncommand = "docs"\n# trailing comment\n';
    const root = repo({ '.codex/config.toml': user });
    setup(root, ['codex']);
    const after = read(root, '.codex/config.toml');
    expect(after.startsWith(user)).toBe(true);
    expect(after.endsWith(TABLE)).toBe(true);
    const again = planSetup({ root, clients: ['codex'], launcher: LAUNCHER });
    expect(again.files.every((f) => f.action === 'unchanged')).toBe(true);
  });

  it('updates an existing Heimdall table, keeping its other keys and per-tool approvals', () => {
    const user = '[mcp_servers.heimdall]\ncommand = "old"\nstartup_timeout_sec = 20\n\n[mcp_servers.heimdall.tools.make_claim]\napproval_mode = "approve"\n';
    const root = repo({ '.codex/config.toml': user });
    setup(root, ['codex']);
    expect(read(root, '.codex/config.toml')).toBe(
      '[mcp_servers.heimdall]\ncommand = "npx"\nstartup_timeout_sec = 20\nargs = ["--no-install", "heimdall-ledger-mcp"]\nenv_vars = ["HEIMDALL_AGENT"]\n\n[mcp_servers.heimdall.tools.make_claim]\napproval_mode = "approve"\n',
    );
  });

  it('reports malformed TOML with its line and leaves every file untouched', () => {
    const root = repo({ '.codex/config.toml': 'model = "x"\n[mcp_servers.docs\ncommand = "d"\n', 'AGENTS.md': '# A\n' });
    const before = snapshot(root);
    expect(thrown(() => planSetup({ root, clients: ['codex'], launcher: LAUNCHER })).message).toMatch(/^\.codex\/config\.toml:2:18: not valid TOML: expected "]" closing the table header/);
    expect(snapshot(root)).toEqual(before);
  });

  it('writes the user-level config.toml outside the repository only when asked, and says it is outside', () => {
    const root = repo();
    const home = tmpDir('codex-home-');
    const plan = setup(root, ['codex'], { codexUserHome: home });
    const cfg = plan.files.find((f) => f.purpose === 'mcp-config');
    expect(cfg?.outsideRepository).toBe(true);
    expect(cfg?.display).toBe(path.join(home, 'config.toml'));
    expect(fs.readFileSync(path.join(home, 'config.toml'), 'utf8')).toContain(TABLE);
    expect(fs.existsSync(path.join(root, '.codex'))).toBe(false);
    expect(read(root, 'AGENTS.md')).toContain('make_claim');
  });
});

describe('several clients in one run', () => {
  it('writes AGENTS.md once for cursor, vscode and codex, and CLAUDE.md for claude-code', () => {
    const root = repo({ 'AGENTS.md': '# Team rules\n\nUse pnpm.\n' });
    const plan = setup(root, ['claude-code', 'cursor', 'vscode', 'codex']);
    expect(plan.files.map((f) => `${f.action} ${f.display} ${f.clients.join(',')}`)).toEqual([
      'create .mcp.json claude-code',
      'create CLAUDE.md claude-code',
      'create .cursor/mcp.json cursor',
      'update AGENTS.md cursor,vscode,codex',
      'create .vscode/mcp.json vscode',
      'create .codex/config.toml codex',
    ]);
    const agents = read(root, 'AGENTS.md');
    expect(agents.startsWith('# Team rules\n\nUse pnpm.\n\n<!-- heimdall:begin')).toBe(true);
    expect(agents.match(/heimdall:begin/g)?.length).toBe(1);
  });

  it('is all or nothing: one read-only file stops the whole run before any write', () => {
    const root = repo({ 'AGENTS.md': '# A\n' });
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.chmodSync(path.join(root, '.vscode'), 0o555);
    made.push(path.join(root, '.vscode'));
    const e = thrown(() => setup(root, ['claude-code', 'vscode']));
    expect(e.message).toMatch(/^cannot write \.vscode\/mcp\.json: the folder .*\.vscode is read-only \(mode 0555\)\. Nothing was changed/);
    expect(snapshot(root)).toEqual({ 'AGENTS.md': '# A\n' });
  });

  it('restores the files it already wrote when a later write fails', () => {
    const root = repo({ 'AGENTS.md': '# A\n' });
    const plan = planSetup({ root, clients: ['cursor'], launcher: LAUNCHER });
    // A name that is fine but whose temp file's name is too long: the checks pass, the write fails.
    const broken: SetupPlan = {
      ...plan,
      files: [...plan.files, { path: path.join(root, 'x'.repeat(240)), display: 'x…', outsideRepository: false, purpose: 'instructions', clients: ['cursor'], action: 'create', before: null, after: 'y' }],
    };
    const e = thrown(() => applySetup(broken));
    expect(e.message).toMatch(/^cannot write x…: .*name too long.*Restored AGENTS\.md, \.cursor\/mcp\.json to their previous content/i);
    expect(snapshot(root)).toEqual({ 'AGENTS.md': '# A\n' });
    expect(fs.existsSync(path.join(root, '.cursor'))).toBe(false);
  });

  it('refuses a file changed between planning and writing', () => {
    const root = repo({ 'AGENTS.md': '# A\n' });
    const plan = planSetup({ root, clients: ['codex'], launcher: LAUNCHER });
    fs.writeFileSync(path.join(root, 'AGENTS.md'), '# A, edited meanwhile\n');
    expect(thrown(() => applySetup(plan)).code).toBe('conflict');
    expect(fs.existsSync(path.join(root, '.codex'))).toBe(false);
  });
});

describe('a second Heimdall entry under another name', () => {
  it('is reported, not removed, in JSON and in TOML; unrelated servers are not', () => {
    const root = repo({
      '.mcp.json': '{ "mcpServers": { "heimdall-ledger": { "command": "bin/heimdall-ledger-mcp" }, "gh": { "command": "gh" } } }\n',
      '.codex/config.toml': '[mcp_servers.old]\ncommand = "npx"\nargs = ["--no-install", "heimdall-ledger-mcp"]\n\n[mcp_servers.gh]\ncommand = "gh"\n',
    });
    const plan = setup(root, ['claude-code', 'codex']);
    expect(plan.warnings).toEqual([
      '.mcp.json also starts heimdall-ledger-mcp as "heimdall-ledger": Claude Code would then offer every Heimdall tool twice. Remove that entry by hand; setup leaves it alone.',
      '.codex/config.toml also starts heimdall-ledger-mcp as "old": Codex would then offer every Heimdall tool twice. Remove that entry by hand; setup leaves it alone.',
    ]);
    expect(JSON.parse(read(root, '.mcp.json')).mcpServers['heimdall-ledger']).toEqual({ command: 'bin/heimdall-ledger-mcp' });
    expect(read(root, '.codex/config.toml')).toContain('[mcp_servers.old]\ncommand = "npx"\n');
    expect(planSetup({ root: repo(), clients: ['cursor', 'codex'], launcher: LAUNCHER }).warnings).toEqual([]);
  });
});

describe('files setup cannot use', () => {
  it('refuses a directory where a file goes, a file where a folder goes, bytes that are not UTF-8, and an oversized file', () => {
    const dirCase = repo();
    fs.mkdirSync(path.join(dirCase, '.mcp.json'));
    expect(thrown(() => planSetup({ root: dirCase, clients: ['claude-code'], launcher: LAUNCHER })).message).toMatch(/^cannot use \.mcp\.json: expected a regular file, found a directory/);
    const fileCase = repo({ '.cursor': 'not a folder' });
    expect(thrown(() => planSetup({ root: fileCase, clients: ['cursor'], launcher: LAUNCHER })).message).toMatch(/^cannot use \.cursor\/mcp\.json: a parent of it is a file/);
    const latin1 = repo();
    fs.writeFileSync(path.join(latin1, 'AGENTS.md'), Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
    expect(thrown(() => planSetup({ root: latin1, clients: ['codex'], launcher: LAUNCHER })).message).toMatch(/^cannot edit AGENTS\.md: it is not valid UTF-8/);
    const big = repo({ 'CLAUDE.md': 'x'.repeat(1024 * 1024 + 1) });
    expect(thrown(() => planSetup({ root: big, clients: ['claude-code'], launcher: LAUNCHER })).message).toMatch(/more than the 1048576-byte limit/);
  });

  it('writes through a symlinked config to its target and keeps the file mode', () => {
    const root = repo({ 'shared/mcp.json': '{"mcpServers": {}}\n' });
    fs.chmodSync(path.join(root, 'shared/mcp.json'), 0o600);
    fs.symlinkSync('shared/mcp.json', path.join(root, '.mcp.json'));
    setup(root, ['claude-code']);
    expect(fs.lstatSync(path.join(root, '.mcp.json')).isSymbolicLink()).toBe(true);
    expect(JSON.parse(read(root, 'shared/mcp.json')).mcpServers.heimdall.command).toBe('npx');
    expect(fs.statSync(path.join(root, 'shared/mcp.json')).mode & 0o777).toBe(0o600);
  });
});

describe('detectLauncher and findRepositoryRoot', () => {
  it('uses npx --no-install when the repository has the program in node_modules/.bin or is a Heimdall checkout, the bare name when only on PATH', () => {
    const local = repo({ 'node_modules/.bin/heimdall-ledger-mcp': '#!/bin/sh\n' });
    expect(detectLauncher(path.join(local), [])).toEqual({ launcher: LAUNCHER, found: 'repository' });
    const sub = path.join(local, 'packages/app');
    fs.mkdirSync(sub, { recursive: true });
    expect(detectLauncher(sub, []).found).toBe('repository');
    const checkout = repo({ 'package.json': JSON.stringify({ bin: { 'heimdall-ledger-mcp': 'bin/heimdall-ledger-mcp' } }) });
    expect(detectLauncher(checkout, []).found).toBe('repository');
    const bin = tmpDir('path-bin-');
    fs.writeFileSync(path.join(bin, 'heimdall-ledger-mcp'), '');
    const global = repo();
    expect(detectLauncher(global, ['/nonexistent', bin])).toEqual({ launcher: { command: 'heimdall-ledger-mcp', args: [] }, found: 'path' });
    const none = detectLauncher(repo(), ['/nonexistent']);
    expect(none.found).toBe('nowhere');
    expect(none.launcher).toEqual(LAUNCHER);
    expect(none.warning).toMatch(/not installed in this repository/);
  });

  it('finds the nearest folder up with .git (folder or worktree file) or .planning', () => {
    const root = repo();
    const deep = path.join(root, 'src/a/b');
    fs.mkdirSync(deep, { recursive: true });
    expect(findRepositoryRoot(deep)).toBe(root);
    const wt = tmpDir('wt-');
    fs.writeFileSync(path.join(wt, '.git'), 'gitdir: /elsewhere\n');
    expect(findRepositoryRoot(wt)).toBe(wt);
    const planned = tmpDir('planned-');
    fs.mkdirSync(path.join(planned, '.planning'));
    fs.mkdirSync(path.join(planned, 'x'));
    expect(findRepositoryRoot(path.join(planned, 'x'))).toBe(planned);
  });
});

describe('clientSpec', () => {
  it('names each client its documented file, format and key', () => {
    const spec = (c: ClientName) => clientSpec(c, { launcher: LAUNCHER }).mcp;
    expect([spec('claude-code'), spec('cursor'), spec('vscode'), spec('codex')].map((m) => `${m.file} ${m.format} ${m.key.join('.')}`)).toEqual([
      '.mcp.json json mcpServers',
      '.cursor/mcp.json jsonc mcpServers',
      '.vscode/mcp.json jsonc servers',
      '.codex/config.toml toml mcp_servers.heimdall',
    ]);
  });
});
