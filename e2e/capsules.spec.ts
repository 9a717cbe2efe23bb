/**
 * Selecting a capsule shows its text and highlights exactly its hydration closure, as the CLI
 * computes it.
 */
import { expect, test } from '@playwright/test';
import { cli } from './support/cli.js';
import { open, planning, screenshot } from './support/studio.js';

test('selecting a capsule shows its text and highlights its hydration closure', async ({ page }) => {
  const ids = (JSON.parse(cli(planning, 'heimdall-capsule', ['list', '--json']).stdout) as { ids: string[] }).ids;
  // The capsule with the largest closure makes the best check.
  const closures = ids.map((id) => ({ id, deps: cli(planning, 'heimdall-capsule', ['deps', id]).stdout.trim().split('\n') }));
  const pick = closures.sort((a, b) => b.deps.length - a.deps.length)[0] as { id: string; deps: string[] };
  expect(pick.deps.length).toBeGreaterThan(1);
  const text = cli(planning, 'heimdall-capsule', ['show', pick.id]).stdout.trim();

  await open(page, '/capsules');
  await expect(page.getByTestId('capsule-graph')).toHaveAttribute('data-graph-ready', 'true');
  await page.locator(`.react-flow__node [data-capsule="${pick.id}"]`).click();
  await expect(page.getByTestId('capsule-text')).toHaveText(text);
  await expect(page.getByTestId('closure-order').locator('li')).toHaveText(pick.deps.map((d, i) => (i ? `→${d}` : d)));
  for (const id of ids) {
    const mark = id === pick.id ? 'selected' : pick.deps.includes(id) ? 'closure' : 'dim';
    await expect(page.locator(`[data-capsule="${id}"]`)).toHaveAttribute('data-mark', mark);
  }
  await screenshot(page, 'capsules-closure');

  // From the keyboard: type in the finder, Enter picks the first match.
  const other = ids.find((id) => id !== pick.id) as string;
  await page.getByRole('combobox', { name: /Find a capsule/ }).fill(other);
  await expect(page.getByRole('option', { name: new RegExp(`^${other}`) })).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.locator(`[data-capsule="${other}"]`)).toHaveAttribute('data-mark', 'selected');
});

test('a capsule can be selected from the keyboard: Tab to a node, Enter', async ({ page }) => {
  await open(page, '/capsules');
  await expect(page.getByTestId('capsule-graph')).toHaveAttribute('data-graph-ready', 'true');
  const node = page.locator('.react-flow__node[data-id="w1"]');
  await node.focus();
  await expect(node).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('[data-capsule="w1"]')).toHaveAttribute('data-mark', 'selected');
  await expect(page.getByTestId('capsule-text')).toContainText('# w1');
});
