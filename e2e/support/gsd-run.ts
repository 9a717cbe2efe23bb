/**
 * A GSD-bench-shaped run, written exactly as `heimdall bench gsd DIR --record` writes one (the
 * shared contract of server/core/ledger/runs.ts): per plan, one ledger line per arm (v1, lean, v2)
 * with its phase and plan, counted with the real tokenizer from real text, in one `logTokensBatch`,
 * and a `bench-gsd` run record whose details are the bench's JSON in the shape
 * server/core/gsd/bench.ts writes it (totals, phases and plans with recall per arm, ablation rows). The texts are synthetic; every token figure is counted, none is typed in.
 *
 * Run as a script (e2e/support/gsd.ts does): node --import tsx e2e/support/gsd-run.ts PLANNING_DIR RUN CREATED_ISO [partial]
 * ("partial" leaves recall and the ablation out of the details, as an older bench would).
 */
import { pathToFileURL } from 'node:url';
import { type LogInput, fixedClock, logTokensBatch, makeCtx, recordRun, sequentialIds } from '../../server/core/index.js';
import { GSD_WORKSPACE } from './gsd.js';


/**
 * Phases and plans of the synthetic project: how much each arm carries (in paragraphs), and the
 * content recall of lean and v2 (v1 carries everything: 100%).
 */
const PLANS: { phase: string; plan: string; v1: number; lean: number; v2: number; recall: number; leanRecall: number }[] = [
  { phase: '01-foundation', plan: '01-01', v1: 14, lean: 6, v2: 3, recall: 100, leanRecall: 92 },
  { phase: '01-foundation', plan: '01-02', v1: 11, lean: 5, v2: 2, recall: 100, leanRecall: 85 },
  { phase: '02-ingest', plan: '02-01', v1: 18, lean: 7, v2: 3, recall: 95, leanRecall: 80 },
  { phase: '02-ingest', plan: '02-02', v1: 9, lean: 4, v2: 2, recall: 100, leanRecall: 90 },
  { phase: '02-ingest', plan: '02-03', v1: 12, lean: 5, v2: 3, recall: 90, leanRecall: 88 },
  { phase: '03-reports', plan: '03-01', v1: 16, lean: 8, v2: 4, recall: 100, leanRecall: 95 },
];

const SENTENCES = [
  'The ingest worker reads each statement file and writes one row per transaction into the ledger table.',
  'Amounts are stored as integer cents; a parse failure names the file, the line and the column.',
  'The reconciliation job matches bank rows to ledger rows by date, amount and reference within two days.',
  'Reports are rendered from the read model only; nothing in the report path writes to the ledger.',
  'Every migration is reversible and is checked against a copy of production data before it ships.',
];

function text(arm: string, plan: string, paragraphs: number): string {
  const out: string[] = [`# ${arm} brief for plan ${plan}`];
  for (let i = 0; i < paragraphs; i++) out.push(`## Section ${i + 1}`, SENTENCES.map((s, j) => `${s} (${plan}.${i}.${j})`).join(' '));
  return out.join('\n');
}

export function recordGsdRun(planning: string, run: string, createdIso: string, opts: { partial?: boolean } = {}): void {
  const ctx = makeCtx(planning, { clock: fixedClock(Date.parse(createdIso)), ids: sequentialIds('g') });
  const inputs: LogInput[] = [];
  for (const p of PLANS) {
    for (const arm of ['v1', 'lean', 'v2'] as const) {
      inputs.push({
        role: 'orchestration',
        kind: arm === 'v2' ? 'delta_brief' : 'plan_read',
        msgId: `${run}-${p.plan}-${arm}`,
        text: text(arm, p.plan, p[arm]),
        run,
        ...(arm === 'v2' ? {} : { arm }),
        phase: p.phase,
        plan: p.plan,
      });
    }
  }
  const counted = inputs.map((i) => ctx.tokenizer.count(i.text as string));
  const at = (plan: string, arm: string) => counted[inputs.findIndex((i) => i.plan === plan && (i.arm ?? 'v2') === arm)] as number;
  const sum = (plans: typeof PLANS, arm: string) => plans.reduce((s, p) => s + at(p.plan, arm), 0);
  const pct = (a: number, b: number) => Math.round(((a - b) / a) * 1000) / 10;
  const figures = (plans: typeof PLANS) => {
    const v1 = sum(plans, 'v1');
    const lean = sum(plans, 'lean');
    const v2 = sum(plans, 'v2');
    return { v1_tokens: v1, lean_tokens: lean, v2_tokens: v2, saving_pct: pct(v1, v2), saving_vs_lean_pct: pct(lean, v2) };
  };
  const phases = [...new Set(PLANS.map((p) => p.phase))];
  // Recall as the bench writes it: one figure per arm over the same items (40 per plan here).
  const recall = (plans: typeof PLANS) => ({
    v1: 100,
    lean: Math.floor((plans.reduce((s, p) => s + p.leanRecall, 0) / plans.length) * 10) / 10,
    v2: Math.floor((plans.reduce((s, p) => s + p.recall, 0) / plans.length) * 10) / 10,
    items: 40 * plans.length,
  });
  const v2 = sum(PLANS, 'v2');
  const r = recall(PLANS);
  const details = {
    tokenizer: ctx.tokenizer.name,
    run,
    total: { plans: PLANS.length, ...figures(PLANS), completeness_pct: r.v2, plans_found: PLANS.length + 1, plans_imported: PLANS.length, ...(opts.partial ? {} : { recall: r }) },
    phases: phases.map((ph) => {
      const mine = PLANS.filter((p) => p.phase === ph);
      return { tree: GSD_WORKSPACE, phase: ph, ...figures(mine), ...(opts.partial ? {} : { recall: recall(mine) }) };
    }),
    plans: PLANS.map((p) => ({
      tree: GSD_WORKSPACE,
      id: p.plan,
      phase: p.phase,
      path: `.planning/phases/${p.phase}/${p.plan}-PLAN.md`,
      ...figures([p]),
      ...(opts.partial ? {} : { recall: { ...recall([p]), present: Math.round((p.recall / 100) * 40), missing: p.recall < 100 ? ['a cited unit'] : [] } }),
    })),
    ...(opts.partial
      ? {}
      : {
          ablation: [
            { arm: 'lean', label: 'lean (no Heimdall)', tokens: sum(PLANS, 'lean'), recall: r.lean, over_v2: sum(PLANS, 'lean') - v2 },
            { arm: 'no_units', label: 'v2 without unit resolution (referenced files read whole)', tokens: Math.round(v2 * 1.18), recall: 97.5, over_v2: Math.round(v2 * 1.18) - v2 },
            { arm: 'no_capsules', label: 'v2 without capsules (SUMMARY files read whole)', tokens: Math.round(v2 * 1.4), recall: 96, over_v2: Math.round(v2 * 1.4) - v2 },
            { arm: 'no_symbols', label: 'v2 without the symbol table (paths and truths as written)', tokens: Math.round(v2 * 1.07), recall: r.v2, over_v2: Math.round(v2 * 1.07) - v2 },
            { arm: 'v2', label: 'v2 (all mechanisms)', tokens: v2, recall: r.v2, over_v2: 0 },
          ],
        }),
  };
  recordRun(ctx, {
    run,
    kind: 'bench-gsd',
    workspace: GSD_WORKSPACE,
    tokenizer: ctx.tokenizer.name,
    arms: {
      v1: 'what a GSD executor reads: PLAN.md and every .planning file its <context> names',
      lean: 'PLAN.md alone, trimmed by hand',
      v2: 'the Heimdall delta brief: task spec, symbol ids, capsule closure',
    },
    details,
    created: createdIso,
  });
  logTokensBatch(ctx, inputs, `bench gsd ${run}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [dir, run, created, mode] = process.argv.slice(2);
  if (!dir || !run || !created) {
    console.error('usage: node --import tsx e2e/support/gsd-run.ts PLANNING_DIR RUN CREATED_ISO [partial]');
    process.exit(2);
  }
  recordGsdRun(dir, run, created, { partial: mode === 'partial' });
  console.log(`gsd-run: recorded ${run} in ${dir}`);
}
