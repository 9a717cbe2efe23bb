/**
 * Every page renders the fixture's real data, the same values the CLI reports, on first load; and
 * a screenshot of each is saved to test-results/screenshots/.
 */
import { expect, test } from '@playwright/test';
import { cliJson } from './support/cli.js';
import { AGENTS } from './support/fixture.js';
import { collectServerErrors, now, open, planning, screenshot } from './support/studio.js';

interface LogJson {
  entries: { ts: string; mechanism: string; action: string; detail: string; line: number }[];
  total: number;
}
interface ReportJson {
  roles: { role: string; tokens: number; baseline?: number; pct?: number }[];
  tokenizer: string;
}

test.describe('each page renders real data', () => {
  test('overview: savings card, agents by status, active claims, latest log lines', async ({ page }) => {
    const errors = collectServerErrors(page);
    const report = cliJson<ReportJson>(planning, 'heimdall-ledger', ['report']);
    const role = report.roles.find((r) => r.baseline !== undefined);
    expect(role, 'the demo records a baseline').toBeTruthy();
    await open(page, '/');
    const card = page.getByTestId('savings-card');
    const item = card.locator(`[data-role="${role?.role}"]`);
    await expect(item.getByTestId('baseline')).toHaveText((role?.baseline as number).toLocaleString('en-US'));
    await expect(item.getByTestId('measured')).toHaveText((role?.tokens as number).toLocaleString('en-US'));
    await expect(item.getByTestId('pct')).toContainText(`${Math.abs(role?.pct as number)}%`);
    await expect(card.getByTestId('tokenizer')).toHaveText(report.tokenizer);
    // Agents by status: the fixture checks four agents in 30 s, 200 s, 400 s and 700 s before the
    // server's clock (other specs may add more); the thresholds are 120, 300 and 600 s.
    const herd = cliJson<{ agents: { last_checkin: string | null }[] }>(planning, 'heimdall', ['herd', 'status']);
    const ages = herd.agents.map((a) => (a.last_checkin ? (Date.parse(now) - Date.parse(a.last_checkin)) / 1000 : Number.POSITIVE_INFINITY));
    const expected = {
      active: ages.filter((s) => s < 120).length,
      deep_work: ages.filter((s) => s >= 120 && s <= 300).length,
      stale: ages.filter((s) => s > 300 && s <= 600).length,
      unresponsive: ages.filter((s) => s > 600).length,
    };
    expect(expected.stale).toBeGreaterThanOrEqual(1);
    for (const [k, n] of Object.entries(expected)) await expect(page.getByTestId(`overview-liveness-${k}`)).toHaveText(String(n));
    await expect(page.getByTestId('overview-claims')).toContainText('src/matching/**');
    await expect(page.getByTestId('overview-claims')).not.toContainText('docs/**');
    const log = cliJson<LogJson>(planning, 'heimdall-protocol', ['log', '1']);
    await expect(page.getByTestId('overview-log').locator('li').first()).toContainText(log.entries[0]?.detail as string);
    await screenshot(page, 'overview');
    expect(errors).toEqual([]);
  });

  test('log: newest first, with the totals of protocol.log', async ({ page }) => {
    const log = cliJson<LogJson>(planning, 'heimdall-protocol', ['log', '3']);
    await open(page, '/log');
    const rows = page.locator('[data-log-row]');
    await expect(rows.first()).toHaveAttribute('data-log-row', String(log.total));
    await expect(rows.first()).toContainText(log.entries[2]?.detail as string);
    await expect(rows.nth(1)).toHaveAttribute('data-log-row', String(log.total - 1));
    await expect(page.getByTestId('log-summary')).toContainText(`${log.total} lines`);
    await rows.first().click();
    await expect(page.getByTestId('log-detail')).toHaveText(log.entries[2]?.detail as string);
    await screenshot(page, 'log');
  });

  test('symbols: the table holds symbols.json', async ({ page }) => {
    const { symbols } = cliJson<{ symbols: Record<string, string> }>(planning, 'heimdall-resolve', ['list']);
    await open(page, '/symbols');
    const ids = Object.keys(symbols);
    expect(ids.length).toBeGreaterThan(3);
    await expect(page.locator('tbody tr[data-row-id]')).toHaveCount(ids.length);
    for (const id of ids.slice(0, 5)) await expect(page.locator(`tr[data-row-id="${id}"] [data-value]`)).toHaveText(symbols[id] as string);
    await screenshot(page, 'symbols');
  });

  test('capsules: every capsule is a node of the graph', async ({ page }) => {
    const { ids } = cliJson<{ ids: string[] }>(planning, 'heimdall-capsule', ['list']);
    await open(page, '/capsules');
    await expect(page.getByTestId('capsule-graph')).toHaveAttribute('data-graph-ready', 'true');
    for (const id of ids) await expect(page.locator(`.react-flow__node [data-capsule="${id}"]`)).toHaveCount(1);
    await screenshot(page, 'capsules');
  });

  test('blackboard: the facts of blackboard.json', async ({ page }) => {
    const { facts } = cliJson<{ facts: Record<string, string> }>(planning, 'heimdall-blackboard', ['list']);
    await open(page, '/blackboard');
    expect(facts.ci_runner).toBe('ubuntu-24.04');
    for (const [k, v] of Object.entries(facts)) await expect(page.locator(`tr[data-row-id="${k}"] [data-value]`)).toHaveText(v);
    await screenshot(page, 'blackboard');
  });

  test('claims: holder, status, surfaces and time left', async ({ page }) => {
    const list = cliJson<{ claims: { id: string; haid: string; status: string; surfaces: string[]; task: string }[] }>(planning, 'heimdall-claim', ['list']);
    // Every claim the CLI lists, held or recently expired: the page's "all" filter.
    await open(page, '/claims?status=all');
    for (const c of list.claims) {
      const row = page.locator(`tr[data-claim-id="${c.id}"]`);
      await expect(row).toContainText(c.status);
      await expect(row).toContainText(c.surfaces.join(''));
      await expect(row).toContainText(c.task);
    }
    // Claimed 10 minutes before the frozen clock for 60: 50 minutes left. The other expired 15 minutes ago.
    await expect(page.locator('tr[data-claim$="/cursor"]')).toContainText('50 min left');
    await expect(page.locator('tr[data-claim$="/copilot"]')).toContainText('expired 15 min ago');
    await screenshot(page, 'claims');
  });

  test('agents: heartbeat status, tier, last status line and check-in', async ({ page }) => {
    const status = cliJson<{ agents: { address: string; tier: string; status: string | null }[] }>(planning, 'heimdall', ['herd', 'status']);
    await open(page, '/agents');
    for (const a of status.agents) {
      const row = page.locator(`tr[data-agent="${a.address}"]`);
      await expect(row).toContainText(a.tier);
      await expect(row).toContainText(a.status ?? '—');
    }
    const expected: Record<number, string> = { 30: 'active', 200: 'deep work', 400: 'stale', 700: 'unresponsive' };
    for (const a of AGENTS) await expect(page.locator(`tr[data-agent="${a.address}"] [data-liveness]`)).toHaveText(expected[a.ageS] as string);
    await expect(page.getByTestId('wire-agents')).toContainText('mason');
    await screenshot(page, 'agents');
  });

  test('ledger: charts and table hold the report', async ({ page }) => {
    const report = cliJson<ReportJson>(planning, 'heimdall-ledger', ['report']);
    await open(page, '/ledger');
    const role = report.roles[0];
    await expect(page.getByTestId('ledger-table')).toContainText(role?.role as string);
    await expect(page.getByTestId('chart-baseline').locator('svg[role="application"]')).toBeVisible();
    for (const r of report.roles) await expect(page.getByTestId('chart-baseline').locator('.recharts-label-list text', { hasText: r.tokens.toLocaleString('en-US') })).not.toHaveCount(0);
    await screenshot(page, 'ledger');
  });

  test('streams: streams and task runs of the read model', async ({ page }) => {
    const state = cliJson<{ streams: number; tasks: Record<string, number> }>(planning, 'heimdall', ['wire', 'state']);
    await open(page, '/streams');
    await expect(page.getByTestId('streams-table').locator('tbody tr')).toHaveCount(state.streams);
    await expect(page.getByTestId('streams-table')).toContainText('task:T-9:attempt:1');
    await expect(page.getByTestId('tasks-table')).toContainText('T-9');
    await expect(page.getByTestId('tasks-table')).toContainText(Object.keys(state.tasks)[0] as string);
    await page.getByRole('button', { name: 'agent:mason', exact: true }).click();
    await expect(page.getByTestId('stream-events')).toContainText('agent.heartbeat');
    await screenshot(page, 'streams');
  });

  test('peers: handshake profiles', async ({ page }) => {
    const peers = cliJson<{ agent_id: string; model: string; mcp_health: Record<string, string> }[]>(planning, 'heimdall', ['a2a', 'peers']);
    await open(page, '/peers');
    for (const p of peers) {
      const card = page.locator(`[data-peer="${p.agent_id}"]`);
      await expect(card).toContainText(p.model);
      for (const [server, health] of Object.entries(p.mcp_health)) await expect(card).toContainText(`${server}: ${health}`);
    }
    await screenshot(page, 'peers');
  });
});
