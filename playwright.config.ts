/**
 * Studio's browser tests, in Debian's Chromium (/work/shared/docs/stack.md, "Browser tests").
 *
 * The web server builds a fixture planning tree with the real CLI (e2e/support/fixture.ts), then
 * starts Studio exactly as `npm start` does (scripts/start.mjs: build when needed, serve on
 * 127.0.0.1) on a fixed port (HEIMDALL_E2E_PORT, default 39170, so two worktrees can run their browser
 * tests at once), with its clock frozen at NOW (HEIMDALL_NOW) so ages are exact.
 *
 * This file is evaluated by the runner and again by each worker: the fixture folder and NOW are
 * chosen once, by the runner, and handed to the workers through the environment.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

export const STUDIO_PORT = Number.parseInt(process.env.HEIMDALL_E2E_PORT ?? '39170', 10);
if (!Number.isInteger(STUDIO_PORT) || STUDIO_PORT <= 0 || STUDIO_PORT > 65535) throw new Error(`HEIMDALL_E2E_PORT must be a port number, got ${process.env.HEIMDALL_E2E_PORT}`);
// The specs read it from the environment (this file is not imported by them).
process.env.HEIMDALL_E2E_PORT = String(STUDIO_PORT);

if (!process.env.HEIMDALL_E2E_PLANNING) {
  process.env.HEIMDALL_E2E_PLANNING = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-')), '.planning');
  process.env.HEIMDALL_E2E_NOW = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
const planning = process.env.HEIMDALL_E2E_PLANNING;
const now = process.env.HEIMDALL_E2E_NOW as string;

const jsonReport = process.env.PLAYWRIGHT_JSON_OUTPUT_NAME;

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.spec.ts',
  // One Studio, one planning tree: tests run one after another so each sees only its own changes.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  outputDir: 'test-results/playwright',
  // scripts/test-all.mjs sets PLAYWRIGHT_JSON_OUTPUT_NAME and counts that report.
  reporter: [['list'], ['json', jsonReport ? {} : { outputFile: 'test-results/playwright-report.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${STUDIO_PORT}`,
    viewport: { width: 1440, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
        '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
      ],
    },
  },
  webServer: {
    command: `node --import tsx e2e/support/fixture.ts "${planning}" "${now}" && node scripts/start.mjs`,
    url: `http://127.0.0.1:${STUDIO_PORT}/`,
    env: {
      HEIMDALL_PLANNING_DIR: planning,
      HEIMDALL_NOW: now,
      PORT: String(STUDIO_PORT),
      NEXT_TELEMETRY_DISABLED: '1',
      HEIMDALL_STUDIO_TOKEN: '',
    },
    reuseExistingServer: false,
    // A cold `next build` on two shared cores takes a minute or two.
    timeout: 600_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
