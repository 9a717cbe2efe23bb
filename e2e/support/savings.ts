/**
 * Savings checks shared by the ledger specs: what `heimdall-ledger report --json` says, how Studio
 * writes it, and what an exported PNG holds (its size and the figures in its tEXt chunks).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Locator, type Page, expect } from '@playwright/test';
import type { Savings } from '../../server/core/index.js';
import { cliJson } from './cli.js';
import { SCREENSHOTS, planning } from './studio.js';

/** What `heimdall-ledger report --json` prints: the core's Savings, as JSON (the one computation Studio renders too). */
export type SavingsJson = Savings;

/** `heimdall-ledger report --json [--run R]`, through the real bin. */
export function ledgerReport(run?: string): SavingsJson {
  return cliJson<SavingsJson>(planning, 'heimdall-ledger', ['report', ...(run ? ['--run', run] : [])]);
}

export const fmt = (n: number) => n.toLocaleString('en-US');
export const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
export const exact = (s: string) => new RegExp(`^${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** How Studio writes a saving: the core's rounded figure, never recomputed. */
export function savedText(saved: number | undefined): string {
  if (saved === undefined) return 'no baseline';
  if (saved > 0) return `${saved}% saved`;
  if (saved < 0) return `${-saved}% more`;
  return 'no change';
}

/** Every figure of the savings card against the report: workspace, run, date, tokenizer, arms, roles. */
export async function expectCard(card: Locator, rep: SavingsJson): Promise<void> {
  await expect(card).toHaveAttribute('data-run', rep.run ?? '');
  await expect(card.getByTestId('card-workspace')).toHaveText(rep.workspace);
  await expect(card.getByTestId('card-run')).toHaveText(rep.run === '-' ? 'lines without a run' : (rep.run as string));
  if (rep.date) await expect(card.getByTestId('card-date')).toHaveText(when(rep.date));
  await expect(card.getByTestId('tokenizer')).toHaveText(rep.tokenizer);
  await expect(card.getByTestId('card-compared')).toHaveText(rep.compared_with);
  for (const arm of ['v1', 'lean', 'v2'] as const) {
    if (rep.arms[arm]) await expect(card.getByTestId(`card-arm-${arm}`)).toHaveText(rep.arms[arm] as string);
    else await expect(card.getByTestId(`card-arm-${arm}`)).toHaveCount(0);
  }
  const based = rep.roles.filter((r) => r.baseline !== undefined);
  await expect(card.locator('[data-role]')).toHaveCount(based.length);
  for (const r of based) {
    const item = card.locator(`[data-role="${r.role}"]`);
    await expect(item.getByTestId('baseline')).toHaveText(fmt(r.baseline as number));
    await expect(item.getByTestId('measured')).toHaveText(fmt(r.tokens));
    await expect(item.getByTestId('pct')).toHaveText(savedText(r.saved_pct));
    if (r.lean !== undefined) await expect(item.getByTestId('lean-pct')).toHaveText(savedText(r.saved_vs_lean_pct));
  }
}

/** The slide the PNG is drawn from: the same workspace, run, date, tokenizer and headline figure. */
export async function expectSlide(page: Page, rep: SavingsJson): Promise<void> {
  const slide = page.getByTestId('savings-slide');
  await expect(slide.getByTestId('slide-workspace')).toHaveText(rep.workspace);
  await expect(slide.getByTestId('slide-run')).toHaveText(rep.run === '-' ? 'lines without a run' : `run ${rep.run}`);
  await expect(slide.getByTestId('slide-date')).toHaveText(when(rep.date as string));
  await expect(slide.getByTestId('slide-tokenizer')).toHaveText(rep.tokenizer);
  await expect(slide.getByTestId('slide-saved')).toHaveText(rep.total?.saved_pct === undefined ? 'no baseline' : `${Math.abs(rep.total.saved_pct)}%`);
  if (rep.total) {
    await expect(slide.locator('[data-slide-arm="v1"]')).toContainText(fmt(rep.total.baseline));
    await expect(slide.locator('[data-slide-arm="v2"]')).toContainText(fmt(rep.total.tokens));
    if (rep.total.lean !== undefined) await expect(slide.locator('[data-slide-arm="lean"]')).toContainText(fmt(rep.total.lean));
  }
}

export interface Png {
  width: number;
  height: number;
  texts: Record<string, string>;
  bytes: Buffer;
}

/** Parse a PNG: its size from IHDR and every tEXt chunk, checking the signature and each chunk's bounds. */
export function readPng(bytes: Buffer): Png {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const texts: Record<string, string> = {};
  let width = 0;
  let height = 0;
  for (let at = 8; at < bytes.length; ) {
    const len = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8).toString('latin1');
    const data = bytes.subarray(at + 8, at + 8 + len);
    expect(at + 12 + len).toBeLessThanOrEqual(bytes.length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
    } else if (type === 'tEXt') {
      const nul = data.indexOf(0);
      texts[data.subarray(0, nul).toString('latin1')] = data.subarray(nul + 1).toString('latin1');
    }
    at += 12 + len;
    if (type === 'IEND') break;
  }
  return { width, height, texts, bytes };
}

/** Click "Save as PNG", read the download, keep a copy as a test artefact. */
export async function savePng(page: Page, name: string): Promise<Png & { filename: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Save as PNG' }).click()]);
  const bytes = fs.readFileSync(await download.path());
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  fs.writeFileSync(path.join(SCREENSHOTS, `${name}.png`), bytes);
  return { ...readPng(bytes), filename: download.suggestedFilename() };
}

/** The PNG's figures (its Heimdall-Savings text) against the report. */
export function expectPngFigures(png: Png, rep: SavingsJson): void {
  expect(png.width).toBe(1920);
  expect(png.height).toBe(1080);
  // A drawn slide, not an empty canvas: a blank 1920x1080 PNG compresses to a few kilobytes.
  expect(png.bytes.length).toBeGreaterThan(20_000);
  expect(png.texts.Title).toContain(rep.workspace);
  const f = JSON.parse(png.texts['Heimdall-Savings'] as string);
  expect(f).toEqual({
    workspace: rep.workspace,
    run: rep.run,
    kind: rep.kind ?? null,
    date: rep.date ?? null,
    tokenizer: rep.tokenizer,
    baseline: rep.baseline,
    roles: rep.roles.map((r) => ({ role: r.role, baseline: r.baseline ?? null, lean: r.lean ?? null, tokens: r.tokens, saved_pct: r.saved_pct ?? null, saved_vs_lean_pct: r.saved_vs_lean_pct ?? null })),
    total: rep.total ?? null,
  });
}
