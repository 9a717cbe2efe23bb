/**
 * Running a GSD phase through Heimdall (issue 13): the latency of `gsd start` and `gsd done`, through
 * the CLI (process start included, as an agent's shell pays it) and over MCP (the SDK client against
 * the running server), and of `gsd ready` on the largest fixture tree (HYDRA, 32 plans).
 *
 * start/done are measured on a real run: a copy of HYDRA with every SUMMARY taken out, walked plan by
 * plan in dependency order (the first ready plan, start, write its SUMMARY back, done --status pass),
 * so each `done` writes a real capsule and each `start` a real brief. Medians of 20 plans per
 * transport, `node -e 0` measured in the same run as the process-start baseline.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { median } from './stats.js';

const RUNS = 20;
const ms = (x: number) => `${x.toFixed(0)} ms`;

function fixtures(root: string): string {
  const dir = path.resolve(root, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
  const hydra = path.join(dir, '001TMF__HYDRA', '.planning');
  if (!fs.existsSync(hydra)) throw new Error(`the GSD fixtures are missing: ${hydra} does not exist (set HEIMDALL_GSD_FIXTURES)`);
  return hydra;
}

/** A copy of HYDRA (its .planning inside a fresh project); with `before`, its SUMMARYs moved aside. */
function copy(hydra: string, before: boolean): { planning: string; aside: string } {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-bench-gsd-run-'));
  const planning = path.join(project, '.planning');
  fs.cpSync(hydra, planning, { recursive: true });
  const aside = path.join(project, 'summaries');
  fs.mkdirSync(aside);
  if (before) {
    const walk = (d: string) => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('SUMMARY.md')) fs.renameSync(p, path.join(aside, path.relative(planning, p).replaceAll('/', '__')));
      }
    };
    walk(planning);
  }
  return { planning, aside };
}

function restoreSummary(planning: string, aside: string, planFile: string): void {
  const rel = planFile.replace(/PLAN\.md$/, 'SUMMARY.md');
  const src = path.join(aside, rel.replaceAll('/', '__'));
  if (fs.existsSync(src)) fs.copyFileSync(src, path.join(planning, rel));
}

function timed(bin: string, args: string[], env: NodeJS.ProcessEnv): { ms: number; out: string } {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
  const took = Number(process.hrtime.bigint() - t) / 1e6;
  if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms: took, out: r.stdout };
}

interface ReadyJson {
  ready: string[];
  counts: Record<string, number>;
}

/** Plan id -> its PLAN file, from the task list the import wrote. */
function planFiles(planning: string): Map<string, string> {
  const t = JSON.parse(fs.readFileSync(path.join(planning, 'protocol/tasks.json'), 'utf8')) as { tasks: { id: string; plan_file: string | null }[] };
  return new Map(t.tasks.filter((x) => x.plan_file).map((x) => [x.id, x.plan_file as string]));
}

export default async function ({ root }: { root: string }): Promise<string> {
  const loadBefore = os.loadavg()[0] as number;
  spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: root, stdio: 'inherit' });
  const hydra = fixtures(root);
  const bin = path.join(root, 'bin/heimdall');

  // 1. CLI: 20 plans of HYDRA, each started and finished through bin/heimdall.
  const cliRun = copy(hydra, true);
  const env = { ...process.env, HEIMDALL_PLANNING_DIR: cliRun.planning, HEIMDALL_AGENT: 'bench.1@core', HEIMDALL_WIRE_FSYNC: '1' };
  timed(bin, ['import', 'gsd'], env);
  const cliPlans = planFiles(cliRun.planning);
  const base: number[] = [];
  const start: number[] = [];
  const done: number[] = [];
  let plans = 0;
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    base.push(Number(process.hrtime.bigint() - t) / 1e6);
    const ready = JSON.parse(timed(bin, ['gsd', 'ready', '--json'], env).out) as ReadyJson;
    const id = ready.ready[0];
    if (!id) throw new Error(`no plan ready after ${plans} plans`);
    start.push(timed(bin, ['gsd', 'start', id, '--json'], env).ms);
    restoreSummary(cliRun.planning, cliRun.aside, cliPlans.get(id) as string);
    done.push(timed(bin, ['gsd', 'done', id, '--status', 'pass', '--json'], env).ms);
    plans++;
  }

  // 2. MCP: the same walk on a second copy through the SDK client (one server process, warm).
  const mcpRun = copy(hydra, true);
  timed(bin, ['import', 'gsd'], { ...process.env, HEIMDALL_PLANNING_DIR: mcpRun.planning });
  const mcpPlans = planFiles(mcpRun.planning);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(root, 'bin/heimdall-ledger-mcp')],
    env: { PATH: process.env.PATH ?? '', HEIMDALL_PLANNING_DIR: mcpRun.planning, HEIMDALL_AGENT: 'bench.2@core' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const t = process.hrtime.bigint();
    const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
    const took = Number(process.hrtime.bigint() - t) / 1e6;
    const text = JSON.parse((r.content[0] as { text: string }).text);
    if (r.isError) throw new Error(`${name} ${JSON.stringify(args)}: ${text.error?.message}`);
    return { ms: took, out: text };
  };
  const mcpStart: number[] = [];
  const mcpDone: number[] = [];
  const mcpReady: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await call('gsd_ready', {});
    mcpReady.push(r.ms);
    const id = (r.out.ready as string[])[0] as string;
    mcpStart.push((await call('gsd_start', { plan: id })).ms);
    restoreSummary(mcpRun.planning, mcpRun.aside, mcpPlans.get(id) as string);
    mcpDone.push((await call('gsd_done', { plan: id, status: 'pass' })).ms);
  }
  await client.close();

  // 3. ready on the whole of HYDRA as the fixture stands (31 plans done, 04-06 to do), and after the runs above (a wire of 60 events).
  const whole = copy(hydra, false);
  const wenv = { ...process.env, HEIMDALL_PLANNING_DIR: whole.planning };
  timed(bin, ['import', 'gsd'], wenv);
  timed(bin, ['gsd', 'ready', '--json'], wenv); // creates the read model
  const readyWhole: number[] = [];
  const readyAfter: number[] = [];
  const baseReady: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0']);
    baseReady.push(Number(process.hrtime.bigint() - t) / 1e6);
    readyWhole.push(timed(bin, ['gsd', 'ready', '--json'], wenv).ms);
    readyAfter.push(timed(bin, ['gsd', 'ready', '--json'], env).ms);
  }
  const wholeJson = JSON.parse(timed(bin, ['gsd', 'ready', '--json'], wenv).out) as ReadyJson;
  for (const d of [cliRun, mcpRun, whole]) fs.rmSync(path.dirname(d.planning), { recursive: true, force: true });

  const node = median([...base, ...baseReady]);
  const loadAfter = os.loadavg()[0] as number;
  const row = (what: string, xs: number[], vsNode = true) => `| ${what} | ${ms(median(xs))} | ${ms(Math.min(...xs))} – ${ms(Math.max(...xs))} | ${vsNode ? `${(median(xs) / node).toFixed(1)}x` : '–'} |`;
  return [
    '## Running a GSD phase (`npm run bench -- gsd-run`)',
    '',
    `HYDRA (the largest fixture, 32 plans) with every SUMMARY taken out, walked in dependency order: for each of ${RUNS} plans the first ready one is started, its SUMMARY written back, and finished with \`--status pass\` (so every \`done\` writes a capsule and every \`start\` claims a real write set and logs a real brief). Medians of ${RUNS}; the CLI figures include starting the process, against \`node -e 0\` (${ms(node)}) measured in the same run. The file wire log fsyncs every append (the default); the read model is SQLite. The machine is shared: its 1-minute load average was ${loadBefore.toFixed(1)} when the run began and ${loadAfter.toFixed(1)} when it ended, on ${os.cpus().length} cores.`,
    '',
    '| call | median | range | vs `node -e 0` |',
    '|---|---|---|---|',
    row('`heimdall gsd start PLAN` (CLI)', start),
    row('`heimdall gsd done PLAN --status pass` (CLI)', done),
    row('`gsd_start` (MCP, warm server)', mcpStart, false),
    row('`gsd_done` (MCP, warm server)', mcpDone, false),
    row('`gsd_ready` (MCP, warm server, during the walk)', mcpReady, false),
    row(`\`heimdall gsd ready --json\` on HYDRA as imported (${wholeJson.counts.done} done, ${wholeJson.ready.length} ready)`, readyWhole),
    row(`\`heimdall gsd ready --json\` on HYDRA after ${RUNS} plans ran (${RUNS * 4} wire events)`, readyAfter),
    '',
    '`start` builds the plan\'s v2 brief (it reads the whole GSD tree: the largest part of its time), claims, catches the read model up, appends three wire events and logs the brief; `done` reads the SUMMARY and writes its capsule, appends one event, writes the typed result, two ledger lines and releases the claim. Over MCP the server process is already running, so the difference to the CLI is process start and module loading.',
  ].join('\n');
}
