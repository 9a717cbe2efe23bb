/**
 * The package as a user gets it: `npm pack` of this checkout (its prepack builds everything the
 * package ships), installed into an empty project outside the repository, and used there with the
 * installed programs only: the README's CLI tour through `npx`, the MCP server driven over stdio by
 * the SDK's client, `heimdall studio` serving a page, and the wire read model, which needs a driver
 * the package does not install (a clear message without it, working with PostgreSQL or with the
 * user's own better-sqlite3).
 *
 * Slow (packing may build Studio, installing reaches the registry) and it needs PostgreSQL on
 * 127.0.0.1, hence an integration test. Nothing here depends on how fast anything runs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../server/testing/fixtures.js';
import { type PgSchema, requirePostgres } from '../server/stream/testing/services.js';

const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; bin: Record<string, string> };
let tmp: string;
let project: string;
let installLog: string;
/** Environment for everything run in the project: nothing from this checkout leaks in. */
let env: NodeJS.ProcessEnv;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function sh(cmd: string, args: string[], opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? project, input: opts.input, env: opts.env ?? env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** An installed program through npx, as the README tells a user to run it; must succeed. */
function npx(args: string[], input?: string, extraEnv: Record<string, string> = {}): string {
  const r = sh('npx', ['--no-install', ...args], { input, env: { ...env, ...extraEnv } });
  if (r.status !== 0) throw new Error(`npx ${args.join(' ')} exited ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-install-'));
  // The project must not sit inside the repository, or node_modules lookups would find the checkout's.
  expect(path.relative(REPO_ROOT, tmp).startsWith('..')).toBe(true);
  project = path.join(tmp, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'install-test-project', version: '1.0.0', private: true }, null, 2)}\n`);
  env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('HEIMDALL_') || k === 'DATABASE_URL' || k.startsWith('npm_')) delete env[k];

  const packed = sh('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: REPO_ROOT });
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const tarball = path.join(tmp, (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename);
  const installed = sh('npm', ['install', '--no-audit', '--no-fund', tarball]);
  installLog = `${installed.stdout}\n${installed.stderr}`;
  if (installed.status !== 0) throw new Error(`npm install of the tarball failed:\n${installLog}`);
}, 30 * 60_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the installed package', () => {
  it('installs with no build step, no engine warning and none of the checkout-only packages', () => {
    expect(installLog).not.toMatch(/EBADENGINE|not yet covered by allowScripts/);
    const modules = path.join(project, 'node_modules');
    for (const heavy of ['next', 'react', 'react-dom', 'recharts', 'prisma', '@prisma/client', 'better-sqlite3', '@modelcontextprotocol/sdk', 'esbuild']) {
      expect(fs.existsSync(path.join(modules, heavy)), `${heavy} should not be installed`).toBe(false);
    }
    for (const bin of Object.keys(pkg.bin)) expect(fs.existsSync(path.join(modules, '.bin', bin)), `node_modules/.bin/${bin}`).toBe(true);
  });

  it("runs the README's CLI tour with the installed programs", () => {
    expect(npx(['heimdall-protocol', 'init'])).toContain(path.join(project, '.planning'));

    // 1. typed messages
    const msg = '{"type":"task_result","from":"coder","msg_id":"m1","task":"3.2","status":"pass","criteria":[1,2],"commit":"a2ef507"}';
    expect(JSON.parse(npx(['heimdall-validate'], msg))).toEqual({ valid: true, errors: [] });
    const bad = sh('npx', ['--no-install', 'heimdall-validate'], { input: '{"type":"task_result"}' });
    expect(bad.status).toBe(1);

    // 2. symbol table
    npx(['heimdall-resolve', 'set', 'F12', 'src/matching/engine.ts']);
    npx(['heimdall-resolve', 'set', 'C3', 'balances sum to zero']);
    expect(npx(['heimdall-resolve', 'F12']).trim()).toBe('src/matching/engine.ts');
    expect(npx(['heimdall-resolve', '--reverse', 'src/matching/engine.ts']).trim()).toBe('F12');
    expect(npx(['heimdall-resolve', 'list'])).toContain('C3\tbalances sum to zero');

    // 3. capsules: hydration is the dependency closure only
    npx(['heimdall-capsule', 'write', 'w1', '--what', 'added LOB engine', '--where', 'F12', '--gotcha', 'seed must be fixed']);
    npx(['heimdall-capsule', 'write', 'w2', '--what', 'added book diff', '--where', 'F13', '--depends', 'w1']);
    npx(['heimdall-capsule', 'write', 'w3', '--what', 'unrelated docs', '--where', 'README']);
    const hydrated = npx(['heimdall-capsule', 'hydrate', 'w2']);
    expect(hydrated).toContain('added LOB engine');
    expect(hydrated.indexOf('added LOB engine')).toBeLessThan(hydrated.indexOf('added book diff'));
    expect(hydrated).not.toContain('unrelated docs');
    expect(npx(['heimdall-capsule', 'deps', 'w2']).trim().split(/\s+/)).toEqual(['w1', 'w2']);

    // 4. delta brief
    fs.writeFileSync(path.join(project, 'INVARIANTS.md'), '# Invariants\n1. balances sum to zero\n');
    const brief = npx(['heimdall-brief', 'build', '--task', '3.2', '--spec', 'implement book diff', '--symbols', 'F12,C3', '--capsules', 'w2', '--invariants', 'INVARIANTS.md']);
    expect(brief).toContain('src/matching/engine.ts');

    // 5. blackboard
    npx(['heimdall-blackboard', 'set', 'dev_port', '5173']);
    expect(npx(['heimdall-blackboard', 'get', 'dev_port']).trim()).toBe('5173');

    // 6. ledger, counted with the tokenizer the package depends on
    npx(['heimdall-ledger', 'log', '--role', 'orchestration', '--kind', 'delta_brief', '--tokens', '3300', '--msg-id', 'b1']);
    npx(['heimdall-ledger', 'baseline', '--role', 'orchestration', '--tokens', '41000']);
    // 3300 logged here, plus what `heimdall-brief build` logged for the brief it built.
    const delta = /orchestration: 41000 -> (\d+) tokens/.exec(npx(['heimdall-ledger', 'delta', '--role', 'orchestration']));
    const briefTokens = /\tbrief\tbuild\ttask 3\.2: .*, (\d+) tokens/.exec(fs.readFileSync(path.join(project, '.planning/protocol.log'), 'utf8'));
    expect(Number(delta?.[1])).toBe(3300 + Number(briefTokens?.[1]));
    expect(npx(['heimdall-ledger', 'log', '--role', 'coder', '--kind', 'task_result', '--msg-id', 'm2'], 'some brief text')).toContain('o200k_base');

    // gate adapter piped into the validator
    fs.writeFileSync(path.join(project, 'report.json'), '{"gate_id":"bloat","status":"pass","wave":1}');
    const gate = npx(['heimdall-gate', 'to-message', '--report', 'report.json', '--from', 'sentinel-bloat', '--msg-id', 'g1']);
    expect(JSON.parse(npx(['heimdall-validate'], gate))).toEqual({ valid: true, errors: [] });

    // the audit trail, and `heimdall <mechanism>` dispatching like the named programs
    expect(npx(['heimdall-protocol', 'log', '50'])).toMatch(/\tresolve\tset\tF12=src\/matching\/engine.ts/);
    expect(npx(['heimdall', 'resolve', 'F12']).trim()).toBe('src/matching/engine.ts');
  });

  it('runs the measured demo from the fixture shipped in the package', () => {
    const dir = path.join(tmp, 'demo');
    fs.mkdirSync(dir);
    const out = npx(['heimdall-protocol', 'demo', '--json'], undefined, { HEIMDALL_PLANNING_DIR: path.join(dir, '.planning') });
    const r = JSON.parse(out) as { v1: { total: number }; v2: { total: number } };
    expect(r.v2.total).toBeGreaterThan(0);
    expect(r.v2.total).toBeLessThan(r.v1.total);
  });

  it('serves the team ledger over MCP to the SDK client', async () => {
    const transport = new StdioClientTransport({ command: path.join(project, 'node_modules/.bin/heimdall-ledger-mcp'), args: [], cwd: project, env: env as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'cursor', version: '1.0.0' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['read_claims', 'make_claim', 'release_claim', 'read_capsules', 'append_decision', 'raise_conflict_pr']));
      const made = (await client.callTool({ name: 'make_claim', arguments: { surfaces: ['src/a/**'], task: 'T-9' } })) as CallToolResult;
      expect(made.isError ?? false).toBe(false);
      const capsules = (await client.callTool({ name: 'read_capsules', arguments: {} })) as CallToolResult;
      expect((capsules.content[0] as { text: string }).text).toContain('w1');
    } finally {
      await client.close();
    }
    const claims = npx(['heimdall-claim', 'list', '--json']);
    expect(claims).toContain('T-9');
    expect(claims).toContain('src/a/**');
  });

  it('explains what to install for the SQLite read model, and works with PostgreSQL or the driver installed', async () => {
    const event = '{"wire":"1.1","stream_id":"task:R1:attempt:1","type":"task.available","sender":"system","payload":{"task_id":"R1","attempt":1,"role":"developer"}}';
    expect(npx(['heimdall', 'wire', 'emit'], event).trim()).toMatch(/^\d+$/);

    const missing = sh('npx', ['--no-install', 'heimdall', 'wire', 'listen', '--once']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('npm install better-sqlite3');
    expect(missing.stderr).not.toMatch(/^\s+at /m); // a sentence, not a stack

    // PostgreSQL: driver and client are bundled, nothing to install.
    let pg: PgSchema | undefined;
    try {
      pg = await requirePostgres('install');
      npx(['heimdall', 'wire', 'listen', '--once'], undefined, { DATABASE_URL: pg.url });
      const state = JSON.parse(npx(['heimdall', 'wire', 'state', '--task', 'R1', '--json'], undefined, { DATABASE_URL: pg.url })) as { status: string };
      expect(state.status).toBe('available');
    } finally {
      await pg?.drop();
    }

    // SQLite once the user has installed better-sqlite3: this checkout's compiled copy stands in
    // for `npm install better-sqlite3` (which would compile the same addon again), linked into the
    // project's node_modules, where the package's bundled adapter must find it.
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules/better-sqlite3'), path.join(project, 'node_modules/better-sqlite3'), 'dir');
    try {
      expect(npx(['heimdall', 'wire', 'listen', '--once'])).toContain('processed 1 events');
      const state = JSON.parse(npx(['heimdall', 'wire', 'state', '--task', 'R1', '--json'])) as { status: string };
      expect(state.status).toBe('available');
    } finally {
      fs.rmSync(path.join(project, 'node_modules/better-sqlite3'), { force: true });
    }
  });

  it('`heimdall studio` serves Studio for the project from the prebuilt build in the package', async () => {
    const child = spawn(path.join(project, 'node_modules/.bin/heimdall'), ['studio', '--port', '0'], { cwd: project, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await studioUrl(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(url).not.toContain(':39170/');
      const res = await fetch(`${url}symbols`);
      expect(res.status).toBe(200);
      const html = await res.text();
      // The page is this project's symbol table, so Studio reads the project's .planning/.
      expect(html).toContain('src/matching/engine.ts');
      expect(html).toContain('balances sum to zero');
      const asset = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
      expect(asset, 'the page links its scripts').toBeDefined();
      expect((await fetch(new URL(asset as string, url))).status).toBe(200);
      // The wire pages need the SQLite driver the package leaves to the user: the page says so.
      const streams = await fetch(`${url}streams`);
      expect(streams.status).toBe(200);
      expect(await streams.text()).toContain('npm install better-sqlite3');
    } finally {
      await stop(child);
    }
  });
});

/** Resolves with the URL `heimdall studio` prints once it serves; rejects if it exits first. */
function studioUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Studio is running at (\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`heimdall studio exited (${code}) before serving:\n${out}\n${err}`)));
  });
}

/** Ends the server and everything it started (its process group), and waits for it. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  try {
    process.kill(-(child.pid as number), 'SIGTERM');
  } catch {
    /* already gone */
  }
  await exited;
}
