/**
 * Editing symbols in the browser writes through the core: the CLI sees every change, protocol.log
 * records it, and what the core refuses is refused inline with the core's reason.
 */
import { expect, test } from '@playwright/test';
import { cli, cliJson } from './support/cli.js';
import { open, planning, screenshot } from './support/studio.js';

function resolve(id: string) {
  return cli(planning, 'heimdall-resolve', [id], { allowFail: true });
}

function lastLog(n = 1) {
  return cliJson<{ entries: { mechanism: string; action: string; detail: string }[] }>(planning, 'heimdall-protocol', ['log', String(n)]).entries;
}

test('add, edit and delete a symbol in place; heimdall-resolve sees each change', async ({ page }) => {
  await open(page, '/symbols');
  const form = page.getByRole('form', { name: 'Add a symbol' });
  await form.getByLabel('Id').fill('F99');
  await form.getByLabel('Value').fill('src/settlement/ledger.ts');
  await form.getByRole('button', { name: 'Add symbol' }).click();
  const row = page.locator('tr[data-row-id="F99"]');
  await expect(row.locator('[data-value]')).toHaveText('src/settlement/ledger.ts');
  expect(resolve('F99').stdout.trim()).toBe('src/settlement/ledger.ts');
  expect(lastLog()[0]).toMatchObject({ mechanism: 'resolve', action: 'set', detail: 'F99=src/settlement/ledger.ts' });

  // Edit in place, from the keyboard: Enter saves.
  await row.getByRole('button', { name: 'Edit F99' }).click();
  const input = row.getByRole('textbox', { name: 'Value of F99' });
  await expect(input).toBeFocused();
  await input.fill('src/settlement/ledger_v2.ts');
  await input.press('Enter');
  await expect(row.locator('[data-value]')).toHaveText('src/settlement/ledger_v2.ts');
  expect(resolve('F99').stdout.trim()).toBe('src/settlement/ledger_v2.ts');
  const { symbols } = cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']);
  expect(symbols.F99).toBe('src/settlement/ledger_v2.ts');

  // Escape cancels without writing.
  await row.getByRole('button', { name: 'Edit F99' }).click();
  await row.getByRole('textbox', { name: 'Value of F99' }).fill('not saved');
  await row.getByRole('textbox', { name: 'Value of F99' }).press('Escape');
  await expect(row.locator('[data-value]')).toHaveText('src/settlement/ledger_v2.ts');
  expect(resolve('F99').stdout.trim()).toBe('src/settlement/ledger_v2.ts');

  // Delete, confirmed inline.
  await row.getByRole('button', { name: 'Delete F99' }).click();
  await row.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(page.locator('tr[data-row-id="F99"]')).toHaveCount(0);
  const gone = resolve('F99');
  expect(gone.code).toBe(1);
  expect(gone.stderr).toContain('no symbol F99');
  expect(lastLog()[0]).toMatchObject({ mechanism: 'resolve', action: 'delete', detail: 'F99' });
});

test('an invalid id or value is refused inline with the core\'s reason, and nothing is written', async ({ page }) => {
  await open(page, '/symbols');
  const before = cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols;
  const logBefore = cliJson<{ total: number }>(planning, 'heimdall-protocol', ['log', '1']).total;
  const form = page.getByRole('form', { name: 'Add a symbol' });
  await form.getByLabel('Id').fill('../etc/passwd');
  await form.getByLabel('Value').fill('x');
  await form.getByRole('button', { name: 'Add symbol' }).click();
  const err = page.getByTestId('add-error');
  await expect(err).toContainText('invalid symbol id "../etc/passwd"');
  await expect(err).toContainText('no slashes');
  await expect(form.getByLabel('Id')).toHaveAttribute('aria-invalid', 'true');
  await screenshot(page, 'symbols-refused');

  // A value the core refuses, while editing an existing row.
  const row = page.locator('tr[data-row-id="F12"]');
  await row.getByRole('button', { name: 'Edit F12' }).click();
  await row.getByRole('textbox', { name: 'Value of F12' }).fill('');
  await row.getByRole('button', { name: 'Save' }).click();
  await expect(row.getByRole('alert')).toHaveText('symbol value must be a non-empty string');
  await row.getByRole('button', { name: 'Cancel' }).click();

  expect(cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols).toEqual(before);
  expect(cliJson<{ total: number }>(planning, 'heimdall-protocol', ['log', '1']).total).toBe(logBefore);
});

test('a newline or a tab in a value is refused with the core\'s message, as the CLI refuses it, and nothing is written', async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const before = cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols;
  const logBefore = cliJson<{ total: number }>(planning, 'heimdall-protocol', ['log', '1']).total;
  const refusal = (value: string) => {
    const r = cli(planning, 'heimdall-resolve', ['set', 'F98', value], { allowFail: true });
    expect(r.code).not.toBe(0);
    return r.stderr.trim().replace(/^heimdall-resolve: /, '');
  };
  const newline = 'src/a.ts\nsrc/b.ts';
  const tab = 'src/a.ts\tsrc/b.ts';
  const cliNewline = refusal(newline);
  expect(cliNewline).toContain('without tabs, newlines or other control characters');

  await open(page, '/symbols');
  const form = page.getByRole('form', { name: 'Add a symbol' });
  await form.getByLabel('Id').fill('F98');
  // Pasted, as a person would: the box keeps both lines instead of flattening them to one.
  await page.evaluate((text) => navigator.clipboard.writeText(text), newline);
  await form.getByLabel('Value').focus();
  await page.keyboard.press('Control+V');
  await expect(form.getByLabel('Value')).toHaveValue(newline);
  await form.getByRole('button', { name: 'Add symbol' }).click();
  await expect(page.getByTestId('add-error')).toContainText(cliNewline);
  await screenshot(page, 'symbols-newline-refused');

  // A tab, in the edit box of an existing row.
  const row = page.locator('tr[data-row-id="F12"]');
  await row.getByRole('button', { name: 'Edit F12' }).click();
  await row.getByRole('textbox', { name: 'Value of F12' }).fill(tab);
  await row.getByRole('textbox', { name: 'Value of F12' }).press('Enter');
  await expect(row.getByRole('alert')).toContainText(refusal(tab));
  await row.getByRole('button', { name: 'Cancel' }).click();

  // The blackboard refuses the same way (it shares the editor and the core's check).
  await open(page, '/blackboard');
  const facts = page.getByRole('form', { name: 'Add a fact' });
  await facts.getByLabel('Key').fill('multi_line');
  await facts.getByLabel('Value').fill(newline);
  await facts.getByLabel('Value').press('Enter');
  await expect(page.getByTestId('add-error')).toContainText('blackboard value must be one line of text without tabs, newlines or other control characters');

  expect(cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']).symbols).toEqual(before);
  expect(cliJson<{ facts: Record<string, string> }>(planning, 'heimdall-blackboard', ['list']).facts.multi_line).toBeUndefined();
  expect(cliJson<{ total: number }>(planning, 'heimdall-protocol', ['log', '1']).total).toBe(logBefore);
});
