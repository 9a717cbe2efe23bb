// One agent of the three-agent phase run (e2e/gsd-run.test.ts), a real process with its own
// HEIMDALL_AGENT, looping through the real bin/heimdall until the phase is complete:
//   gsd ready --phase P --json -> pick a plan -> gsd start PLAN -> write its SUMMARY (the work)
//   -> gsd edit-shared STATE.md -- append a line -> gsd done PLAN --status pass
//
//   node gsd-agent.mjs NAME PHASE GATE_DIR SUMMARIES_DIR PREFER BARRIER [HOLD]
// PREFER: plan ids this agent takes first when they are ready (comma-separated, may be empty).
// BARRIER: plan ids that, the first time this agent picks one, make it stop before `start` until the
// test creates GATE_DIR/go (it announces itself with GATE_DIR/arrived-<plan>): the test releases two
// agents at once onto two plans whose files overlap.
// HOLD: plan ids this agent leaves alone until GATE_DIR/go exists (so a third agent cannot take a
// barrier plan while the two raced agents are still on their way to the barrier).
// Every step is appended to GATE_DIR/NAME.events.jsonl for the test to check.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.resolve(here, '../../bin/heimdall');
const APPEND = path.join(here, 'append-line.mjs');
const [name, phase, gate, summaries, preferArg = '', barrierArg = '', holdArg = ''] = process.argv.slice(2);
if (!name || !phase || !gate || !summaries) {
  console.error('usage: node gsd-agent.mjs NAME PHASE GATE_DIR SUMMARIES_DIR PREFER BARRIER');
  process.exit(2);
}
const prefer = preferArg.split(',').filter(Boolean);
const barrier = barrierArg.split(',').filter(Boolean);
const hold = holdArg.split(',').filter(Boolean);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (e) => fs.appendFileSync(path.join(gate, `${name}.events.jsonl`), `${JSON.stringify({ agent: name, ...e })}\n`);

function heimdall(args) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: process.env });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function fail(step, r) {
  log({ type: 'error', step, code: r.code, err: r.err });
  process.exit(1);
}

let waited = false;
for (;;) {
  const r = heimdall(['gsd', 'ready', '--phase', phase, '--json']);
  if (r.code !== 0) fail('ready', r);
  const ready = JSON.parse(r.out);
  if (ready.complete) {
    log({ type: 'complete', counts: ready.counts });
    process.exit(0);
  }
  const released = fs.existsSync(path.join(gate, 'go'));
  const candidates = ready.ready.filter((p) => released || !hold.includes(p));
  const order = [...prefer.filter((p) => candidates.includes(p)), ...candidates.filter((p) => !prefer.includes(p))];
  const plan = order[0];
  if (!plan) {
    // Nothing for this agent now: ask again shortly (each ask is a process; do not crowd the others).
    await sleep(400);
    continue;
  }
  if (!waited && barrier.includes(plan)) {
    waited = true;
    fs.writeFileSync(path.join(gate, `arrived-${plan}.tmp`), name);
    fs.renameSync(path.join(gate, `arrived-${plan}.tmp`), path.join(gate, `arrived-${plan}`));
    while (!fs.existsSync(path.join(gate, 'go'))) await sleep(10);
    log({ type: 'released', plan });
  }
  const s = heimdall(['gsd', 'start', plan, '--json']);
  if (s.code !== 0) {
    log({ type: 'refused', plan, code: s.code, err: s.err });
    continue;
  }
  const started = JSON.parse(s.out);
  log({ type: 'started', plan, attempt: started.attempt, claim: started.claim.id, haid: started.agent.haid, brief_tokens: started.brief.total_tokens });
  // The work: the executor writes the plan's SUMMARY beside its PLAN.
  const entry = ready.phases.flatMap((p) => p.waves.flatMap((w) => w.plans)).find((x) => x.id === plan);
  const summary = path.join(ready.planning_dir, entry.plan_file.replace(/PLAN\.md$/, 'SUMMARY.md'));
  fs.copyFileSync(path.join(summaries, path.basename(summary)), summary);
  const e = heimdall(['gsd', 'edit-shared', path.join(ready.planning_dir, 'STATE.md'), '--', process.execPath, APPEND, path.join(ready.planning_dir, 'STATE.md'), `- ${plan} done by ${name}`]);
  if (e.code !== 0) fail('edit-shared', e);
  const d = heimdall(['gsd', 'done', plan, '--status', 'pass', '--json']);
  if (d.code !== 0) fail('done', d);
  const done = JSON.parse(d.out);
  log({ type: 'done', plan, attempt: done.attempt, capsule: done.capsule?.id ?? null, released: done.released });
}
