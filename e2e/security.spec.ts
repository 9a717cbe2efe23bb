/**
 * Security of the Studio server: the token (query once, then an HttpOnly cookie), the Host header
 * check against DNS rebinding, cross-origin writes. Also `npm start` on an empty planning tree: it
 * seeds the demo by running the real demo command.
 *
 * A second Studio is started here, with HEIMDALL_STUDIO_TOKEN set, on its own empty planning tree.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { REPO, cliJson } from './support/cli.js';

const PORT = 39171;
const MAIN_PORT = 39170;
const TOKEN = 's3cret-token-for-e2e';
const ORIGIN = `http://127.0.0.1:${PORT}`;

let server: ChildProcess | undefined;
let output = '';
let planning = '';

function request(port: number, opts: { path?: string; method?: string; headers?: Record<string, string>; body?: string }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
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

test.beforeAll(async () => {
  test.setTimeout(180_000);
  planning = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-token-')), '.planning');
  server = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: REPO,
    env: { ...process.env, HEIMDALL_PLANNING_DIR: planning, PORT: String(PORT), HEIMDALL_STUDIO_TOKEN: TOKEN, HEIMDALL_STUDIO_SKIP_BUILD: '1', HEIMDALL_NOW: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (d) => (output += d));
  server.stderr?.on('data', (d) => (output += d));
  const deadline = Date.now() + 150_000;
  while (!output.includes('Studio is running at')) {
    if (server.exitCode !== null) throw new Error(`Studio exited ${server.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`Studio did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
});

test.afterAll(() => {
  server?.kill('SIGTERM');
});

test('npm start seeds an empty planning tree with the real demo and prints the URL with the token', () => {
  expect(output).toContain('seeding a demo workspace');
  expect(output).toContain(`Studio is running at http://127.0.0.1:${PORT}/?token=${TOKEN}`);
  const report = cliJson<{ roles: { role: string; baseline?: number; tokens: number }[] }>(planning, 'heimdall-ledger', ['report']);
  expect(report.roles.find((r) => r.role === 'orchestration')?.baseline).toBeGreaterThan(0);
  expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toContain('\tprotocol\tdemo\t');
});

test('without the token every request is refused', async () => {
  for (const p of ['/', '/symbols', '/api/trpc/symbols.list', '/api/trpc/live.changes', '/_next/static/chunks/webpack.js']) {
    const r = await request(PORT, { path: p });
    expect(r.status, p).toBe(401);
    expect(r.body).toContain('requires its access token');
  }
  expect((await request(PORT, { path: '/?token=wrong' })).status).toBe(401);
  expect((await request(PORT, { path: '/', headers: { cookie: `heimdall_studio=${TOKEN}` } })).status).toBe(401);
  const post = await request(PORT, { path: '/api/trpc/symbols.set', method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'X', value: 'y' }) });
  expect(post.status).toBe(401);
  expect(cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols.X).toBeUndefined();
});

test('?token= once becomes an HttpOnly cookie and leaves the address bar', async ({ browser }) => {
  const first = await request(PORT, { path: `/symbols?token=${TOKEN}` });
  expect(first.status).toBe(303);
  expect(first.headers.location).toBe('/symbols');
  const cookie = String(first.headers['set-cookie']);
  expect(cookie).toMatch(/heimdall_studio=/);
  expect(cookie).toContain('HttpOnly');
  expect(cookie).toContain('SameSite=Strict');
  expect(cookie).not.toContain(TOKEN);
  // Scripts may use a bearer header instead.
  expect((await request(PORT, { path: '/api/trpc/symbols.list', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${ORIGIN}/symbols?token=${TOKEN}`);
  await expect(page).toHaveURL(`${ORIGIN}/symbols`);
  await expect(page.locator('html[data-hydrated="true"]')).toHaveCount(1);
  await expect(page.locator('tr[data-row-id="F12"]')).toHaveCount(1);
  // The page's own API calls and its event stream carry the cookie.
  await expect(page.locator('[data-live-status="live"]')).toHaveCount(1);
  expect(await page.evaluate(() => document.cookie)).not.toContain('heimdall_studio');
  await context.close();
});

test('a Host header other than the bound host is refused (DNS rebinding)', async () => {
  for (const port of [PORT, MAIN_PORT]) {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${port + 1}`]) {
      const r = await request(port, { path: '/api/trpc/symbols.list', headers: { host, authorization: `Bearer ${TOKEN}` } });
      expect(r.status, `${host} on ${port}`).toBe(403);
      expect(r.body).toContain('DNS rebinding');
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const r = await request(port, { path: '/api/trpc/symbols.list', headers: { host, authorization: `Bearer ${TOKEN}` } });
      expect(r.status, `${host} on ${port}`).toBe(200);
    }
  }
});

test('a write from another origin is refused', async () => {
  const body = JSON.stringify({ key: 'csrf', value: 'x' });
  const r = await request(MAIN_PORT, { path: '/api/trpc/blackboard.set', method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body });
  expect(r.status).toBe(403);
  expect(r.body).toContain('accepts changes only from its own pages');
  const ok = await request(MAIN_PORT, { path: '/api/trpc/blackboard.set', method: 'POST', headers: { 'content-type': 'application/json', origin: `http://127.0.0.1:${MAIN_PORT}` }, body: JSON.stringify({ key: 'same_origin', value: 'ok' }) });
  expect(ok.status).toBe(200);
  const facts = cliJson<{ facts: Record<string, string> }>(process.env.HEIMDALL_E2E_PLANNING as string, 'heimdall-blackboard', ['list']).facts;
  expect(facts.csrf).toBeUndefined();
  expect(facts.same_origin).toBe('ok');
});
