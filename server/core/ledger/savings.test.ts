import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpCtx } from '../../testing/fixtures.js';
import type { Ctx } from '../context.js';
import { type LogInput, logTokens, logTokensBatch, readLedger, setBaseline } from './ledger.js';
import { recordRun } from './runs.js';
import { NO_RUN, changePct, computeDelta, formatPct, roundPct, savings, scopeLines } from './savings.js';

type TestCtx = ReturnType<typeof tmpCtx>;

/** A demo-shaped run: v1 and v2 lines of one role, and a record. */
function run(ctx: TestCtx, id: string, v1: number[], v2: number[], role = 'orchestration'): void {
  recordRun(ctx, { run: id, kind: 'demo', workspace: 'exchange-lob', tokenizer: ctx.tokenizer.name, arms: { v1: 'verbatim briefs', v2: 'delta briefs' } });
  const lines: LogInput[] = [
    ...v1.map((tokens, i) => ({ role, kind: 'brief', tokens, msgId: `${id}-v1-${i}`, run: id, arm: 'v1' as const })),
    ...v2.map((tokens, i) => ({ role, kind: 'brief', tokens, msgId: `${id}-v2-${i}`, run: id })),
  ];
  logTokensBatch(ctx, lines, id);
  ctx.clock.advance(60_000);
}

/** Rewrite ledger.jsonl without the lines `drop` selects (a person editing the file by hand). */
function dropLines(ctx: Ctx, drop: (e: Record<string, unknown>) => boolean): number {
  const lines = fs.readFileSync(ctx.paths.ledger, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const kept = lines.filter((l) => !drop(JSON.parse(l)));
  fs.writeFileSync(ctx.paths.ledger, kept.map((l) => `${l}\n`).join(''));
  return lines.length - kept.length;
}

describe('one rounding rule', () => {
  it('rounds half away from zero, so a change and its saving are the same number', () => {
    expect(roundPct(-72.5)).toBe(-73);
    expect(roundPct(72.5)).toBe(73);
    expect(roundPct(-0.4)).toBe(0);
    expect(Object.is(roundPct(-0.4), 0)).toBe(true);
    // 40000 -> 11000 is -72.5%: the old card said 72% and the chart 73%.
    expect(changePct(40000, 11000)).toBe(-73);
    expect(changePct(0, 10)).toBeUndefined();
    expect(formatPct(-72.5)).toBe('-73%');
    expect(formatPct(25)).toBe('+25%');
  });

  it('gives the card, the chart point and the delta the same figure for a -72.5% run', () => {
    const ctx = tmpCtx();
    run(ctx, 'half', [40000], [11000]);
    const s = savings(ctx);
    expect(s.roles[0]).toMatchObject({ baseline: 40000, tokens: 11000, pct: -73, saved_pct: 73 });
    expect(s.runs[0]?.saved).toEqual({ orchestration: 73 });
    expect(s.total).toMatchObject({ baseline: 40000, tokens: 11000, saved_pct: 73 });
    expect(computeDelta(ctx, 'orchestration').line).toBe('orchestration: 40000 -> 11000 tokens (v1 baseline -> measured; -73%)');
  });
});

describe('savings per run', () => {
  it('compares each run with its own v1 lines, never a sum of runs against one baseline', () => {
    const ctx = tmpCtx();
    run(ctx, 'demo-a', [20000, 21000], [5000, 6250]);
    run(ctx, 'demo-b', [30000, 11000], [3000, 4000]);
    const a = savings(ctx, { run: 'demo-a' });
    expect(a).toMatchObject({ run: 'demo-a', kind: 'demo', workspace: 'exchange-lob', baseline: 'run', arms: { v1: 'verbatim briefs', v2: 'delta briefs' } });
    expect(a.roles).toEqual([{ role: 'orchestration', entries: 2, tokens: 11250, counted_tokens: 0, reported_tokens: 11250, baseline: 41000, pct: -73, saved_pct: 73 }]);
    expect(a.compared_with).toMatch(/v1 lines of this run/);
    const b = savings(ctx, { run: 'demo-b' });
    expect(b.roles[0]).toMatchObject({ baseline: 41000, tokens: 7000, saved_pct: 83 });
    // The default view is the latest run, and the picker lists both, newest first, with the same figures.
    expect(savings(ctx).run).toBe('demo-b');
    expect(b.runs.map((r) => [r.run, r.saved])).toEqual([
      ['demo-b', { orchestration: 83 }],
      ['demo-a', { orchestration: 73 }],
    ]);
    expect(b.runs[1]?.label).toBe('demo-a · demo, exchange-lob · 2026-06-11 12:07 UTC');
    expect(computeDelta(ctx, 'orchestration', { run: 'demo-a' })).toMatchObject({ baseline: 41000, measured: 11250, pct: -73, baseline_source: 'run' });
  });

  it("loses a run's saving when its v1 lines are deleted: no baseline, never 100%", () => {
    const ctx = tmpCtx();
    run(ctx, 'r1', [40000], [10000]);
    run(ctx, 'r2', [40000], [8000]);
    expect(savings(ctx, { run: 'r1' }).roles[0]?.saved_pct).toBe(75);
    expect(dropLines(ctx, (e) => e.run === 'r1' && e.arm === 'v1')).toBe(1);
    const s = savings(ctx, { run: 'r1' });
    expect(s.baseline).toBe('none');
    expect(s.roles).toEqual([{ role: 'orchestration', entries: 1, tokens: 10000, counted_tokens: 0, reported_tokens: 10000 }]);
    expect(s.total).toBeUndefined();
    expect(s.compared_with).toMatch(/No baseline/);
    expect(s.runs.find((r) => r.run === 'r1')?.saved).toEqual({});
    expect(() => computeDelta(ctx, 'orchestration', { run: 'r1' })).toThrow(/no baseline for role orchestration in run r1/);
    // The other run keeps its own figure.
    expect(savings(ctx, { run: 'r2' }).roles[0]?.saved_pct).toBe(80);
  });

  it('leaves out a role without measured lines in the run instead of showing it 100% saved', () => {
    const ctx = tmpCtx();
    recordRun(ctx, { run: 'both', kind: 'demo', workspace: 'w', tokenizer: ctx.tokenizer.name, arms: {} });
    logTokensBatch(ctx, [
      { role: 'orchestration', kind: 'b', tokens: 1000, msgId: 'o1', run: 'both', arm: 'v1' },
      { role: 'orchestration', kind: 'b', tokens: 300, msgId: 'o2', run: 'both' },
      { role: 'coder', kind: 'b', tokens: 40, msgId: 'c1', run: 'both', arm: 'v1' },
      { role: 'coder', kind: 'b', tokens: 10, msgId: 'c2', run: 'both' },
    ], 'both');
    expect(savings(ctx).roles.map((r) => [r.role, r.saved_pct])).toEqual([
      ['coder', 75],
      ['orchestration', 70],
    ]);
    expect(dropLines(ctx, (e) => e.role === 'coder' && e.arm === undefined)).toBe(1);
    const s = savings(ctx);
    expect(s.roles.map((r) => r.role)).toEqual(['orchestration']);
    expect(s.runs[0]?.saved).toEqual({ orchestration: 70 });
    expect(s.total).toMatchObject({ baseline: 1000, tokens: 300 });
    expect(() => computeDelta(ctx, 'coder')).toThrow(/role coder has no measured lines in run both/);
  });

  it('compares with the lean arm too when the run has one', () => {
    const ctx = tmpCtx();
    logTokensBatch(ctx, [
      { role: 'orchestration', kind: 'b', tokens: 1000, msgId: 'a', run: 'g', arm: 'v1' },
      { role: 'orchestration', kind: 'b', tokens: 400, msgId: 'b', run: 'g', arm: 'lean' },
      { role: 'orchestration', kind: 'b', tokens: 300, msgId: 'c', run: 'g' },
    ], 'g');
    const s = savings(ctx);
    expect(s.roles[0]).toMatchObject({ baseline: 1000, lean: 400, tokens: 300, saved_pct: 70, saved_vs_lean_pct: 25 });
    expect(s.total).toMatchObject({ lean: 400, saved_vs_lean_pct: 25 });
    expect(s.label).toBe('g · no run record · 2026-06-11 12:07 UTC');
  });
});

describe('lines from before runs had baselines', () => {
  it('keeps the spec line for hand-logged lines against baselines.json, and says so', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', tokens: 3300, msgId: 'b1' });
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', tokens: 7950, msgId: 'b2' });
    logTokens(ctx, { role: 'coder', kind: 'task_result', tokens: 250, msgId: 'm1' });
    setBaseline(ctx, 'orchestration', 41000);
    setBaseline(ctx, 'review', 9000);
    const s = savings(ctx);
    expect(s).toMatchObject({ run: NO_RUN, baseline: 'workspace', label: 'Lines without a run' });
    expect(s.compared_with).toMatch(/baselines\.json/);
    expect(s.arms.v1).toMatch(/baselines\.json/);
    // review has a baseline but no line: absent. coder has lines but no baseline: no percentage.
    expect(s.roles.map((r) => [r.role, r.baseline, r.pct])).toEqual([
      ['coder', undefined, undefined],
      ['orchestration', 41000, -73],
    ]);
    expect(computeDelta(ctx, 'orchestration').line).toBe('orchestration: 41000 -> 11250 tokens (v1 baseline -> measured; -73%)');
    expect(() => computeDelta(ctx, 'review')).toThrow(/role review has no measured lines among the lines without a run/);
    expect(s.workspace).toBe(ctx.root.split('/').at(-2));
  });

  it('compares a run without v1 lines with baselines.json, saying it may come from another run; without one, shows no saving', () => {
    const ctx = tmpCtx();
    logTokens(ctx, { role: 'orchestration', kind: 'b', tokens: 500, msgId: 'a', run: 'old' });
    expect(savings(ctx)).toMatchObject({ run: 'old', baseline: 'none' });
    expect(savings(ctx).roles[0]?.pct).toBeUndefined();
    setBaseline(ctx, 'orchestration', 2000);
    const s = savings(ctx, { run: 'old' });
    expect(s).toMatchObject({ baseline: 'workspace' });
    expect(s.compared_with).toMatch(/has no v1 lines of its own.*may come from a different run/);
    expect(s.roles[0]).toMatchObject({ baseline: 2000, tokens: 500, saved_pct: 75 });
  });
});

describe('choosing a scope', () => {
  it('answers an empty ledger, an unknown run and a bad run id clearly', () => {
    const ctx = tmpCtx();
    const empty = savings(ctx);
    expect(empty).toMatchObject({ run: null, roles: [], runs: [], baseline: 'none', total_tokens: 0 });
    expect(() => computeDelta(ctx, 'nobody')).toThrow(/no baseline for role nobody; record one with: heimdall-ledger baseline/);
    run(ctx, 'r1', [10], [5]);
    expect(() => savings(ctx, { run: 'nope' })).toThrow(/no run "nope" in the ledger; runs, newest first: r1/);
    expect(() => savings(ctx, { run: '../x' })).toThrow(/invalid run id/);
    expect(() => savings(ctx, { run: NO_RUN })).toThrow(/no lines without a run/);
  });

  it('lists a recorded run that has no lines yet, with nothing to compare', () => {
    const ctx = tmpCtx();
    recordRun(ctx, { run: 'planned', kind: 'bench-gsd', workspace: 'HYDRA', tokenizer: 't', arms: { v1: 'x' } });
    const s = savings(ctx);
    expect(s).toMatchObject({ run: 'planned', workspace: 'HYDRA', tokenizer: 't', roles: [], baseline: 'none' });
    expect(s.gsd?.plans).toEqual([]);
  });

  it('gives the latest lines of the chosen scope, newest first', () => {
    const ctx = tmpCtx();
    run(ctx, 'r1', [10], [5]);
    logTokens(ctx, { role: 'o', kind: 'k', tokens: 1, msgId: 'free' });
    run(ctx, 'r2', [20, 30], [6]);
    expect(scopeLines(ctx).entries.map((e) => e.msg_id)).toEqual(['r2-v2-0', 'r2-v1-1', 'r2-v1-0']);
    expect(scopeLines(ctx, { run: 'r1', limit: 1 })).toMatchObject({ run: 'r1', total: 2, entries: [{ msg_id: 'r1-v2-0' }] });
    expect(scopeLines(ctx, { run: NO_RUN }).entries.map((e) => e.msg_id)).toEqual(['free']);
    expect(() => scopeLines(ctx, { limit: 0 })).toThrow(/limit must be an integer from 1 to 1000/);
  });
});

/** Texts whose token counts differ per arm, counted by the real tokenizer. */
const words = (n: number, w: string) => Array.from({ length: n }, (_, i) => `${w}${i}`).join(' ');

function gsdRun(ctx: TestCtx, details: unknown): Record<string, Record<string, number>> {
  const plans = [
    { phase: '01-core', plan: '01-01', size: 400 },
    { phase: '01-core', plan: '01-02', size: 300 },
    { phase: '02-api', plan: '02-01', size: 200 },
  ];
  const lines: LogInput[] = [];
  for (const p of plans) {
    lines.push({ role: 'orchestration', kind: 'plan_read', msgId: `g-${p.plan}-v1`, text: words(p.size, 'context'), run: 'gsd-1', arm: 'v1', phase: p.phase, plan: p.plan });
    lines.push({ role: 'orchestration', kind: 'plan_read', msgId: `g-${p.plan}-lean`, text: words(p.size / 2, 'lean'), run: 'gsd-1', arm: 'lean', phase: p.phase, plan: p.plan });
    lines.push({ role: 'orchestration', kind: 'delta_brief', msgId: `g-${p.plan}-v2`, text: words(p.size / 5, 'brief'), run: 'gsd-1', phase: p.phase, plan: p.plan });
  }
  recordRun(ctx, { run: 'gsd-1', kind: 'bench-gsd', workspace: 'HYDRA', tokenizer: ctx.tokenizer.name, arms: { v1: 'PLAN.md and its context', lean: 'PLAN.md alone', v2: 'delta brief' }, details });
  const written = logTokensBatch(ctx, lines, 'bench gsd-1');
  const byPlan: Record<string, Record<string, number>> = {};
  for (const e of written) {
    const k = e.plan as string;
    byPlan[k] = byPlan[k] ?? {};
    (byPlan[k] as Record<string, number>)[e.arm ?? 'v2'] = e.tokens;
  }
  return byPlan;
}

const DETAILS = {
  total: { v1_tokens: 1, lean_tokens: 1, v2_tokens: 1, saving_pct: 80.1, saving_vs_lean_pct: 60, completeness_pct: 100, plans_found: 4, plans_imported: 3, recall_pct: 97.5 },
  phases: [{ phase: '01-core', recall: 95 }, { phase: '02-api', recall: { pct: 100 } }],
  plans: [
    { id: '01-01', path: 'phases/01-core/01-01-PLAN.md', v1_tokens: 1, recall: 90 },
    { id: '01-02', path: 'phases/01-core/01-02-PLAN.md', recall: { pct: 100, missing: [] } },
    { id: '02-01', path: 'phases/02-api/02-01-PLAN.md', recall: 100 },
  ],
  ablation: {
    no_units: { v2_tokens: 900, saving_pct: 70.2, recall_pct: 99, label: 'v2 without unit resolution' },
    no_capsules: { v2_tokens: 700, saving_pct: 75 },
    no_symbols: { v2_tokens: 800, saving_pct: 72 },
  },
};

describe('a GSD bench run', () => {
  it('shows three arms per phase and per plan from the lines, and recall and ablation from the record', () => {
    const ctx = tmpCtx();
    const t = gsdRun(ctx, DETAILS);
    const s = savings(ctx, { run: 'gsd-1' });
    const g = s.gsd;
    expect(g).toBeDefined();
    if (!g) return;
    const p11 = t['01-01'] as Record<string, number>;
    expect(g.plans[0]).toEqual({
      plan: '01-01',
      phase: '01-core',
      path: 'phases/01-core/01-01-PLAN.md',
      v1: p11.v1,
      lean: p11.lean,
      v2: p11.v2,
      saved_pct: -(changePct(p11.v1 as number, p11.v2 as number) as number),
      saved_vs_lean_pct: -(changePct(p11.lean as number, p11.v2 as number) as number),
      recall_pct: 90,
    });
    expect(g.plans.map((p) => [p.plan, p.recall_pct])).toEqual([
      ['01-01', 90],
      ['01-02', 100],
      ['02-01', 100],
    ]);
    const core = g.phases[0];
    expect(core).toMatchObject({ phase: '01-core', plans: 2, recall_pct: 95 });
    expect(core?.v1).toBe((t['01-01']?.v1 ?? 0) + (t['01-02']?.v1 ?? 0));
    expect(g.phases[1]).toMatchObject({ phase: '02-api', plans: 1, v2: t['02-01']?.v2, recall_pct: 100 });
    // The whole run: the same sums as the role's figures.
    expect(g.total).toMatchObject({ v1: s.roles[0]?.baseline, lean: s.roles[0]?.lean, v2: s.roles[0]?.tokens, saved_pct: s.roles[0]?.saved_pct, completeness_pct: 100, plans_found: 4, plans_imported: 3, recall_pct: 97.5 });
    expect(g.ablation).toEqual([
      { name: 'no_units', label: 'v2 without unit resolution', figures: { v2_tokens: 900, saving_pct: 70.2, recall_pct: 99 } },
      { name: 'no_capsules', figures: { v2_tokens: 700, saving_pct: 75 } },
      { name: 'no_symbols', figures: { v2_tokens: 800, saving_pct: 72 } },
    ]);
    expect(g.missing).toEqual([]);
  });

  it('moves when a plan is measured differently: a longer v2 brief lowers that plan, its phase and the run', () => {
    const ctx = tmpCtx();
    gsdRun(ctx, DETAILS);
    const before = savings(ctx).gsd;
    logTokens(ctx, { role: 'orchestration', kind: 'delta_brief', msgId: 'g-02-01-v2b', text: words(150, 'more'), run: 'gsd-1', phase: '02-api', plan: '02-01' });
    const after = savings(ctx).gsd;
    expect(after?.plans[2]?.saved_pct).toBeLessThan(before?.plans[2]?.saved_pct as number);
    expect(after?.phases[1]?.saved_pct).toBeLessThan(before?.phases[1]?.saved_pct as number);
    expect(after?.total.saved_pct).toBeLessThan(before?.total.saved_pct as number);
    expect(after?.plans[0]).toEqual(before?.plans[0]);
    // Deleting a plan's v1 line takes its saving away (and lowers the phase's v1), never 100%.
    dropLines(ctx, (e) => e.plan === '01-02' && e.arm === 'v1');
    const cut = savings(ctx).gsd;
    expect(cut?.plans[1]?.v1).toBeUndefined();
    expect(cut?.plans[1]?.saved_pct).toBeUndefined();
    expect(cut?.plans[1]?.saved_vs_lean_pct).toBeDefined();
  });

  it('shows what a partial record has and names what it lacks', () => {
    const ctx = tmpCtx();
    gsdRun(ctx, { total: { completeness_pct: 98.2 }, plans: [{ id: '01-01', path: 'p.md' }] });
    const g = savings(ctx).gsd;
    expect(g?.plans).toHaveLength(3);
    expect(g?.plans[0]).toMatchObject({ path: 'p.md', v1: expect.any(Number) });
    expect(g?.plans[0]?.recall_pct).toBeUndefined();
    expect(g?.total.completeness_pct).toBe(98.2);
    expect(g?.ablation).toEqual([]);
    expect(g?.missing).toEqual(['phases', 'recall', 'total.plans_found', 'total.plans_imported', 'ablation']);

    const bare = tmpCtx();
    gsdRun(bare, undefined);
    expect(savings(bare).gsd?.missing).toEqual(['details']);
    expect(savings(bare).gsd?.phases.map((p) => p.phase)).toEqual(['01-core', '02-api']);
    // A hand-broken details object is read as far as it goes.
    const odd = tmpCtx();
    gsdRun(odd, { plans: 'all of them', ablation: [{ name: 'no_units', v2_tokens: 12 }, 'junk', { id: 'no_capsules', note: 'n/a' }] });
    expect(savings(odd).gsd?.ablation).toEqual([{ name: 'no_units', figures: { v2_tokens: 12 } }]);
    expect(savings(odd).gsd?.missing).toEqual(['plans', 'phases', 'recall', 'total']);
  });

  it('reads the bench JSON of `heimdall bench gsd --record`: recall per arm, ablation rows, plans of several trees', () => {
    const ctx = tmpCtx();
    const lines: LogInput[] = [];
    for (const tree of ['HYDRA', 'kite']) {
      for (const [arm, tokens] of [['v1', 900], ['lean', 400], ['v2', 200]] as const) {
        lines.push({ role: 'orchestration', kind: 'gsd_brief', msgId: `b.${tree}.01-01.${arm}`, tokens, run: 'b', arm, phase: `${tree}.01-core`, plan: `${tree}.01-01` });
      }
    }
    logTokensBatch(ctx, lines, 'bench b');
    const recall = (v2: number) => ({ v1: 100, lean: 88, v2, items: 40, present: 39, missing: [] });
    recordRun(ctx, {
      run: 'b',
      kind: 'bench-gsd',
      workspace: 'fixtures',
      tokenizer: ctx.tokenizer.name,
      arms: { v1: 'a', lean: 'b', v2: 'c' },
      details: {
        total: { plans_found: 3, plans_imported: 2, completeness_pct: 97.5, recall: { v1: 100, lean: 88, v2: 97.5, items: 80 } },
        phases: [
          { tree: 'HYDRA', phase: '01-core', recall: { v1: 100, lean: 90, v2: 100, items: 40 } },
          { tree: 'kite', phase: '01-core', recall: { v1: 100, lean: 86, v2: 95, items: 40 } },
        ],
        plans: [
          { tree: 'HYDRA', id: '01-01', path: 'HYDRA/.planning/phases/01-core/01-01-PLAN.md', recall: recall(100) },
          { tree: 'kite', id: '01-01', path: 'kite/.planning/phases/01-core/01-01-PLAN.md', recall: recall(95) },
        ],
        ablation: [
          { arm: 'lean', label: 'lean (no Heimdall)', tokens: 800, recall: 88, over_v2: 400 },
          { arm: 'no_units', label: 'v2 without unit resolution', tokens: 700, recall: 97.5, over_v2: 300 },
          { arm: 'v2', label: 'v2 (all mechanisms)', tokens: 400, recall: 97.5, over_v2: 0 },
        ],
      },
    });
    const g = savings(ctx).gsd;
    expect(g?.missing).toEqual([]);
    expect(g?.plans.map((p) => [p.plan, p.path, p.recall_pct, p.recall_arms])).toEqual([
      ['HYDRA.01-01', 'HYDRA/.planning/phases/01-core/01-01-PLAN.md', 100, { v1: 100, lean: 88, v2: 100 }],
      ['kite.01-01', 'kite/.planning/phases/01-core/01-01-PLAN.md', 95, { v1: 100, lean: 88, v2: 95 }],
    ]);
    expect(g?.phases.map((p) => [p.phase, p.recall_pct, p.v1, p.lean, p.v2, p.saved_pct, p.saved_vs_lean_pct])).toEqual([
      ['HYDRA.01-core', 100, 900, 400, 200, 78, 50],
      ['kite.01-core', 95, 900, 400, 200, 78, 50],
    ]);
    expect(g?.total).toMatchObject({ v1: 1800, lean: 800, v2: 400, recall_pct: 97.5, recall_arms: { v1: 100, lean: 88, v2: 97.5 }, completeness_pct: 97.5, plans_found: 3, plans_imported: 2 });
    expect(g?.ablation.map((a) => [a.name, a.label, a.figures])).toEqual([
      ['lean', 'lean (no Heimdall)', { tokens: 800, recall: 88, over_v2: 400 }],
      ['no_units', 'v2 without unit resolution', { tokens: 700, recall: 97.5, over_v2: 300 }],
      ['v2', 'v2 (all mechanisms)', { tokens: 400, recall: 97.5, over_v2: 0 }],
    ]);
  });

  it("counts every measured token of the run, with the run record's tokenizer", () => {
    const ctx = tmpCtx();
    gsdRun(ctx, DETAILS);
    const lines = readLedger(ctx).entries;
    const v2 = lines.filter((e) => e.arm === undefined).reduce((s, e) => s + e.tokens, 0);
    expect(savings(ctx).roles[0]?.tokens).toBe(v2);
    expect(savings(ctx).roles[0]?.counted_tokens).toBe(v2);
    expect(savings(ctx).tokenizer).toBe(ctx.tokenizer.name);
  });
});
