/**
 * Agents a lead can act on: the board in urgency order against the server's frozen clock (NOW), each
 * row with its two names, claims and current task, and a message action that sends as Studio's own
 * identity, the operator, as the recipient's inbox (through the CLI) and protocol.log show.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { cli, cliJson, isoBefore } from './support/cli.js';
import { AGENTS } from './support/fixture.js';
import { now, open, planning, screenshot } from './support/studio.js';

const OPERATOR = 'studio.operator@team';

/** Check in `address` so that its last check-in is `ageS` seconds before the server's clock. */
function checkinAged(address: string, ageS: number, task?: string): void {
  cli(planning, 'heimdall', ['herd', 'checkin', '--as', address, '--status', `on it (${ageS}s)`, ...(task ? ['--task', task] : [])], { env: { HEIMDALL_NOW: isoBefore(now, ageS) } });
}

function root(): string {
  return cli(planning, 'heimdall-haid', ['root']).stdout.trim();
}

/** The last protocol.log line of `mechanism action`, split into its fields. */
function lastLogLine(mechanism: string, action: string): string[] {
  const line = fs
    .readFileSync(path.join(planning, 'protocol.log'), 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => l.split('\t')[1] === mechanism && l.split('\t')[2] === action)
    .pop();
  expect(line, `a ${mechanism} ${action} line`).toBeTruthy();
  return (line as string).split('\t');
}

interface RowInfo {
  address: string;
  urgency: number;
  silence: number;
}

/** The agents table's rows as the page orders them. */
async function rows(page: Page): Promise<RowInfo[]> {
  return page.locator('tr[data-agent]').evaluateAll((trs) =>
    trs.map((tr) => {
      const s = tr.getAttribute('data-silence');
      return { address: tr.getAttribute('data-agent') as string, urgency: Number(tr.getAttribute('data-urgency')), silence: s === 'never' ? Number.POSITIVE_INFINITY : Number(s) };
    }),
  );
}

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

test('most urgent first: unresponsive (never, then longest silence), stale, deep work, active; the overview lists them in the same order', async ({ page }) => {
  // A member that never checked in, and agents in every state besides the fixture's four.
  const teamFile = path.join(planning, 'herd', 'team.json');
  expect(fs.existsSync(teamFile), 'the fixture has no team.json for this test to replace').toBe(false);
  fs.writeFileSync(teamFile, `${JSON.stringify({ version: '2.0.0', members: ['ghost.1@core'] })}\n`);
  const mine: [string, number][] = [
    ['tufte.2@core', 1500],
    ['scribe.2@core', 550],
    ['fresco.2@core', 250],
    ['mason.3@core', 90],
    ['scribe.3@core', 5],
  ];
  for (const [a, s] of mine) checkinAged(a, s);
  await open(page, '/agents');
  const expected = [
    'ghost.1@core', // never
    'tufte.2@core', // 1500 s
    ...AGENTS.filter((a) => a.ageS >= 600).map((a) => a.address), // rook.1: 700 s
    'scribe.2@core', // 550 s, stale
    ...AGENTS.filter((a) => a.ageS > 300 && a.ageS < 600).map((a) => a.address), // fresco.1: 400 s
    'fresco.2@core', // 250 s, deep work
    ...AGENTS.filter((a) => a.ageS >= 120 && a.ageS <= 300).map((a) => a.address), // mason.1: 200 s
    'mason.3@core', // 90 s, active
    ...AGENTS.filter((a) => a.ageS < 120).map((a) => a.address), // steve.1: 30 s
    'scribe.3@core', // 5 s
  ];
  const known = new Set(expected);
  await expect(page.locator('tr[data-agent="ghost.1@core"]')).toBeVisible();
  const shown = await rows(page);
  expect(shown.map((r) => r.address).filter((a) => known.has(a))).toEqual(expected);
  // The whole table keeps the rule, whatever other agents exist: rank never decreases, and within a
  // rank the silence never grows.
  for (let i = 1; i < shown.length; i++) {
    const [a, b] = [shown[i - 1] as RowInfo, shown[i] as RowInfo];
    expect(a.urgency, `${a.address} before ${b.address}`).toBeLessThanOrEqual(b.urgency);
    if (a.urgency === b.urgency) expect(a.silence, `${a.address} before ${b.address}`).toBeGreaterThanOrEqual(b.silence);
  }
  // Status in text, not only colour: each row says its liveness in words.
  await expect(page.locator('tr[data-agent="ghost.1@core"] [data-liveness]')).toHaveText('unresponsive');
  await expect(page.locator('tr[data-agent="ghost.1@core"]')).toContainText('never checked in');
  await expect(page.locator('tr[data-agent="fresco.2@core"] [data-liveness]')).toHaveText('deep work');
  await screenshot(page, 'agents-urgency');

  // The overview's list: the same order, the first rows of the board.
  await open(page, '/');
  const overview = await page.getByTestId('overview-agent-list').locator('li[data-agent]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-agent')));
  expect(overview.length).toBeGreaterThanOrEqual(6);
  expect(overview).toEqual(shown.slice(0, overview.length).map((r) => r.address));
  await expect(page.getByTestId('overview-agent-list').locator('li').first()).toContainText('unresponsive');

  // A fresh check-in moves an agent from the top to the bottom.
  checkinAged('tufte.2@core', 0);
  await open(page, '/agents');
  const after = (await rows(page)).map((r) => r.address);
  expect(after.at(-1)).toBe('tufte.2@core');
  expect(after[0]).toBe('ghost.1@core');
});

test("each row joins the agent's two names, its claims and its current task (check-in, wire, claim); agent and claims link to each other", async ({ page }) => {
  const r = root();
  // mason.1 (checked in with task w2 by the fixture) claims by herd address; its HAID holds the claim.
  const claim = cliJson<{ claim: { id: string; haid: string } }>(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/book/**', '--task', 'T-21', '--haid', 'mason.1@core']).claim;
  expect(claim.haid).toBe(`${r}/core/mason.1`);
  // An agent with no task of its own at check-in, working a task claimed on the wire by its address.
  checkinAged('rook.2@core', 20);
  const wires = [
    { wire: '1.1', stream_id: 'task:T-22:attempt:1', type: 'task.created', sender: 'orchestrator', payload: { task_id: 'T-22', title: 'Lint the book', role: 'developer', capacity_units: 1 } },
    { wire: '1.1', stream_id: 'task:T-22:attempt:1', type: 'task.available', sender: 'orchestrator', payload: { task_id: 'T-22', role: 'developer', capacity_units: 1 } },
    { wire: '1.1', stream_id: 'task:T-22:attempt:1', type: 'task.claimed', sender: 'rook.2@core', payload: { task_id: 'T-22', agent: 'rook.2@core', role: 'developer' } },
    { wire: '1.1', stream_id: 'task:T-22:attempt:1', type: 'task.started', sender: 'rook.2@core', payload: { task_id: 'T-22', agent: 'rook.2@core' } },
  ];
  cli(planning, 'heimdall', ['wire', 'emit'], { input: JSON.stringify(wires) });
  // An agent whose only trace of work is a claim.
  checkinAged('fresco.3@core', 40);
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'assets/**', '--task', 'T-23', '--haid', `${r}/core/fresco.3`]);

  await open(page, '/agents');
  const mason = page.locator('tr[data-agent="mason.1@core"]');
  await expect(mason).toHaveAttribute('data-haid', `${r}/core/mason.1`);
  await expect(mason.getByTestId('agent-haid')).toHaveText(`${r}/core/mason.1`);
  await expect(mason.getByTestId('current-task')).toHaveText('w2');
  await expect(mason.getByTestId('agent-task')).toContainText('from its check-in');
  await expect(mason.locator(`[data-claim-id="${claim.id}"]`)).toHaveText('T-21 on src/book/**');
  const rook = page.locator('tr[data-agent="rook.2@core"]');
  await expect(rook.getByTestId('current-task')).toHaveText('T-22');
  await expect(rook.getByTestId('agent-task')).toContainText('claimed on the wire');
  await expect(rook.locator('[data-wire-task="T-22"]')).toHaveText('T-22 · started');
  const fresco = page.locator('tr[data-agent="fresco.3@core"]');
  await expect(fresco.getByTestId('current-task')).toHaveText('T-23');
  await expect(fresco.getByTestId('agent-task')).toContainText('from its newest claim');
  await expect(page.locator('tr[data-agent="steve.1@core"]').getByTestId('agent-claims')).toContainText('none held');
  await screenshot(page, 'agents-claims-tasks');

  // From the agent's claim to the claims page, focused on it, holder shown by both names ...
  await mason.locator(`[data-claim-id="${claim.id}"] a`).click();
  await expect(page).toHaveURL(new RegExp(`/claims\\?claim=${claim.id}$`));
  const row = page.locator(`tr[data-claim-id="${claim.id}"]`);
  await expect(row).toHaveAttribute('data-focused', 'true');
  await expect(row.getByTestId('holder-address')).toHaveText('mason.1@core');
  await expect(row.getByTestId('holder-haid')).toHaveText(`${r}/core/mason.1`);
  // ... and from the holder back to its agent row.
  await row.getByRole('link', { name: 'Agent mason.1@core' }).click();
  await expect(page).toHaveURL(/\/agents\?agent=mason\.1%40core$/);
  await expect(page.locator('tr[data-agent="mason.1@core"]')).toHaveAttribute('data-focused', 'true');
  // Every claim of the agent, held and past.
  await page.locator('tr[data-agent="mason.1@core"]').getByTestId('agent-claims-link').click();
  await expect(page).toHaveURL(/\/claims\?haid=/);
  await expect(page.locator(`tr[data-claim-id="${claim.id}"]`)).toHaveAttribute('data-focused', 'true');
  await expect(page.getByTestId('claims-table')).toHaveAttribute('data-filter', 'all');
  cli(planning, 'heimdall-claim', ['release', '--haid', 'mason.1@core', '--id', claim.id]);
});

test('message an agent as the operator: no "from" to type, the recipient sees the operator as sender, protocol.log names the operator as author', async ({ page }) => {
  const r = root();
  await open(page, '/agents');
  await expect(page.getByTestId('operator-address').first()).toHaveText(OPERATOR);
  await expect(page.getByTestId('operator-haid').first()).toHaveText(`${r}/studio`);
  const row = page.locator('tr[data-agent="fresco.1@core"]');
  const before = Number(await row.getByTestId('agent-pending').textContent());
  await row.getByRole('button', { name: 'Message fresco.1@core' }).click();
  const dialog = page.getByRole('dialog', { name: 'Message fresco.1@core' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('operator-address')).toHaveText(OPERATOR);
  await expect(dialog.getByRole('textbox')).toHaveCount(1); // the message; there is no sender field
  await expect(dialog.getByLabel(/from/i)).toHaveCount(0);
  // An empty message is refused before anything is sent.
  await dialog.getByRole('button', { name: 'Send directive' }).click();
  await expect(dialog.getByRole('alert')).toContainText('Write the message first');
  await dialog.getByLabel('directive').check();
  await dialog.getByLabel('Message').fill('Hold writes to src/matching/ until the diff lands');
  await screenshot(page, 'agents-message');
  await dialog.getByRole('button', { name: 'Send directive' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('message-sent')).toContainText(`Sent directive`);
  await expect(page.getByTestId('message-sent')).toContainText(`to fresco.1@core as ${OPERATOR}`);

  const inbox = cliJson<{ messages: { id: string; from: string; type: string; body: string }[] }>(planning, 'heimdall', ['herd', 'inbox', '--as', 'fresco.1@core']);
  const got = inbox.messages.find((m) => m.body === 'Hold writes to src/matching/ until the diff lands');
  expect(got).toMatchObject({ from: OPERATOR, type: 'directive' });
  const [, , , detail, author] = lastLogLine('herd', 'send');
  expect(detail).toBe(`${got?.id} ${OPERATOR} -> fresco.1@core directive`);
  expect(author).toBe(`${r}/studio`);
  await expect(row.getByTestId('agent-pending')).toHaveText(String(before + 1), { timeout: 2_000 });

  // The transport refuses a sender: a request naming one is rejected and queues nothing.
  const forged = await page.request.post('/api/trpc/agents.send', { data: { from: 'steve.1@core', to: 'fresco.1@core', type: 'directive', body: 'forged' } });
  expect(forged.status()).toBe(400);
  expect(await forged.text()).toMatch(/from/);
  const after = cliJson<{ messages: { body: string }[] }>(planning, 'heimdall', ['herd', 'inbox', '--as', 'fresco.1@core']);
  expect(after.messages.map((m) => m.body)).not.toContain('forged');

  // The tier rule still holds for the operator's recipient: a Mechanical agent takes directives only.
  await page.locator('tr[data-agent="rook.1@core"]').getByRole('button', { name: 'Message rook.1@core' }).click();
  const toRook = page.getByRole('dialog', { name: 'Message rook.1@core' });
  await toRook.getByLabel('inform').check();
  await toRook.getByLabel('Message').fill('fyi');
  await toRook.getByRole('button', { name: 'Send inform' }).click();
  await expect(toRook.getByRole('alert')).toContainText('receives directive only, not inform');
  await toRook.getByRole('button', { name: 'Cancel' }).click();
  await expect(toRook).toBeHidden();
});

test('the message action by keyboard alone: reach it, open it, write, send; Escape closes and gives focus back', async ({ page }) => {
  await open(page, '/agents');
  const button = page.locator('tr[data-agent="steve.1@core"]').getByRole('button', { name: 'Message steve.1@core' });
  // Reached with Tab from the row before it: a plain button in the tab order.
  await page.locator('tr[data-agent="steve.1@core"]').getByTestId('agent-claims-link').focus();
  for (let i = 0; i < 3 && !(await button.evaluate((b) => b === document.activeElement)); i++) await page.keyboard.press('Tab');
  await expect(button).toBeFocused();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Message steve.1@core' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Message')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(button).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(dialog.getByLabel('Message')).toBeFocused();
  await page.keyboard.type('Review wave 3 before noon');
  // The type radios come before the message; the send button after it (Cancel, Send).
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: /^Send / })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId('message-sent')).toContainText('to steve.1@core');
  const inbox = cliJson<{ messages: { from: string; body: string }[] }>(planning, 'heimdall', ['herd', 'inbox', '--as', 'steve.1@core']);
  expect(inbox.messages).toContainEqual(expect.objectContaining({ from: OPERATOR, body: 'Review wave 3 before noon' }));
});
