/**
 * The ledger page shows the values the ledger holds, in its charts, and saves the savings card as
 * a PNG.
 */
import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { cli, cliJson } from './support/cli.js';
import { open, planning, screenshot } from './support/studio.js';

interface ReportJson {
  roles: { role: string; tokens: number; entries: number; baseline?: number; pct?: number }[];
  tokenizer: string;
}

const fmt = (n: number) => n.toLocaleString('en-US');

test('the charts show the values the ledger holds', async ({ page }) => {
  // A second role with its own baseline and lines, so the chart has more than the demo's bar pair.
  cli(planning, 'heimdall-ledger', ['baseline', '--role', 'review', '--tokens', '9000']);
  cli(planning, 'heimdall-ledger', ['log', '--role', 'review', '--kind', 'task_result', '--msg-id', 'e2e-r1', '--tokens', '2500', '--run', 'e2e-run']);
  cli(planning, 'heimdall-ledger', ['log', '--role', 'review', '--kind', 'delta_brief', '--msg-id', 'e2e-r2', '--tokens', '1700', '--run', 'e2e-run']);
  const report = cliJson<ReportJson>(planning, 'heimdall-ledger', ['report']);
  await open(page, '/ledger');

  const bars = page.getByTestId('chart-baseline');
  await expect(bars.locator('svg .recharts-bar-rectangle').first()).toBeVisible();
  const labels = bars.locator('svg .recharts-label-list text');
  for (const r of report.roles) {
    await expect(bars.locator('svg .recharts-cartesian-axis-tick-value', { hasText: r.role })).toHaveCount(1);
    await expect(labels.filter({ hasText: new RegExp(`^${fmt(r.tokens)}$`) })).not.toHaveCount(0);
    if (r.baseline !== undefined) await expect(labels.filter({ hasText: new RegExp(`^${fmt(r.baseline)}$`) })).not.toHaveCount(0);
  }
  // The review role: 9,000 -> 4,200 tokens, 53% saved, in the chart over time and in the table.
  const review = report.roles.find((r) => r.role === 'review');
  expect(review).toMatchObject({ tokens: 4200, baseline: 9000, pct: -53 });
  await expect(page.getByTestId('chart-over-time').locator('svg .recharts-label-list text', { hasText: /^53%$/ })).toHaveCount(1);
  const row = page.getByTestId('ledger-table').locator('tr', { hasText: 'review' });
  await expect(row).toContainText('4,200');
  await expect(row).toContainText('9,000');
  await expect(row).toContainText('−53%');
  // The card for one run: the same figures as `heimdall-ledger report --run e2e-run`.
  await page.getByLabel('Figures for').selectOption('e2e-run');
  const perRun = cliJson<ReportJson>(planning, 'heimdall-ledger', ['report', '--run', 'e2e-run']);
  await expect(page.getByTestId('savings-card').locator('[data-role="review"] [data-testid="measured"]')).toHaveText(fmt(perRun.roles.find((r) => r.role === 'review')?.tokens as number));
  await page.getByLabel('Figures for').selectOption('');
  await screenshot(page, 'ledger-charts');
});

test('the savings card saves as a PNG', async ({ page }) => {
  await open(page, '/ledger');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save as PNG' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^heimdall-savings-\d{4}-\d{2}-\d{2}\.png$/);
  const file = await download.path();
  const bytes = fs.readFileSync(file);
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  // Twice the card's on-screen width, so it stays sharp on a slide.
  const cardWidth = (await page.getByTestId('savings-card').boundingBox())?.width ?? 0;
  expect(bytes.readUInt32BE(16)).toBeGreaterThanOrEqual(Math.floor(cardWidth * 2) - 2);
});
