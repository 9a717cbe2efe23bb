/**
 * A hand-corrupted state file: the page says what is wrong (the core's message, naming the file and
 * line), the server keeps running, and the page recovers by itself once the file is fixed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { open, planning, screenshot } from './support/studio.js';

const file = path.join(planning, 'protocol', 'symbols.json');

test('a corrupted symbols.json shows a readable message and the server keeps running', async ({ page }) => {
  const good = fs.readFileSync(file, 'utf8');
  try {
    fs.writeFileSync(file, '{"version": "2.0.0", "symbols": {"F1": "src/a.ts",,}}\n');
    await open(page, '/symbols');
    const alert = page.getByTestId('error-panel').first();
    await expect(alert).toContainText('symbols.json is not valid JSON at line 1');
    await expect(alert).toContainText('The file was left untouched');
    await screenshot(page, 'error-corrupted-symbols');
    // The file was not rewritten by reading it.
    expect(fs.readFileSync(file, 'utf8')).toContain(',,');
    // Writing is refused with the same reason, and still nothing is overwritten.
    const form = page.getByRole('form', { name: 'Add a symbol' });
    await expect(form).toHaveCount(0);
    const r = await page.request.post('/api/trpc/symbols.set', { data: { id: 'F2', value: 'x' } });
    expect(r.status()).toBe(412);
    expect(await r.text()).toContain('is not valid JSON');
    expect(fs.readFileSync(file, 'utf8')).toContain(',,');

    // Other pages and the overview still work; the overview names the broken file.
    await open(page, '/blackboard');
    await expect(page.locator('tr[data-row-id="ci_runner"]')).toHaveCount(1);
    await open(page, '/');
    await expect(page.getByTestId('error-panel').first()).toContainText('symbols.json is not valid JSON');
    await expect(page.getByTestId('savings-card')).toBeVisible();

    // Fixed by hand: the open page recovers without a reload.
    await open(page, '/symbols');
    fs.writeFileSync(file, good);
    await expect(page.locator('tr[data-row-id="F12"]')).toHaveCount(1, { timeout: 5_000 });
    await expect(page.getByTestId('error-panel')).toHaveCount(0);
  } finally {
    fs.writeFileSync(file, good);
  }
});
