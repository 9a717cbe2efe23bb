/**
 * The log page: filters by mechanism, action and text (the same lines the CLI shows), and keyboard
 * navigation through the virtualized list.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { open, planning } from './support/studio.js';

function logLines(): { line: number; mechanism: string; action: string; detail: string }[] {
  const text = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      const [, mechanism = '', action = '', ...rest] = l.split('\t');
      return { line: i + 1, mechanism, action, detail: rest.join('\t') };
    });
}

test('filter by mechanism, action and text', async ({ page }) => {
  const lines = logLines();
  const capsuleWrites = lines.filter((l) => l.mechanism === 'capsule' && l.action === 'write');
  expect(capsuleWrites.length).toBeGreaterThan(1);
  await open(page, '/log');
  await page.getByLabel('Mechanism').selectOption('capsule');
  await page.getByLabel('Action').selectOption('write');
  await expect(page.getByTestId('log-summary')).toContainText(`${capsuleWrites.length} matching lines`);
  await expect(page.locator('[data-log-row]')).toHaveCount(capsuleWrites.length);
  await expect(page.locator('[data-log-row]').first()).toHaveAttribute('data-log-row', String(capsuleWrites[capsuleWrites.length - 1]?.line));
  expect(page.url()).toContain('mechanism=capsule');

  const needle = 'w1';
  const matching = lines.filter((l) => l.mechanism === 'capsule' && l.action === 'write' && `${l.detail}`.toLowerCase().includes(needle));
  await page.getByRole('searchbox', { name: 'Text' }).fill(needle.toUpperCase());
  await expect(page.getByTestId('log-summary')).toContainText(`${matching.length} matching line`);
  await page.getByRole('button', { name: 'Clear' }).click();
  await expect(page.getByTestId('log-summary')).toContainText(`${logLines().length} lines`);

  // A filtered URL is rendered by the server with the filter applied.
  await open(page, '/log?mechanism=ledger');
  await expect(page.getByLabel('Mechanism')).toHaveValue('ledger');
  await expect(page.locator('[data-log-row]').first()).toContainText('ledger');
});

test('keyboard: "/" focuses the search, arrows move through the rows', async ({ page }) => {
  await open(page, '/log');
  await page.keyboard.press('/');
  await expect(page.getByRole('searchbox', { name: 'Text' })).toBeFocused();
  await page.getByRole('listbox').focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  const total = logLines().length;
  await expect(page.locator('[role="option"][aria-selected="true"]')).toHaveAttribute('data-log-row', String(total - 1));
  await expect(page.getByTestId('log-detail')).toBeVisible();
  await page.keyboard.press('End');
  await expect(page.locator('[role="option"][aria-selected="true"]')).toHaveAttribute('data-log-row', '1');
  await page.keyboard.press('Home');
  await expect(page.locator('[role="option"][aria-selected="true"]')).toHaveAttribute('data-log-row', String(total));
});
