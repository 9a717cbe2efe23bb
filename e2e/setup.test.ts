/**
 * `heimdall setup` as a user runs it: the real bundled bin/heimdall, in a temporary git repository
 * where Heimdall is "installed" (node_modules/.bin/heimdall-ledger-mcp links to this checkout's
 * program), run from a subdirectory. The config it writes must start the real MCP server from the
 * user's repository.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseToml } from '../server/core/setup/toml.js';
import { BIN, type RunResult, tmpDir } from '../server/testing/fixtures.js';

const chmodded: string[] = [];
afterEach(() => {
  for (const p of chmodded.splice(0)) if (fs.existsSync(p)) fs.chmodSync(p, 0o644);
});

function userRepo(files: Record<string, string> = {}): string {
  const root = tmpDir('heimdall-user-repo-');
  fs.mkdirSync(path.join(root, '.git'));
  fs.mkdirSync(path.join(root, 'node_modules/.bin'), { recursive: true });
  fs.symlinkSync(path.join(BIN, 'heimdall-ledger-mcp'), path.join(root, 'node_modules/.bin/heimdall-ledger-mcp'));
  fs.mkdirSync(path.join(root, 'src/deep'), { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function heimdall(cwd: string, args: string[], env: Record<string, string> = {}): RunResult {
  const base = { ...process.env };
  delete base.HEIMDALL_PLANNING_DIR;
  delete base.CODEX_HOME;
  const r = spawnSync(path.join(BIN, 'heimdall'), args, { cwd, env: { ...base, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(root, p)] = fs.readFileSync(p, 'latin1');
    }
  };
  walk(root);
  return out;
}

/** Start a stdio MCP server as a client would, send initialize and tools/list, return the responses. */
function talk(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ responses: { id: number; result?: { tools?: { name: string }[]; serverInfo?: { name: string } } }[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      out += d;
      // Close stdin once both answers are in: the server exits at end of input.
      if (out.split('\n').filter((l) => l.trim()).length >= 2) child.stdin.end();
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', () => {
      try {
        resolve({ responses: out.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l)), stderr });
      } catch (e) {
        reject(new Error(`${(e as Error).message}\nstdout: ${out}\nstderr: ${stderr}`));
      }
    });
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '1' } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })}\n`);
  });
}

describe('heimdall setup (bin/heimdall in a user repository)', () => {
  it('sets up all four clients from a subdirectory, and a second run changes nothing and says so', () => {
    const root = userRepo({ 'AGENTS.md': '# Team\n\nUse pnpm.\n' });
    const r = heimdall(path.join(root, 'src/deep'), ['setup', 'claude-code', 'cursor', 'vscode', 'codex']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`repository: ${root}\n`);
    expect(r.stdout).toContain('server: npx --no-install heimdall-ledger-mcp\n');
    for (const line of ['created      .mcp.json', 'created      CLAUDE.md', 'created      .cursor/mcp.json', 'updated      AGENTS.md', 'created      .vscode/mcp.json', 'created      .codex/config.toml']) {
      expect(r.stdout).toContain(`${line}\n`);
    }
    expect(r.stdout).toMatch(/Claude Code: Name each session: HEIMDALL_AGENT=alice claude/);
    expect(fs.readFileSync(path.join(root, 'AGENTS.md'), 'utf8').startsWith('# Team\n\nUse pnpm.\n\n<!-- heimdall:begin')).toBe(true);
    expect(fs.existsSync(path.join(root, 'src/deep/.mcp.json'))).toBe(false);

    const first = snapshot(root);
    const again = heimdall(path.join(root, 'src/deep'), ['setup', 'claude-code', 'cursor', 'vscode', 'codex']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to change: claude-code, cursor, vscode, codex are already set up.\n');
    expect(again.stdout).not.toContain('created');
    expect(snapshot(root)).toEqual(first);
  });

  it('writes a command that starts the real MCP server from the repository, the same in every client', async () => {
    const root = userRepo();
    const setup = heimdall(root, ['setup', 'claude', 'cursor', 'copilot', 'codex']);
    expect(setup.code).toBe(0);
    // Setup never creates the planning tree (only init does) but says the server needs one.
    expect(setup.stdout).toContain('run `heimdall init` there (the MCP server needs it)');
    expect(fs.existsSync(path.join(root, '.planning'))).toBe(false);
    expect(heimdall(root, ['init']).code).toBe(0);
    const claude = JSON.parse(fs.readFileSync(path.join(root, '.mcp.json'), 'utf8')).mcpServers.heimdall;
    const cursor = JSON.parse(fs.readFileSync(path.join(root, '.cursor/mcp.json'), 'utf8')).mcpServers.heimdall;
    const vscode = JSON.parse(fs.readFileSync(path.join(root, '.vscode/mcp.json'), 'utf8')).servers.heimdall;
    const codex = parseToml(fs.readFileSync(path.join(root, '.codex/config.toml'), 'utf8'), 'c');
    const toml = Object.fromEntries(codex.flatMap((s) => (s.kind === 'keyval' ? [[s.key.join('.'), s.value.type === 'string' ? s.value.value : s.value.type === 'array' ? s.value.items.map((i) => (i.type === 'string' ? i.value : '')) : '']] : [])));
    for (const c of [cursor, vscode, { command: toml.command, args: toml.args }]) expect({ command: c.command, args: c.args }).toEqual({ command: claude.command, args: claude.args });
    expect(toml.env_vars).toEqual(['HEIMDALL_AGENT']);
    expect([claude.env, cursor.env, vscode.env]).toEqual([{ HEIMDALL_AGENT: '${HEIMDALL_AGENT:-}' }, { HEIMDALL_AGENT: '${env:HEIMDALL_AGENT}' }, { HEIMDALL_AGENT: '${env:HEIMDALL_AGENT}' }]);
    // The client runs `command args` in the session's directory; Claude Code has expanded the env.
    const { responses, stderr } = await talk(claude.command, claude.args, path.join(root, 'src/deep'), { HEIMDALL_AGENT: 'alice', HEIMDALL_PLANNING_DIR: path.join(root, '.planning') });
    expect(responses.find((x) => x.id === 1)?.result?.serverInfo?.name, stderr).toBe('heimdall-ledger-mcp');
    expect(responses.find((x) => x.id === 2)?.result?.tools?.map((t) => t.name)).toEqual(expect.arrayContaining(['herd_checkin', 'make_claim', 'release_claim']));
  });

  it('--dry-run prints a unified diff of every file and writes nothing', () => {
    const root = userRepo({ '.mcp.json': '{\n  "mcpServers": {\n    "github": {"command": "gh"}\n  }\n}\n', 'CLAUDE.md': '# Notes\n' });
    const before = snapshot(root);
    const r = heimdall(root, ['setup', 'claude-code', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--- a/.mcp.json\n+++ b/.mcp.json\n@@ -1,5 +1,13 @@\n {\n   "mcpServers": {\n-    "github": {"command": "gh"}\n+    "github": {"command": "gh"},\n+    "heimdall": {\n');
    expect(r.stdout).toContain('--- a/CLAUDE.md\n+++ b/CLAUDE.md\n');
    expect(r.stdout).toContain('would update .mcp.json\n');
    expect(r.stdout).toContain('dry run: nothing was written.\n');
    expect(snapshot(root)).toEqual(before);
  });

  it('--json says what it did; a second run reports changed: false', () => {
    const root = userRepo();
    const r = heimdall(root, ['setup', 'codex', '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ root, clients: ['codex'], dry_run: false, changed: true, launcher: { command: 'npx', args: ['--no-install', 'heimdall-ledger-mcp'] }, warnings: [] });
    expect(out.files).toEqual([
      { path: '.codex/config.toml', purpose: 'mcp-config', clients: ['codex'], action: 'create', written: true, outside_repository: false },
      { path: 'AGENTS.md', purpose: 'instructions', clients: ['codex'], action: 'create', written: true, outside_repository: false },
    ]);
    const again = JSON.parse(heimdall(root, ['setup', 'codex', '--json']).stdout);
    expect(again.changed).toBe(false);
    expect(again.files.map((f: { action: string; written: boolean }) => `${f.action}:${f.written}`)).toEqual(['unchanged:false', 'unchanged:false']);
    const dry = JSON.parse(heimdall(userRepo(), ['setup', 'vscode', '--json', '--dry-run']).stdout);
    expect(dry.files[0].diff).toMatch(/^--- \/dev\/null\n\+\+\+ b\/\.vscode\/mcp\.json\n/);
  });

  it('--user writes Codex\'s config.toml in CODEX_HOME, outside the repository, and says so', () => {
    const root = userRepo();
    const home = tmpDir('codex-home-');
    const r = heimdall(root, ['setup', 'codex', '--user'], { CODEX_HOME: home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`created      ${path.join(home, 'config.toml')}  (outside the repository)\n`);
    expect(fs.readFileSync(path.join(home, 'config.toml'), 'utf8')).toContain('[mcp_servers.heimdall]\n');
    expect(fs.existsSync(path.join(root, '.codex'))).toBe(false);
    const wrong = heimdall(root, ['setup', 'cursor', '--user']);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--user applies to codex only/);
  });
});

describe('heimdall setup refuses bad input clearly and changes nothing', () => {
  it('an unknown client suggests the closest and lists the supported ones', () => {
    const r = heimdall(userRepo(), ['setup', 'cursr']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown client "cursr"\. Did you mean cursor\? Supported: claude-code, cursor, vscode, codex/);
    expect(heimdall(userRepo(), ['setup']).stderr).toMatch(/name at least one client to set up, or --git-hook[\s\S]*usage: heimdall setup <client>/);
  });

  it('a malformed config is reported with file and line, and left byte for byte', () => {
    const bad = '{\n  "servers": {\n    "a": {"url": "x"}\n    "b": {}\n  }\n}\n';
    const root = userRepo({ '.vscode/mcp.json': bad });
    const before = snapshot(root);
    const r = heimdall(root, ['setup', 'vscode', 'claude-code']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^heimdall setup: \.vscode\/mcp\.json:4:5: not valid JSON \(with comments\): expected "," or "}" after the value, got "\\"b\\": {}"\. The file was left untouched/);
    expect(snapshot(root)).toEqual(before);
  });

  it('a read-only file is a clear error and nothing else is written', () => {
    const root = userRepo({ '.mcp.json': '{"mcpServers": {}}\n' });
    fs.chmodSync(path.join(root, '.mcp.json'), 0o444);
    chmodded.push(path.join(root, '.mcp.json'));
    const r = heimdall(root, ['setup', 'codex', 'claude-code']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write \.mcp\.json: the file is read-only \(mode 0444\)\. Nothing was changed/);
    expect(snapshot(root)).toEqual({ '.mcp.json': '{"mcpServers": {}}\n' });
  });

  it('outside any repository it says how to point it at one', () => {
    const lost = tmpDir('heimdall-no-repo-');
    const r = heimdall(lost, ['setup', 'cursor']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no repository found from .*: expected a folder with \.git or \.planning here or above\. Run setup from your repository, or pass --root DIR/);
    expect(heimdall(lost, ['setup', 'cursor', '--root', userRepo()]).code).toBe(0);
    const missing = heimdall(lost, ['setup', 'cursor', '--root', path.join(lost, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--root .*nope: expected an existing directory/);
    expect(fs.existsSync(path.join(lost, 'nope'))).toBe(false);
  });

  it('warns when the server is not installed where the clients will look for it', () => {
    const root = tmpDir('heimdall-bare-');
    fs.mkdirSync(path.join(root, '.git'));
    const r = heimdall(root, ['setup', 'cursor'], { PATH: path.dirname(process.execPath) });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^warning: heimdall-ledger-mcp is not installed in this repository/);
  });

  it('heimdall --help lists setup', () => {
    expect(heimdall(tmpDir(), ['--help']).stdout).toMatch(/\n {2}setup +register the MCP server with agent clients/);
  });
});
