#!/usr/bin/env node
// `npm start`: the project's main job. Prepares what Studio needs and serves it:
//   1. the CLI bundle (dist/cli), rebuilt when a server source is newer;
//   2. the read model database, when the project has one (prisma/schema.prisma);
//   3. the Next.js build (.next), rebuilt only when an input is newer than the last build;
//   4. a demo workspace, when the planning tree is missing or empty, by running the real demo
//      (`heimdall-protocol demo`: symbols, capsules, blackboard, ledger and protocol.log);
//   5. Studio on 127.0.0.1 (port 3000, or PORT), printing the URL.
//
// Environment: HEIMDALL_PLANNING_DIR (default: .planning in the working directory), PORT,
// HEIMDALL_STUDIO_HOST (bind address, default 127.0.0.1), HEIMDALL_STUDIO_TOKEN (require a token),
// HEIMDALL_STUDIO_ALLOWED_HOSTS (extra Host header values, comma-separated, for a reverse proxy),
// HEIMDALL_STUDIO_SKIP_BUILD=1 (serve the existing .next build without checking it is current).
//
// Security is not here: the Host, Origin and token checks are Studio's own request guard
// (proxy.ts, Next's request interception), so `next start` and the standalone server are guarded
// exactly as this server is. This script hands the guard what it needs through the environment:
// HEIMDALL_STUDIO_HOST, HEIMDALL_STUDIO_TOKEN, HEIMDALL_STUDIO_ALLOWED_HOSTS, and PORT set to the
// port actually bound.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBuildLock as withLockFile } from './lib/build-lock.mjs';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
const planning = path.resolve(process.cwd(), env.HEIMDALL_PLANNING_DIR?.trim() || '.planning');
// Absolute, so the server and the demo agree whatever their working directory.
env.HEIMDALL_PLANNING_DIR = planning;
process.env.HEIMDALL_PLANNING_DIR = planning;
process.env.NEXT_TELEMETRY_DISABLED = '1';
const host = env.HEIMDALL_STUDIO_HOST?.trim() || '127.0.0.1';
const port = Number.parseInt(env.PORT ?? '3000', 10);
const token = env.HEIMDALL_STUDIO_TOKEN ?? '';

function say(msg) {
  console.log(`studio: ${msg}`);
}

function fail(msg) {
  console.error(`studio: ${msg}`);
  process.exit(1);
}

if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number, got ${JSON.stringify(env.PORT)}`);

function run(label, cmd, args, extraEnv = {}) {
  say(label);
  const r = spawnSync(cmd, args, { cwd: repo, stdio: 'inherit', env: { ...env, ...extraEnv } });
  if (r.status !== 0) fail(`${label} failed (exit ${r.status ?? r.signal})`);
}

/** Newest modification time under `p` (file or directory), skipping what `skip` rejects. */
function newest(p, skip = () => false) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return skip(p) ? 0 : st.mtimeMs;
  let max = 0;
  for (const name of fs.readdirSync(p)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = path.join(p, name);
    if (skip(full)) continue;
    max = Math.max(max, newest(full, skip));
  }
  return max;
}

const isTest = (f) => /\.(test|int\.test)\.ts$/.test(f);

/** One build at a time per checkout (scripts/lib/build-lock.mjs). */
function withBuildLock(fn) {
  return withLockFile('studio-build', repo, fn, { onTimeout: fail });
}

// 1. The CLI bundle: the demo seeding and the read-model steps run the real commands.
function ensureCli() {
  const bundle = path.join(repo, 'dist/cli/main.js');
  const built = fs.existsSync(bundle) ? fs.statSync(bundle).mtimeMs : 0;
  if (built === 0 || newest(path.join(repo, 'server'), isTest) > built) run('building the CLI bundle', process.execPath, ['scripts/build-cli.mjs']);
}

// 2. The read model (the wire stream's Prisma database), when this project has one: the generated
//    client (prisma/generate.mjs, run when missing or older than the schema), then the database
//    itself brought up to date with the log by the real listener (`heimdall wire listen --once`,
//    which creates the tables from the committed DDL on first use).
function prepareDatabase() {
  const schema = path.join(repo, 'prisma/schema.prisma');
  const generator = path.join(repo, 'prisma/generate.mjs');
  if (!fs.existsSync(schema) || !fs.existsSync(generator)) return;
  const client = path.join(repo, 'generated/prisma/sqlite.mjs');
  const stale = !fs.existsSync(client) || fs.statSync(client).mtimeMs < Math.max(fs.statSync(schema).mtimeMs, fs.statSync(generator).mtimeMs);
  if (stale) run('generating the read model client (prisma/generate.mjs)', process.execPath, [generator]);
  return true;
}

function catchUpReadModel() {
  if (!fs.existsSync(path.join(repo, 'prisma/schema.prisma'))) return;
  run('bringing the read model up to date with the wire log (heimdall wire listen --once)', process.execPath, [path.join(repo, 'bin/heimdall'), 'wire', 'listen', '--once']);
}

// 3. The Next.js build, skipped when nothing it depends on changed since the last one.
const BUILD_INPUTS = ['app', 'components', 'server', 'proxy.ts', 'next.config.ts', 'postcss.config.mjs', 'package.json', 'package-lock.json', 'tsconfig.json'];

function buildIsCurrent() {
  const stamp = path.join(repo, '.next/BUILD_ID');
  if (!fs.existsSync(stamp)) return false;
  const built = fs.statSync(stamp).mtimeMs;
  return BUILD_INPUTS.every((p) => newest(path.join(repo, p), isTest) <= built);
}

function ensureBuild() {
  if (env.HEIMDALL_STUDIO_SKIP_BUILD === '1' && fs.existsSync(path.join(repo, '.next/BUILD_ID'))) {
    say('serving the existing build as it is (HEIMDALL_STUDIO_SKIP_BUILD=1)');
    return;
  }
  if (buildIsCurrent()) {
    say('build is up to date');
    return;
  }
  withBuildLock(() => {
    if (buildIsCurrent()) return; // another process built it while we waited
    // --webpack: the server code imports `./x.js` for `x.ts` (see next.config.ts).
    run('building Studio (next build)', path.join(repo, 'node_modules/.bin/next'), ['build', '--webpack']);
  });
}

// 4. A demo workspace when the planning tree is empty.
function isEmptyTree(dir) {
  if (!fs.existsSync(dir)) return true;
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop();
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) stack.push(path.join(d, e.name));
      else return false;
    }
  }
  return true;
}

function seed() {
  // Only `heimdall init` creates a planning tree; the demo then fills the empty tree in place (it
  // never writes into a tree that holds state).
  if (!fs.existsSync(planning)) run(`creating the planning tree ${planning} (heimdall init)`, process.execPath, [path.join(repo, 'bin/heimdall'), 'init']);
  run(`seeding a demo workspace in ${planning} (heimdall-protocol demo)`, process.execPath, [path.join(repo, 'bin/heimdall-protocol'), 'demo']);
}

// 5. Serve.
function isLoopback(h) {
  return h === '127.0.0.1' || h === 'localhost' || h === '::1' || h === '[::1]';
}

function refuse(res, status, message) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
}

async function serve() {
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: repo, hostname: host, port });
  await app.prepare();
  const handle = app.getRequestHandler();
  // What the request guard (proxy.ts) reads: the bound address, and below, the bound port.
  process.env.HEIMDALL_STUDIO_HOST = host;
  const server = http.createServer((req, res) => {
    handle(req, res).catch((e) => {
      console.error('studio: request failed:', e);
      if (!res.headersSent) refuse(res, 500, 'Studio hit an internal error; see the server output.');
      else res.end();
    });
  });
  server.on('error', (e) => fail(e.code === 'EADDRINUSE' ? `port ${port} on ${host} is in use; set PORT to another one` : e.message));
  await new Promise((resolve) => server.listen(port, host, resolve));
  const bound = server.address().port;
  // Set before the first request can arrive (this runs in the listen callback's tick).
  process.env.PORT = String(bound);
  const shown = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shown}:${bound}/`;
  if (!isLoopback(host) && !token) say(`warning: bound to ${host} without HEIMDALL_STUDIO_TOKEN; anyone who can reach this address can read and change the planning tree`);
  say(`planning tree: ${planning}`);
  say(`Studio is running at ${token ? `${url}?token=${encodeURIComponent(token)}` : url}`);
  // Once serving, an error in one request must not take the server down: log it and run on.
  process.on('uncaughtException', (e) => console.error('studio: uncaught error (server keeps running):', e));
  process.on('unhandledRejection', (e) => console.error('studio: unhandled rejection (server keeps running):', e));
  const stop = () => {
    server.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

// Decided first: preparing the database creates files inside the planning tree.
const empty = isEmptyTree(planning);
ensureCli();
prepareDatabase();
ensureBuild();
if (empty) seed();
catchUpReadModel();
await serve();
