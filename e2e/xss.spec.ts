/**
 * Log lines and symbol values are text, never HTML: markup written into protocol.log and a symbol
 * is shown literally and nothing in it runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { cli } from './support/cli.js';
import { open, planning, screenshot } from './support/studio.js';

const SCRIPT = '<script>window.__xss=(window.__xss||0)+1</script>';
const IMG = '<img src=x onerror="window.__xss=(window.__xss||0)+10">';

function watch(page: Page): string[] {
  const fired: string[] = [];
  page.on('dialog', (d) => {
    fired.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  return fired;
}

async function nothingRan(page: Page, fired: string[]) {
  // Give an onerror handler the time it would need to fire.
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  // No script element was made from the payload (the page's own data scripts carry it as a JSON string).
  expect(await page.evaluate(() => [...document.scripts].some((s) => s.textContent?.trim().startsWith('window.__xss')))).toBe(false);
  expect(fired).toEqual([]);
}

test.beforeAll(() => {
  cli(planning, 'heimdall-resolve', ['set', 'XSS1', SCRIPT]);
  cli(planning, 'heimdall-resolve', ['set', 'XSS2', IMG]);
  cli(planning, 'heimdall-blackboard', ['set', 'xss_fact', `${IMG}${SCRIPT}`]);
  // A line another tool wrote by hand, markup in every field.
  fs.appendFileSync(path.join(planning, 'protocol.log'), `2026-01-01T00:00:00Z\t<b>mech</b>\t<i onmouseover="window.__xss=100">act</i>\t${IMG} and ${SCRIPT}\n`);
});

test('symbol values with markup are shown as text', async ({ page }) => {
  const fired = watch(page);
  await open(page, '/symbols');
  await expect(page.locator('tr[data-row-id="XSS1"] [data-value]')).toHaveText(SCRIPT);
  await expect(page.locator('tr[data-row-id="XSS2"] [data-value]')).toHaveText(IMG);
  await page.locator('tr[data-row-id="XSS2"]').getByRole('button', { name: 'Edit XSS2' }).click();
  await expect(page.locator('tr[data-row-id="XSS2"]').getByRole('textbox')).toHaveValue(IMG);
  await page.locator('tr[data-row-id="XSS2"]').getByRole('button', { name: 'Cancel' }).click();
  await nothingRan(page, fired);
  await screenshot(page, 'xss-symbols');
});

test('log lines with markup are shown as text, in the list and in the detail', async ({ page }) => {
  const fired = watch(page);
  await open(page, '/log');
  const first = page.locator('[data-log-row]').first();
  await expect(first).toContainText('<b>mech</b>');
  await expect(first).toContainText(`${IMG} and ${SCRIPT}`);
  await first.hover();
  await first.click();
  await expect(page.getByTestId('log-detail')).toHaveText(`${IMG} and ${SCRIPT}`);
  await page.getByRole('searchbox', { name: 'Text' }).fill('XSS2=');
  await expect(page.locator('[data-log-row]').first()).toContainText(`XSS2=${IMG}`);
  await nothingRan(page, fired);
  await screenshot(page, 'xss-log');
});

test('the overview and blackboard show the same markup as text', async ({ page }) => {
  const fired = watch(page);
  await open(page, '/');
  await expect(page.getByTestId('overview-log')).toContainText(SCRIPT);
  await nothingRan(page, fired);
  await open(page, '/blackboard');
  await expect(page.locator('tr[data-row-id="xss_fact"] [data-value]')).toHaveText(`${IMG}${SCRIPT}`);
  await nothingRan(page, fired);
});

test.afterAll(() => {
  cli(planning, 'heimdall-resolve', ['delete', 'XSS1']);
  cli(planning, 'heimdall-resolve', ['delete', 'XSS2']);
  cli(planning, 'heimdall-blackboard', ['delete', 'xss_fact']);
});
