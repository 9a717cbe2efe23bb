/**
 * Agents: heartbeat status from the age of the last check-in, against the server's clock (frozen at
 * NOW for the tests); messages sent from the browser land in the recipient's mailbox.
 */
import { expect, test } from '@playwright/test';
import { cli, cliJson, isoBefore } from './support/cli.js';
import { now, open, planning, screenshot } from './support/studio.js';

test('an agent whose last heartbeat is 400 s old is shown stale, in colour and text', async ({ page }) => {
  await open(page, '/agents');
  await expect(page.locator('[data-live-status="live"]')).toHaveCount(1);
  const before = Number(await page.getByTestId('liveness-count-stale').textContent());
  // Checked in exactly 400 s before the server's clock.
  cli(planning, 'heimdall', ['herd', 'checkin', '--as', 'vigil.1@ops', '--status', 'watching the gate', '--task', 'w9'], { env: { HEIMDALL_NOW: isoBefore(now, 400) } });
  const row = page.locator('tr[data-agent="vigil.1@ops"]');
  await expect(row.locator('[data-liveness]')).toHaveText('stale', { timeout: 2_000 });
  await expect(row.locator('[data-liveness]')).toHaveAttribute('data-liveness', 'stale');
  await expect(row.locator('[data-liveness] span[aria-hidden]')).toHaveClass(/bg-amber-500/);
  await expect(row).toContainText('7 min ago');
  await expect(row).toContainText('watching the gate');
  await expect(row).toContainText('Mechanical');
  await expect(page.getByTestId('liveness-count-stale')).toHaveText(String(before + 1));

  // A fresh check-in makes it active again.
  cli(planning, 'heimdall', ['herd', 'checkin', '--as', 'vigil.1@ops', '--status', 'gate passed'], { env: { HEIMDALL_NOW: isoBefore(now, 10) } });
  await expect(row.locator('[data-liveness]')).toHaveText('active', { timeout: 2_000 });
  await expect(row).toContainText('gate passed');
});

test('send a directive from the browser; the recipient finds it at its next check-in', async ({ page }) => {
  await open(page, '/agents');
  const form = page.getByRole('form', { name: 'Send a directive, inform or flag' });
  // An Execution-tier sender may not send directives: the core says so inline.
  await form.getByLabel('From (your address)').fill('mason.1@core');
  await form.getByLabel('To', { exact: true }).fill('fresco.1@core');
  await form.getByLabel('directive').check();
  await form.getByLabel('Message').fill('Hold writes to src/matching/ until the diff lands');
  await form.getByRole('button', { name: 'Send directive' }).click();
  await expect(form.getByRole('alert')).toContainText('Execution tier, which may send inform, flag, not directive');

  await form.getByLabel('From (your address)').fill('steve.1@core');
  await form.getByRole('button', { name: 'Send directive' }).click();
  await expect(form.getByRole('status')).toContainText('Queued directive');
  await screenshot(page, 'agents-sent');
  const inbox = cliJson<{ messages: { from: string; type: string; body: string }[] }>(planning, 'heimdall', ['herd', 'inbox', '--as', 'fresco.1@core']);
  expect(inbox.messages).toContainEqual(expect.objectContaining({ from: 'steve.1@core', type: 'directive', body: 'Hold writes to src/matching/ until the diff lands' }));
  await expect(page.locator('tr[data-agent="fresco.1@core"] td').last()).toHaveText(String(inbox.messages.length), { timeout: 2_000 });

  // A malformed address shows the accepted forms.
  await form.getByLabel('To', { exact: true }).fill('fresco');
  await form.getByLabel('inform').check();
  await form.getByLabel('Message').fill('x');
  await form.getByRole('button', { name: 'Send inform' }).click();
  await expect(form.getByRole('alert')).toContainText('accepted forms are name.instance@team');
});
