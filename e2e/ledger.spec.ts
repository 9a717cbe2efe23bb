/**
 * The ledger page and the overview card, one run at a time, against `heimdall-ledger report --json
 * --run R`: the card says what it measured, the run picker's choice lives in the URL, a role without
 * lines in a run is absent, a GSD run shows its arms per phase and plan with recall and ablation,
 * the chart over time has a time axis, and the PNG is a 1920x1080 slide naming project, run, date
 * and tokenizer.
 */
import { expect, test } from '@playwright/test';
import { cli, isoBefore } from './support/cli.js';
import { GSD_FIXTURE_RUN, GSD_WORKSPACE, recordGsdRun } from './support/gsd.js';
import { exact, expectCard, expectPngFigures, expectSlide, fmt, ledgerReport, savePng, savedText } from './support/savings.js';
import { now, open, planning, screenshot } from './support/studio.js';

/** Seconds after the server's frozen NOW: runs these tests write are the latest ones. */
const after = (s: number) => ({ HEIMDALL_NOW: isoBefore(now, -s) });


test('the card names the workspace, the run, the date, the tokenizer and what v1 and v2 are', async ({ page }) => {
  const rep = ledgerReport();
  expect(rep.run, 'the fixture records a GSD run last').toBe(GSD_FIXTURE_RUN);
  expect(rep.workspace).toBe(GSD_WORKSPACE);
  expect(rep.arms.v1).toMatch(/PLAN\.md/);
  await open(page, '/');
  const card = page.getByTestId('savings-card');
  await expectCard(card, rep);
  await expect(card.getByTestId('card-details')).toHaveAttribute('href', `/ledger?run=${GSD_FIXTURE_RUN}`);
  await screenshot(page, 'overview-savings');
  await open(page, '/ledger');
  await expectCard(page.getByTestId('savings-card'), rep);
  await expect(page.getByTestId('run-picker')).toHaveValue(GSD_FIXTURE_RUN);
  // The real way to measure, not a made-up baseline to type.
  await expect(page.getByText('heimdall-ledger baseline --role')).toHaveCount(0);
});

test("the run picker's choice is in the URL: a link, a reload and Back show the same run", async ({ page }) => {
  const latest = ledgerReport();
  const demo = latest.runs.find((r) => r.label.includes('· demo,'));
  expect(demo, 'the fixture runs the demo').toBeTruthy();
  const demoRep = ledgerReport(demo?.run);
  await open(page, '/ledger');
  await page.getByTestId('run-picker').selectOption(demoRep.run as string);
  await expect(page).toHaveURL(new RegExp(`/ledger\\?run=${demoRep.run}$`));
  await expectCard(page.getByTestId('savings-card'), demoRep);
  await expect(page.getByTestId('gsd-run')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('run-picker')).toHaveValue(demoRep.run as string);
  await expectCard(page.getByTestId('savings-card'), demoRep);
  await page.goBack();
  await expect(page).toHaveURL(/\/ledger$/);
  await expectCard(page.getByTestId('savings-card'), latest);
  // A run the ledger does not know: the core's message, and a way back.
  await open(page, '/ledger?run=no-such-run');
  await expect(page.getByTestId('error-panel')).toContainText('no run "no-such-run" in the ledger; runs, newest first:');
  await page.getByRole('button', { name: 'Show the latest run instead →' }).click();
  await expect(page).toHaveURL(/\/ledger$/);
  await expectCard(page.getByTestId('savings-card'), latest);
});

test('a role without lines in the chosen run is absent, never "100% saved"; it appears once it is measured', async ({ page }) => {
  const log = (role: string, tokens: number, msg: string, arm?: string) =>
    cli(planning, 'heimdall-ledger', ['log', '--role', role, '--kind', 'brief', '--msg-id', msg, '--tokens', String(tokens), '--run', 'e2e-absent', ...(arm ? ['--arm', arm] : [])], { env: after(60) });
  log('orchestration', 1000, 'ab-o1', 'v1');
  log('orchestration', 300, 'ab-o2');
  log('coder', 40, 'ab-c1', 'v1');
  // The old trap: a workspace baseline for coder, and no coder line in the run.
  cli(planning, 'heimdall-ledger', ['baseline', '--role', 'coder', '--tokens', '40']);
  const rep = ledgerReport('e2e-absent');
  expect(rep.roles.map((r) => r.role)).toEqual(['orchestration']);
  await open(page, '/ledger?run=e2e-absent');
  const card = page.getByTestId('savings-card');
  await expectCard(card, rep);
  await expect(card).not.toContainText('coder');
  await expect(card).not.toContainText('100%');
  await expect(page.getByTestId('ledger-table').locator('tbody tr')).toHaveCount(1);
  await expect(page.getByTestId('chart-baseline').locator('.recharts-cartesian-axis-tick-value', { hasText: 'coder' })).toHaveCount(0);
  await expect(page.getByTestId('savings-slide')).not.toContainText('coder');
  const png = await savePng(page, 'savings-slide-absent');
  expect(png.texts['Heimdall-Savings']).not.toContain('coder');
  await screenshot(page, 'ledger-role-absent');
  // Measured now: coder shows its own figure (40 -> 10), live, as the CLI computes it.
  log('coder', 10, 'ab-c2');
  const now2 = ledgerReport('e2e-absent');
  expect(now2.roles.find((r) => r.role === 'coder')).toMatchObject({ baseline: 40, tokens: 10, saved_pct: 75 });
  await expect(card.locator('[data-role="coder"] [data-testid="pct"]')).toHaveText('75% saved');
  await expectCard(card, now2);
});

test("a GSD run: three arms per phase and per plan, content recall and the ablation, as the report holds them", async ({ page }) => {
  const rep = ledgerReport(GSD_FIXTURE_RUN);
  const g = rep.gsd;
  expect(g, 'a bench-gsd run has a GSD view').toBeTruthy();
  if (!g) return;
  expect(g.missing).toEqual([]);
  await open(page, `/ledger?run=${GSD_FIXTURE_RUN}`);
  const view = page.getByTestId('gsd-run');
  const tok = (n: number | undefined) => (n === undefined ? '—' : fmt(n));
  await expect(view.getByTestId('gsd-total-v1')).toHaveText(tok(g.total.v1));
  await expect(view.getByTestId('gsd-total-lean')).toHaveText(tok(g.total.lean));
  await expect(view.getByTestId('gsd-total-v2')).toHaveText(tok(g.total.v2));
  await expect(view.getByTestId('gsd-total-saved')).toHaveText(savedText(g.total.saved_pct));
  await expect(view.getByTestId('gsd-total-saved-lean')).toHaveText(savedText(g.total.saved_vs_lean_pct));
  await expect(view.getByTestId('gsd-total-recall')).toHaveText(`${g.total.recall_pct}%`);
  await expect(view.getByTestId('gsd-total-recall-sub')).toHaveText(`v1 ${g.total.recall_arms?.v1}% · lean ${g.total.recall_arms?.lean}%`);
  await expect(view.getByTestId('gsd-total-completeness')).toHaveText(`${g.total.completeness_pct}%`);
  await expect(view.getByTestId('gsd-total-plans')).toHaveText(`${g.total.plans_imported} / ${g.total.plans_found}`);
  await expect(view.getByTestId('gsd-missing')).toHaveCount(0);
  const rows = [
    ...g.phases.map((p) => ({ row: view.getByTestId('gsd-phases').locator(`tr[data-phase="${p.phase}"]`), f: p })),
    ...g.plans.map((p) => ({ row: view.getByTestId('gsd-plans').locator(`tr[data-plan="${p.plan}"]`), f: p })),
  ];
  await expect(view.getByTestId('gsd-phases').locator('tbody tr')).toHaveCount(g.phases.length);
  await expect(view.getByTestId('gsd-plans').locator('tbody tr')).toHaveCount(g.plans.length);
  for (const { row, f } of rows) {
    for (const arm of ['v1', 'lean', 'v2'] as const) await expect(row.locator(`[data-arm="${arm}"]`)).toHaveText(tok(f[arm]));
    await expect(row.locator('[data-figure="saved"]')).toHaveText(savedText(f.saved_pct));
    await expect(row.locator('[data-figure="saved-lean"]')).toHaveText(savedText(f.saved_vs_lean_pct));
    await expect(row.locator('[data-figure="recall"]')).toHaveText(f.recall_pct === undefined ? '—' : `${f.recall_pct}%`);
  }
  for (const p of g.plans) await expect(view.getByTestId('gsd-plans').locator(`tr[data-plan="${p.plan}"]`)).toContainText(p.path as string);
  // The per-phase chart writes each phase's saving on its v2 bar.
  for (const p of g.phases) await expect(page.getByTestId('chart-phases').locator('.recharts-label-list text', { hasText: exact(`${p.saved_pct}%`) })).not.toHaveCount(0);
  // The ablation: lean, v2 without each mechanism, and v2 itself, in the bench's words.
  expect(g.ablation.map((a) => a.name)).toEqual(['lean', 'no_units', 'no_capsules', 'no_symbols', 'v2']);
  const abl = view.getByTestId('gsd-ablation');
  await expect(abl.locator('tbody tr')).toHaveCount(5);
  for (const a of g.ablation) {
    await expect(abl.locator(`tr[data-variant="${a.name}"] th`)).toHaveText(a.label as string);
    for (const [k, v] of Object.entries(a.figures)) await expect(abl.locator(`tr[data-variant="${a.name}"] [data-figure="${k}"]`)).toHaveText(k.startsWith('recall') ? `${v}%` : fmt(v));
  }
  await expect(abl.locator('tr[data-variant="no_units"] th')).toContainText('v2 without unit resolution');
  await expect(abl.locator('tr[data-variant="no_capsules"] th')).toContainText('v2 without capsules');
  await expect(abl.locator('tr[data-variant="no_symbols"] th')).toContainText('v2 without the symbol table');
  await screenshot(page, 'ledger-gsd');

  // A record without recall or ablation (an older bench): what is there is shown, what is not is named.
  recordGsdRun(planning, 'gsd-partial', isoBefore(now, -120), { partial: true });
  const part = ledgerReport('gsd-partial');
  expect(part.gsd?.missing).toEqual(['recall', 'ablation']);
  await open(page, '/ledger?run=gsd-partial');
  await expect(page.getByTestId('gsd-missing')).toHaveText('Not in the run record: content recall, the ablation. Shown: what the ledger lines hold.');
  await expect(page.getByTestId('gsd-ablation-missing')).toBeVisible();
  await expect(page.getByTestId('gsd-total-recall')).toHaveText('—');
  await expect(page.getByTestId('gsd-total-v2')).toHaveText(fmt(part.gsd?.total.v2 as number));
  await expect(page.getByTestId('gsd-plans').locator('tbody tr')).toHaveCount(part.gsd?.plans.length as number);
  await screenshot(page, 'ledger-gsd-partial');
});

test('savings over time: a time axis, one line per role, each run against its own baseline', async ({ page }) => {
  // A run of its own with a second role, so the chart has two lines whatever ran before.
  for (const [arm, tokens] of [['v1', 9000], ['v2', 4200]] as const) {
    cli(planning, 'heimdall-ledger', ['log', '--role', 'review', '--kind', 'task_result', '--msg-id', `ot-${arm}`, '--tokens', String(tokens), '--run', 'e2e-review', '--arm', arm], { env: after(150) });
  }
  const rep = ledgerReport();
  expect(rep.run).toBe('e2e-review');
  expect(rep.roles).toEqual([expect.objectContaining({ role: 'review', baseline: 9000, tokens: 4200, saved_pct: 53 })]);
  const points = rep.runs.filter((r) => Object.keys(r.saved).length > 0);
  const roles = [...new Set(points.flatMap((r) => Object.keys(r.saved)))].sort();
  expect(points.length).toBeGreaterThanOrEqual(2);
  expect(roles.length).toBeGreaterThanOrEqual(2);
  await open(page, '/ledger');
  const chart = page.getByTestId('chart-over-time');
  await expect(chart).toHaveAttribute('data-points', String(points.length));
  await expect(chart.locator('.recharts-line')).toHaveCount(roles.length);
  for (const r of roles) await expect(chart.locator('.recharts-legend-item-text', { hasText: exact(r) })).toHaveCount(1);
  // The x axis is time: dates and times, in order, not run ids.
  const tickEls = chart.locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value');
  // The chart draws once its container is measured: wait for it before reading what it drew.
  await expect(tickEls).not.toHaveCount(0);
  const ticks = await tickEls.allTextContents();
  expect(ticks.length).toBeGreaterThanOrEqual(3);
  for (const t of ticks) expect(t).toMatch(/^(\d\d-\d\d \d\d:\d\d|\d{4}-\d\d-\d\d)$/);
  expect(new Set(ticks).size).toBe(ticks.length);
  const xs = await tickEls.evaluateAll((els) => els.map((e) => Number(e.getAttribute('x'))));
  expect([...xs].sort((a, b) => a - b)).toEqual(xs);
  // Evenly spaced: a time axis, not one tick per run.
  const gaps = xs.slice(1).map((x, i) => x - (xs[i] as number));
  for (const g of gaps) expect(Math.abs(g - (gaps[0] as number))).toBeLessThan(1.5);
  for (const r of rep.runs) expect(ticks.join(' ')).not.toContain(r.run);
  // Each point's label is that run's own saving: one label per point and role.
  const expected = points.flatMap((p) => Object.values(p.saved).map((v) => `${v}%`)).sort();
  await expect(chart.locator('.recharts-label-list text')).toHaveCount(expected.length);
  const labels = (await chart.locator('.recharts-label-list text').allTextContents()).map((t) => t.trim()).sort();
  expect(labels).toEqual(expected);
  expect(labels).toContain('53%');
  await screenshot(page, 'ledger-over-time');
});

test('lines from before runs: logged without a run, shown against baselines.json and saying so', async ({ page }) => {
  // Older than every run, so it is not the default view: reached through the picker or ?run=-.
  const old = { HEIMDALL_NOW: isoBefore(now, 7200) };
  cli(planning, 'heimdall-ledger', ['log', '--role', 'planner', '--kind', 'delta_brief', '--msg-id', 'legacy-1', '--tokens', '1200'], { env: old });
  cli(planning, 'heimdall-ledger', ['baseline', '--role', 'planner', '--tokens', '4000']);
  const rep = ledgerReport('-');
  expect(rep).toMatchObject({ run: '-', baseline: 'workspace' });
  expect(rep.compared_with).toMatch(/against the workspace baseline in baselines\.json/);
  expect(rep.roles.find((r) => r.role === 'planner')).toMatchObject({ baseline: 4000, tokens: 1200, saved_pct: 70 });
  await open(page, '/ledger');
  await page.getByTestId('run-picker').selectOption('-');
  await expect(page).toHaveURL(/\/ledger\?run=-$/);
  const card = page.getByTestId('savings-card');
  await expectCard(card, rep);
  await expect(card.getByTestId('card-compared')).toContainText('baselines.json');
  await expect(card.locator('[data-role="planner"]')).toContainText('baseline');
  await screenshot(page, 'ledger-no-run');
});

test('the PNG is a 1920x1080 slide naming the project, the date, the run and the tokenizer', async ({ page }) => {
  const rep = ledgerReport(GSD_FIXTURE_RUN);
  await open(page, `/ledger?run=${GSD_FIXTURE_RUN}`);
  await expectSlide(page, rep);
  await expect(page.getByTestId('savings-slide')).toHaveJSProperty('offsetWidth', 1920);
  await expect(page.getByTestId('savings-slide')).toHaveJSProperty('offsetHeight', 1080);
  const png = await savePng(page, 'savings-slide-gsd');
  expect(png.filename).toBe(`heimdall-savings-${GSD_WORKSPACE}-${GSD_FIXTURE_RUN}-${rep.date?.slice(0, 10)}.png`);
  expectPngFigures(png, rep);
  expect(png.texts['Creation Time']).toBe(rep.date);
});
