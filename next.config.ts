import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const root = path.dirname(fileURLToPath(import.meta.url));
const serverDir = `${path.join(root, 'server')}${path.sep}`;

/**
 * In the server code (server/**), an `import()` whose argument is computed at run time (the read
 * model loads its generated Prisma client from a path it finds then) is a Node.js import, not a
 * bundle split: webpack would replace it with an empty context that always fails. This leaves such
 * calls to Node, exactly as `webpackIgnore` would, without asking every server module to carry a
 * bundler-specific comment. Imports of literal specifiers are bundled as usual.
 */
const nativeComputedImports = {
  apply(compiler: { hooks: { normalModuleFactory: { tap(name: string, fn: (nmf: NormalModuleFactoryLike) => void): void } } }) {
    compiler.hooks.normalModuleFactory.tap('HeimdallNativeComputedImports', (nmf) => {
      for (const type of ['javascript/auto', 'javascript/esm', 'javascript/dynamic']) {
        nmf.hooks.parser.for(type).tap('HeimdallNativeComputedImports', (parser) => {
          parser.hooks.importCall.tap({ name: 'HeimdallNativeComputedImports', stage: -100 }, (expr) => {
            const resource: string = parser.state?.module?.resource ?? '';
            if (!resource.startsWith(serverDir)) return undefined;
            if (parser.evaluateExpression(expr.source).isString()) return undefined;
            return false; // handled: leave the native import() in place
          });
        });
      }
    });
  },
};

interface NormalModuleFactoryLike {
  hooks: {
    parser: {
      for(type: string): {
        tap(
          name: string,
          fn: (parser: {
            state?: { module?: { resource?: string } };
            evaluateExpression(e: unknown): { isString(): boolean };
            hooks: { importCall: { tap(opts: { name: string; stage: number }, fn: (expr: { source: unknown }) => false | undefined): void } };
          }) => void,
        ): void;
      };
    };
  };
}

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
  webpack(config, { isServer }) {
    if (isServer) config.plugins.push(nativeComputedImports);
    return config;
  },
};

export default config;
