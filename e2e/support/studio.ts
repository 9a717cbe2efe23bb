/** Shared by the specs: where the fixture lives, the frozen clock, and page helpers. */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { type Page, expect } from '@playwright/test';
import { REPO } from './cli.js';

export const planning = process.env.HEIMDALL_E2E_PLANNING as string;
export const now = process.env.HEIMDALL_E2E_NOW as string;
if (!planning || !now) throw new Error('HEIMDALL_E2E_PLANNING and HEIMDALL_E2E_NOW are set by playwright.config.ts; run the specs with `npx playwright test`');

export const SCREENSHOTS = path.join(REPO, 'test-results', 'screenshots');

/** Open a Studio page and wait until it is hydrated (answers input). */
export async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator('html[data-hydrated="true"]')).toHaveCount(1);
}

/** Save a full-page screenshot under test-results/screenshots/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Every request Studio answered with an error status, collected for a page's lifetime. */
export function collectServerErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 500) errors.push(`${r.status()} ${r.url()}`);
  });
  return errors;
}

/** The port of the Studio the specs share (playwright.config.ts, HEIMDALL_E2E_PORT). */
export const STUDIO_PORT = Number.parseInt(process.env.HEIMDALL_E2E_PORT ?? '39170', 10);

/** A port free right now on 127.0.0.1 (for a second Studio started by a spec). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export interface ExtraStudio {
  port: number;
  origin: string;
  output: () => string;
  stop: () => void;
}

/**
 * A second Studio on its own planning tree, from the existing production build: `how: 'next'` runs
 * plain `next start` (no scripts/start.mjs in front of it), `how: 'npm'` runs scripts/start.mjs.
 */
export async function startExtraStudio(planningDir: string, how: 'next' | 'npm', env: Record<string, string> = {}): Promise<ExtraStudio> {
  const port = await freePort();
  const args = how === 'next' ? [path.join(REPO, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)] : ['scripts/start.mjs'];
  const proc: ChildProcess = spawn(process.execPath, args, {
    cwd: REPO,
    env: { ...process.env, HEIMDALL_PLANNING_DIR: planningDir, PORT: String(port), NEXT_TELEMETRY_DISABLED: '1', HEIMDALL_STUDIO_SKIP_BUILD: '1', HEIMDALL_NOW: '', HEIMDALL_STUDIO_TOKEN: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  const ready = how === 'next' ? /Ready in/ : /Studio is running at/;
  const deadline = Date.now() + 150_000;
  while (!ready.test(out)) {
    if (proc.exitCode !== null) throw new Error(`Studio (${how}) exited ${proc.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`Studio (${how}) did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, origin: `http://127.0.0.1:${port}`, output: () => out, stop: () => proc.kill('SIGTERM') };
}

/** One HTTP request with exactly the headers given (a browser would not let a test set Host). */
export function request(port: number, opts: { path?: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: opts.path ?? '/', method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

/**
 * Save a screenshot of the page in the light and the dark theme (NAME-light.png, NAME-dark.png), by
 * switching the browser's colour-scheme preference, which Studio follows when no theme was chosen.
 */
export async function screenshotThemes(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await expect(page.locator(`html[data-theme="${theme}"]`)).toHaveCount(1);
    await screenshot(page, `${name}-${theme}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}
