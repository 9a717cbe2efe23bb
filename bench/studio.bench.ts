/**
 * Studio speed, measured in Debian's Chromium with Playwright against the production build:
 * - the log page over a protocol.log of 100,000 lines: time to the first rows on screen and to
 *   interactive (hydrated, the filter answers), plus a filter round trip and a jump deep into the list;
 * - the capsule graph with 2,000 capsules: time until the laid-out graph is on screen.
 * Each figure is the median of several runs, each in a fresh browser context (nothing cached in
 * the page); the server is warmed once first, as a Studio that is already running would be.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { renderCapsule } from '../server/core/capsules/capsules.js';
import { makeCtx } from '../server/core/context.js';
import { formatLogLine } from '../server/core/log/protocolLog.js';
import { initPlanning } from '../server/core/planning/init.js';
import { median } from './stats.js';

const LOG_LINES = 100_000;
const CAPSULES = 2_000;
const RUNS = 7;
const TARGET_LOG_MS = 1_500;
const TARGET_GRAPH_MS = 2_000;


/** A deterministic pseudo-random sequence, so every run measures the same tree. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 16807) % 2147483647;
    return x / 2147483647;
  };
}

const ACTIONS: [string, string, (i: number) => string][] = [
  ['resolve', 'set', (i) => `F${i % 400}=src/module_${i % 97}/file_${i % 13}.ts`],
  ['blackboard', 'set', (i) => `port_${i % 50}=${5000 + (i % 1000)}`],
  ['capsule', 'write', (i) => `c${i % 2000} depends=c${(i + 7) % 2000}`],
  ['capsule', 'hydrate', (i) => `c${i % 2000} -> c${(i + 7) % 2000},c${i % 2000}`],
  ['ledger', 'log', (i) => `orchestration/delta_brief=${300 + (i % 900)}`],
  ['claim', 'claim', (i) => `h-0000beef/agent${i % 16} src/area_${i % 40}/** task=h-0000beef/agent${i % 16}:T-${i} until=2026-06-11T13:00:00Z`],
  ['herd', 'checkin', (i) => `agent${i % 16}.1@core status="working on T-${i}" messages=0`],
  ['validate', 'valid', (i) => `task_result msg_id=r${i}`],
];

function buildTree(planning: string): void {
  const ctx = makeCtx(planning);
  initPlanning(ctx);
  // protocol.log in the core's own line format, written in one go (100,000 locked appends would
  // measure the lock, not Studio).
  const start = Date.parse('2026-06-01T00:00:00Z');
  const lines: string[] = [];
  for (let i = 0; i < LOG_LINES; i++) {
    const [m, a, d] = ACTIONS[i % ACTIONS.length] as [string, string, (i: number) => string];
    lines.push(formatLogLine(new Date(start + i * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'), m, a, d(i)));
  }
  fs.writeFileSync(ctx.paths.protocolLog, `${lines.join('\n')}\n`);
  // 2,000 capsules in waves of 50; each depends on one or two capsules of the previous two waves.
  const rand = rng(7);
  const WAVE = 50;
  fs.mkdirSync(ctx.paths.capsulesDir, { recursive: true });
  for (let i = 0; i < CAPSULES; i++) {
    const id = `c${String(i).padStart(4, '0')}`;
    const wave = Math.floor(i / WAVE);
    const depends = new Set<string>();
    if (wave > 0) {
      const k = 1 + Math.floor(rand() * 2);
      for (let j = 0; j < k; j++) {
        const back = Math.min(wave, 1 + Math.floor(rand() * 2));
        depends.add(`c${String((wave - back) * WAVE + Math.floor(rand() * WAVE)).padStart(4, '0')}`);
      }
    }
    const text = renderCapsule(id, { what: `task ${i}: module ${i % 97} change`, where: `F${i % 400}`, decision: `kept the ${i % 3 ? 'fast' : 'safe'} path`, depends: [...depends] });
    fs.writeFileSync(path.join(ctx.paths.capsulesDir, `${id}.md`), text);
  }
}

async function startStudio(root: string, planning: string): Promise<{ proc: ChildProcess; base: string; log: () => string }> {
  let out = '';
  // PORT=0: a free port, read back from the URL Studio prints (another checkout may be benchmarking too).
  const proc = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, HEIMDALL_PLANNING_DIR: planning, PORT: '0', NEXT_TELEMETRY_DISABLED: '1', HEIMDALL_STUDIO_TOKEN: '', HEIMDALL_NOW: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout?.on('data', (d) => (out += d));
  proc.stderr?.on('data', (d) => (out += d));
  const deadline = Date.now() + 15 * 60_000;
  let m: RegExpExecArray | null = null;
  while (!(m = /Studio is running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out))) {
    if (proc.exitCode !== null) throw new Error(`Studio exited ${proc.exitCode}: ${out.slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`Studio did not start: ${out.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return { proc, base: m[1] as string, log: () => out };
}

/** Milliseconds for one log.page request with this input, as the browser would send it. */
async function timedPage(base: string, input: object): Promise<{ ms: number; matched: number }> {
  const t = performance.now();
  const r = await fetch(`${base}/api/trpc/log.page?input=${encodeURIComponent(JSON.stringify(input))}`);
  const body = (await r.json()) as { result?: { data: { matched: number } }; error?: unknown };
  if (!body.result) throw new Error(`log.page ${JSON.stringify(input)} failed: ${JSON.stringify(body.error)}`);
  return { ms: performance.now() - t, matched: body.result.data.matched };
}

const fmt = (ms: number) => `${Math.round(ms)} ms`;

export default async function ({ root }: { root: string }): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-studio-'));
  const planning = path.join(dir, '.planning');
  const t0 = Date.now();
  buildTree(planning);
  const buildTreeS = (Date.now() - t0) / 1000;
  const logBytes = fs.statSync(path.join(planning, 'protocol.log')).size;

  const studio = await startStudio(root, planning);
  const base = studio.base;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  try {
    // The server's first read of a 100,000-line log builds its index; a running Studio has done that.
    const warm = Date.now();
    await fetch(`${base}/api/trpc/log.page?input=${encodeURIComponent(JSON.stringify({ limit: 1 }))}`);
    const indexMs = Date.now() - warm;

    // The audit filters, server side: the first request for a filter scans the index once; the
    // next ones (paging, live tail) only extend it. Each filter is new to the server when first asked.
    const lastHour = new Date(Date.parse('2026-06-01T00:00:00Z') + (LOG_LINES - 3600) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const filters: [string, object][] = [
      ['time range (the last hour of the log)', { from: lastHour, limit: 200 }],
      ['object (the lines naming capsule c10)', { object: 'capsule:c10', limit: 200 }],
      ['author (nobody: every line is anonymous)', { author: 'h-0000beef/studio', limit: 200 }],
    ];
    const filterRows: string[] = [];
    for (const [label, input] of filters) {
      const first = await timedPage(base, input);
      const again: number[] = [];
      for (let i = 0; i < RUNS; i++) again.push((await timedPage(base, { ...input, offset: 200 })).ms);
      filterRows.push(`| ${label} | ${first.matched.toLocaleString('en-US')} | ${fmt(first.ms)} | ${fmt(median(again))} |`);
    }

    const firstRows: number[] = [];
    const interactive: number[] = [];
    const filterMs: number[] = [];
    const jumpMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const start = Date.now();
      await page.goto(`${base}/log`, { waitUntil: 'commit' });
      await page.waitForSelector('[data-log-row]');
      firstRows.push(Date.now() - start);
      await page.waitForSelector('[data-testid="log-view"][data-ready="true"]');
      interactive.push(Date.now() - start);
      if (!(await page.locator(`[data-log-row="${LOG_LINES}"]`).count())) throw new Error('the newest line is not the first row');

      // A filter round trip: type, then wait for the filtered rows (debounce included).
      const f0 = Date.now();
      await page.getByRole('searchbox', { name: 'Text' }).fill('agent6.1@core');
      await page.waitForFunction(() => document.querySelector('[data-testid="log-summary"]')?.textContent?.includes('matching'));
      await page.waitForSelector('[data-log-row]');
      filterMs.push(Date.now() - f0);
      await page.getByRole('button', { name: 'Clear' }).click();
      await page.waitForFunction((n) => document.querySelector('[data-testid="log-summary"]')?.textContent?.startsWith(n), LOG_LINES.toLocaleString('en-US'));

      // Jump half-way down: the rows there come from a page fetched on demand.
      const j0 = Date.now();
      await page.getByRole('listbox').evaluate((el, y) => {
        el.scrollTop = y;
      }, 50_000 * 30);
      await page.waitForSelector(`[data-log-row="${LOG_LINES - 50_000}"]`);
      jumpMs.push(Date.now() - j0);
      await context.close();
    }

    const graphMs: number[] = [];
    let engine = '';
    let layoutMs: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const start = Date.now();
      await page.goto(`${base}/capsules`, { waitUntil: 'commit' });
      await page.waitForSelector('[data-testid="capsule-graph"][data-graph-ready="true"]');
      await page.waitForSelector('.react-flow__node');
      await page.waitForFunction(() => document.querySelectorAll('.react-flow__edge').length > 0);
      graphMs.push(Date.now() - start);
      const g = page.getByTestId('capsule-graph');
      engine = (await g.getAttribute('data-layout-engine')) ?? '';
      layoutMs = [...layoutMs, Number(await g.getAttribute('data-layout-ms'))];
      const label = (await page.getByText(/Find a capsule \(/).textContent()) ?? '';
      if (!label.includes(CAPSULES.toLocaleString('en-US'))) throw new Error(`the graph page says ${label}, expected ${CAPSULES} capsules`);
      await context.close();
    }

    const row = (name: string, xs: number[], target?: number) =>
      `| ${name} | ${fmt(median(xs))} | ${fmt(Math.min(...xs))} - ${fmt(Math.max(...xs))} | ${target ? `<= ${fmt(target)} ${median(xs) <= target ? '(met)' : '(missed)'}` : ''} |`;
    return [
      '## Studio',
      '',
      `Production build, served by \`scripts/start.mjs\` on 127.0.0.1; Debian's Chromium driven by Playwright, 1440x900, a fresh browser context per run; median of ${RUNS} runs. Log: ${LOG_LINES.toLocaleString('en-US')} lines (${(logBytes / 2 ** 20).toFixed(1)} MiB) in the core's format; graph: ${CAPSULES.toLocaleString('en-US')} capsules in waves of 50, each depending on one or two capsules of the previous two waves (tree written in ${buildTreeS.toFixed(1)} s).`,
      '',
      '| Measure | Median | Range | Target |',
      '| --- | --- | --- | --- |',
      row('Log page: navigation to first rows on screen', firstRows, TARGET_LOG_MS),
      row('Log page: navigation to interactive (hydrated, filter answers)', interactive, TARGET_LOG_MS),
      row('Log page: text filter round trip (200 ms debounce included)', filterMs),
      row('Log page: jump to line 50,000 (page fetched on demand)', jumpMs),
      row(`Capsule graph: navigation to the laid-out graph on screen`, graphMs, TARGET_GRAPH_MS),
      row(`Capsule graph: layout alone (${engine} engine, in the browser)`, layoutMs),
      '',
      `The server indexes protocol.log once on its first read (${fmt(indexMs)} for this file, measured before the runs) and then reads only appended bytes; pages of 200 lines are sliced from that index. The first rows are in the server-rendered HTML; only the rows on screen exist in the DOM.`,
      '',
      'Audit filters on the same log, one `log.page` request over HTTP (server side, no browser): the first request for a filter scans the index once; later pages of the same filter are slices.',
      '',
      '| Filter | Lines matched | First request | Next page (median) |',
      '| --- | --- | --- | --- |',
      ...filterRows,
    ].join('\n');
  } finally {
    await browser.close();
    studio.proc.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
