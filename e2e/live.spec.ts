/**
 * A change made with the CLI appears in an open page within 2 seconds, without a reload.
 */
import { type Page, expect, test } from '@playwright/test';
import { cli } from './support/cli.js';
import { open, planning } from './support/studio.js';

/** Mark the document, so a reload (which would drop the mark) is caught. */
async function mark(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { __studioMark: number }).__studioMark = 42;
  });
}
async function expectNoReload(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { __studioMark?: number }).__studioMark)).toBe(42);
}
async function waitLive(page: Page) {
  await expect(page.locator('[data-live-status="live"]')).toHaveCount(1);
}

test('a blackboard fact set with the CLI shows up in the open page', async ({ page }) => {
  await open(page, '/blackboard');
  await waitLive(page);
  await mark(page);
  await expect(page.locator('tr[data-row-id="e2e_live_port"]')).toHaveCount(0);
  const t0 = Date.now();
  cli(planning, 'heimdall-blackboard', ['set', 'e2e_live_port', '5173']);
  await expect(page.locator('tr[data-row-id="e2e_live_port"] [data-value]')).toHaveText('5173', { timeout: 2_000 });
  const seen = Date.now() - t0;
  cli(planning, 'heimdall-blackboard', ['set', 'e2e_live_port', '5174']);
  await expect(page.locator('tr[data-row-id="e2e_live_port"] [data-value]')).toHaveText('5174', { timeout: 2_000 });
  cli(planning, 'heimdall-blackboard', ['delete', 'e2e_live_port']);
  await expect(page.locator('tr[data-row-id="e2e_live_port"]')).toHaveCount(0, { timeout: 2_000 });
  await expectNoReload(page);
  test.info().annotations.push({ type: 'latency', description: `fact visible ${seen} ms after the CLI returned` });
});

test('the log page tails new lines as they are written', async ({ page }) => {
  await open(page, '/log');
  await waitLive(page);
  await mark(page);
  cli(planning, 'heimdall-resolve', ['set', 'e2e_tail', 'src/tail.ts']);
  await expect(page.locator('[data-log-row]').first()).toContainText('e2e_tail=src/tail.ts', { timeout: 2_000 });
  // With live tail off, new lines wait behind a button instead of moving the list.
  await page.getByRole('button', { name: 'Live tail' }).click();
  await expect(page.getByRole('button', { name: 'Live tail' })).toHaveAttribute('aria-pressed', 'false');
  cli(planning, 'heimdall-resolve', ['delete', 'e2e_tail']);
  const more = page.getByRole('button', { name: /1 new line: show/ });
  await expect(more).toBeVisible({ timeout: 2_000 });
  await expect(page.locator('[data-log-row]').first()).toContainText('e2e_tail=src/tail.ts');
  await more.click();
  await expect(page.locator('[data-log-row]').first()).toContainText('delete');
  await expectNoReload(page);
});

test('the overview follows claims and agents changed by the CLI', async ({ page }) => {
  await open(page, '/');
  await waitLive(page);
  await mark(page);
  const root = cli(planning, 'heimdall-haid', ['root']).stdout.trim();
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'e2e/live/**', '--task', 'T-LIVE', '--haid', `${root}/e2e`]);
  await expect(page.getByTestId('overview-claims')).toContainText('e2e/live/**', { timeout: 2_000 });
  cli(planning, 'heimdall-claim', ['release', '--haid', `${root}/e2e`]);
  await expect(page.getByTestId('overview-claims')).not.toContainText('e2e/live/**', { timeout: 2_000 });
  await expectNoReload(page);
});
