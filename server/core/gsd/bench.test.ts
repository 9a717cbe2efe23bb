import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { renderBrief } from '../briefs/briefs.js';
import { computeDelta } from '../ledger/ledger.js';
import { readSymbols } from '../symbols/symbols.js';
import { FIXTURES, FIXTURE_NAMES, hashTree, syntheticProject, tmp } from './_testkit.js';
import { type BenchResult, benchGsd, floorText, v1Text } from './bench.js';
import { importGsd } from './importer.js';
import { PathReplacer, checkCompleteness, planSpec } from './spec.js';
import { taskElements } from './parse.js';

const base = () => makeCtx(path.join(tmp(), '.planning'), { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('b') });

describe('bench gsd on the three real fixtures', () => {
  const results = new Map<string, BenchResult>();
  const run = (name: string) => {
    let r = results.get(name);
    if (!r) {
      r = benchGsd(base(), path.join(FIXTURES, name), { texts: true });
      results.set(name, r);
    }
    return r;
  };

  it('saves at least 80% in total with 100% completeness, and never modifies the trees it reads', () => {
    const before = hashTree(FIXTURES);
    let v1 = 0;
    let v2 = 0;
    for (const name of FIXTURE_NAMES) {
      const r = run(name);
      expect(r.failures).toEqual([]);
      expect(r.total.completeness_pct).toBe(100);
      expect(r.total.checks).toBeGreaterThan(r.total.plans * 5);
      v1 += r.total.v1_tokens;
      v2 += r.total.v2_tokens;
    }
    expect((v1 - v2) / v1).toBeGreaterThanOrEqual(0.8);
    expect(hashTree(FIXTURES)).toEqual(before);
  });

  it('adds up: plans -> phases -> total, v1 >= plan text, v2 above the floor, the ledger agrees', () => {
    const base0 = base();
    for (const name of FIXTURE_NAMES) {
      const r = run(name);
      const sum = (k: 'v1_tokens' | 'v2_tokens' | 'floor_tokens') => r.plans.reduce((s, p) => s + p[k], 0);
      expect(r.total.v1_tokens).toBe(sum('v1_tokens'));
      expect(r.total.v2_tokens).toBe(sum('v2_tokens'));
      expect(r.total.floor_tokens).toBe(sum('floor_tokens'));
      expect(r.phases.reduce((s, p) => s + p.v2_tokens, 0)).toBe(r.total.v2_tokens);
      expect(r.ledger).toMatchObject({ role: 'orchestration', baseline: r.total.v1_tokens, measured: r.total.v2_tokens });
      expect(r.tokenizer).toBe(base0.tokenizer.name);
      for (const p of r.plans) {
        expect(p.v1_tokens).toBe(base0.tokenizer.count(p.v1_text as string));
        expect(p.v2_tokens).toBe(base0.tokenizer.count(p.v2_text as string));
        expect(p.v2_tokens).toBeGreaterThan(p.floor_tokens * 0.8);
      }
      // Wave by wave inside each phase.
      for (const ph of r.phases) {
        const waves = r.plans.filter((p) => p.phase === ph.phase).map((p) => p.wave);
        expect(waves).toEqual([...waves].sort((a, b) => a - b));
      }
    }
  });

  it('v1 holds the plan and every context file; v2 holds the work itself, not the context documents', () => {
    const r = run('BarristanSelmy__hybrid-attendance-tracker');
    const planning = path.join(FIXTURES, 'BarristanSelmy__hybrid-attendance-tracker', '.planning');
    const project = fs.readFileSync(path.join(planning, 'PROJECT.md'), 'utf8');
    const research = fs.readFileSync(path.join(planning, 'phases/01-foundation/01-RESEARCH.md'), 'utf8');
    const p = r.plans.find((x) => x.id === '01-02');
    const raw = fs.readFileSync(path.join(planning, 'phases/01-foundation/01-02-PLAN.md'), 'utf8');
    expect(p?.v1_text).toContain(raw);
    expect(p?.v1_text).toContain(project);
    expect(p?.v1_text).toContain(research);
    expect(p?.context_files).toBe(6);
    const v2 = p?.v2_text as string;
    expect(v2).not.toContain(research.slice(0, 200));
    expect(v2).not.toContain('@.planning/');
    expect(v2).not.toContain('<execution_context>');
    // The executor's material is there: objective, every task name, behaviours, criteria, the inline interfaces.
    for (const t of taskElements(raw)) expect(v2).toContain(/<name>(.*)<\/name>/.exec(t)?.[1]);
    for (const s of ['Purpose: Ensure every date operation', 'daysInMonth(2024, 2) returns 29', '<success_criteria>', '<verification>', 'export const STATUS = {', 'contains "STATUS.WFA"']) {
      expect(v2).toContain(s);
    }
    expect(v2).toMatch(/^CAPSULES$/m);
    expect(v2).toContain('# 01-01');
    expect(v2).toContain('INVARIANTS see .planning/PROJECT.md');
    expect(p?.capsules).toEqual(['01-01']);
  });

  it('counts a plan without <context> as the plan alone (Fabien phase 5)', () => {
    const r = run('FabienStarseed__wind-turbines-reports');
    for (const p of r.plans.filter((x) => x.phase === '05')) {
      expect(p.context_files).toBe(0);
      const raw = fs.readFileSync(path.join(FIXTURES, 'FabienStarseed__wind-turbines-reports/.planning/phases/05-frontend-ui', `${p.id}-PLAN.md`), 'utf8');
      expect(p.v1_text).toBe(raw);
    }
  });
});

describe('bench gsd on a synthetic tree', () => {
  it('counts only .planning context files that exist, reports missing ones, and keeps the original intact', () => {
    const project = syntheticProject();
    const before = hashTree(project);
    const r = benchGsd(base(), project, { texts: true });
    expect(hashTree(project)).toEqual(before);
    expect(fs.existsSync(path.join(project, '.planning', 'protocol'))).toBe(false);
    const p = r.plans.find((x) => x.id === '01-01');
    expect(p?.missing_context).toEqual(['.planning/phases/01-core/01-MISSING.md']);
    expect(p?.context_files).toBe(3);
    expect(p?.v1_text).toContain('Use argon2id for hashing.');
    expect(p?.v1_text).not.toContain('=== src/app.ts');
    // The glob reference brings every summary's capsule; the decorator in a code fence is not a reference.
    const p5 = r.plans.find((x) => x.id === '01-05');
    expect(p5?.capsules).toEqual(['01-01', '01-02', '01-09']);
    expect(r.plans.find((x) => x.id === '01-01')?.v2_text).toContain('@app.get("/login")');
    expect(r.total.completeness_pct).toBe(100);
    expect(r.plans.map((x) => x.id)).toEqual(['01-01', '01-03', '01-06', '01-07', '01-02', '01-04', '01-05', '02.1-01']);
  });

  it('takes extension-less declared files (Dockerfile) as places: ids in lists, words left alone in prose', () => {
    const project = syntheticProject();
    for (const id of ['01-06', '01-07']) {
      const f = path.join(project, '.planning/phases/01-core', `${id}-PLAN.md`);
      const text = fs.readFileSync(f, 'utf8').replace('wave: 1', 'wave: 1\nfiles_modified: [Dockerfile, Makefile]').replace(/<objective>(\w+)/, '<objective>$1: update the Dockerfile and `Makefile`');
      fs.writeFileSync(f, text);
    }
    const r = benchGsd(base(), project, { texts: true });
    expect(r.total.completeness_pct).toBe(100);
    const v2 = r.plans.find((x) => x.id === '01-06')?.v2_text as string;
    const docker = /^(F\d+)\tDockerfile$/m.exec(v2)?.[1];
    const make = /^(F\d+)\tMakefile$/m.exec(v2)?.[1];
    expect(docker && make).toBeTruthy();
    expect(v2).toContain(`files: ${docker}, ${make}`);
    expect(v2).toContain(`update the Dockerfile and \`${make}\``);
  });

  it('keeps the copy only when asked', () => {
    const r = benchGsd(base(), syntheticProject(), { keep: true });
    expect(fs.existsSync(path.join(r.planning_dir, 'protocol', 'tasks.json'))).toBe(true);
    const ctx = makeCtx(r.planning_dir);
    expect(computeDelta(ctx, 'orchestration', { run: r.run }).measured).toBe(r.total.v2_tokens);
    fs.rmSync(path.dirname(r.planning_dir), { recursive: true, force: true });
  });

  it('floor is the objective and tasks; the whole body when the plan has neither', () => {
    const ctx = base();
    const { model } = importGsd(ctx, { from: syntheticProject() });
    const p1 = model.project.plans.find((x) => x.id === '01-01');
    const f = floorText(p1 as never);
    expect(f).toContain('Build login against src/auth/login.ts.');
    expect(f).toContain('<name>Task 1: login()</name>');
    expect(f).not.toContain('<success_criteria>');
    const p3 = model.project.plans.find((x) => x.id === '01-03');
    expect(floorText(p3 as never)).toContain('Remove the session');
    expect(v1Text(model.project.planningDir, p3 as never).files).toBe(0);
  });
});

describe('the v2 spec and its completeness check', () => {
  const setup = () => {
    const ctx = base();
    const { model } = importGsd(ctx, { from: syntheticProject() });
    const plan = model.project.plans.find((x) => x.id === '01-01');
    if (!plan) throw new Error('no plan 01-01');
    const spec = planSpec(model, plan);
    const brief = renderBrief(ctx, { task: plan.id, ...spec }).text;
    const input = {
      brief,
      table: readSymbols(ctx),
      plan,
      skipped: new Set(model.tasks.path_ids.skipped),
      pathPrefix: 'F',
      truthIds: model.truthIds.get(plan.id) ?? [],
      requirementIds: ['AUTH-01'],
    };
    return { ctx, model, plan, spec, brief, input };
  };

  it('passes on the brief as built', () => {
    const { input } = setup();
    const c = checkCompleteness(input);
    expect(c.failures).toEqual([]);
    expect(c.checks).toBeGreaterThan(10);
  });

  it('fails when an id is defined nowhere', () => {
    const { input } = setup();
    const table = { ...input.table };
    delete table.F2;
    const brief = input.brief.replace(/^F2\t.*\n/m, '');
    const c = checkCompleteness({ ...input, brief, table });
    expect(c.failures.join('\n')).toMatch(/id F2 is used but defined neither/);
  });

  it('fails when a path the plan names is unreachable, or a listed entry disagrees with the table', () => {
    const { input } = setup();
    // Drop the id and every literal mention (the <automated> command names the path too).
    const brief = input.brief.replace(/^F2\t.*\n/m, '').replace(/\bF2\b/g, 'the test file').replaceAll('tests/login.test.ts', 'the test');
    const dropped = checkCompleteness({ ...input, brief });
    expect(dropped.failures.join('\n')).toMatch(/path tests\/login\.test\.ts is named by the plan/);
    const wrong = checkCompleteness({ ...input, brief: input.brief.replace('F1\tsrc/auth/login.ts', 'F1\tsrc/auth/other.ts') });
    expect(wrong.failures.join('\n')).toMatch(/SYMBOLS lists F1/);
  });

  it('fails when a truth, a requirement or a capsule dependency is missing', () => {
    const { input, ctx, model } = setup();
    const noTruth = checkCompleteness({ ...input, brief: input.brief.replace(/01-01\.T2/g, '') });
    expect(noTruth.failures.join('\n')).toMatch(/truth 01-01\.T2/);
    const noReq = checkCompleteness({ ...input, brief: input.brief.replace(/AUTH-01/g, '') });
    expect(noReq.failures.join('\n')).toMatch(/requirement AUTH-01/);
    // Plan 01-05's closure holds 01-02, which depends on 01-01: cut 01-01 out.
    const p5 = model.project.plans.find((x) => x.id === '01-05');
    if (!p5) throw new Error('no 01-05');
    const full = renderBrief(ctx, { task: p5.id, ...planSpec(model, p5) }).text;
    const c5 = { ...input, plan: p5, truthIds: [], requirementIds: [] };
    expect(checkCompleteness({ ...c5, brief: full }).failures).toEqual([]);
    const cut = full.replace(/# 01-01\n(?:[a-z]+: .*\n)+\n?/, '');
    expect(cut).not.toContain('# 01-01');
    expect(cut).toContain('depends: 01-01');
    expect(checkCompleteness({ ...c5, brief: cut }).failures.join('\n')).toMatch(/capsule dependency 01-01 is not in the brief/);
  });

  it('replaces paths in prose only: not in fenced code, not in commands, not inside longer paths', () => {
    const r = new PathReplacer(new Map([['src/app.js', 'F7'], ['app.js', 'F8']]));
    const used: string[] = [];
    const out = r.text(
      ['Edit src/app.js and `src/app.js`.', 'Run `node src/app.js` or <automated>node src/app.js</automated>.', 'Keep lib/src/app.js and src/app.jsx.', '```', 'import "./src/app.js"; src/app.js', '```', 'Root app.js too.'].join('\n'),
      (id) => used.push(id),
    );
    expect(out.split('\n')).toEqual([
      'Edit F7 and `F7`.',
      'Run `node src/app.js` or <automated>node src/app.js</automated>.',
      'Keep lib/src/app.js and src/app.jsx.',
      '```',
      'import "./src/app.js"; src/app.js',
      '```',
      'Root F8 too.',
    ]);
    expect([...new Set(used)]).toEqual(['F7', 'F8']);
  });

  it('turns frontmatter into compact lines and restated truths into ids', () => {
    const { spec } = setup();
    expect(spec.spec).toContain('requirements: AUTH-01');
    expect(spec.spec).toMatch(/^files: F\d+, F\d+$/m);
    expect(spec.spec).toContain('must be true: 01-01.T1, 01-01.T2');
    expect(spec.spec).toMatch(/^- 01-01\.T1$/m); // "- Login rejects a wrong password" under <verification>
    expect(spec.spec).toContain('<automated>npx vitest run tests/login.test.ts</automated>');
    expect(spec.symbols).toEqual(expect.arrayContaining(['AUTH-01', '01-01.T1', '01-01.T2']));
    expect(spec.invariants).toBe('.planning/PROJECT.md');
  });
});
