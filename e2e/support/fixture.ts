/**
 * The browser tests' planning tree, built with the real command-line programs (and, for a GSD bench
 * run, the core calls the bench makes: e2e/support/gsd-run.ts): the measured
 * demo (symbols, capsules, blackboard, ledger, protocol.log), claims, agents checking in at known
 * ages, wire events, and a handshake peer. Times are relative to NOW, the instant the test server's
 * clock is frozen at (HEIMDALL_NOW), so "400 s ago" is exactly 400 s for the server.
 *
 * Run as a script by the Playwright web server command: node --import tsx e2e/support/fixture.ts DIR NOW
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { cli, isoBefore } from './cli.js';
import { GSD_FIXTURE_RUN, recordGsdRun } from './gsd.js';

/** Agents and how long before NOW each last checked in. */
export const AGENTS: { address: string; status: string; task: string; ageS: number }[] = [
  { address: 'steve.1@core', status: 'reviewing the wave plan', task: 'w3', ageS: 30 },
  { address: 'mason.1@core', status: 'writing the book diff', task: 'w2', ageS: 200 },
  { address: 'fresco.1@core', status: 'waiting on the matcher contract', task: 'w4', ageS: 400 },
  { address: 'rook.1@core', status: 'lint pass', task: 'w5', ageS: 700 },
];

export function buildFixture(planning: string, now: string): void {
  fs.mkdirSync(planning, { recursive: true });
  const at = (ageS: number) => ({ HEIMDALL_NOW: isoBefore(now, ageS) });

  // The measured demo, a little before NOW, then a recorded GSD bench run (the latest run).
  cli(planning, 'heimdall-protocol', ['demo'], { env: at(3600) });
  recordGsdRun(planning, GSD_FIXTURE_RUN, isoBefore(now, 2400));
  cli(planning, 'heimdall-blackboard', ['set', 'ci_runner', 'ubuntu-24.04'], { env: at(3000) });

  // Claims: one active (claimed 10 min ago for an hour), one expired (5 min ttl, 20 min ago).
  const root = cli(planning, 'heimdall-haid', ['root']).stdout.trim();
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'src/matching/**', '--task', 'T-9', '--ttl-minutes', '60', '--haid', `${root}/cursor`], { env: at(600) });
  cli(planning, 'heimdall-claim', ['claim', '--surfaces', 'docs/**', '--task', 'T-4', '--ttl-minutes', '5', '--haid', `${root}/copilot`], { env: at(1200) });

  // Agents checking in at known ages.
  for (const a of AGENTS) cli(planning, 'heimdall', ['herd', 'checkin', '--as', a.address, '--status', a.status, '--task', a.task], { env: at(a.ageS) });

  // Wire events: a task made available, claimed and started; an agent with capacity.
  const wires = [
    { wire: '1.1', stream_id: 'task:T-9:attempt:1', type: 'task.created', sender: 'orchestrator', payload: { task_id: 'T-9', title: 'Matching engine book diff', role: 'developer', capacity_units: 2 } },
    { wire: '1.1', stream_id: 'task:T-9:attempt:1', type: 'task.available', sender: 'orchestrator', payload: { task_id: 'T-9', role: 'developer', capacity_units: 2 } },
    { wire: '1.1', stream_id: 'agent:mason', type: 'agent.started', sender: 'mason', payload: { agent: 'mason', role: 'developer', max_units: 4, available_units: 4 } },
    { wire: '1.1', stream_id: 'task:T-9:attempt:1', type: 'task.claimed', sender: 'mason', payload: { task_id: 'T-9', agent: 'mason', role: 'developer' } },
    { wire: '1.1', stream_id: 'task:T-9:attempt:1', type: 'task.started', sender: 'mason', payload: { task_id: 'T-9', agent: 'mason' } },
    { wire: '1.1', stream_id: 'agent:mason', type: 'agent.heartbeat', sender: 'mason', payload: { agent: 'mason', status: 'working', task_id: 'T-9' } },
  ];
  cli(planning, 'heimdall', ['wire', 'emit'], { input: JSON.stringify(wires) });
  cli(planning, 'heimdall', ['wire', 'listen', '--once']);

  // A handshake peer.
  const announce = {
    type: 'SESSION_ANNOUNCE',
    protocol_version: '2.0',
    worker: { agent_id: 'hermes-1', model: 'claude-sonnet-4-20250514', model_tier: 'sonnet', context_window: 200000 },
    capabilities: { tools: ['browser', 'terminal', 'file', 'patch'], mcp_servers: ['context_mode', 'claude_mem', 'trek'] },
    mcp_health: { context_mode: 'ok', claude_mem: 'ok', trek: 'timeout' },
    session: { context_id: 'handshake:hermes-switch', active_tasks: 1, repo_state: { branch: 'main', clean: true }, session_fresh: true },
  };
  cli(planning, 'heimdall', ['a2a', 'announce', '--as', 'hermes-1'], { input: JSON.stringify(announce), env: at(90) });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, now] = process.argv.slice(2);
  if (!dir || !now) {
    console.error('usage: node --import tsx e2e/support/fixture.ts PLANNING_DIR NOW_ISO');
    process.exit(2);
  }
  buildFixture(dir, now);
  console.log(`fixture: built ${dir} (now ${now})`);
}
