/**
 * The phase board: a real GSD tree (HYDRA's phases 01 and 02, from HEIMDALL_GSD_FIXTURES; phase 01
 * as before it ran, phase 02 finished) imported and partly run with the real CLI, served by a second
 * Studio on its own planning tree with the same frozen clock as the CLI calls, so lease times are
 * exact. One plan per column; a CLI `gsd start` moves a card within 2 seconds without a reload.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { REPO, cli, cliJson } from './support/cli.js';
import { type ExtraStudio, now, open, screenshotThemes, startExtraStudio } from './support/studio.js';

const FIXTURES = path.resolve(REPO, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
const HYDRA = path.join(FIXTURES, '001TMF__HYDRA', '.planning');

let studio: ExtraStudio;
let planning: string;
const at = (agent?: string) => ({ env: { HEIMDALL_NOW: now, ...(agent ? { HEIMDALL_AGENT: agent } : {}) } });

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  if (!fs.existsSync(HYDRA)) throw new Error(`the GSD fixtures are missing: ${HYDRA} does not exist (set HEIMDALL_GSD_FIXTURES)`);
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-phase-'));
  planning = path.join(project, '.planning');
  fs.cpSync(HYDRA, planning, { recursive: true });
  const phases = path.join(planning, 'phases');
  for (const d of fs.readdirSync(phases)) if (!/^0[12]-/.test(d)) fs.rmSync(path.join(phases, d), { recursive: true });
  const one = path.join(phases, fs.readdirSync(phases).find((d) => d.startsWith('01-')) as string);
  const aside = path.join(project, 'summaries');
  fs.mkdirSync(aside);
  for (const f of fs.readdirSync(one).filter((n) => n.endsWith('-SUMMARY.md'))) fs.renameSync(path.join(one, f), path.join(aside, f));
  cli(planning, 'heimdall', ['import', 'gsd'], at());
  // 01-01 done (its SUMMARY written back), 01-02 running, 01-05 failed, 01-04 claimed by hand, 01-03 ready, 01-06 waiting.
  cli(planning, 'heimdall', ['gsd', 'start', '01-01'], at('alice.1@core'));
  fs.copyFileSync(path.join(aside, '01-01-SUMMARY.md'), path.join(one, '01-01-SUMMARY.md'));
  cli(planning, 'heimdall', ['gsd', 'done', '01-01', '--status', 'pass'], at('alice.1@core'));
  cli(planning, 'heimdall', ['gsd', 'start', '01-02', '--ttl-minutes', '45'], at('bob.1@core'));
  cli(planning, 'heimdall', ['gsd', 'start', '01-05'], at('carol.1@core'));
  cli(planning, 'heimdall', ['gsd', 'done', '01-05', '--status', 'fail', '--note', 'greeks off by one'], at('carol.1@core'));
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/hydra/signals/options_math/density.py', '--task', '01-04'], at('dave.1@core'));
  studio = await startExtraStudio(planning, 'next', { HEIMDALL_NOW: now });
});

test.afterAll(() => studio?.stop());

const card = (page: Page, column: string, plan: string) => page.locator(`[data-column="${column}"] [data-plan="${plan}"]`);

test('each plan sits in its column with its holder, lease time left and measured brief tokens', async ({ page }) => {
  await open(page, `${studio.origin}/phase`);
  await expect(page.getByTestId('phase-picker')).toHaveValue('01');
  await expect(card(page, 'done', '01-01')).toBeVisible();
  await expect(card(page, 'running', '01-02')).toBeVisible();
  await expect(card(page, 'ready', '01-03')).toBeVisible();
  await expect(card(page, 'claimed', '01-04')).toBeVisible();
  await expect(card(page, 'failed', '01-05')).toBeVisible();
  await expect(card(page, 'waiting', '01-06')).toBeVisible();
  for (const [status, n] of Object.entries({ waiting: 1, ready: 1, claimed: 1, running: 1, done: 1, failed: 1 })) await expect(page.getByTestId(`count-${status}`)).toHaveText(String(n));

  // Who holds 01-02: its address linking to the agent, its HAID linking to its claim; the lease as the CLI set it.
  const bob = cliJson<{ plans: unknown[]; phases: { waves: { plans: { id: string; holder: { haid: string; claim: string } | null }[] }[] }[] }>(planning, 'heimdall', ['gsd', 'ready', '--phase', '01'], at());
  const holder = bob.phases[0]?.waves.flatMap((w) => w.plans).find((p) => p.id === '01-02')?.holder;
  expect(holder).toBeTruthy();
  const running = card(page, 'running', '01-02');
  await expect(running.locator(`[data-agent-link="bob.1@core"]`)).toHaveAttribute('href', '/agents?agent=bob.1%40core');
  await expect(running.locator(`[data-claim-link="${holder?.claim}"]`)).toHaveAttribute('href', `/claims?haid=${encodeURIComponent(holder?.haid as string)}`);
  await expect(running.getByTestId('lease')).toHaveText('lease 45 min left');
  await expect(card(page, 'claimed', '01-04').locator('[data-agent-link="dave.1@core"]')).toBeVisible();
  await expect(card(page, 'waiting', '01-06').getByTestId('reasons')).toContainText('waits on 01-04 (claimed)');
  await expect(card(page, 'failed', '01-05').getByTestId('reasons')).toContainText('attempt 1 failed');

  // The tokens shown are the brief's, counted as `heimdall brief gsd` counts them.
  for (const id of ['01-01', '01-02', '01-03', '01-04', '01-05', '01-06']) {
    const b = cliJson<{ total_tokens: number }>(planning, 'heimdall', ['brief', 'gsd', id], at());
    await expect(page.locator(`[data-plan="${id}"] [data-testid="brief-tokens"]`)).toHaveAttribute('data-tokens', String(b.total_tokens));
  }
  await screenshotThemes(page, 'phase-board');
});

test('a plan started with the CLI moves to running within 2 seconds, without a reload', async ({ page }) => {
  await open(page, `${studio.origin}/phase`);
  await expect(page.locator('[data-live-status="live"]')).toHaveCount(1);
  await page.evaluate(() => {
    (window as unknown as { __mark: number }).__mark = 7;
  });
  await expect(card(page, 'ready', '01-03')).toBeVisible();
  cli(planning, 'heimdall', ['gsd', 'start', '01-03'], at('erin.1@core'));
  await expect(card(page, 'running', '01-03')).toBeVisible({ timeout: 2_000 });
  await expect(card(page, 'running', '01-03').locator('[data-agent-link="erin.1@core"]')).toBeVisible();
  await expect(card(page, 'running', '01-03').getByTestId('lease')).toHaveText('lease 60 min left');
  expect(await page.evaluate(() => (window as unknown as { __mark?: number }).__mark)).toBe(7);
});

test('the picker shows another phase', async ({ page }) => {
  await open(page, `${studio.origin}/phase`);
  await page.getByTestId('phase-picker').selectOption('02');
  await expect(page.getByTestId('phase-board')).toHaveAttribute('data-phase', '02');
  await expect(page).toHaveURL(/\?phase=02$/);
  await expect(page.locator('[data-column="done"] [data-plan]')).toHaveCount(5);
  await expect(page.getByTestId('count-waiting')).toHaveText('0');
});

test('the main Studio links the board from the sidebar and says how to import a phase', async ({ page }) => {
  await open(page, '/');
  await page.getByRole('link', { name: 'Phase', exact: true }).click();
  await expect(page).toHaveURL(/\/phase$/);
  await expect(page.getByText('No GSD phase imported here')).toBeVisible();
  await expect(page.locator('code', { hasText: 'heimdall import gsd' })).toBeVisible();
});
