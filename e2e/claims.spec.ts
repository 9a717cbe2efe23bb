/**
 * Claims a lead can act on: a release from the browser needs a reason (in the form, at the tRPC input
 * and in the core), is recorded as a decision of Studio's operator, and the released claim stays
 * visible under its own filter with who released it, why, and a link to that decision; expired claims
 * have their filter too. Each filter is in the URL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cli, cliJson } from './support/cli.js';
import { now, open, planning, screenshot } from './support/studio.js';

const OPERATOR = 'studio.operator@team';

interface ClaimJson {
  id: string;
  haid: string;
  status: string;
  surfaces: string[];
  released_by?: string;
  reason?: string;
  decision?: string;
}

function root(): string {
  return cli(planning, 'heimdall-haid', ['root']).stdout.trim();
}

function claimById(id: string): ClaimJson | undefined {
  return cliJson<{ claims: ClaimJson[] }>(planning, 'heimdall-claim', ['list', '--all']).claims.find((c) => c.id === id);
}

test('a release needs a reason; with one it is a decision of the operator, and the claim stays under "released" with who, why and that decision', async ({ page }) => {
  const r = root();
  // fresco.1@core checked in (fixture): a holder with both names and an agents row.
  const claim = cliJson<{ claim: ClaimJson }>(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/risk/**,docs/risk.md', '--task', 'T-31', '--haid', 'fresco.1@core']).claim;
  await open(page, '/claims');
  await expect(page.getByTestId('claims-table')).toHaveAttribute('data-filter', 'active');
  const row = page.locator(`tr[data-claim-id="${claim.id}"]`);
  await expect(row).toContainText('src/risk/**');
  await expect(row.locator('[data-claim-status]')).toHaveText('active');
  await expect(row.getByTestId('holder-address')).toHaveText('fresco.1@core');
  await expect(row.getByTestId('holder-haid')).toHaveText(`${r}/core/fresco.1`);
  await expect(page.getByTestId('operator-address')).toHaveText(OPERATOR);

  // Without a reason: refused in the form, and nothing is asked of the server.
  await row.getByRole('button', { name: `Release fresco.1@core's claim ${claim.id}` }).click();
  const reason = row.getByRole('textbox', { name: "Reason for releasing fresco.1@core's claim (required)" });
  await expect(reason).toBeFocused();
  await expect(reason).toHaveAttribute('aria-required', 'true');
  await row.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(row.getByRole('alert')).toHaveText('A release needs a reason: it is recorded in decisions.md with the release.');
  await expect(reason).toHaveAttribute('aria-invalid', 'true');
  await reason.fill('   ');
  await expect(row.getByRole('alert')).toHaveCount(0);
  await row.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(row.getByRole('alert')).toContainText('A release needs a reason');
  expect(claimById(claim.id)?.status).toBe('active');
  // Nor does the transport take one without a reason.
  for (const data of [{ id: claim.id }, { id: claim.id, reason: ' ' }]) {
    const res = await page.request.post('/api/trpc/claims.release', { data });
    expect(res.status()).toBe(400);
    expect(await res.text()).toMatch(/reason/);
  }
  expect(claimById(claim.id)?.status).toBe('active');

  await reason.fill('agent crashed; lead takes over');
  await screenshot(page, 'claims-release');
  await row.getByRole('button', { name: 'Release', exact: true }).click();
  const notice = page.getByTestId('release-notice');
  await expect(notice).toContainText(`Released fresco.1@core's claim ${claim.id}; recorded as decision D-`);
  const decisionId = /decision (D-\d{4,})/.exec((await notice.textContent()) ?? '')?.[1] as string;
  await expect(row).toHaveCount(0);

  // The CLI sees it released, by the operator, with the reason and the decision.
  expect(claimById(claim.id)).toMatchObject({ status: 'released', released_by: `${r}/studio`, reason: 'agent crashed; lead takes over', decision: decisionId });
  const decisions = fs.readFileSync(path.join(planning, 'ledger', 'decisions.md'), 'utf8');
  expect(decisions).toContain(`## ${decisionId}: Released the claim of ${r}/core/fresco.1`);
  expect(decisions).toContain(`- by: ${r}/studio`);
  expect(decisions).toContain('> Reason: agent crashed; lead takes over');
  // protocol.log: the release, authored by the operator, names the decision.
  const release = fs
    .readFileSync(path.join(planning, 'protocol.log'), 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => l.split('\t')[1] === 'claim' && l.split('\t')[2] === 'release')
    .pop() as string;
  expect(release.split('\t')[3]).toContain(`${r}/core/fresco.1 ${claim.id}`);
  expect(release.split('\t')[3]).toContain(`decision=${decisionId}`);
  expect(release.split('\t')[4]).toBe(`${r}/studio`);

  // Under "released" (in the URL), with who, why and the decision, linked to its entry.
  await page.getByTestId('claim-filter').getByRole('link', { name: /^Released/ }).click();
  await expect(page).toHaveURL(/\/claims\?status=released$/);
  await expect(page.getByTestId('claim-filter').locator('[aria-current="page"]')).toHaveAttribute('data-filter', 'released');
  const done = page.locator(`tr[data-claim-id="${claim.id}"]`);
  await expect(done.locator('[data-claim-status]')).toHaveText('released');
  await expect(done.getByTestId('released-by')).toHaveText(`${OPERATOR} (the operator)`);
  await expect(done.getByTestId('release-reason')).toHaveText('“agent crashed; lead takes over”');
  await expect(done.getByTestId('release-decision')).toHaveText(`${decisionId}: Released the claim of ${r}/core/fresco.1`);
  // Released at the server's (frozen) clock; the age shown ticks on, so the exact time is the title.
  await expect(done.getByTestId('released-at')).toHaveAttribute('title', now);
  await screenshot(page, 'claims-released');
  await done.getByTestId('release-decision').click();
  await expect(page).toHaveURL(new RegExp(`#decision-${decisionId}$`));
  const entry = page.locator(`li[data-decision="${decisionId}"]`);
  await expect(entry).toBeInViewport();
  await expect(entry).toContainText('Reason: agent crashed; lead takes over');
  await expect(entry).toContainText(`${r}/studio`);
  // A reload keeps the filter: the URL is the state.
  await page.reload();
  await expect(page.getByTestId('claims-table')).toHaveAttribute('data-filter', 'released');
  await expect(page.locator(`tr[data-claim-id="${claim.id}"]`)).toBeVisible();
  await expect(page.getByTestId('count-released')).not.toHaveText('0');

  // A release the holder made itself (the CLI): who and why, and no decision.
  const own = cliJson<{ claim: ClaimJson }>(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/own/**', '--task', 'T-32', '--haid', 'fresco.1@core']).claim;
  cli(planning, 'heimdall-claim', ['release', '--haid', 'fresco.1@core', '--id', own.id, '--reason', 'done with it']);
  const mine = page.locator(`tr[data-claim-id="${own.id}"]`);
  await expect(mine.getByTestId('released-by')).toHaveText('fresco.1@core', { timeout: 2_000 });
  await expect(mine.getByTestId('release-reason')).toHaveText('“done with it”');
  await expect(mine.getByTestId('release-decision')).toHaveCount(0);
  // The surfaces are free again: another agent can claim them.
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/risk/**', '--task', 'T-33', '--haid', `${r}/cursor-2`]);
  cli(planning, 'heimdall-claim', ['release', '--haid', `${r}/cursor-2`]);
});

test('expired claims stay visible under "expired", not among the active ones', async ({ page }) => {
  const all = cliJson<{ claims: ClaimJson[] }>(planning, 'heimdall-claim', ['list', '--all']).claims;
  const expired = all.filter((c) => c.status === 'expired');
  // The fixture's copilot claim: 5 minutes, claimed 20 minutes before the server's clock.
  const copilot = expired.find((c) => c.haid.endsWith('/copilot'));
  expect(copilot, 'the fixture has an expired claim').toBeTruthy();
  await open(page, '/claims');
  await expect(page.locator(`tr[data-claim-id="${copilot?.id}"]`)).toHaveCount(0);
  await expect(page.getByTestId('count-expired')).toHaveText(String(expired.length));
  await page.getByTestId('claim-filter').getByRole('link', { name: /^Expired/ }).click();
  await expect(page).toHaveURL(/\/claims\?status=expired$/);
  await expect(page.getByTestId('claims-table')).toHaveAttribute('data-filter', 'expired');
  await expect(page.locator('tr[data-claim-id]')).toHaveCount(expired.length);
  const row = page.locator(`tr[data-claim-id="${copilot?.id}"]`);
  await expect(row.locator('[data-claim-status]')).toHaveText('expired');
  await expect(row).toContainText('expired 15 min ago');
  await expect(row).toContainText('docs/**');
  // An expired claim is history: nothing to release.
  await expect(row.getByRole('button', { name: /^Release/ })).toHaveCount(0);
  // A client HAID has no herd address: the page says so instead of inventing one.
  await expect(row).toContainText('no herd address');
  await screenshot(page, 'claims-expired');

  // "all" holds every claim of claims.json, whatever its status.
  await open(page, '/claims?status=all');
  await expect(page.locator('tr[data-claim-id]')).toHaveCount(all.length);
  for (const s of ['active', 'released', 'expired']) await expect(page.locator(`tr[data-status="${s}"]`).first()).toBeVisible();
});

test('a release by keyboard: Tab to the action, type the reason, Enter; Escape cancels', async ({ page }) => {
  const claim = cliJson<{ claim: ClaimJson }>(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/kbd/**', '--task', 'T-41', '--haid', 'steve.1@core']).claim;
  await open(page, '/claims');
  const row = page.locator(`tr[data-claim-id="${claim.id}"]`);
  const action = row.getByRole('button', { name: `Release steve.1@core's claim ${claim.id}` });
  await action.focus();
  await page.keyboard.press('Enter');
  const reason = row.getByRole('textbox', { name: /^Reason for releasing/ });
  await expect(reason).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(reason).toHaveCount(0);
  await action.focus();
  await page.keyboard.press('Enter');
  await page.keyboard.type('wave 3 re-planned');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('release-notice')).toContainText(`Released steve.1@core's claim ${claim.id}`);
  expect(claimById(claim.id)).toMatchObject({ status: 'released', reason: 'wave 3 re-planned' });
});
