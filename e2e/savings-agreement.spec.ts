/**
 * One set of figures everywhere. Two demo runs (`heimdall-protocol demo` through the real bin, twice)
 * and a recorded GSD-shaped run; for each run, every savings figure on the ledger page (card, bars,
 * role table, chart over time, GSD tables), on the overview card (the latest run) and in the
 * exported PNG agrees with `heimdall-ledger report --json --run R`.
 */
import { type Page, expect, test } from '@playwright/test';
import { cli, isoBefore } from './support/cli.js';
import { recordGsdRun } from './support/gsd.js';
import { type SavingsJson, exact, expectCard, expectPngFigures, expectSlide, fmt, ledgerReport, savePng, savedText } from './support/savings.js';
import { now, open, planning, screenshot } from './support/studio.js';

const GSD_RUN = 'gsd-agree';

interface DemoJson {
  run: string;
  v1: { total: number };
  v2: { total: number };
  pct: number;
}

let demos: DemoJson[] = [];

test.beforeAll(() => {
  // Later than anything the fixture or other specs wrote, so the GSD run is the latest.
  const at = (s: number) => ({ HEIMDALL_NOW: isoBefore(now, -s) });
  demos = [600, 700].map((s) => JSON.parse(cli(planning, 'heimdall-protocol', ['demo', '--json'], { env: at(s) }).stdout) as DemoJson);
  recordGsdRun(planning, GSD_RUN, isoBefore(now, -800));
});

/** Every figure of the ledger page for the run shown, against the report. */
async function expectLedgerPage(page: Page, rep: SavingsJson): Promise<void> {
  await expectCard(page.getByTestId('savings-card'), rep);
  await expect(page.getByTestId('run-picker')).toHaveValue(rep.run as string);
  // Bars: v1, lean and v2 of each role, written on the bars.
  const bars = page.getByTestId('chart-baseline');
  for (const r of rep.roles) {
    await expect(bars.locator('.recharts-cartesian-axis-tick-value', { hasText: exact(r.role) })).toHaveCount(1);
    for (const n of [r.tokens, r.baseline, r.lean]) if (n !== undefined) await expect(bars.locator('.recharts-label-list text', { hasText: exact(fmt(n)) })).not.toHaveCount(0);
  }
  // The role table.
  const table = page.getByTestId('ledger-table');
  await expect(table.locator('tbody tr')).toHaveCount(rep.roles.length);
  for (const r of rep.roles) {
    const row = table.locator(`tr[data-role="${r.role}"]`);
    await expect(row.locator('[data-figure="baseline"]')).toHaveText(r.baseline === undefined ? '—' : fmt(r.baseline));
    await expect(row.locator('[data-figure="measured"]')).toHaveText(fmt(r.tokens));
    await expect(row.locator('[data-figure="saved"]')).toHaveText(savedText(r.saved_pct));
    if (r.lean !== undefined) await expect(row.locator('[data-figure="lean"]')).toHaveText(fmt(r.lean));
  }
  // The chart over time holds this run's own saving for each role.
  const pointLabels = page.getByTestId('chart-over-time').locator('.recharts-label-list text');
  await expect(pointLabels).toHaveCount(rep.runs.reduce((n, x) => n + Object.keys(x.saved).length, 0));
  const labels = (await pointLabels.allTextContents()).map((t) => t.trim());
  for (const r of rep.roles) if (r.saved_pct !== undefined) expect(labels).toContain(`${r.saved_pct}%`);
  const point = rep.runs.find((x) => x.run === rep.run);
  expect(point?.saved).toEqual(Object.fromEntries(rep.roles.filter((r) => r.saved_pct !== undefined).map((r) => [r.role, r.saved_pct])));
  // A GSD run's tables.
  if (rep.gsd) {
    await expect(page.getByTestId('gsd-total-v1')).toHaveText(fmt(rep.gsd.total.v1 as number));
    await expect(page.getByTestId('gsd-total-v2')).toHaveText(fmt(rep.gsd.total.v2 as number));
    await expect(page.getByTestId('gsd-total-saved')).toHaveText(savedText(rep.gsd.total.saved_pct));
    for (const p of rep.gsd.phases) await expect(page.locator(`[data-testid="gsd-phases"] tr[data-phase="${p.phase}"] [data-figure="saved"]`)).toHaveText(savedText(p.saved_pct));
    for (const p of rep.gsd.plans) await expect(page.locator(`[data-testid="gsd-plans"] tr[data-plan="${p.plan}"] [data-arm="v2"]`)).toHaveText(fmt(p.v2 as number));
  } else await expect(page.getByTestId('gsd-run')).toHaveCount(0);
}

test('two demo runs and a GSD run: the ledger page, the overview card and the PNG agree with the report, run by run', async ({ page }) => {
  const reports = [...demos.map((d) => ledgerReport(d.run)), ledgerReport(GSD_RUN)];
  // Each demo run against its own v1 texts: the demo's own figures, never both runs summed.
  for (const [i, d] of demos.entries()) {
    expect(reports[i]?.roles).toEqual([expect.objectContaining({ role: 'orchestration', baseline: d.v1.total, tokens: d.v2.total, pct: d.pct })]);
    expect(reports[i]?.total?.baseline).not.toBe(demos[0]!.v1.total + demos[1]!.v1.total);
  }
  for (const rep of reports) {
    await open(page, `/ledger?run=${rep.run}`);
    await expectLedgerPage(page, rep);
    await expectSlide(page, rep);
    expectPngFigures(await savePng(page, `agree-${rep.kind}-${rep.run}`), rep);
  }
  await screenshot(page, 'agree-ledger-gsd');

  // The overview shows the latest run: the GSD run, exactly as `report --json` (no --run) and `--run gsd-agree`.
  const latest = ledgerReport();
  expect(latest.run).toBe(GSD_RUN);
  expect(latest).toEqual(reports[2]);
  await open(page, '/');
  await expectCard(page.getByTestId('savings-card'), latest);
  await expectSlide(page, latest);
  expectPngFigures(await savePng(page, 'agree-overview'), latest);
  await screenshot(page, 'agree-overview');

  // The same page, switched between runs with the picker, follows the report without a reload.
  await open(page, '/ledger');
  for (const rep of [reports[0], reports[2], reports[1]] as SavingsJson[]) {
    await page.getByTestId('run-picker').selectOption(rep.run as string);
    await expect(page).toHaveURL(new RegExp(`run=${rep.run}$`));
    await expectLedgerPage(page, rep);
  }
});
