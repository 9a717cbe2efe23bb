/**
 * Security of Studio: the token (query once, then an HttpOnly cookie), the Host header check against
 * DNS rebinding, cross-origin writes. The checks are Studio's own request guard (proxy.ts), so they
 * hold however Studio is started: `npm start` (scripts/start.mjs) and plain `next start` are both
 * checked here. Also `npm start` on an empty planning tree: it seeds the demo by running the real
 * demo command.
 *
 * Besides the shared Studio (STUDIO_PORT), this file starts one with `npm start` and
 * HEIMDALL_STUDIO_TOKEN set, on its own empty planning tree, and two with plain `next start` (with
 * and without a token), each on a free port.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cli, cliJson } from './support/cli.js';
import { type ExtraStudio, STUDIO_PORT, request, startExtraStudio } from './support/studio.js';

const MAIN_PORT = STUDIO_PORT;
const TOKEN = 's3cret-token-for-e2e';

let studio: ExtraStudio;
let PORT = 0;
let ORIGIN = '';
let output = '';
let planning = '';

test.beforeAll(async () => {
  test.setTimeout(180_000);
  planning = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-token-')), '.planning');
  studio = await startExtraStudio(planning, 'npm', { HEIMDALL_STUDIO_TOKEN: TOKEN });
  PORT = studio.port;
  ORIGIN = studio.origin;
  output = studio.output();
});

test.afterAll(() => {
  studio?.stop();
});

test('npm start seeds an empty planning tree with the real demo and prints the URL with the token', () => {
  expect(output).toContain('seeding a demo workspace');
  expect(output).toContain(`Studio is running at http://127.0.0.1:${PORT}/?token=${TOKEN}`);
  const report = cliJson<{ roles: { role: string; baseline?: number; tokens: number }[] }>(planning, 'heimdall-ledger', ['report']);
  expect(report.roles.find((r) => r.role === 'orchestration')?.baseline).toBeGreaterThan(0);
  expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toContain('\tprotocol\tdemo\t');
});

test('without the token every request is refused', async () => {
  for (const p of ['/', '/symbols', '/api/trpc/symbols.list', '/api/trpc/live.changes', '/favicon.ico']) {
    const r = await request(PORT, { path: p });
    expect(r.status, p).toBe(401);
    expect(r.body).toContain('requires its access token');
  }
  // Next's hashed build assets are the package's public files: served without the guard, and they
  // carry nothing of the planning tree.
  const page = await request(PORT, { path: '/', headers: { authorization: `Bearer ${TOKEN}` } });
  const script = /\/_next\/static\/[^"'\s]+\.js/.exec(page.body)?.[0];
  expect(script, 'the page names its scripts').toBeDefined();
  const asset = await request(PORT, { path: script as string });
  expect(asset.status).toBe(200);
  expect(asset.body).not.toContain(planning);
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

test.describe('plain `next start` is guarded too (the guard is part of the app)', () => {
  let plain: ExtraStudio;
  let tokened: ExtraStudio;
  let tree = '';

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    tree = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-next-')), '.planning');
    // Only init creates a tree; the demo then runs in place in it (an empty tree).
    cli(tree, 'heimdall', ['init']);
    cli(tree, 'heimdall-protocol', ['demo']);
    plain = await startExtraStudio(tree, 'next');
    tokened = await startExtraStudio(tree, 'next', { HEIMDALL_STUDIO_TOKEN: TOKEN });
  });

  test.afterAll(() => {
    plain?.stop();
    tokened?.stop();
  });

  test('Host and Origin are checked without scripts/start.mjs in front', async () => {
    expect(plain.output()).not.toContain('Studio is running at'); // really next start, not start.mjs
    for (const host of ['evil.example', `evil.example:${plain.port}`, `127.0.0.1:${plain.port + 1}`]) {
      const r = await request(plain.port, { path: '/api/trpc/symbols.list', headers: { host } });
      expect(r.status, host).toBe(403);
      expect(r.body).toContain('DNS rebinding');
    }
    for (const host of [`127.0.0.1:${plain.port}`, `localhost:${plain.port}`]) expect((await request(plain.port, { path: '/api/trpc/symbols.list', headers: { host } })).status, host).toBe(200);
    const body = JSON.stringify({ key: 'csrf', value: 'x' });
    const r = await request(plain.port, { path: '/api/trpc/blackboard.set', method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body });
    expect(r.status).toBe(403);
    expect(cliJson<{ facts: Record<string, string> }>(tree, 'heimdall-blackboard', ['list']).facts.csrf).toBeUndefined();
  });

  test('a token set in the environment is required, exchanged for a cookie, or taken as a bearer', async () => {
    for (const p of ['/', '/api/trpc/symbols.list', '/favicon.ico']) expect((await request(tokened.port, { path: p })).status, p).toBe(401);
    const first = await request(tokened.port, { path: `/symbols?token=${TOKEN}` });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/symbols');
    const cookie = String(first.headers['set-cookie']).split(';')[0] as string;
    expect(cookie).not.toContain(TOKEN);
    expect((await request(tokened.port, { path: '/api/trpc/symbols.list', headers: { cookie } })).status).toBe(200);
    expect((await request(tokened.port, { path: '/api/trpc/symbols.list', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect((await request(tokened.port, { path: '/api/trpc/symbols.list', headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
  });
});
