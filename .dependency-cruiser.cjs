// Architecture boundaries, checked by a tool (house style rule 8). Run: npx depcruise server app components
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-is-pure',
      comment: 'server/core imports nothing from next, @trpc, @prisma, React or the transports/adapters.',
      severity: 'error',
      // Tests may drive a transport to check a core behaviour end to end; shipped core code may not.
      from: { path: '^server/core/', pathNot: '\\.test\\.ts$' },
      to: { path: ['node_modules/(next|@trpc|@prisma|react|react-dom|@nats-io|better-sqlite3|pg)/', '^server/(cli|mcp|trpc|stream|db)/', '^(app|components)/', '^generated/'] },
    },
    {
      name: 'transports-import-the-core-index',
      comment:
        'The CLI, the MCP server, tRPC and the stream/db adapters reach the core only through server/core/index.ts, its explicit public surface (house style rule 8). Tests may reach internals; the composition root (server/runtime.ts) loads the identity module lazily. The CLI bundle rewrites these imports to the declaring files (scripts/lib/core-barrel.mjs), so this costs no start-up time.',
      severity: 'error',
      from: { path: '^server/(cli|mcp|trpc|stream|db)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^server/core/', pathNot: '^server/core/index\\.ts$' },
    },
    {
      name: 'core-does-not-import-runtime',
      comment: 'The composition root builds the core, never the other way round.',
      severity: 'error',
      from: { path: '^server/core/' },
      to: { path: '^server/runtime\\.ts$' },
    },
    {
      name: 'client-imports-no-server-code',
      comment: 'Browser code imports server code only as types (import type { AppRouter }).',
      severity: 'error',
      from: { path: '^(components)/' },
      to: { path: '^server/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'client-types-from-router',
      comment:
        'Studio takes its data types from the router (RouterOutputs, components/trpc/types.ts, as create-t3-app does), never from core files, not even as types: what a page renders is what the procedure returns.',
      severity: 'error',
      from: { path: '^(app|components)/' },
      to: { path: '^server/core/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|\\.next|generated)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};
