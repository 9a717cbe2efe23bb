/**
 * The measured demo: one wave (the orchestrator briefs 3 spawns and collects 3 results) run twice,
 *  - v1 "verbatim": the plan, the criteria, the prior-wave context and the invariants restated into
 *    every brief, and prose results;
 *  - v2 this protocol: the symbol table written once, 3 delta briefs, 3 typed task_result messages.
 * Every text is really built and counted with the tokenizer, and both arms are logged as lines of
 * one run (the v1 texts with `arm: "v1"`), with a run record saying what each arm is: the run is its
 * own baseline, so a second demo run is compared with its own v1 texts, never with a sum. The
 * ledger computes the delta. No number is hard-coded: a different fixture gives different numbers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { readFacts, setFact } from '../blackboard/blackboard.js';
import { buildBrief } from '../briefs/briefs.js';
import { capsulePath, renderCapsule, writeCapsule } from '../capsules/capsules.js';
import { logTokens, logTokensBatch } from '../ledger/ledger.js';
import { recordRun } from '../ledger/runs.js';
import { computeDelta } from '../ledger/savings.js';
import { logAction } from '../log/protocolLog.js';
import { validateMessage } from '../messages/validate.js';
import { initPlanning, planningHoldsState } from '../planning/init.js';
import { atomicWrite, parseJsonFile, readTextFile } from '../planning/fsx.js';
import { PROTOCOL_VERSION } from '../planning/version.js';
import { readSymbols, setSymbols } from '../symbols/symbols.js';

export interface DemoTask {
  task: string;
  role?: string;
  spec: string;
  symbols: string[];
  capsules: string[];
  assignment: string;
  result: { status: 'pass' | 'fail' | 'partial'; criteria?: number[]; commit?: string; capsule?: string };
  prose_result: string;
}

export interface DemoWave {
  wave: number;
  from: string;
  invariants: string;
  facts?: Record<string, string>;
  symbols: Record<string, string>;
  capsules: { id: string; what: string; where: string; decision?: string; gotcha?: string; depends?: string[] }[];
  tasks: DemoTask[];
}

export interface DemoText {
  label: string;
  text: string;
  tokens: number;
}

export interface DemoResult {
  fixture: string;
  run: string;
  tokenizer: string;
  v1: { total: number; briefs: DemoText[]; results: DemoText[] };
  v2: { total: number; symbolTable: DemoText; briefs: DemoText[]; results: DemoText[] };
  delta: string;
  pct: number;
  card: string;
  lines: string[];
}

/** The fixture shipped with the package (server/core/demo/fixture/exchange-lob). */
export function defaultFixtureDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, 'server/core/demo/fixture/exchange-lob');
    if (fs.existsSync(candidate)) return candidate;
    const here = path.join(dir, 'fixture/exchange-lob');
    if (fs.existsSync(here)) return here;
    dir = path.dirname(dir);
  }
  throw new HeimdallError('environment', 'cannot find the demo fixture (server/core/demo/fixture/exchange-lob); pass --fixture DIR');
}

function readText(dir: string, name: string): string {
  const file = path.join(dir, name);
  const text = readTextFile(file);
  if (text === undefined) throw new HeimdallError('environment', `demo fixture is missing ${file} (a fixture needs PLAN.md, CONTEXT.md, the invariants file and wave.json)`);
  return text;
}

export function loadWave(dir: string): DemoWave {
  const file = path.join(dir, 'wave.json');
  const w = parseJsonFile(file, readText(dir, 'wave.json')) as DemoWave;
  if (!w || !Array.isArray(w.tasks) || w.tasks.length === 0 || typeof w.symbols !== 'object' || !Array.isArray(w.capsules)) {
    throw new HeimdallError('environment', `${file} must hold {wave, from, invariants, symbols{}, capsules[], tasks[]}`);
  }
  return w;
}

function short(n: number): string {
  return n >= 1000 ? `${Math.round(n / 1000)}k` : String(n);
}

/** The marker a tree the demo made for itself carries (`protocol/demo-workspace.json`). */
export function demoMarkerPath(ctx: Ctx): string {
  return path.join(ctx.paths.protocolDir, 'demo-workspace.json');
}

/** True when the tree was made by the demo (it carries the marker). */
export function isDemoWorkspace(ctx: Ctx): boolean {
  return fs.existsSync(demoMarkerPath(ctx));
}

function markDemoWorkspace(ctx: Ctx, fixture: string): void {
  if (isDemoWorkspace(ctx)) return;
  atomicWrite(demoMarkerPath(ctx), `${JSON.stringify({ version: PROTOCOL_VERSION, fixture: path.basename(fixture), note: 'a workspace the demo made for itself: heimdall-protocol demo adds its runs here' })}\n`);
}

/**
 * Why the demo may not run in this tree (a phrase following the tree's path), or undefined when it may: a tree without state (new or
 * just initialised), or a demo workspace (the marker) in which every symbol, fact and capsule the
 * demo writes is absent or already holds the demo's value, so another run only adds its own ledger
 * lines and run record. Any other tree with state is a user's workspace and is never written.
 */
export function demoRefusal(ctx: Ctx, wave: DemoWave): string | undefined {
  const held = planningHoldsState(ctx);
  if (!held) return undefined;
  if (!isDemoWorkspace(ctx)) return `holds state (${held})`;
  const symbols = readSymbols(ctx);
  for (const [k, v] of Object.entries(wave.symbols)) {
    if (Object.hasOwn(symbols, k) && symbols[k] !== v) return `is a demo workspace whose symbol ${k} was changed to ${JSON.stringify(symbols[k])} since the demo wrote it`;
  }
  const facts = readFacts(ctx);
  for (const [k, v] of Object.entries(wave.facts ?? {})) {
    if (Object.hasOwn(facts, k) && facts[k] !== v) return `is a demo workspace whose fact ${k} was changed since the demo wrote it`;
  }
  for (const c of wave.capsules) {
    const file = capsulePath(ctx, c.id);
    if (!fs.existsSync(file)) continue;
    const ours = renderCapsule(c.id, c);
    if (fs.readFileSync(file, 'utf8') !== ours) return `is a demo workspace whose capsule ${c.id} was changed since the demo wrote it`;
  }
  return undefined;
}

export function runDemo(ctx: Ctx, opts: { fixture?: string; run?: string } = {}): DemoResult {
  const dir = opts.fixture ?? defaultFixtureDir();
  const wave = loadWave(dir);
  const plan = readText(dir, 'PLAN.md');
  const context = readText(dir, 'CONTEXT.md');
  const invariants = readText(dir, wave.invariants);
  const run = opts.run ?? ctx.ids.next('demo-');
  const count = (label: string, text: string): DemoText => ({ label, text, tokens: ctx.tokenizer.count(text) });
  // The demo writes symbols, capsules, a fact and ledger lines: never in a workspace with state,
  // except a demo workspace of its own where every value it writes is already the same.
  const refusal = demoRefusal(ctx, wave);
  if (refusal) throw new HeimdallError('conflict', `the demo does not run in ${ctx.root}, which ${refusal}. Run it in a new folder (heimdall-protocol demo picks one and prints it).`);
  initPlanning(ctx);
  markDemoWorkspace(ctx, dir);
  logAction(ctx, 'protocol', 'demo', `start run ${run} (fixture ${path.basename(dir)}, ${wave.tasks.length} spawns)`);

  // v1: everything restated into every brief; results come back as prose.
  const v1Briefs = wave.tasks.map((t) =>
    count(`v1 brief ${t.task}`, [`# Brief for task ${t.task}`, t.assignment, '', plan, '', '# Prior context', context, '', invariants].join('\n')),
  );
  const v1Results = wave.tasks.map((t) => count(`v1 result ${t.task}`, t.prose_result));
  const v1Total = [...v1Briefs, ...v1Results].reduce((s, x) => s + x.tokens, 0);
  recordRun(ctx, {
    run,
    kind: 'demo',
    workspace: path.basename(dir),
    tokenizer: ctx.tokenizer.name,
    arms: {
      v1: `without Heimdall: the plan, the criteria, the prior-wave context and the invariants restated into each of ${wave.tasks.length} briefs, and prose results`,
      v2: `with Heimdall: the symbol table written once, ${wave.tasks.length} delta briefs and ${wave.tasks.length} typed task_result messages`,
    },
    details: { fixture: path.basename(dir), wave: wave.wave, spawns: wave.tasks.length },
  });
  logTokensBatch(
    ctx,
    [
      ...wave.tasks.map((t, i) => ({ role: 'orchestration', kind: 'brief', msgId: `${run}-v1-brief-${t.task}`, text: (v1Briefs[i] as DemoText).text, run, arm: 'v1' as const })),
      ...wave.tasks.map((t, i) => ({ role: 'orchestration', kind: 'prose_result', msgId: `${run}-v1-result-${t.task}`, text: (v1Results[i] as DemoText).text, run, arm: 'v1' as const })),
    ],
    `demo run ${run}, v1 arm`,
  );

  // v2: state written once (symbols, facts, capsules), then delta briefs and typed results.
  setSymbols(ctx, wave.symbols);
  for (const [k, v] of Object.entries(wave.facts ?? {})) setFact(ctx, k, v);
  for (const c of wave.capsules) writeCapsule(ctx, c.id, c);
  const tableText = `${Object.entries(wave.symbols)
    .map(([k, v]) => `${k}\t${v}`)
    .join('\n')}\n`;
  const symbolTable = count('v2 symbol table', tableText);
  logTokens(ctx, { role: 'orchestration', kind: 'symbol_table', msgId: `${run}-symbols`, text: tableText, run });

  const v2Briefs = wave.tasks.map((t) => {
    const b = buildBrief(ctx, {
      task: t.task,
      spec: t.spec,
      symbols: t.symbols,
      capsules: t.capsules,
      invariants: wave.invariants,
      role: 'orchestration',
      msgId: `${run}-brief-${t.task}`,
      run,
    });
    return { label: `v2 brief ${t.task}`, text: b.text, tokens: b.tokens };
  });
  const v2Results = wave.tasks.map((t) => {
    const msg = { type: 'task_result', from: t.role ?? 'coder', msg_id: `r${t.task}`, task: t.task, ...t.result };
    const v = validateMessage(msg);
    if (!v.valid) throw new HeimdallError('invalid', `fixture result for task ${t.task} is not a valid task_result: ${v.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`);
    const text = JSON.stringify(msg);
    const e = logTokens(ctx, { role: 'orchestration', kind: 'task_result', msgId: `${run}-result-${t.task}`, text, run });
    return { label: `v2 result ${t.task}`, text, tokens: e.tokens };
  });
  const v2Total = symbolTable.tokens + [...v2Briefs, ...v2Results].reduce((s, x) => s + x.tokens, 0);

  const d = computeDelta(ctx, 'orchestration', { run });
  if (d.measured !== v2Total || d.baseline !== v1Total) {
    throw new HeimdallError('internal', `the ledger holds ${d.baseline} -> ${d.measured} tokens for run ${run} but the demo counted ${v1Total} -> ${v2Total}`);
  }
  const deltaLine = d.line.replace(' (v1 baseline -> measured; ', ' (');
  const card = `orchestration: ${short(v1Total)} → ${v2Total} tokens, measured`;
  const n = wave.tasks.length;
  const lines = [
    `v1 orchestration (briefing ${n} spawns, verbatim): ${v1Total} tokens (baseline)`,
    `v2 orchestration (symbol table + ${n} delta briefs + ${n} typed results): ${v2Total} tokens`,
    `measured delta: ${deltaLine}`,
    `The summary-card line: ${card}.`,
    `tokenizer: ${ctx.tokenizer.name}`,
  ];
  logAction(ctx, 'protocol', 'demo', `run ${run}: ${d.line}`);
  return {
    fixture: dir,
    run,
    tokenizer: ctx.tokenizer.name,
    v1: { total: v1Total, briefs: v1Briefs, results: v1Results },
    v2: { total: v2Total, symbolTable, briefs: v2Briefs, results: v2Results },
    delta: d.line,
    pct: d.pct,
    card,
    lines,
  };
}



