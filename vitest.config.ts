import { defineConfig } from 'vitest/config';

/**
 * One config, four suites, each its own npm script (all called by `npm test`, scripts/test-all.mjs):
 * - unit   (`npm run test:unit`): tests next to the code, no services needed;
 * - e2e    (`npm run test:e2e`): the bundled bin/ programs and MCP end to end (e2e/*.test.ts);
 * - int    (`npm run test:int`): *.int.test.ts, against real PostgreSQL and NATS on 127.0.0.1;
 * - chaos  (`npm run chaos`): many writers, kills, a full disk and hostile input (e2e/chaos/).
 * Browser tests are Playwright's (`npm run test:browser`).
 */
const shared = {
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: 'forks' as const,
};
const always = ['node_modules', 'dist', '.next'];

export default defineConfig({
  test: {
    ...shared,
    exclude: always,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'scripts/**/*.test.ts', 'components/**/*.test.ts'],
          exclude: [...always, '**/*.int.test.ts'],
        },
      },
      {
        extends: true,
        test: { name: 'e2e', include: ['e2e/**/*.test.ts'], exclude: [...always, '**/*.int.test.ts', 'e2e/chaos/**'] },
      },
      {
        extends: true,
        test: { name: 'int', include: ['**/*.int.test.ts'], exclude: always },
      },
      {
        extends: true,
        // The chaos suite measures its own processes; one file at a time keeps the 2-core machine honest.
        test: { name: 'chaos', include: ['e2e/chaos/**/*.test.ts'], exclude: always, fileParallelism: false },
      },
    ],
  },
});
