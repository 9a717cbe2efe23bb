/**
 * The built server (bin/heimdall-ledger-mcp -> dist/mcp/stdio.js), driven as hosts drive it: the SDK's
 * own Client over a stdio transport, and the spec's `printf ... | bin/heimdall-ledger-mcp` round trip
 * replayed byte for byte. Needs `npm run build:cli` first (npm test does it).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hermeticEnv } from '../testing/fixtures.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = (name: string) => path.join(repo, 'bin', name);
const dirs: string[] = [];

beforeAll(() => {
  for (const f of ['dist/mcp/stdio.js', 'dist/cli/main.js']) {
    if (!fs.existsSync(path.join(repo, f))) throw new Error(`${f} is missing: run npm run build:cli first`);
  }
});
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** An empty planning tree (only `heimdall init` makes one; an empty folder is one too). */
function planningDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-mcp-stdio-'));
  dirs.push(d);
  fs.mkdirSync(path.join(d, '.planning'));
  return path.join(d, '.planning');
}

function run(cmd: string, args: string[], dir: string, input?: string, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, input, encoding: 'utf8', env: hermeticEnv({ HEIMDALL_PLANNING_DIR: dir, ...env }), timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An SDK Client over stdio to a new server process, as a host connects (its own environment only). */
async function connect(dir: string, clientName: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin('heimdall-ledger-mcp')],
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', HEIMDALL_PLANNING_DIR: dir, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: clientName, version: '2.0.0' });
  await client.connect(transport);
  await client.listTools(); // structured results are then checked against the output schemas
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const body = JSON.parse((r.content[0] as { text: string }).text) as Record<string, any>;
    return r.isError ? { isError: true, ...body } : body;
  };
  return { client, call, close: () => client.close() };
}

describe('heimdall-ledger-mcp over stdio', () => {
  it('the SDK Client initializes, lists tools, makes a claim; heimdall-claim list shows it with the client HAID in task_ref', async () => {
    const dir = planningDir();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin('heimdall-ledger-mcp')],
      cwd: repo,
      env: { PATH: process.env.PATH ?? '', HEIMDALL_PLANNING_DIR: dir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const client = new Client({ name: 'claude-code', version: '2.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toEqual({ name: 'heimdall-ledger-mcp', version: '2.0.0' });
      const { tools } = await client.listTools();
      // The six team-ledger tools come first; the check-in and handshake tools join the same server.
      expect(tools.map((t) => t.name).slice(0, 6)).toEqual(['read_claims', 'make_claim', 'release_claim', 'read_capsules', 'append_decision', 'raise_conflict_pr']);
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['herd_checkin', 'herd_send']));
      const r = (await client.callTool({ name: 'make_claim', arguments: { surfaces: ['src/a/**'], task: 'T-9' } })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const sc = r.structuredContent as { haid: string; claim: { task_ref: string } };
      expect(sc.haid).toMatch(/^h-[a-z0-9]{8}\/claude-code\.s1$/);
      expect(sc.claim.task_ref).toBe(`${sc.haid}:T-9`);
      expect(await client.ping()).toEqual({});

      const list = run(bin('heimdall-claim'), ['list'], dir);
      expect(list.code).toBe(0);
      const [line, ...more] = list.stdout.trimEnd().split('\n');
      expect(more).toEqual([]);
      const cols = (line as string).split('\t');
      expect(cols[0]).toBe(sc.haid);
      expect(cols[1]).toBe('active');
      expect(cols[3]).toBe(`${sc.haid}:T-9`);
      expect(cols[4]).toBe('src/a/**');
      const json = JSON.parse(run(bin('heimdall-claim'), ['list', '--json'], dir).stdout);
      expect(json.claims[0].task_ref).toBe(`${sc.haid}:T-9`);
      const haids = run(bin('heimdall-haid'), ['list'], dir).stdout;
      expect(haids).toContain(`${sc.haid}\tclaude-code\tactive`);
      expect(haids).toContain('claude-code.s1@team');
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(/heimdall-ledger-mcp: serving \d+ tools on stdio/);
    expect(Number(/serving (\d+) tools/.exec(stderr)?.[1])).toBeGreaterThan(6);
  });

  it("replays the spec's printf round trip byte for byte", () => {
    const dir = planningDir();
    const root = run(bin('heimdall-haid'), ['root'], dir).stdout.trim();
    expect(root).toMatch(/^h-[a-z0-9]{8}$/);
    const before = Math.floor(Date.now() / 1000) * 1000;
    const script = [
      "printf '%s\\n' \\",
      `'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"cursor"}}}' \\`,
      `'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"make_claim","arguments":{"surfaces":["src/a/**"],"task":"T-9"}}}' \\`,
      '| bin/heimdall-ledger-mcp',
    ].join('\n');
    const r = run('bash', ['-c', script], dir);
    const after = Date.now();
    expect(r.code).toBe(0);

    // The one value the server chose (the time); everything else below is literal.
    const claims = JSON.parse(fs.readFileSync(path.join(dir, 'ledger/claims.json'), 'utf8'));
    const [id, stored] = Object.entries(claims.claims)[0] as [string, { created_at: string }];
    const created: string = stored.created_at;
    const t = Date.parse(created);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
    const expires = new Date(t + 3600_000).toISOString().replace('.000Z', 'Z');
    const h = `${root}/cursor.s1`;
    const structured = `{"haid":"${h}","claim":{"id":"${id}","haid":"${h}","surfaces":["src/a/**"],"task":"T-9","task_ref":"${h}:T-9","created_at":"${created}","expires_at":"${expires}","status":"active","address":"cursor.s1@team"},"extended":false}`;
    expect(r.stdout).toBe(
      [
        '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{"listChanged":false}},"serverInfo":{"name":"heimdall-ledger-mcp","version":"2.0.0"},"instructions":"Heimdall team ledger, shared by every agent on this repository. Before editing files, read_claims and make_claim them; release_claim when done. Record team-wide decisions with append_decision; to override another agent, raise_conflict_pr."}}',
        `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${JSON.stringify(structured)}}],"structuredContent":${structured}}}`,
        '',
      ].join('\n'),
    );
    expect(r.stderr).toContain(`client "cursor" attributed as ${h}`);

    const list = run(bin('heimdall-claim'), ['list'], dir);
    expect(list).toEqual({ code: 0, stdout: `${h}\tactive\t${expires}\t${h}:T-9\tsrc/a/**\t${id}\tcursor.s1@team\n`, stderr: '' });
    const log = fs.readFileSync(path.join(dir, 'protocol.log'), 'utf8').trimEnd().split('\n').map((l) => l.split('\t').slice(1).join('\t'));
    expect(log).toEqual([`haid\troot\t${root}`, `haid\tsession\t${h} address=cursor.s1@team (new connection)`, `claim\tclaim\t${h} ${id} src/a/** task=${h}:T-9 until=${expires}\t${h}`]);
  });

  it('reads Content-Length frames and lines in one stream, answers malformed JSON with -32700 and keeps serving', () => {
    const dir = planningDir();
    const frame = (o: object) => {
      const b = JSON.stringify(o);
      return `Content-Length: ${Buffer.byteLength(b)}\r\n\r\n${b}`;
    };
    const input = [
      frame({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'copilot', version: '1' } } }),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_claims"}\n', // truncated JSON
      frame({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'make_claim', arguments: { surfaces: ['lib/**'], task: 'T-1' } } }),
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"make_claim","arguments":{"surfaces":"lib"}}}\n',
      frame({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    ].join('');
    const r = run(bin('heimdall-ledger-mcp'), [], dir, input);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    const msgs = lines.map((l) => JSON.parse(l));
    // Answers may come in any order (JSON-RPC matches them by id), but the parse error is written
    // right after the answer to the request read before it.
    expect(msgs.slice(0, 2).map((m) => [m.id, m.error?.code ?? 'ok'])).toEqual([
      [1, 'ok'],
      [null, -32700],
    ]);
    const byId = new Map(msgs.map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([1, 3, 4, 5, null].sort());
    expect(byId.get(1).result.protocolVersion).toBe('2025-06-18');
    expect(byId.get(3).result.structuredContent.claim.task_ref).toMatch(/\/copilot\.s1:T-1$/);
    expect(byId.get(4).result.isError).toBe(true);
    expect(byId.get(5).result).toEqual({});
    const err4 = byId.get(4).result.content[0].text as string;
    expect(err4).toMatch(/surfaces must be of type array/);
    expect(err4).toMatch(/task is required/);
    expect(err4).toMatch(/Expected make_claim\(surfaces: string\[\], task: string/);
    expect(r.stderr).toMatch(/Parse error/); // diagnostics on stderr, never on stdout
  });

  it('two sessions of the same client (claude-code) are two agents: distinct HAIDs, overlapping claims collide, one releasing leaves the other\'s', async () => {
    const dir = planningDir();
    const a = await connect(dir, 'claude-code');
    const b = await connect(dir, 'claude-code');
    try {
      const ca = await a.call('make_claim', { surfaces: ['src/a/**'], task: 'T-1' });
      const refused = await b.call('make_claim', { surfaces: ['src/a/b.ts'], task: 'T-2' });
      expect(ca.haid).toMatch(/\/claude-code\.s\d+$/);
      expect(refused).toMatchObject({ isError: true, error: { code: 'conflict', collisions: [{ holder: ca.haid }] } });
      expect(refused.haid).not.toBe(ca.haid);
      expect(refused.haid).toMatch(/\/claude-code\.s\d+$/);
      // b holds nothing; its release neither succeeds nor touches a's claim.
      expect(await b.call('release_claim')).toMatchObject({ isError: true, error: { code: 'not_found' } });
      expect(await b.call('release_claim', { id: ca.claim.id })).toMatchObject({ isError: true, error: { code: 'forbidden' } });
      expect((await b.call('read_claims')).claims.map((c: { id: string; haid: string }) => [c.id, c.haid])).toEqual([[ca.claim.id, ca.haid]]);
      // Each releases only its own.
      const cb = await b.call('make_claim', { surfaces: ['docs/**'], task: 'T-3' });
      expect((await a.call('release_claim')).released.map((c: { id: string }) => c.id)).toEqual([ca.claim.id]);
      expect((await b.call('read_claims')).claims.map((c: { id: string }) => c.id)).toEqual([cb.claim.id]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a reconnect of the same session keeps its HAID and its claims: HEIMDALL_AGENT, or the session id Claude Code passes', async () => {
    const dir = planningDir();
    const sessions: Array<Record<string, string>> = [{ HEIMDALL_AGENT: 'claude-code.2' }, { CLAUDE_CODE_SESSION_ID: '4a0b9d5e-6f61-4bb2-9c1e-1f2a3b4c5d6e' }];
    for (const env of sessions) {
      const first = await connect(dir, 'claude-code', env);
      const made = await first.call('make_claim', { surfaces: [`keep/${Object.keys(env)[0]}/**`], task: 'T-1' });
      await first.close();
      const again = await connect(dir, 'claude-code', env);
      try {
        const mine = await again.call('read_claims');
        expect(mine.haid).toBe(made.haid);
        expect(mine.claims.filter((c: { haid: string }) => c.haid === made.haid).map((c: { id: string }) => c.id)).toEqual([made.claim.id]);
        // Still its own: claiming the same task extends it, and release finds it.
        expect(await again.call('make_claim', { surfaces: ['more/**'], task: 'T-1' })).toMatchObject({ extended: true, claim: { id: made.claim.id } });
        expect((await again.call('release_claim')).released.map((c: { id: string }) => c.id)).toEqual([made.claim.id]);
      } finally {
        await again.close();
      }
    }
    const root = run(bin('heimdall-haid'), ['root'], dir).stdout.trim();
    const ids = JSON.parse(run(bin('heimdall-haid'), ['list', '--json'], dir).stdout).haids.map((h: { haid: string }) => h.haid);
    expect(ids).toEqual([`${root}/claude-code.2`, `${root}/claude-code.s1`]);
    // The CLI run from that Claude Code session's shell is the same agent.
    const cli = run(bin('heimdall-haid'), ['whoami', '--json'], dir, undefined, { CLAUDE_CODE_SESSION_ID: '4a0b9d5e-6f61-4bb2-9c1e-1f2a3b4c5d6e' });
    expect(JSON.parse(cli.stdout)).toMatchObject({ haid: `${root}/claude-code.s1`, address: 'claude-code.s1@team', source: 'session' });
  });

  it('the herd tools need no client_identity: the session is its herd address; a HAID is accepted where an address is, and an address where a HAID is', async () => {
    const dir = planningDir();
    const lead = await connect(dir, 'claude-code', { HEIMDALL_AGENT: 'steve.1@core' });
    const worker = await connect(dir, 'cursor-vscode');
    try {
      const w = await worker.call('herd_checkin', { status: 'starting' });
      expect(w).toMatchObject({ heartbeat_ack: true, agent: 'cursor.s1@team' });
      const root = w.haid.split('/')[0];
      expect(w.haid).toBe(`${root}/cursor.s1`);
      // A message to the worker's HAID reaches its address; the lead sends as itself (steve: Leader).
      expect(await lead.call('herd_send', { to: w.haid, type: 'directive', body: 'take T-9' })).toMatchObject({ haid: `${root}/core/steve.1`, recipients: ['cursor.s1@team'] });
      expect((await worker.call('herd_checkin', { status: 'on it' })).messages.map((m: { from: string; body: string }) => [m.from, m.body])).toEqual([['steve.1@core', 'take T-9']]);
      // Claims take the herd address as the holder: the lead releases an expired claim of the worker by its address.
      await worker.call('make_claim', { surfaces: ['src/**'], task: 'T-9', ttl_minutes: 1 });
      expect(await lead.call('release_claim', { haid: 'cursor.s1@team' })).toMatchObject({ isError: true, error: { code: 'forbidden', message: expect.stringContaining(`${root}/cursor.s1's claim`) } });
      // And client_identity still names another agent for one call, by address or by HAID.
      expect(await worker.call('herd_checkin', { status: 'as mason', client_identity: `${root}/core/mason.1` })).toMatchObject({ agent: 'mason.1@core', haid: `${root}/core/mason.1` });
    } finally {
      await lead.close();
      await worker.close();
    }
  });

  it('where there is no planning tree it says so on stderr and exits 2, creating nothing', () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-mcp-none-'));
    dirs.push(base);
    const missing = path.join(base, '.planning');
    const r = run(bin('heimdall-ledger-mcp'), [], missing, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"cursor"}}}\n');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no planning tree at .*HEIMDALL_PLANNING_DIR.*heimdall init/);
    expect(fs.readdirSync(base)).toEqual([]);
  });
});
