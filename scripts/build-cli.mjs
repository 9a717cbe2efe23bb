// Bundles the command-line programs and the MCP server into dist/ with esbuild. Code splitting gives
// one chunk per command (and per dependency a command loads lazily), so `heimdall-resolve F12` loads
// only the resolve code. Entry points: one line each.
//
// Pure JavaScript dependencies (the MCP SDK, zod, yaml, the NATS client, the Prisma driver adapters
// and pg) are bundled: the installed package needs no node_modules for them, which is most of what
// keeps its install small. Left to node_modules at run time, on purpose:
//   - ajv and gpt-tokenizer: the core loads them with createRequire on first use (a bundler cannot
//     see those requires); they are the package's only `dependencies`;
//   - better-sqlite3: a native addon, compiled for the user's Node; an optional peer dependency that
//     only the SQLite read model (`heimdall wire state|listen|replay|release`) needs;
//   - pg-native: pg's optional native binding, never required unless asked for.
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = {
  'cli/main': 'server/cli/main.ts',
  'mcp/stdio': 'server/mcp/stdio.ts',
};
/**
 * Entry points bundled whole, into one file with no shared chunks: `heimdall hook ...` runs before
 * every edit and commit, and Node starts one file faster than twenty chunks (bench/hooks.bench.ts).
 */
const standalone = {
  'cli/hook': 'server/cli/hook-main.ts',
};

/** Loaded from node_modules at run time (see above); everything else is bundled. */
export const RUNTIME_EXTERNALS = ['ajv', 'gpt-tokenizer', 'better-sqlite3', 'pg-native'];

const present = (list) => Object.fromEntries(Object.entries(list).filter(([, src]) => existsSync(path.join(root, src))).map(([out, src]) => [out, path.join(root, src)]));
const entryPoints = present(entries);
const standaloneEntries = present(standalone);

const options = {
  outdir: path.join(root, 'dist'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: RUNTIME_EXTERNALS,
  // Bundled CommonJS code (pg, parts of the SDK) calls require() for Node's built-ins; an ES module
  // has no require, so each output file gets one bound to its own location.
  banner: { js: "import { createRequire as __heimdallCreateRequire } from 'node:module'; const require = __heimdallCreateRequire(import.meta.url);" },
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  loader: { '.json': 'json' },
  legalComments: 'linked',
  write: false,
};
const split = await build({ ...options, entryPoints, splitting: true });
const whole = await build({ ...options, entryPoints: standaloneEntries, splitting: false });
const result = { outputFiles: [...split.outputFiles, ...whole.outputFiles] };

// Written only where the content changed, each file by rename, and stale chunks removed after: a
// test or `npm pack` running this while a bin/ program is being spawned elsewhere never sees a
// missing or half-written chunk, and two builds of the same sources change nothing.
const written = new Set();
for (const f of result.outputFiles) {
  written.add(f.path);
  let same = false;
  try {
    same = Buffer.compare(readFileSync(f.path), f.contents) === 0;
  } catch {
    /* new file */
  }
  if (same) continue;
  mkdirSync(path.dirname(f.path), { recursive: true });
  const tmp = `${f.path}.${process.pid}.tmp`;
  writeFileSync(tmp, f.contents);
  renameSync(tmp, f.path);
}
// The entry files carry the build time (scripts/start.mjs compares it with the sources' times).
const now = new Date();
for (const out of Object.keys({ ...entryPoints, ...standaloneEntries })) utimesSync(path.join(root, 'dist', `${out}.js`), now, now);
for (const dir of ['cli', 'mcp', 'chunks']) {
  const full = path.join(root, 'dist', dir);
  if (!existsSync(full)) continue;
  for (const name of readdirSync(full)) {
    const file = path.join(full, name);
    if (!written.has(file)) rmSync(file, { recursive: true, force: true });
  }
}
