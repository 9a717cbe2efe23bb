import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const root = path.dirname(fileURLToPath(import.meta.url));

const config: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // The core loads these with createRequire at run time (lazily, on first use); bundling them would
  // copy large tables into every server chunk. The database drivers load native or wasm engines.
  serverExternalPackages: ['ajv', 'gpt-tokenizer', 'better-sqlite3', '@prisma/client', '@prisma/adapter-better-sqlite3', '@prisma/adapter-pg', 'pg', '@nats-io/transport-node', '@nats-io/jetstream'],
  // Type checking is `npm run typecheck`'s job. The build must not fail because a file elsewhere in
  // this shared tree is half-way through an edit that Studio never imports.
  // Next 16 insists on `"jsx": "react-jsx"` and rewrites the tsconfig it builds with; pointing it at
  // a Studio-only config (extending the shared one) keeps the shared tsconfig.json untouched.
  typescript: { ignoreBuildErrors: true, tsconfigPath: 'app/tsconfig.studio.json' },
  // The server code imports TypeScript files by their emitted name (`./context.js`, as Node's ESM
  // resolution and the CLI bundle want). Webpack maps those to the .ts sources; Turbopack has no
  // equivalent yet, so Studio builds with `next build --webpack` (scripts/start.mjs).
  experimental: { extensionAlias: { '.js': ['.ts', '.tsx', '.js'] } },
  outputFileTracingRoot: root,
};

export default config;
