/** Shared by the specs: where the fixture lives, the frozen clock, and page helpers. */
import fs from 'node:fs';
import path from 'node:path';
import { type Page, expect } from '@playwright/test';
import { REPO } from './cli.js';

export const planning = process.env.HEIMDALL_E2E_PLANNING as string;
export const now = process.env.HEIMDALL_E2E_NOW as string;
if (!planning || !now) throw new Error('HEIMDALL_E2E_PLANNING and HEIMDALL_E2E_NOW are set by playwright.config.ts; run the specs with `npx playwright test`');

export const SCREENSHOTS = path.join(REPO, 'test-results', 'screenshots');

/** Open a Studio page and wait until it is hydrated (answers input). */
export async function open(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await expect(page.locator('html[data-hydrated="true"]')).toHaveCount(1);
}

/** Save a full-page screenshot under test-results/screenshots/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Every request Studio answered with an error status, collected for a page's lifetime. */
export function collectServerErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 500) errors.push(`${r.status()} ${r.url()}`);
  });
  return errors;
}
