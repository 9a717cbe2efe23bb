// Bundles the command-line programs and the MCP server into dist/ with esbuild. Dependencies stay
// external (loaded from node_modules when a command needs them); code splitting gives one chunk per
// command so `heimdall-resolve F12` loads only the resolve code. Entry points: one line each.
import { build } from 'esbuild';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const entries = {
  'cli/main': 'server/cli/main.ts',
  'mcp/stdio': 'server/mcp/stdio.ts',
};

const entryPoints = Object.fromEntries(
  Object.entries(entries).filter(([, src]) => existsSync(path.join(root, src))).map(([out, src]) => [out, path.join(root, src)]),
);

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints,
  outdir: path.join(root, 'dist'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  logLevel: 'warning',
  loader: { '.json': 'json' },
});
