#!/usr/bin/env node
// Builds everything the npm package ships (`prepack`: `npm pack` and `npm publish` run it, and so
// does npm when it installs the package from git), so an installed copy runs with no build step:
//   1. dist/cli, dist/mcp, dist/chunks: the programs and the MCP server (scripts/build-cli.mjs);
//   2. generated/prisma/{sqlite,postgres}.mjs: the read model's Prisma clients, self-contained
//      (prisma/generate.mjs), regenerated only when missing or older than the schema;
//   3. dist/studio: Studio's production server, Next.js "standalone" output (next build --webpack
//      with HEIMDALL_STUDIO_PACKAGE=1, into .next-package so it never races `npm start`'s .next),
//      rebuilt only when an input is newer than the last build, plus its static assets;
//   4. dist/THIRD-PARTY-LICENSES.md, the licenses of the code it bundles or copies;
//   5. a check that every file the package's programs load is there.
// Everything runs under one lock, so two packs at once (a test and a benchmark) build once.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { withBuildLock } from './lib/build-lock.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NEXT_DIR = '.next-package';
const STUDIO_OUT = path.join(root, 'dist', 'studio');
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

function say(msg) {
  console.error(`build-package: ${msg}`);
}

function fail(msg) {
  console.error(`build-package: ${msg}`);
  process.exit(1);
}

function run(label, cmd, args, extraEnv = {}) {
  say(label);
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 2, 2], env: { ...env, ...extraEnv } });
  if (r.status !== 0) fail(`${label} failed (exit ${r.status ?? r.signal})`);
}

/** Newest modification time under `p`, skipping node_modules, dot folders and test files. */
function newest(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return /\.test\.tsx?$/.test(p) ? 0 : st.mtimeMs;
  let max = 0;
  for (const name of fs.readdirSync(p)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    max = Math.max(max, newest(path.join(p, name)));
  }
  return max;
}

function mtime(p) {
  try {
    return fs.statSync(p).mtimeMs;
  } catch {
    return 0;
  }
}

/** One build at a time per checkout (scripts/lib/build-lock.mjs). */
function withLock(fn) {
  return withBuildLock('build-package', root, fn, { timeoutMs: 30 * 60_000, pollMs: 1000, onTimeout: fail });
}

function buildPrismaClients() {
  const inputs = Math.max(mtime(path.join(root, 'prisma/schema.prisma')), mtime(path.join(root, 'prisma/generate.mjs')));
  const clients = ['sqlite', 'postgres'].map((k) => path.join(root, 'generated/prisma', `${k}.mjs`));
  if (clients.every((c) => mtime(c) > inputs)) {
    say('read model clients are up to date');
    return;
  }
  run('generating the read model clients (prisma/generate.mjs)', process.execPath, ['prisma/generate.mjs']);
}

const STUDIO_INPUTS = ['app', 'components', 'server', 'next.config.ts', 'postcss.config.mjs', 'package.json', 'package-lock.json', 'tsconfig.json'];

function buildStudio() {
  const stamp = path.join(root, NEXT_DIR, 'BUILD_ID');
  const built = mtime(stamp);
  const current = built > 0 && fs.existsSync(path.join(root, NEXT_DIR, 'standalone')) && STUDIO_INPUTS.every((p) => newest(path.join(root, p)) <= built);
  if (current) say(`Studio build in ${NEXT_DIR}/ is up to date`);
  else run(`building Studio for the package (next build --webpack into ${NEXT_DIR}/)`, path.join(root, 'node_modules/.bin/next'), ['build', '--webpack'], { HEIMDALL_STUDIO_PACKAGE: '1' });

  // dist/studio: the standalone server with its static assets, replaced only when the build changed.
  const buildId = fs.readFileSync(stamp, 'utf8');
  const shippedStamp = path.join(STUDIO_OUT, NEXT_DIR, 'BUILD_ID');
  if (fs.existsSync(shippedStamp) && fs.readFileSync(shippedStamp, 'utf8') === buildId) {
    say('dist/studio is up to date');
    return;
  }
  say('assembling dist/studio');
  const staging = `${STUDIO_OUT}.${process.pid}.tmp`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.cpSync(path.join(root, NEXT_DIR, 'standalone'), staging, { recursive: true });
  fs.cpSync(path.join(root, NEXT_DIR, 'static'), path.join(staging, NEXT_DIR, 'static'), { recursive: true });
  // `heimdall studio` starts the server itself (server/cli/commands/studio.ts) with the planning
  // root and the address it resolved; Next's generic entry and the copy of this package.json (whose
  // name, bin and scripts would describe the wrong package) are not shipped.
  fs.rmSync(path.join(staging, 'server.js'), { force: true });
  // The tracer also copies the TypeScript sources of server modules that webpack has bundled (those
  // behind a run-time import()); the server never reads them. (An exclude glob for them in
  // next.config.ts also drops next/dist/server, so they are removed here.)
  fs.rmSync(path.join(staging, 'server'), { recursive: true, force: true });
  fs.writeFileSync(
    path.join(staging, 'package.json'),
    `${JSON.stringify({ private: true, type: 'module', description: 'Studio, prebuilt (Next.js standalone output); started by `heimdall studio`.' }, null, 2)}\n`,
  );
  fs.rmSync(STUDIO_OUT, { recursive: true, force: true });
  fs.renameSync(staging, STUDIO_OUT);
}

/**
 * dist/THIRD-PARTY-LICENSES.md: the license of every package whose code the package ships, bundled
 * (esbuild marks each bundled file with a `// node_modules/...` comment, in dist/ and in the
 * generated clients) or copied (dist/studio/node_modules), with its license text.
 */
function writeLicenses() {
  const packages = new Set();
  const marker = /^\/\/ (node_modules\/(?:@[^/\n]+\/)?[^/\n]+(?:\/node_modules\/(?:@[^/\n]+\/)?[^/\n]+)*)\//gm;
  const scan = (file) => {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(marker)) packages.add(m[1]);
  };
  for (const dir of ['dist/cli', 'dist/mcp', 'dist/chunks']) {
    for (const f of fs.readdirSync(path.join(root, dir))) if (f.endsWith('.js')) scan(path.join(root, dir, f));
  }
  for (const f of ['generated/prisma/sqlite.mjs', 'generated/prisma/postgres.mjs']) scan(path.join(root, f));
  const walk = (dir, rel) => {
    if (!fs.existsSync(dir)) return;
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith('@')) {
        walk(path.join(dir, name), `${rel}/${name}`);
        continue;
      }
      const pkgDir = path.join(dir, name);
      if (!fs.existsSync(path.join(pkgDir, 'package.json'))) continue;
      packages.add(`${rel}/${name}`.replace(/^\//, ''));
      walk(path.join(pkgDir, 'node_modules'), `${rel}/${name}/node_modules`);
    }
  };
  walk(path.join(STUDIO_OUT, 'node_modules'), 'node_modules');
  const sections = [];
  for (const rel of [...packages].sort()) {
    // The checkout's copy has the whole package (the traced copy in dist/studio may not).
    const dir = path.join(root, rel);
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const licenseFile = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
    const text = licenseFile ? fs.readFileSync(path.join(dir, licenseFile), 'utf8').trim() : `(no license file in the package; its package.json says ${JSON.stringify(meta.license ?? 'nothing')})`;
    sections.push(`## ${meta.name}@${meta.version} (${typeof meta.license === 'string' ? meta.license : 'see text'})\n\n\`\`\`\n${text}\n\`\`\`\n`);
  }
  const header = `# Third-party code shipped in this package\n\nBundled into dist/ and generated/, or copied into dist/studio/node_modules, by scripts/build-package.mjs: ${sections.length} packages.\n\n`;
  fs.writeFileSync(path.join(root, 'dist', 'THIRD-PARTY-LICENSES.md'), header + sections.join('\n'));
}

/** Every file an installed program loads, so a pack with a gap fails here instead of on a user's machine. */
function check() {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const required = [
    'dist/cli/main.js',
    'dist/cli/hook.js',
    'dist/mcp/stdio.js',
    'dist/THIRD-PARTY-LICENSES.md',
    'generated/prisma/sqlite.mjs',
    'generated/prisma/postgres.mjs',
    'prisma/ddl/sqlite.sql',
    'prisma/ddl/postgres.sql',
    'server/core/demo/fixture/exchange-lob/wave.json',
    `dist/studio/${NEXT_DIR}/BUILD_ID`,
    `dist/studio/${NEXT_DIR}/required-server-files.json`,
    'dist/studio/node_modules/next/package.json',
    ...Object.values(pkg.bin),
  ];
  const missing = required.filter((f) => !fs.existsSync(path.join(root, f)));
  if (missing.length) fail(`the package would be missing ${missing.join(', ')}`);
  for (const bin of Object.values(pkg.bin)) {
    const text = fs.readFileSync(path.join(root, bin), 'utf8');
    // Every dist/ file a shim names (bin/heimdall names two: the CLI and the hooks' own entry).
    const targets = [...text.matchAll(/'\.\.\/(dist\/[^']+)'/g)].map((m) => m[1]);
    if (targets.length === 0) fail(`${bin} loads (nothing found), which is not built`);
    for (const target of targets) if (!fs.existsSync(path.join(root, target))) fail(`${bin} loads ${target}, which is not built`);
  }
}

withLock(() => {
  run('bundling the CLI and the MCP server (scripts/build-cli.mjs)', process.execPath, ['scripts/build-cli.mjs']);
  buildPrismaClients();
  buildStudio();
  writeLicenses();
  check();
});
say('ready to pack');
