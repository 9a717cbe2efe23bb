/**
 * One set of figures everywhere. Two demo runs (`heimdall-protocol demo` through the real bin, twice)
 * and a recorded GSD-shaped run; for each run, every savings figure on the ledger page (card, bars,
 * role table, chart over time, GSD tables), on the overview card (the latest run) and in the
 * exported PNG agrees with `heimdall-ledger report --json --run R`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Page, expect, test } from '@playwright/test';
import { REPO, cli, isoBefore } from './support/cli.js';
import { recordGsdRun } from './support/gsd.js';
import { type SavingsJson, exact, expectCard, expectPngFigures, expectSlide, fmt, ledgerReport, savePng, savedText } from './support/savings.js';
import { now, open, planning, screenshot } from './support/studio.js';

const GSD_RUN = 'gsd-agree';
/** A run recorded by the real `heimdall bench gsd DIR --record` on a real GSD tree (the smallest). */
const REAL_RUN = 'gsd-real';
const REAL_TREE = 'BarristanSelmy__hybrid-attendance-tracker';
const FIXTURES = path.resolve(REPO, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');

/** What `heimdall bench gsd --json` prints, the parts the ledger page shows. */
interface Arms {
  v1_tokens: number;
  lean_tokens: number;
  v2_tokens: number;
  recall?: { v1?: number; lean?: number; v2?: number };
}
interface BenchJson {
  run: string;
  total: Arms & { plans_found: number; plans_imported: number; completeness_pct: number };
  phases: (Arms & { phase: string })[];
  plans: (Arms & { id: string; phase: string; path: string })[];
  ablation: { arm: string; label: string; tokens: number; recall: number; over_v2: number }[];
  recorded?: unknown;
}
let bench: BenchJson;

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
  // The real bench on a real tree, measured on copies (the tree is read only), recorded into
  // Studio's planning tree as a run, between the demos and the GSD-shaped run.
  const tree = path.join(FIXTURES, REAL_TREE);
  if (!fs.existsSync(path.join(tree, '.planning'))) {
    throw new Error(`the real GSD fixture is missing: ${path.join(tree, '.planning')} does not exist. Set HEIMDALL_GSD_FIXTURES to the folder holding ${REAL_TREE} (default ../shared/fixtures/gsd relative to the repository).`);
  }
  bench = JSON.parse(cli(planning, 'heimdall', ['bench', 'gsd', tree, '--record', '--run', REAL_RUN, '--json'], { env: at(750) }).stdout) as BenchJson;
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

test('a run recorded by the real `heimdall bench gsd --record`: the three arms per phase and per plan, the recall and the ablation on the ledger page agree with the bench and with the report', async ({ page }) => {
  const rep = ledgerReport(REAL_RUN);
  const g = rep.gsd;
  expect(rep).toMatchObject({ run: REAL_RUN, kind: 'bench-gsd', workspace: REAL_TREE, baseline: 'run' });
  if (!g) throw new Error('a bench-gsd run has a GSD view in the report');
  expect(g.missing).toEqual([]);
  expect(bench.run).toBe(REAL_RUN);
  // The bench and the report agree on every figure, phase by phase and plan by plan ...
  const byPhase = new Map(bench.phases.map((p) => [p.phase, p]));
  const byPlan = new Map(bench.plans.map((p) => [p.id, p]));
  expect(g.phases.map((p) => p.phase)).toEqual([...byPhase.keys()]);
  expect(g.plans.map((p) => p.plan)).toEqual([...byPlan.keys()]);
  expect(g.plans.length).toBe(bench.total.plans_imported);
  const same = (mine: Arms, theirs: { v1?: number; lean?: number; v2?: number; recall_pct?: number; recall_arms?: Record<string, number> }) => {
    expect(theirs).toMatchObject({ v1: mine.v1_tokens, lean: mine.lean_tokens, v2: mine.v2_tokens });
    expect(theirs.recall_pct).toBe(mine.recall?.v2);
    expect(theirs.recall_arms).toMatchObject({ v1: mine.recall?.v1, lean: mine.recall?.lean });
  };
  same(bench.total, g.total);
  for (const p of g.phases) same(byPhase.get(p.phase) as Arms, p);
  for (const p of g.plans) same(byPlan.get(p.plan) as Arms, p);
  expect(g.ablation.map((a) => ({ name: a.name, label: a.label, ...a.figures }))).toEqual(bench.ablation.map(({ arm, label, tokens, recall, over_v2 }) => ({ name: arm, label, tokens, recall, over_v2 })));
  // ... and the ledger page shows exactly those figures.
  await open(page, `/ledger?run=${REAL_RUN}`);
  await expectLedgerPage(page, rep);
  const view = page.getByTestId('gsd-run');
  await expect(view.getByTestId('gsd-total-v1')).toHaveText(fmt(bench.total.v1_tokens));
  await expect(view.getByTestId('gsd-total-lean')).toHaveText(fmt(bench.total.lean_tokens));
  await expect(view.getByTestId('gsd-total-v2')).toHaveText(fmt(bench.total.v2_tokens));
  await expect(view.getByTestId('gsd-total-recall')).toHaveText(`${bench.total.recall?.v2}%`);
  await expect(view.getByTestId('gsd-total-recall-sub')).toHaveText(`v1 ${bench.total.recall?.v1}% · lean ${bench.total.recall?.lean}%`);
  await expect(view.getByTestId('gsd-total-plans')).toHaveText(`${bench.total.plans_imported} / ${bench.total.plans_found}`);
  const rows = [
    ...g.phases.map((p) => ({ row: view.getByTestId('gsd-phases').locator(`tr[data-phase="${p.phase}"]`), b: byPhase.get(p.phase) as Arms, r: p })),
    ...g.plans.map((p) => ({ row: view.getByTestId('gsd-plans').locator(`tr[data-plan="${p.plan}"]`), b: byPlan.get(p.plan) as Arms, r: p })),
  ];
  await expect(view.getByTestId('gsd-phases').locator('tbody tr')).toHaveCount(bench.phases.length);
  await expect(view.getByTestId('gsd-plans').locator('tbody tr')).toHaveCount(bench.plans.length);
  for (const { row, b, r } of rows) {
    await expect(row.locator('[data-arm="v1"]')).toHaveText(fmt(b.v1_tokens));
    await expect(row.locator('[data-arm="lean"]')).toHaveText(fmt(b.lean_tokens));
    await expect(row.locator('[data-arm="v2"]')).toHaveText(fmt(b.v2_tokens));
    await expect(row.locator('[data-figure="saved"]')).toHaveText(savedText(r.saved_pct));
    await expect(row.locator('[data-figure="saved-lean"]')).toHaveText(savedText(r.saved_vs_lean_pct));
    await expect(row.locator('[data-figure="recall"]')).toHaveText(`${b.recall?.v2}%`);
    await expect(row.locator('[data-figure="recall"]')).toHaveAttribute('title', `recall v1 ${b.recall?.v1}% · lean ${b.recall?.lean}%`);
  }
  for (const p of bench.plans) await expect(view.getByTestId('gsd-plans').locator(`tr[data-plan="${p.id}"]`)).toContainText(p.path);
  const abl = view.getByTestId('gsd-ablation');
  await expect(abl.locator('tbody tr')).toHaveCount(bench.ablation.length);
  for (const a of bench.ablation) {
    const row = abl.locator(`tr[data-variant="${a.arm}"]`);
    await expect(row.locator('th')).toHaveText(a.label);
    await expect(row.locator('[data-figure="tokens"]')).toHaveText(fmt(a.tokens));
    await expect(row.locator('[data-figure="recall"]')).toHaveText(`${a.recall}%`);
    await expect(row.locator('[data-figure="over_v2"]')).toHaveText(fmt(a.over_v2));
  }
  // The slide and the PNG of this run carry the same figures as the report.
  await expectSlide(page, rep);
  expectPngFigures(await savePng(page, `agree-bench-gsd-${REAL_RUN}`), rep);
  await screenshot(page, 'agree-ledger-real-gsd');
});
