import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { readLedger } from '../ledger/ledger.js';
import { readRun } from '../ledger/runs.js';
import { FIXTURE_NAMES, copyTestdata, hashTree, requireFixtures, syntheticProject, tmp } from './_testkit.js';
import { type BenchResult, type PlanTexts, benchGsd, formatBench } from './bench.js';
import { gsdBrief } from './brief.js';
import { importGsd } from './importer.js';
import { checkRecall, recallItems } from './recall.js';
import { buildGsdBrief } from './brief.js';

const base = () => makeCtx(path.join(tmp(), '.planning'), { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('b') });

let fixtureRun: (BenchResult & { texts?: Map<string, PlanTexts> }) | undefined;
let fixtureHashes: { before: Record<string, string>; after: Record<string, string> } | undefined;
/** One bench over the three real trees (DIR holds several), shared by the tests below. */
function fixtures() {
  if (!fixtureRun) {
    const dir = requireFixtures();
    const before = hashTree(dir);
    fixtureRun = benchGsd(base(), dir, { texts: true });
    fixtureHashes = { before, after: hashTree(dir) };
  }
  return fixtureRun;
}

describe('bench gsd on the three real fixtures (one DIR holding three trees)', () => {
  it('reads every PLAN file, never modifies the trees, and reports 100% v2 recall', () => {
    const r = fixtures();
    expect(fixtureHashes?.after).toEqual(fixtureHashes?.before);
    expect(r.trees.map((t) => t.tree)).toEqual([...FIXTURE_NAMES]);
    expect(r.total.plans_found).toBe(56);
    expect(r.total.plans_imported).toBe(55);
    expect(r.trees.flatMap((t) => t.plan_files.filter((f) => f.status === 'skipped').map((f) => f.file))).toEqual(['phases/05-execution-hardening/PAPER_TRADING_PLAN.md']);
    expect(r.total.completeness_pct).toBe(100);
    expect(r.total.recall.v2).toBe(100);
    for (const p of r.plans) expect(p.recall.missing, `${p.tree}/${p.id}`).toEqual([]);
    expect(r.tokenizer).toMatch(/o200k_base/);
  });

  it('adds up: plans -> phases -> trees -> total, every count recomputed from the texts', () => {
    const r = fixtures();
    const tok = base().tokenizer;
    const sum = (rows: { v1_tokens: number; lean_tokens: number; v2_tokens: number }[], k: 'v1_tokens' | 'lean_tokens' | 'v2_tokens') => rows.reduce((s, p) => s + p[k], 0);
    for (const k of ['v1_tokens', 'lean_tokens', 'v2_tokens'] as const) {
      expect(r.total[k]).toBe(sum(r.plans, k));
      expect(r.total[k]).toBe(sum(r.phases, k));
      expect(r.total[k]).toBe(sum(r.trees, k));
    }
    expect(r.total.saving_pct).toBeCloseTo(((r.total.v1_tokens - r.total.v2_tokens) / r.total.v1_tokens) * 100, 0);
    expect(r.total.saving_vs_lean_pct).toBeCloseTo(((r.total.lean_tokens - r.total.v2_tokens) / r.total.lean_tokens) * 100, 0);
    expect(r.mean_over_trees.saving_pct).toBeCloseTo(r.trees.reduce((s, t) => s + t.saving_pct, 0) / 3, 0);
    for (const p of r.plans) {
      const t = r.texts?.get(`${p.tree}/${p.id}`) as PlanTexts;
      expect(p.v1_tokens).toBe(tok.count(t.v1));
      expect(p.lean_tokens).toBe(tok.count(t.lean));
      expect(p.v2_tokens).toBe(tok.count(t.v2));
      expect(p.path).toBe(`.planning/${t.built.plan.file}`);
      expect(fs.existsSync(path.join(requireFixtures(), p.tree, p.path))).toBe(true);
      // The plan alone, counted from the file on disk: the floor under any brief that carries it.
      expect(p.plan_tokens).toBe(tok.count(fs.readFileSync(path.join(requireFixtures(), p.tree, p.path), 'utf8')));
      expect(p.plan_tokens).toBeLessThanOrEqual(p.v1_tokens);
      // Every plan where v2 costs more than lean says why.
      if (p.v2_tokens > p.lean_tokens) expect(p.over_lean, p.id).toBeTruthy();
      else expect(p.over_lean).toBeUndefined();
    }
    expect(r.over_lean.length).toBe(r.plans.filter((p) => p.v2_tokens > p.lean_tokens).length);
    expect(r.total.plan_tokens).toBe(r.plans.reduce((s, p) => s + p.plan_tokens, 0));
    expect(r.total.plan_only_saving_pct).toBeCloseTo(((r.total.v1_tokens - r.total.plan_tokens) / r.total.v1_tokens) * 100, 0);
  });

  it('v1 holds every context file, lean the read_first and id-cited files, v2 the cited units and what it must still read', () => {
    const r = fixtures();
    const planning = path.join(requireFixtures(), 'BarristanSelmy__hybrid-attendance-tracker', '.planning');
    const t = r.texts?.get('BarristanSelmy__hybrid-attendance-tracker/02-01') as PlanTexts;
    const read = (f: string) => fs.readFileSync(path.join(planning, f), 'utf8');
    const research = read('phases/02-calendar-and-core-loop/02-RESEARCH.md');
    const raw = read('phases/02-calendar-and-core-loop/02-01-PLAN.md');
    expect(t.v1).toContain(raw);
    expect(t.v1).toContain(research);
    // read_first names the research: lean sends it whole.
    expect(t.lean).toContain(research);
    expect(t.lean).not.toContain(read('STATE.md'));
    // v2: the sections the read_first note names, exactly, not the whole research.
    expect(t.v2).not.toContain(research);
    const pattern1 = /### Pattern 1:[\s\S]*?(?=\n### )/.exec(research)?.[0] as string;
    expect(t.v2).toContain(`§ 02-RESEARCH#pattern-1\n${pattern1.trimEnd()}`);
    expect(t.v2).toMatch(/^to units: (.*; )?\.planning\/phases\/02-calendar-and-core-loop\/02-RESEARCH\.md > § 02-RESEARCH#pattern-1(,|$)/m);
    // The read_first note stays in SPEC beside its path; REFS does not repeat it.
    expect(t.v2_resolved).toContain('02-RESEARCH.md (Pattern 1 AppState, minimal test pattern, anti-patterns)\n');
    expect(t.v2.match(/Pattern 1 AppState/g)).toHaveLength(1);
    // The phase CONTEXT is referenced and its note names no section: read whole, and counted.
    expect(t.v2).toContain(`READ .planning/phases/02-calendar-and-core-loop/02-CONTEXT.md\n${read('phases/02-calendar-and-core-loop/02-CONTEXT.md').trimEnd()}`);
    // Requirements cited in the frontmatter, with their text.
    expect(t.v2).toMatch(/^§ milestones\/v1\.0-REQUIREMENTS#FR-1\n### FR-1: Monthly Calendar Grid\nDisplay the current month/m);
    expect(t.v2).not.toContain('<execution_context>');
    expect(t.v2).toContain('INVARIANTS see .planning/PROJECT.md');
    // Every line of every task is there.
    for (const line of raw.split('\n').filter((l) => /^\s*- cycleDay/.test(l))) expect(t.v2_resolved).toContain(line.trim());
  });

  it('resolves a ROADMAP reference to the plan\'s own phase entry and a SUMMARY reference to its capsule', () => {
    const r = fixtures();
    const p = r.plans.find((x) => x.tree === 'FabienStarseed__wind-turbines-reports' && x.id === '02-02');
    expect(p?.refs).toEqual(
      expect.arrayContaining([
        { via: 'context', path: '.planning/ROADMAP.md', resolution: 'units', units: ['ROADMAP#phase-2'] },
        { via: 'context', path: '.planning/phases/02-persistence/02-01-SUMMARY.md', resolution: 'capsule', capsule: '02-01' },
        { via: 'context', path: 'backend/api.py', resolution: 'outside' },
        { via: 'context', path: '.planning/STATE.md', resolution: 'read' },
      ]),
    );
    expect(p?.units.map((u) => u.id)).toEqual(expect.arrayContaining(['02-CONTEXT#area-a', '02-RESEARCH#pattern-2', 'REQUIREMENTS#PERS-01']));
    expect(p?.capsules).toEqual(['02-01']);
  });

  it('shows what each mechanism earns (ablation) and the results side', () => {
    const r = fixtures();
    const row = (arm: string) => r.ablation.find((a) => a.arm === arm);
    expect(row('v2')?.tokens).toBe(r.total.v2_tokens);
    expect(row('lean')?.tokens).toBe(r.total.lean_tokens);
    for (const a of ['no_units', 'no_capsules', 'no_symbols']) {
      expect(row(a)?.tokens, a).toBeGreaterThanOrEqual(r.total.v2_tokens);
      expect(row(a)?.over_v2).toBe((row(a)?.tokens ?? 0) - r.total.v2_tokens);
    }
    expect(row('no_units')?.recall).toBe(100);
    expect(row('no_symbols')?.recall).toBe(100);
    // Without capsules, SUMMARYs a plan reads are read whole, but the results of the plans it only
    // depends on are gone: recall says so.
    expect(row('no_capsules')?.recall).toBeLessThan(100);
    expect(row('no_units')?.over_v2).toBeGreaterThan(100000);
    expect(row('no_capsules')?.over_v2).toBeGreaterThan(10000);
    expect(r.results.plans).toBe(55 - 1); // 03-01 of HYDRA has a summary but no plan; 04-06 of HYDRA has no summary
    expect(r.results.typed_tokens).toBeLessThan(r.results.summary_tokens);
    // Lean drops what plans reference: its recall is below v2's, and says what is missing.
    expect(r.total.recall.lean).toBeLessThan(100);
    expect(r.total.recall_kinds.lean.read[0]).toBeLessThan(r.total.recall_kinds.lean.read[1]);
    expect(r.total.recall_kinds.v2.read[0]).toBe(r.total.recall_kinds.v2.read[1]);
    expect(formatBench(r).join('\n')).toMatch(/^total +55 +\d+ +\d+ +\d+ +-?\d+\.\d% +-?\d+\.\d% +100% +\d+(\.\d)?%$/m);
  });
});

describe('bench gsd: the brief an orchestrator sends is the one the bench counts', () => {
  it('gsdBrief after an import returns exactly the counted v2 text of the bench', () => {
    const project = copyTestdata();
    const r = benchGsd(base(), project, { texts: true });
    const ctx = makeCtx(path.join(project, '.planning'));
    importGsd(ctx);
    for (const p of r.plans) {
      const b = gsdBrief(ctx, p.id);
      expect(b.counted_text, p.id).toBe(r.texts?.get(p.id)?.v2);
      expect(b.total_tokens).toBe(p.v2_tokens);
      expect(b.tokens).toBe(p.brief_tokens);
    }
    expect(gsdBrief(ctx, '1-2b').plan).toBe('01-02b');
    expect(() => gsdBrief(ctx, '09-09')).toThrow(/no plan "09-09".*plans: 01-01/);
  });

  it('carries a plan\'s own decision, the one it names in another phase, and every meaning of an ambiguous one', () => {
    const project = copyTestdata();
    const r = benchGsd(base(), project, { texts: true });
    const v2 = (id: string) => r.texts?.get(id)?.v2 as string;
    // 02-01 cites D-01 (its own phase: append-only) and "D-02 from Phase 1".
    expect(v2('02-01')).toContain('§ 02-CONTEXT#D-01\n- **D-01:** Audit rows are append-only.');
    expect(v2('02-01')).toContain('§ 01-CONTEXT#D-02\n- **D-02:** Login returns 401 on a wrong password, never 404.');
    expect(v2('02-01')).not.toContain('01-CONTEXT#D-01');
    expect(v2('02-01')).not.toContain('Audit rows keep the IP');
    // 01-02: a range D-03–D-04 (the continuation line of D-04 included) and "CONTEXT.md Area A".
    expect(v2('01-02')).toContain('- **D-04:** Sessions expire after 30 minutes of inactivity;\n  a request within the window refreshes them.\n§ ');
    expect(v2('01-02')).toContain('§ 01-CONTEXT#area-a');
    expect(v2('01-02')).toContain('# 01-01\nwhat: login() with argon2id hashing');
    // 03-01 has no CONTEXT: D-04 is defined once (phase 1); D-01 twice, so both are carried and flagged.
    const p3 = r.plans.find((p) => p.id === '03-01');
    expect(p3?.units.filter((u) => u.ambiguous).map((u) => u.id)).toEqual(['01-CONTEXT#D-01', '02-CONTEXT#D-01']);
    expect(p3?.units.map((u) => u.id)).toContain('01-CONTEXT#D-04');
    expect(v2('03-01')).toMatch(/^missing from the tree: \.planning\/phases\/03-extra\/03-RESEARCH\.md$/m);
    // 01-01: read_first names Pitfall 1; the action names Pattern 1; src files are listed, not dropped.
    expect(r.plans.find((p) => p.id === '01-01')?.units.map((u) => u.id)).toEqual([
      'ROADMAP#phase-1',
      '01-CONTEXT#D-01',
      '01-CONTEXT#D-02',
      '01-RESEARCH#pattern-1',
      '01-RESEARCH#pitfall-1',
      'REQUIREMENTS#AUTH-01',
    ]);
    expect(v2('01-01')).toMatch(/^project files \(read them in the repository\): (.*; )?src\/auth\/hash\.ts(;|$)/m);
    expect(v2('01-01')).toMatch(/^GSD's workflow \(replaced by the Heimdall protocol\): (.*; )?workflows\/execute-plan\.md(;|$)/m);
    expect(r.total.completeness_pct).toBe(100);
  });

  it('--emit-briefs writes exactly the counted texts, and the resolved v2 carries no ids', () => {
    const out = path.join(tmp(), 'briefs');
    const project = copyTestdata();
    const r = benchGsd(base(), project, { texts: true, emitBriefs: out });
    expect(r.emitted).toBe(out);
    for (const p of r.plans) {
      const t = r.texts?.get(p.id) as PlanTexts;
      expect(fs.readFileSync(path.join(out, `${p.id}.v1.txt`), 'utf8')).toBe(t.v1);
      expect(fs.readFileSync(path.join(out, `${p.id}.lean.txt`), 'utf8')).toBe(t.lean);
      expect(fs.readFileSync(path.join(out, `${p.id}.v2.txt`), 'utf8')).toBe(t.v2);
      const resolved = fs.readFileSync(path.join(out, `${p.id}.v2.resolved.txt`), 'utf8');
      expect(resolved).not.toMatch(/^SYMBOLS$/m);
      for (const [id, value] of t.built.symbols) {
        expect(resolved).not.toMatch(new RegExp(`(?<![A-Za-z0-9_.-])${id.replace(/\./g, '\\.')}(?![A-Za-z0-9_])`));
        expect(resolved).toContain(value);
      }
    }
    // Several trees: one folder per tree.
    const several = path.join(tmp(), 'several');
    fs.mkdirSync(several);
    fs.cpSync(project, path.join(several, 'a'), { recursive: true });
    fs.cpSync(syntheticProject(), path.join(several, 'b'), { recursive: true });
    const out2 = path.join(tmp(), 'briefs2');
    const r2 = benchGsd(base(), several, { emitBriefs: out2 });
    expect(r2.trees.map((t) => t.tree)).toEqual(['a', 'b']);
    expect(fs.existsSync(path.join(out2, 'a', '01-01.v2.txt'))).toBe(true);
    expect(fs.existsSync(path.join(out2, 'b', '01-01.v2.txt'))).toBe(true);
  });

  it('--record writes one run and one ledger line per plan per arm whose sums are the bench totals; without it nothing is written', () => {
    const project = copyTestdata();
    const before = hashTree(project);
    const ctx = base();
    const plain = benchGsd(ctx, project);
    expect(fs.existsSync(ctx.root)).toBe(false);
    expect(plain.recorded).toBeUndefined();
    const r = benchGsd(ctx, project, { record: true, run: 'gsd-odd-1' });
    expect(hashTree(project)).toEqual(before);
    expect(r.recorded).toEqual({ run: 'gsd-odd-1', lines: r.plans.length * 3, workspace: ctx.root });
    const lines = readLedger(ctx).entries.filter((e) => e.run === 'gsd-odd-1');
    expect(lines).toHaveLength(r.plans.length * 3);
    for (const arm of ['v1', 'lean', 'v2'] as const) {
      const mine = lines.filter((e) => e.arm === arm);
      expect(mine.reduce((s, e) => s + e.tokens, 0)).toBe(r.total[`${arm}_tokens`]);
      for (const e of mine) {
        expect(e).toMatchObject({ role: 'orchestration', source: 'tokenizer', tokenizer: ctx.tokenizer.name, run: 'gsd-odd-1' });
        const p = r.plans.find((x) => x.id === e.plan);
        expect(e.phase).toBe(p?.phase);
        expect(e.tokens).toBe(p?.[`${arm}_tokens`]);
      }
    }
    const rec = readRun(ctx, 'gsd-odd-1');
    expect(rec).toMatchObject({ kind: 'bench-gsd', workspace: 'odd', arms: { v1: expect.any(String), lean: expect.any(String), v2: expect.any(String) } });
    const details = rec?.details as BenchResult;
    expect(details.total).toEqual(r.total);
    expect(details.plans[0]?.recall).toBeDefined();
    expect(details.ablation.map((a) => a.arm)).toEqual(['lean', 'no_units', 'no_capsules', 'no_symbols', 'v2']);
    expect(details.results.plans).toBeGreaterThan(0);
  });

  it('recall catches the old failure modes: every <action> emptied, or a header and a file list', () => {
    const project = copyTestdata();
    const ctx = makeCtx(path.join(project, '.planning'));
    const { model } = importGsd(ctx);
    for (const plan of model.project.plans.filter((p) => /<action>/.test(p.raw))) {
      const b = buildGsdBrief(ctx, model, plan);
      const items = recallItems(ctx, model, b);
      expect(checkRecall(b.counted, items).pct, plan.id).toBe(100);
      const emptied = b.counted.replace(/<action>[\s\S]*?<\/action>/g, '<action></action>');
      const r1 = checkRecall(emptied, items);
      expect(r1.pct, plan.id).toBeLessThan(100);
      expect(r1.missing.some((m) => m.startsWith('task line')), plan.id).toBe(true);
      const header = `TASK ${plan.id}\nSPEC\nfiles: ${plan.parsed.filesModified.join(', ')}\n`;
      expect(checkRecall(header, items).pct, plan.id).toBeLessThan(50);
    }
  });
});

describe('bench gsd: why v2 costs more than lean', () => {
  it('says of each whole read why it is whole: cited in no part, or named by a section it lacks (skull-king "PATTERNS.md Pattern 6")', () => {
    const project = copyTestdata();
    const put = (rel: string, text: string) => fs.writeFileSync(path.join(project, '.planning', rel), text);
    put('phases/01-core/01-PATTERNS.md', '# Pattern Map\n\n## Pattern Assignments\n\n### `keep-alive.ts`\n\n**Source pattern:** RESEARCH.md Pattern 6\n\n## Shared Patterns\n\nThrow early.\n');
    put('phases/01-core/01-08-PLAN.md', '---\nwave: 1\n---\n<context>\n@.planning/phases/01-core/01-PATTERNS.md\n@.planning/STATE.md\n</context>\n<tasks><task><action>Create keep-alive.ts per PATTERNS.md Pattern 6.</action></task></tasks>\n');
    const r = benchGsd(base(), project);
    const p = r.plans.find((x) => x.id === '01-08');
    expect(p?.reads.map((x) => [x.path, x.reason])).toEqual([
      ['.planning/phases/01-core/01-PATTERNS.md', 'referenced; the plan names Pattern 6 of it, which no heading of it carries'],
      ['.planning/STATE.md', 'referenced; the plan cites no part of it'],
    ]);
    expect(p?.over_lean).toMatch(/^reads \.planning\/phases\/01-core\/01-PATTERNS\.md \(\d+\) whole: the plan names Pattern 6 of it, which no heading of it carries, so v2 counts the read; lean leaves it out; reads \.planning\/STATE\.md \(\d+\) whole: the plan references it and cites no part, so v2 counts the read; lean leaves it out/);
  });
});

describe('bench gsd: the trees of a folder', () => {
  it('counts a project linked into the folder like one copied there, and skips a dangling link', () => {
    const folder = tmp();
    const project = copyTestdata();
    fs.symlinkSync(project, path.join(folder, 'linked'));
    fs.symlinkSync(path.join(folder, 'gone'), path.join(folder, 'dangling'));
    const r = benchGsd(base(), folder);
    expect(r.trees.map((t) => t.tree)).toEqual(['linked']);
    expect(r.total.plans_imported).toBeGreaterThan(0);
  });
});
