/**
 * The log page: filters by mechanism, action and text (the same lines the CLI shows), and keyboard
 * navigation through the virtualized list. The audit trail: a time range, authors, and links from a
 * line to the objects it names and back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { parseLogLine } from '../server/core/log/protocolLog.js';
import { logRefs, refKey } from '../server/core/log/refs.js';
import { cli, cliJson, isoBefore } from './support/cli.js';
import { now, open, planning, screenshot } from './support/studio.js';

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

/** protocol.log as the core reads it (author and escapes included), with the objects each line names. */
function entries() {
  const text = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l, i) => {
      const e = parseLogLine(l, i + 1);
      return { ...e, refs: logRefs(e).map(refKey) };
    });
}

const isoAgo = (s: number) => isoBefore(now, s);

test.describe('audit trail', () => {
  test('time range: the last 15 min, hour and day, and custom bounds, all in the URL', async ({ page }) => {
    const all = entries();
    const since = (s: number) => all.filter((e) => e.ts >= isoAgo(s)).length;
    // The fixture's lines are spread over the last hour: each window keeps a different number.
    expect(since(900)).toBeGreaterThan(0);
    expect(since(900)).toBeLessThan(since(3600));

    await open(page, '/log?last=15m');
    await expect(page.getByLabel('Time')).toHaveValue('15m');
    await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${since(900)} matching lines? of ${all.length}`));
    await expect(page.getByTestId('range-since')).toContainText(isoAgo(900).replace('T', ' ').replace('Z', ''));
    for (const row of await page.locator('[data-log-row]').all()) expect(all[Number(await row.getAttribute('data-log-row')) - 1]?.ts >= isoAgo(900)).toBe(true);

    // Chosen in the page, a range starts at the server's clock when chosen (a second or two after NOW
    // here, as the page has been open that long): the count follows the start the page shows.
    await page.getByLabel('Time').selectOption('1h');
    const shownSince = async () => `${((await page.getByTestId('range-since').locator('span').textContent()) ?? '').trim().replace(' ', 'T')}Z`;
    const hourStart = await shownSince();
    expect(Date.parse(hourStart) - Date.parse(isoAgo(3600))).toBeGreaterThanOrEqual(0);
    expect(Date.parse(hourStart) - Date.parse(isoAgo(3600))).toBeLessThan(60_000);
    await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${all.filter((e) => e.ts >= hourStart).length} matching lines? of ${all.length}`));
    await expect.poll(() => new URL(page.url()).searchParams.get('last')).toBe('1h');
    await page.getByLabel('Time').selectOption('1d');
    await expect.poll(() => new URL(page.url()).searchParams.get('last')).toBe('1d');
    const dayStart = await shownSince();
    await expect(page.getByTestId('log-summary')).toContainText(`${all.filter((e) => e.ts >= dayStart).length} matching line`);

    // Custom bounds: from 20 to 8 minutes before the server's clock.
    const [from, to] = [isoAgo(1200), isoAgo(480)];
    const inside = all.filter((e) => e.ts >= from && e.ts < to);
    expect(inside.length).toBeGreaterThan(0);
    await open(page, `/log?from=${from}&to=${to}`);
    await expect(page.getByLabel('Time')).toHaveValue('custom');
    // The input shows the bound to the second (the browser drops ":00" seconds).
    await expect(page.getByLabel('From (UTC)')).toHaveValue(new RegExp(`^${from.slice(0, 16)}(:${from.slice(17, 19)})?$`));
    await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${inside.length} matching lines? of`));
    await expect(page.locator('[data-log-row]')).toHaveCount(inside.length);

    // A bound that is not a date gets the core's message, not an empty list.
    await open(page, '/log?from=yesterday-ish');
    await expect(page.getByTestId('error-panel')).toContainText('from must be an ISO-8601 instant such as 2026-06-11T12:00:00Z');
  });

  test('a timestamp is found by the text filter exactly as the page shows it', async ({ page }) => {
    await open(page, '/log');
    const row = page.locator('[data-log-row]').nth(3);
    const shown = ((await row.locator('span').nth(1).textContent()) ?? '').trim();
    expect(shown).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    const expected = entries().filter((e) => e.ts === `${shown.replace(' ', 'T')}Z`).length;
    // Read the row's line number before filtering: once filtered, the fourth row may be another line or none.
    const line = await row.getAttribute('data-log-row');
    await page.getByRole('searchbox', { name: 'Text' }).fill(shown);
    await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${expected} matching lines? of`));
    await expect(page.locator(`[data-log-row="${line}"]`)).toHaveCount(1);
  });

  test('a write made in Studio carries Studio\'s HAID as its author; the author can be read and filtered on', async ({ page }) => {
    const root = cli(planning, 'heimdall-haid', ['root']).stdout.trim();
    const studio = `${root}/studio`;
    await open(page, '/blackboard');
    const form = page.getByRole('form', { name: 'Add a fact' });
    await form.getByLabel('Key').fill('audit_probe');
    await form.getByLabel('Value').fill('written from the browser');
    await form.getByRole('button', { name: 'Add fact' }).click();
    await expect(page.locator('tr[data-row-id="audit_probe"]')).toHaveCount(1);
    const last = entries().pop();
    expect(last).toMatchObject({ mechanism: 'blackboard', action: 'set', detail: 'audit_probe=written from the browser', author: studio });
    // The same write from the command line has no author.
    cli(planning, 'heimdall-blackboard', ['set', 'audit_probe_cli', 'x']);
    expect(entries().pop()?.author).toBeUndefined();

    await open(page, '/log');
    const studioRow = page.locator(`[data-log-row="${last?.line}"]`);
    await expect(studioRow.locator('[data-author]')).toHaveText('studio');
    await expect(page.locator('[data-log-row]').first().locator('[data-author]')).toHaveCount(0);
    await studioRow.click();
    await expect(page.getByTestId('log-detail-author')).toHaveText(studio);
    await screenshot(page, 'log-author');

    const byStudio = entries().filter((e) => e.author === studio).length;
    await page.getByLabel('Author').selectOption(studio);
    await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${byStudio} matching lines? of`));
    await expect.poll(() => new URL(page.url()).searchParams.get('author')).toBe(studio);
    cli(planning, 'heimdall-blackboard', ['delete', 'audit_probe']);
    cli(planning, 'heimdall-blackboard', ['delete', 'audit_probe_cli']);
  });

  test('every kind of object a line names links to its page, and each page links back to its lines', async ({ page }) => {
    const root = cli(planning, 'heimdall-haid', ['root']).stdout.trim();
    // One `resolve set` line for F12 (the demo sets its symbols in one set-many line, which names none).
    const f12 = cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols.F12 as string;
    cli(planning, 'heimdall-resolve', ['set', 'F12', f12]);
    const cases: { key: string; page: RegExp; focused: (p: typeof page) => Promise<void> }[] = [
      { key: 'symbol:F12', page: /\/symbols\?focus=F12$/, focused: (p) => expect(p.locator('tr[data-row-id="F12"]')).toHaveAttribute('data-focused', 'true') },
      { key: 'fact:ci_runner', page: /\/blackboard\?focus=ci_runner$/, focused: (p) => expect(p.locator('tr[data-row-id="ci_runner"]')).toHaveAttribute('data-focused', 'true') },
      { key: 'capsule:w2', page: /\/capsules\?id=w2$/, focused: (p) => expect(p.locator('[data-capsule="w2"]')).toHaveAttribute('data-mark', 'selected') },
      { key: `claim:${root}/cursor`, page: /\/claims\?haid=/, focused: (p) => expect(p.locator(`tr[data-claim="${root}/cursor"]`)).toHaveAttribute('data-focused', 'true') },
      { key: 'agent:mason.1@core', page: /\/agents\?agent=mason\.1%40core$/, focused: (p) => expect(p.locator('tr[data-agent="mason.1@core"]')).toHaveAttribute('data-focused', 'true') },
      { key: 'stream:agent:mason.1@core', page: /\/streams\?stream=/, focused: (p) => expect(p.getByRole('heading', { name: 'Events of agent:mason.1@core' })).toBeVisible() },
      { key: 'peer:hermes-1', page: /\/peers\?peer=hermes-1$/, focused: (p) => expect(p.locator('[data-peer="hermes-1"]')).toHaveAttribute('data-focused', 'true') },
    ];
    for (const c of cases) {
      const naming = entries().filter((e) => e.refs.includes(c.key));
      expect(naming.length, c.key).toBeGreaterThan(0);
      // The log filtered to the object: exactly the lines that name it.
      await open(page, `/log?object=${encodeURIComponent(c.key)}`);
      await expect(page.getByTestId('object-filter')).toBeVisible();
      await expect(page.getByTestId('log-summary'), c.key).toContainText(new RegExp(`^${naming.length} matching lines? of`));
      await expect(page.locator('[data-log-row]').first()).toHaveAttribute('data-log-row', String(naming[naming.length - 1]?.line));
      // From a line to the object's page, which shows that object.
      await page.locator('[data-log-row]').first().click();
      await page.getByTestId('log-detail-refs').locator(`[data-ref="${c.key}"]`).click();
      await expect(page).toHaveURL(c.page);
      await expect(page.locator('html[data-hydrated="true"]')).toHaveCount(1);
      await c.focused(page);
      // And back from the object's page to its lines.
      await page.locator(`[data-log-link="${c.key}"]`).first().click();
      await expect(page).toHaveURL(new RegExp(`/log\\?object=${encodeURIComponent(c.key).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      await expect(page.getByTestId('log-summary')).toContainText(new RegExp(`^${naming.length} matching lines? of`));
    }
    // A ledger run named by the demo links to the ledger page with that run chosen.
    const run = entries().flatMap((e) => e.refs).find((k) => k.startsWith('run:')) as string;
    await open(page, `/log?object=${encodeURIComponent(run)}`);
    await page.locator('[data-log-row]').first().click();
    await expect(page.getByTestId('log-detail-refs').locator(`[data-ref="${run}"]`)).toHaveAttribute('href', `/ledger?run=${encodeURIComponent(run.slice(4))}`);
  });
});
