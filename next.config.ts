import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const root = path.dirname(fileURLToPath(import.meta.url));
const serverDir = `${path.join(root, 'server')}${path.sep}`;
const packageBuild = process.env.HEIMDALL_STUDIO_PACKAGE === '1';

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

/**
 * Webpack replaces `import.meta.url` with the file URL the module had at build time. The server code
 * walks up from its own location to find the files it ships with (prisma/ddl, the generated read
 * model clients); with a baked-in URL, the production build shipped in the package (the standalone
 * server under dist/studio) would look in the build machine's checkout. In the server code, this
 * makes `import.meta.url` the URL of the emitted chunk file at run time instead (the chunk is a
 * CommonJS file, so `__filename` is its path), which lies inside whatever folder the build was
 * copied to.
 */
const runtimeImportMetaUrl = {
  apply(compiler: {
    webpack: { dependencies: { ConstDependency: new (expr: string, range: [number, number]) => unknown } };
    hooks: { normalModuleFactory: { tap(name: string, fn: (nmf: NormalModuleFactoryLike) => void): void } };
  }) {
    const { ConstDependency } = compiler.webpack.dependencies;
    compiler.hooks.normalModuleFactory.tap('HeimdallRuntimeImportMetaUrl', (nmf) => {
      for (const type of ['javascript/auto', 'javascript/esm', 'javascript/dynamic']) {
        nmf.hooks.parser.for(type).tap('HeimdallRuntimeImportMetaUrl', (parser) => {
          parser.hooks.expression.for('import.meta.url').tap({ name: 'HeimdallRuntimeImportMetaUrl', stage: -100 }, (expr) => {
            const mod = parser.state?.module;
            if (!mod?.resource?.startsWith(serverDir)) return undefined;
            const dep = new ConstDependency('require("node:url").pathToFileURL(__filename).href', expr.range as [number, number]);
            mod.addPresentationalDependency?.(dep);
            return true;
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
            state?: { module?: { resource?: string; addPresentationalDependency?(dep: unknown): void } };
            evaluateExpression(e: unknown): { isString(): boolean };
            hooks: {
              importCall: { tap(opts: { name: string; stage: number }, fn: (expr: { source: unknown }) => false | undefined): void };
              expression: { for(name: string): { tap(opts: { name: string; stage: number }, fn: (expr: { range?: unknown }) => true | undefined): void } };
            };
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
  // The build the package ships (HEIMDALL_STUDIO_PACKAGE=1, set by scripts/build-package.mjs): a
  // self-contained server (standalone: only the node_modules files it uses), copied into the package
  // as dist/studio, so `heimdall studio` serves Studio without Next or React installed. It builds
  // into its own folder, so packing never races `npm start`'s build in .next. Left out of it: native
  // binaries built for this machine (the read model's driver is the user's optional install, and
  // sharp only serves next/image, which Studio does not use).
  ...(packageBuild
    ? {
        output: 'standalone' as const,
        distDir: '.next-package',
        outputFileTracingExcludes: {
          '*': ['node_modules/better-sqlite3/**', 'node_modules/sharp/**', 'node_modules/@img/**', 'node_modules/prisma/**', 'node_modules/@prisma/engines/**', 'node_modules/typescript/**'],
        },
      }
    : {}),
  webpack(config, { isServer, nextRuntime }) {
    if (isServer) config.plugins.push(nativeComputedImports);
    if (isServer && nextRuntime === 'nodejs') config.plugins.push(runtimeImportMetaUrl);
    return config;
  },
};

export default config;
