/**
 * Releasing a claim from the browser: the claim is gone for the CLI and the release is recorded as
 * a decision attributed to Studio's HAID, with the reason given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { cli, cliJson } from './support/cli.js';
import { open, planning, screenshot } from './support/studio.js';

test('release a claim; it is recorded as a decision', async ({ page }) => {
  const root = cli(planning, 'heimdall-haid', ['root']).stdout.trim();
  const holder = `${root}/windsurf`;
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/risk/**,docs/risk.md', '--task', 'T-31', '--haid', holder]);
  await open(page, '/claims');
  const row = page.locator(`tr[data-claim="${holder}"]`);
  await expect(row).toContainText('src/risk/**');
  await expect(row).toContainText('active');
  await row.getByRole('button', { name: `Release ${holder}'s claim` }).click();
  await row.getByRole('textbox', { name: `Reason for releasing ${holder}'s claim` }).fill('agent crashed; lead takes over');
  await screenshot(page, 'claims-release');
  await row.getByRole('button', { name: 'Release', exact: true }).click();
  await expect(page.getByRole('status').filter({ hasText: 'recorded as decision' })).toContainText(`Released ${holder}'s claim`);
  await expect(row).toHaveCount(0);

  const list = cliJson<{ claims: { haid: string }[] }>(planning, 'heimdall-claim', ['list']);
  expect(list.claims.map((c) => c.haid)).not.toContain(holder);
  const decisions = fs.readFileSync(path.join(planning, 'ledger', 'decisions.md'), 'utf8');
  expect(decisions).toContain(`Released the claim of ${holder}`);
  expect(decisions).toContain(`- by: ${root}/studio`);
  expect(decisions).toContain('> Reason: agent crashed; lead takes over');
  await expect(page.getByTestId('decisions')).toContainText(`Released the claim of ${holder}`);
  // protocol.log records the release with Studio's HAID as the line's author (the fifth field).
  const release = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8').trimEnd().split('\n').filter((l) => l.split('\t')[1] === 'claim' && l.split('\t')[2] === 'release').pop() as string;
  expect(release.split('\t')[3]).toContain(holder);
  expect(release.split('\t')[4]).toBe(`${root}/studio`);
  // The surfaces are free again: another agent can claim them.
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/risk/**', '--task', 'T-32', '--haid', `${root}/cursor-2`]);
  cli(planning, 'heimdall-claim', ['release', '--haid', `${root}/cursor-2`]);
});
