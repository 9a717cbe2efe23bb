/**
 * Selecting a capsule shows its text and highlights exactly its hydration closure, as the CLI
 * computes it. The graph fits whole (first view and "fit view"), pans to a capsule picked in the
 * finder, resolves where: ids, and stays readable at 200 capsules.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { cli } from './support/cli.js';
import { type ExtraStudio, open, planning, screenshot, screenshotThemes, startExtraStudio } from './support/studio.js';

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

/** Every node React Flow has drawn lies inside the graph's box; returns how many were drawn. */
async function drawnInside(page: Page): Promise<{ drawn: number; outside: string[] }> {
  return page.getByTestId('capsule-graph').evaluate((box) => {
    const b = box.getBoundingClientRect();
    const nodes = [...box.querySelectorAll<HTMLElement>('.react-flow__node')];
    const outside = nodes.filter((n) => {
      const r = n.getBoundingClientRect();
      return r.left < b.left - 1 || r.top < b.top - 1 || r.right > b.right + 1 || r.bottom > b.bottom + 1;
    });
    return { drawn: nodes.length, outside: outside.map((n) => n.dataset.id ?? '?') };
  });
}

test('the whole graph fits on first view and again on "fit view"; picking a capsule pans to it; where: shows values', async ({ page }) => {
  const ids = (JSON.parse(cli(planning, 'heimdall-capsule', ['list', '--json']).stdout) as { ids: string[] }).ids;
  await open(page, '/capsules');
  await expect(page.getByTestId('capsule-graph')).toHaveAttribute('data-graph-ready', 'true');
  // Off-screen nodes are never drawn, so "all drawn and all inside" means the view holds the whole graph.
  await expect.poll(() => drawnInside(page)).toEqual({ drawn: ids.length, outside: [] });

  // Zoom in far, then "fit view" brings every capsule back.
  const zoomIn = page.getByRole('button', { name: 'zoom in' });
  // Until the graph's largest zoom, where the button turns itself off.
  for (let i = 0; i < 8 && (await zoomIn.isEnabled()); i++) await zoomIn.click();
  await expect.poll(async () => (await drawnInside(page)).outside.length + (ids.length - (await drawnInside(page)).drawn)).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'fit view' }).click();
  await expect.poll(() => drawnInside(page)).toEqual({ drawn: ids.length, outside: [] });

  // Choosing from the finder centres the graph on the capsule.
  const target = ids[ids.length - 1] as string;
  await page.getByRole('combobox', { name: /Find a capsule/ }).fill(target);
  await page.keyboard.press('Enter');
  await expect(page.locator(`[data-capsule="${target}"]`)).toHaveAttribute('data-mark', 'selected');
  const offCentre = () =>
    page.getByTestId('capsule-graph').evaluate((box, id) => {
      const b = box.getBoundingClientRect();
      const n = box.querySelector<HTMLElement>(`.react-flow__node[data-id="${id}"]`)?.getBoundingClientRect();
      return n ? Math.round(Math.hypot(n.left + n.width / 2 - (b.left + b.width / 2), n.top + n.height / 2 - (b.top + b.height / 2))) : 9999;
    }, target);
  await expect.poll(offCentre).toBeLessThan(6);

  // where: ids resolved to their values, as heimdall-resolve gives them.
  await page.getByRole('combobox', { name: /Find a capsule/ }).fill('w2');
  await page.keyboard.press('Enter');
  const where = cli(planning, 'heimdall-capsule', ['show', 'w2']).stdout.match(/^where: (.*)$/m)?.[1] as string;
  const tokens = where.split(/[\s,]+/).filter(Boolean);
  expect(tokens.length).toBeGreaterThan(1);
  await expect(page.getByTestId('capsule-where').locator('li')).toHaveCount(tokens.length);
  for (const t of tokens) await expect(page.locator(`[data-where="${t}"] [data-where-value]`)).toHaveText(cli(planning, 'heimdall-resolve', [t]).stdout.trim());
  await screenshot(page, 'capsules-where');
});

test.describe('200 capsules', () => {
  let studio: ExtraStudio;
  let tree = '';
  const N = 200;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    tree = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-e2e-200-')), '.planning');
    cli(tree, 'heimdall-protocol', ['init']);
    // Four waves of 50, each capsule depending on one or two of the previous wave: tall columns.
    // Written as files in the capsule format (200 CLI runs would take a minute on a loaded machine).
    const dir = path.join(tree, 'protocol', 'capsules');
    fs.mkdirSync(dir, { recursive: true });
    const id = (n: number) => `c${String(n).padStart(3, '0')}`;
    for (let i = 0; i < N; i++) {
      const wave = Math.floor(i / 50);
      const depends = wave === 0 ? [] : [...new Set([id((wave - 1) * 50 + (i % 50)), id((wave - 1) * 50 + ((i * 7) % 50))])];
      fs.writeFileSync(path.join(dir, `${id(i)}.md`), `# ${id(i)}\nwhat: task ${i}\nwhere: src/m${i % 17}.ts\n${depends.length ? `depends: ${depends.join(', ')}\n` : ''}`);
    }
    expect(JSON.parse(cli(tree, 'heimdall-capsule', ['list', '--json']).stdout).ids).toHaveLength(N);
    studio = await startExtraStudio(tree, 'next');
  });

  test.afterAll(() => studio?.stop());

  test('fit whole on first view, with every id readable (at least 10 px on screen)', async ({ page }) => {
    await open(page, `${studio.origin}/capsules`);
    const graph = page.getByTestId('capsule-graph');
    await expect(graph).toHaveAttribute('data-graph-ready', 'true');
    await expect.poll(() => drawnInside(page)).toEqual({ drawn: N, outside: [] });
    const sizes = await graph.evaluate((box) => {
      const zoom = Number((box as HTMLElement).dataset.zoom);
      return [...box.querySelectorAll<HTMLElement>('.capsule-id')].map((el) => Number.parseFloat(getComputedStyle(el).fontSize) * zoom);
    });
    expect(sizes).toHaveLength(N);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(10);
    // Ids do not spill out of their cards.
    const spilled = await graph.evaluate((box) => [...box.querySelectorAll<HTMLElement>('.capsule-id')].filter((el) => el.scrollWidth > el.clientWidth + 1).length);
    expect(spilled).toBe(0);
    // Nothing drawn over the graph (zoom controls, minimap) hides a card.
    const covered = await graph.evaluate((box) => {
      const overlays = [...box.querySelectorAll<HTMLElement>('.react-flow__controls, .react-flow__minimap')].map((o) => o.getBoundingClientRect());
      return [...box.querySelectorAll<HTMLElement>('.react-flow__node')]
        .filter((n) => {
          const r = n.getBoundingClientRect();
          return overlays.some((o) => r.left < o.right && r.right > o.left && r.top < o.bottom && r.bottom > o.top);
        })
        .map((n) => n.dataset.id);
    });
    expect(covered).toEqual([]);
    await screenshotThemes(page, 'capsules-200');
  });
});
