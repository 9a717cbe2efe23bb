import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { readFacts, setFact } from '../blackboard/blackboard.js';
import { MAX_CAPSULE_LINES, listCapsuleIds, readCapsule, writeCapsule } from '../capsules/capsules.js';
import { PROTOCOL_VERSION } from '../planning/version.js';
import { readSymbols, setSymbol } from '../symbols/symbols.js';
import { readUnitsFile, resolveUnit, reverseUnit, unitsFilePath } from '../units/units.js';
import { FIXTURES, FIXTURE_NAMES, copyFixture, copyTestdata, hashTree, requireFixtures, syntheticProject, tmp } from './_testkit.js';
import { analysePlan } from './cite.js';
import { type TasksFile, importGsd, tasksFilePath } from './importer.js';
import { loadGsdProject } from './tree.js';
import { projectUnits } from './units.js';

const ctxAt = (planning: string) => makeCtx(planning, { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('t') });
const readTasks = (ctx: ReturnType<typeof ctxAt>) => JSON.parse(fs.readFileSync(tasksFilePath(ctx), 'utf8')) as TasksFile;

/** The odd testdata tree: its .planning folder, `put` to add a file to it, `plan` for a minimal plan. */
function oddPlanning() {
  const planning = path.join(copyTestdata(), '.planning');
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(planning, rel)), { recursive: true });
    fs.writeFileSync(path.join(planning, rel), text);
  };
  const plan = (fm: string, action: string) => `---\n${fm}\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
  return { planning, put, plan };
}

describe('import gsd on the real fixtures', () => {
  const expected: Record<string, { plans: number; summaries: number; found: number }> = {
    '001TMF__HYDRA': { plans: 31, summaries: 31, found: 32 },
    'BarristanSelmy__hybrid-attendance-tracker': { plans: 6, summaries: 6, found: 6 },
    'FabienStarseed__wind-turbines-reports': { plans: 18, summaries: 18, found: 18 },
  };

  for (const name of FIXTURE_NAMES) {
    it(`${name}: writes units, STATE facts, symbols, one capsule per SUMMARY and the task list beside GSD's files`, () => {
      const project = copyFixture(name);
      const planning = path.join(project, '.planning');
      const before = hashTree(planning);
      const ctx = ctxAt(planning);
      const { report, model } = importGsd(ctx);

      expect(report.plans).toBe(expected[name]?.plans);
      expect(report.summaries).toBe(expected[name]?.summaries);
      expect(report.plans_found).toBe(expected[name]?.found);
      // Every PLAN file found is imported or listed with the reason.
      expect(report.plans_imported + report.plans_skipped.length).toBe(report.plans_found);
      for (const s of report.plans_skipped) expect(s.reason).toBeTruthy();
      // GSD's own files are untouched; everything new is under protocol/, protocol.log or blackboard.json.
      const after = hashTree(planning);
      for (const [f, h] of Object.entries(before)) expect(after[f], f).toBe(h);
      for (const f of Object.keys(after).filter((x) => !(x in before))) expect(f).toMatch(/^(protocol(\/|\.log$)|blackboard\.json$)/);

      const caps = listCapsuleIds(ctx);
      expect(caps.length).toBe(report.summaries);
      for (const id of caps) {
        const c = readCapsule(ctx, id);
        expect(c.text.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_CAPSULE_LINES);
        expect(c.what).toBeTruthy();
        expect(c.where).toBeTruthy();
        // A capsule names places by path: it is read inside briefs that may not define F-ids.
        expect(c.where).not.toMatch(/^F\d+(,|$)/);
        const p = model.project.plans.find((x) => x.id === id);
        expect(c.depends).toEqual((p?.depends ?? []).filter((d) => caps.includes(d)));
      }

      const table = readSymbols(ctx);
      const tasks = readTasks(ctx);
      expect(tasks.version).toBe(PROTOCOL_VERSION);
      expect(tasks.planning_dir).toBe(planning);
      expect(tasks.tasks.filter((t) => t.plan_file).length).toBe(report.plans);
      for (const t of tasks.tasks) {
        expect(t).toMatchObject({ id: expect.any(String), phase: expect.any(String), wave: expect.any(Number), depends: expect.any(Array), write_set: expect.any(Array) });
        for (const f of t.write_set) expect(f, `${t.id} ${f}`).not.toMatch(/^\.\//);
        expect([...t.write_set].sort()).toEqual(t.write_set);
      }
      for (const [p, id] of model.pathIds) expect(table[id]).toBe(p);
      for (const [pid, ids] of model.truthIds) for (const id of ids) expect(table[id], `${pid} ${id}`).toBeDefined();

      // Units: exact slices of the documents they come from.
      const store = readUnitsFile(ctx);
      expect(store?.planning_dir).toBe(planning);
      const units = Object.entries(store?.units ?? {});
      expect(units.length).toBe(report.units.total);
      for (const [id, u] of units) {
        if (u.text === undefined) continue;
        expect(fs.readFileSync(path.join(planning, u.file), 'utf8').replace(/\r\n?/g, '\n'), id).toContain(u.text);
      }
      expect(report.units.by_kind.phase).toBeGreaterThan(0);
      // STATE.md facts are on the blackboard.
      const facts = readFacts(ctx);
      expect(report.facts.total).toBeGreaterThan(0);
      for (const k of tasks.owned.facts ?? []) expect(facts[k], k).toBeTruthy();
    });
  }

  it('runs twice and changes nothing the second time (state files, units, blackboard and protocol.log identical)', () => {
    const planning = path.join(copyFixture('001TMF__HYDRA'), '.planning');
    const ctx = ctxAt(planning);
    const first = importGsd(ctx).report;
    expect(first.changed).toBe(true);
    // hashTree includes mtimes: even a rewrite with identical bytes would show.
    const before = hashTree(planning);
    const second = importGsd(ctx).report;
    expect(second.changed).toBe(false);
    expect(second.symbols.changed).toBe(0);
    expect(second.capsules.written).toBe(0);
    expect(second.units.changed).toBe(false);
    expect(second.facts.changed).toBe(0);
    expect(second.tasks_written).toBe(false);
    expect(hashTree(planning)).toEqual(before);
  });

  it('reads a tree it may not write (--from the read-only fixture) and writes only to its own root', () => {
    const src = path.join(requireFixtures(), 'BarristanSelmy__hybrid-attendance-tracker');
    const before = hashTree(src);
    const ctx = ctxAt(path.join(tmp(), '.planning'));
    const { report } = importGsd(ctx, { from: src });
    expect(report.plans).toBe(6);
    expect(fs.existsSync(path.join(ctx.root, 'protocol', 'tasks.json'))).toBe(true);
    expect(fs.existsSync(unitsFilePath(ctx))).toBe(true);
    expect(hashTree(src)).toEqual(before);
    expect(FIXTURES).toBe(requireFixtures());
  });

  it('keeps ids stable when the tree grows, and never overwrites a symbol, capsule or fact it did not write', () => {
    const project = syntheticProject();
    const planning = path.join(project, '.planning');
    const ctx = ctxAt(planning);
    setSymbol(ctx, 'F1', 'something the team defined by hand');
    writeCapsule(ctx, '01-01', { what: 'hand-written capsule', where: 'README.md' });
    setFact(ctx, 'gsd.state.state', 'a hand-written fact');
    const { model, report } = importGsd(ctx);
    const table = readSymbols(ctx);
    expect(table.F1).toBe('something the team defined by hand');
    expect([...model.pathIds.values()]).not.toContain('F1');
    expect(readCapsule(ctx, '01-01').what).toBe('hand-written capsule');
    expect(report.issues.map((i) => i.kind)).toEqual(expect.arrayContaining(['capsule_conflict']));

    const idsBefore = new Map(model.pathIds);
    fs.writeFileSync(
      path.join(planning, 'phases/01-core/01-08-PLAN.md'),
      '---\nwave: 1\nfiles_modified: [src/new/a.ts, src/auth/login.ts]\n---\n<objective>new</objective>\n<tasks><task><name>n</name><files>src/new/a.ts</files></task></tasks>\n',
    );
    const again = importGsd(ctx).model;
    for (const [p, id] of idsBefore) expect(again.pathIds.get(p)).toBe(id);
    expect(again.pathIds.get('src/new/a.ts')).toBeDefined();
    expect(importGsd(ctx).report.changed).toBe(false);
  });

  it('prunes what a deleted plan, summary or document left behind, and only what the import wrote', () => {
    const project = copyTestdata();
    const planning = path.join(project, '.planning');
    const ctx = ctxAt(planning);
    setSymbol(ctx, 'MINE', 'a symbol someone set by hand');
    const first = importGsd(ctx);
    expect(listCapsuleIds(ctx)).toEqual(['01-01', 'quick-001']);
    expect(readSymbols(ctx)['01-01.T1']).toBe('Login rejects a wrong password with 401');
    expect(readUnitsFile(ctx)?.units['01-RESEARCH#pattern-1']).toBeDefined();
    expect(readFacts(ctx)['gsd.state.status']).toBe('Status: in progress');
    expect(first.model.tasks.tasks.map((t) => t.id)).toContain('01-01');

    // The plan 01-01, its summary, the phase research and a STATE fact go.
    fs.rmSync(path.join(planning, 'phases/01-core/01-01-PLAN.md'));
    fs.rmSync(path.join(planning, 'phases/01-core/01-01-SUMMARY.md'));
    fs.rmSync(path.join(planning, 'phases/01-core/01-RESEARCH.md'));
    fs.writeFileSync(path.join(planning, 'STATE.md'), fs.readFileSync(path.join(planning, 'STATE.md'), 'utf8').replace('**Status:** in progress\n', ''));
    const log = fs.readFileSync(ctx.paths.protocolLog, 'utf8');
    const second = importGsd(ctx).report;
    expect(second.capsules.removed).toBe(1);
    expect(second.symbols.removed).toBeGreaterThanOrEqual(1);
    expect(second.facts.removed).toBe(1);
    expect(second.units.removed).toBeGreaterThan(5);
    expect(listCapsuleIds(ctx)).toEqual(['quick-001']);
    expect(readSymbols(ctx)['01-01.T1']).toBeUndefined();
    expect(readSymbols(ctx).MINE).toBe('a symbol someone set by hand');
    expect(readUnitsFile(ctx)?.units['01-RESEARCH#pattern-1']).toBeUndefined();
    expect(readFacts(ctx)['gsd.state.status']).toBeUndefined();
    expect(readFacts(ctx)['gsd.state.current-phase']).toBe('Current phase: 1 - Core');
    expect(readTasks(ctx).tasks.map((t) => t.id)).not.toContain('01-01');
    // Every removal is logged; a third run writes nothing at all.
    const added = fs.readFileSync(ctx.paths.protocolLog, 'utf8').slice(log.length);
    expect(added).toMatch(/\tcapsule\tdelete\t01-01/);
    expect(added).toMatch(/\tresolve\tdelete\t01-01\.T1/);
    expect(added).toMatch(/\tblackboard\tdelete\tgsd\.state\.status/);
    const before = hashTree(planning);
    expect(importGsd(ctx).report.changed).toBe(false);
    expect(hashTree(planning)).toEqual(before);
  });
});

describe('import gsd on odd trees', () => {
  it('imports every plan of the synthetic tree with what it has and lists the oddities in the report', () => {
    const project = syntheticProject();
    const ctx = ctxAt(path.join(project, '.planning'));
    const { report, model } = importGsd(ctx);
    expect(report.plans).toBe(8);
    const kinds = (k: string) => report.issues.filter((i) => i.kind === k).map((i) => path.basename(i.file));
    expect(kinds('no_frontmatter')).toEqual(['01-03-PLAN.md']);
    expect(kinds('no_context')).toEqual(['01-03-PLAN.md']);
    expect(kinds('bad_frontmatter')).toEqual(['01-04-PLAN.md']);
    expect(kinds('missing_context_file')).toEqual(['01-01-PLAN.md']);
    expect(kinds('unresolved_depends')).toEqual(['01-05-PLAN.md']);
    expect(kinds('dependency_cycle')).toHaveLength(1);
    expect(kinds('summary_without_plan')).toEqual(['01-09-SUMMARY.md']);
    expect(report.issues.find((i) => i.kind === 'summary_without_plan')?.detail).toMatch(/^no plan 01-09 in the tree \(its plan would be phases\/01-core\/01-09-PLAN\.md\)/);
    expect(kinds('ignored_file')).toEqual(['NOTES-PLAN.md']);
    expect(report.issues.find((i) => i.kind === 'bad_frontmatter')?.detail).toMatch(/nothing taken from depends_on, bad/);

    const byId = new Map(model.project.plans.map((p) => [p.id, p]));
    expect(byId.get('01-02')?.depends).toEqual(['01-01']);
    // Broken YAML: the depends_on line does not parse, so nothing is guessed from it.
    expect(byId.get('01-04')?.depends).toEqual([]);
    expect(byId.get('01-04')?.wave).toBe(3);
    expect(byId.get('01-04')?.parsed.filesModified).toEqual(['src/auth/reset.ts']);
    expect(byId.get('01-05')?.depends).toEqual(['01-02']); // "1-2" unpadded; 09-09 dropped
    expect(byId.get('01-05')?.wave).toBe(3); // no wave: one after its dependency
    expect(byId.get('02.1-01')?.depends).toEqual(['01-02']);
    expect(byId.get('01-03')?.wave).toBe(1);
    // CRLF + BOM plan: frontmatter read in full.
    expect(byId.get('01-01')?.parsed.truths).toEqual(['Login rejects a wrong password', 'Passwords are hashed with argon2id']);

    // Requirements are units, wherever they are defined.
    expect(resolveUnit(ctx, 'DATA-2')[0]?.text).toBe('### DATA-2: Store events append-only');
    expect(resolveUnit(ctx, 'REQ-9')[0]?.text).toBe('| REQ-9 | Phase 2 | Hotfix the parser for odd inputs |');
    expect(resolveUnit(ctx, 'AUTH-01')[0]).toMatchObject({ id: 'REQUIREMENTS#AUTH-01', file: 'REQUIREMENTS.md' });
    expect(reverseUnit(ctx, 'Users can log in with a password')).toMatchObject({ exact: false, units: [{ id: 'REQUIREMENTS#AUTH-01' }] });
    expect(Object.values(readSymbols(ctx))).toContain('src/auth/session.ts');
    expect(readCapsule(ctx, '01-02').depends).toEqual(['01-01']);
    expect(readCapsule(ctx, '01-02').decision).toBe('Sliding expiry');
    expect(readCapsule(ctx, '01-01').gotcha).toBe('The argon2 package needs node-gyp on Alpine');
    expect(readCapsule(ctx, '01-09').what).toBe('A hotfix done outside any plan.');
  });

  it('reads quick tasks, letter-suffixed and bare plans, lists what is not a plan, and writes the write set normalised', () => {
    const project = copyTestdata();
    const ctx = ctxAt(path.join(project, '.planning'));
    const { report } = importGsd(ctx);
    const tasks = readTasks(ctx);
    expect(tasks.tasks.map((t) => t.id)).toEqual(['01-01', '01-02', '01-02b', '02-01', '02-03', '02-plan', '03-01', 'quick-001', 'quick-260101-abc']);
    expect(report.plans_found).toBe(10);
    expect(report.plans_imported).toBe(9);
    expect(report.plans_skipped).toEqual([{ file: 'phases/02-hardening/NOTES_PLAN.md', status: 'skipped', reason: expect.stringMatching(/not a GSD plan/) }]);
    expect(tasks.plan_files).toHaveLength(10);
    const t = (id: string) => tasks.tasks.find((x) => x.id === id);
    // ./src/auth/login.ts in files_modified and in <files> is one path.
    expect(t('01-01')?.write_set).toEqual(['src/auth/login.ts', 'tests/login.test.ts']);
    expect(t('01-01')).toMatchObject({ phase: '01', wave: 1, status: 'done', capsule: '01-01', plan_file: 'phases/01-core/01-01-PLAN.md', summary_file: 'phases/01-core/01-01-SUMMARY.md' });
    expect(t('01-02b')).toMatchObject({ plan: '02b', depends: ['01-02'], wave: 3, status: 'todo', write_set: ['src/auth/logout.ts'] });
    expect(t('02-plan')).toMatchObject({ phase: '02', plan_file: 'phases/02-hardening/PLAN.md', issues: expect.arrayContaining(['no_frontmatter']) });
    expect(t('quick-001')).toMatchObject({ kind: 'quick', phase: 'quick', status: 'done', write_set: ['README.md'] });
    expect(t('quick-260101-abc')).toMatchObject({ kind: 'quick', plan_file: 'quick/260101-abc-bump-deps/PLAN.md', write_set: ['package.json'] });
    // Broken must_haves: reported, and no truth invented.
    expect(t('02-03')).toMatchObject({ depends: ['02-01'], wave: 2, issues: expect.arrayContaining(['bad_frontmatter']) });
    expect(Object.keys(readSymbols(ctx)).filter((k) => k.startsWith('02-03.'))).toEqual([]);
  });

  it('keeps the letter of a letter-suffixed phase (analizere/real-estate-ai 02A-infrastructure-services/02A-01-PLAN.md) apart from the phase without it', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/04-pricing/04-01-PLAN.md', plan('phase: 04-pricing\nplan: 01\nwave: 1', 'Prices.'));
    put('phases/04A-infra/04A-01-PLAN.md', plan('phase: 04A-infra\nplan: 01\nwave: 1', 'Gate it (Pitfall 2 from RESEARCH.md), D-01.'));
    put('phases/04A-infra/04A-01-SUMMARY.md', '---\nphase: 04A-infra\nplan: 01\n---\n# 04A-01 summary\n\nGated.\n');
    put('phases/04A-infra/04A-02-PLAN.md', plan('phase: 04A-infra\nplan: 02\nwave: 2\ndepends_on: [04A-01]', 'Meter it.'));
    put('phases/04A-infra/04A-CONTEXT.md', '# Phase 4A: Infra - Context\n\n## Decisions\n\n- **D-01:** Gate before metering.\n');
    put('phases/04A-infra/04A-RESEARCH.md', '# Phase 4A: Infra - Research\n\n## Common Pitfalls\n\n### Pitfall 1: Late logging\n\nLog first.\n\n### Pitfall 2: Scattered checks\n\nOne service.\n');
    put('phases/04-pricing/04-CONTEXT.md', '# Phase 4: Pricing - Context\n\n## Decisions\n\n- **D-01:** Monthly prices.\n');
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/04-pricing/04-01-PLAN.md')).toMatchObject({ status: 'imported', id: '04-01' });
    expect(byFile('phases/04A-infra/04A-01-PLAN.md')).toMatchObject({ status: 'imported', id: '04A-01' });
    expect(byFile('phases/04A-infra/04A-02-PLAN.md')).toMatchObject({ status: 'imported', id: '04A-02' });
    expect(p.plans.find((x) => x.id === '04A-02')?.depends).toEqual(['04A-01']);
    expect(p.summaries.find((x) => x.id === '04A-01')?.file).toBe('phases/04A-infra/04A-01-SUMMARY.md');
    // `phase: 04A-infra` agrees with the file name 04A-01.
    expect(p.issues.filter((i) => i.kind === 'frontmatter_mismatch')).toEqual([]);
    // Its own phase's files: D-01 of 04A-CONTEXT (not 04-CONTEXT), and "Pitfall 2 from RESEARCH.md" of 04A-RESEARCH.
    const ctx = ctxAt(planning);
    const { model } = importGsd(ctx);
    const plan04a = model.project.plans.find((x) => x.id === '04A-01');
    const units = plan04a && analysePlan({ project: model.project, index: model.index, capsules: model.capsules }, plan04a).units.map((u) => u.id);
    expect(units).toEqual(expect.arrayContaining(['04A-CONTEXT#D-01', '04A-RESEARCH#pitfall-2']));
    expect(units).not.toContain('04-CONTEXT#D-01');
  });

  it('imports NN-PLAN.md in another phase\'s folder as that phase\'s plan NN, and a second folder of one phase number under its folder\'s name', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/05-settings-ui/01-PLAN.md', plan('wave: 1', 'Settings form.'));
    put('phases/05-settings-ui/01-SUMMARY.md', '# 01 summary\n\nBuilt the settings form.\n');
    put('phases/06-state/06-PLAN.md', plan('wave: 1', 'State hook.'));
    put('phases/06-touch-events/PLAN.md', plan('wave: 1', 'Touch events.'));
    put('phases/06-touch-events/SUMMARY.md', '# Touch summary\n\nTouch events work.\n');
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/05-settings-ui/01-PLAN.md')).toMatchObject({ status: 'imported', id: '05-01' });
    expect(byFile('phases/06-state/06-PLAN.md')).toMatchObject({ status: 'imported', id: '06-plan' });
    expect(byFile('phases/06-touch-events/PLAN.md')).toMatchObject({ status: 'imported', id: '06-touch-events-plan', reason: expect.stringMatching(/another folder \(06-state\)/) });
    // Each summary belongs to the plan of its own folder.
    expect(p.summaries.find((x) => x.id === '05-01')?.file).toBe('phases/05-settings-ui/01-SUMMARY.md');
    expect(p.summaries.find((x) => x.id === '06-touch-events-plan')?.file).toBe('phases/06-touch-events/SUMMARY.md');
    expect(p.summaries.find((x) => x.id === '06-plan')).toBeUndefined();
    expect(p.issues.filter((i) => i.kind === 'duplicate_plan')).toEqual([]);
  });

  it('reads depends_on naming a phase folder as every plan of that phase (ELM-tool 02-PLAN.md depends_on [01-foundation-gui-bootstrap])', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/14-base/14-01-PLAN.md', plan('wave: 1', 'Scaffold.'));
    put('phases/14-base/14-02-PLAN.md', plan('wave: 1', 'Store.'));
    put('phases/14-base/14-03-SUMMARY.md', '---\nphase: 14\nplan: 03\n---\n# 14-03 summary\n\nConfig done.\n');
    put('phases/15-ui/15-01-PLAN.md', plan('wave: 1\ndepends_on: [14-base, 99-nowhere]', 'Screens.'));
    const p = loadGsdProject(planning);
    expect(p.plans.find((x) => x.id === '15-01')?.depends).toEqual(['14-01', '14-02', '14-03']);
    expect(p.issues.filter((i) => i.file === 'phases/15-ui/15-01-PLAN.md' && i.kind === 'unresolved_depends').map((i) => i.detail)).toEqual(['depends_on "99-nowhere" names no plan in this tree; ignored']);
  });

  it('reads a bare number in depends_on that names no other plan of its phase as that phase (getting_into_character 05-01 [4], 04-03 [3])', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/21-base/21-01-PLAN.md', plan('wave: 1', 'Scaffold.'));
    put('phases/21-base/21-02-PLAN.md', plan('wave: 1', 'Store.'));
    put('phases/21-base/21-03-SUMMARY.md', '---\nphase: 21\nplan: 03\n---\n# 21-03 summary\n\nConfig done.\n');
    // There is no plan 22-21: [21] is phase 21.
    put('phases/22-mid/22-01-PLAN.md', plan('wave: 2\ndepends_on: [21]', 'Screens.'));
    // [1] names plan 23-01, which exists: it stays that plan. [99] names neither a plan nor a phase.
    put('phases/23-end/23-01-PLAN.md', plan('wave: 1', 'Ship.'));
    put('phases/23-end/23-02-PLAN.md', plan('wave: 2\ndepends_on: [1, 99]', 'Announce.'));
    // [22] is phase 22; "Phase 21" says so in words; [3] would be the plan itself: it is phase 3 (03-extra).
    put('phases/23-end/23-03-PLAN.md', plan('wave: 3\ndepends_on: [22, "Phase 21", 3]', 'Polish.'));
    const p = loadGsdProject(planning);
    const deps = (id: string) => p.plans.find((x) => x.id === id)?.depends;
    expect(deps('22-01')).toEqual(['21-01', '21-02', '21-03']);
    expect(deps('23-03')).toEqual(['22-01', '21-01', '21-02', '21-03', '03-01']);
    expect(deps('23-02')).toEqual(['23-01']);
    expect(p.issues.filter((i) => i.kind === 'unresolved_depends' && i.file.startsWith('phases/2')).map((i) => `${i.file}: ${i.detail}`)).toEqual([
      'phases/23-end/23-02-PLAN.md: depends_on "99" names no plan in this tree; ignored',
    ]);
  });

  it('imports a plan named, not numbered, in its phase folder under its name (06-gap-fixes-PLAN.md), with its summary', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/24-polish/24-01-PLAN.md', plan('wave: 1', 'Polish.'));
    put('phases/24-polish/24-gap-fixes-PLAN.md', plan('phase: 24-polish\nplan: gap-fixes\nwave: 2\ndepends_on: [24-01]', 'Fix the gaps.'));
    put('phases/24-polish/24-gap-fixes-SUMMARY.md', '# Gap fixes summary\n\nGaps fixed.\n');
    put('phases/25-next/25-01-PLAN.md', plan('wave: 1\ndepends_on: [24-gap-fixes]', 'Next.'));
    // Not this phase's number, or not a plan's name: listed, not imported.
    put('phases/25-next/24-stray-PLAN.md', plan('wave: 1', 'Stray.'));
    put('phases/25-next/25-PLAN-CHECK.md', '# Plan check\n\nAll good.\n');
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/24-polish/24-gap-fixes-PLAN.md')).toMatchObject({ status: 'imported', id: '24-gap-fixes', reason: expect.stringMatching(/named, not numbered/) });
    expect(byFile('phases/25-next/24-stray-PLAN.md')).toMatchObject({ status: 'skipped' });
    expect(byFile('phases/25-next/25-PLAN-CHECK.md')).toMatchObject({ status: 'skipped' });
    const plans = new Map(p.plans.map((x) => [x.id, x]));
    expect(plans.get('24-gap-fixes')).toMatchObject({ phase: '24', depends: ['24-01'], wave: 2 });
    expect(plans.get('24-gap-fixes')?.summary?.file).toBe('phases/24-polish/24-gap-fixes-SUMMARY.md');
    expect(plans.get('25-01')?.depends).toEqual(['24-gap-fixes']);
    expect(p.issues.filter((i) => i.file.startsWith('phases/24') && (i.kind === 'unresolved_depends' || i.kind === 'summary_without_plan'))).toEqual([]);
  });

  it('imports NN-PLAN.md lying in phases/ itself, no folder, as phase NN\'s plan, with NN-SUMMARY.md beside it (ANierbeck/Ollamac phases/04-PLAN.md)', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/31-PLAN.md', plan('wave: 1', 'Backend protocol.'));
    put('phases/31-SUMMARY.md', '# Phase 31 summary\n\nThe protocol is in.\n');
    put('phases/32.1-PLAN.md', '# Phase 32.1 plan\n\n## Tasks\n\n1. Fix the build.\n');
    put('phases/33-02-PLAN.md', plan('wave: 2', 'Numbered, flat.'));
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/31-PLAN.md')).toMatchObject({ status: 'imported', id: '31-plan' });
    expect(byFile('phases/32.1-PLAN.md')).toMatchObject({ status: 'imported', id: '32.1-plan' });
    expect(byFile('phases/33-02-PLAN.md')).toMatchObject({ status: 'imported', id: '33-02' });
    expect(p.plans.find((x) => x.id === '31-plan')?.summary?.file).toBe('phases/31-SUMMARY.md');
    expect(p.issues.filter((i) => i.file.startsWith('phases/3') && /^phases\/3\d/.test(i.file) && (i.kind === 'ignored_file' || i.kind === 'summary_without_plan'))).toEqual([]);
  });

  it('reads a summary of a whole phase whose folder numbers its plans as a document, not as a finished task with no plan (FelixIsaac/p3-fractions phases/06-engagement-polish/06-SUMMARY.md beside 06-01..06-03-PLAN.md)', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/43-polish/43-01-PLAN.md', plan('wave: 1', 'Progress.'));
    put('phases/43-polish/43-02-PLAN.md', plan('wave: 2', 'Streaks.'));
    put('phases/43-polish/43-SUMMARY.md', '# Phase 43: Polish - Summary\n\n## Completed\n\n### Plan 43-01: Progress\n- storage.ts\n');
    // A bare plan's summary beside its bare plan stays that plan's summary.
    put('phases/44-alone/44-PLAN.md', '# Phase 44 plan\n\n## Tasks\n\n1. Do it.\n');
    put('phases/44-alone/44-SUMMARY.md', '# Phase 44 summary\n\nDone.\n');
    const p = loadGsdProject(planning);
    expect(p.summaries.map((x) => x.file)).not.toContain('phases/43-polish/43-SUMMARY.md');
    expect(p.issues.filter((i) => i.file === 'phases/43-polish/43-SUMMARY.md')).toEqual([
      { kind: 'phase_summary', file: 'phases/43-polish/43-SUMMARY.md', detail: 'a summary of phase 43 as a whole (its folder holds plans 43-01, 43-02, none of them bare): read as a document, not imported as a finished task' },
    ]);
    expect(p.plans.find((x) => x.id === '44-plan')?.summary?.file).toBe('phases/44-alone/44-SUMMARY.md');
    // As a document it has units a plan can cite.
    expect(projectUnits(p).byFile.get('phases/43-polish/43-SUMMARY.md')?.length).toBeGreaterThan(1);
  });

  it('imports numbered plans kept beside ROADMAP.md, no phases/ folder (0999312/Cookery 1-PLAN.md .. 5-PLAN.md), and still lists an unnumbered one there with the reason', () => {
    const { planning, put, plan } = oddPlanning();
    put('41-PLAN.md', '# 41-PLAN.md - phase 41\n\n## Tasks\n\n1. Remove common/.\n');
    put('41-SUMMARY.md', '# Phase 41 summary\n\ncommon/ is gone.\n');
    put('42-03-PLAN.md', plan('wave: 1', 'Numbered, at the top.'));
    put('MILESTONE-v2-PLAN.md', '# Milestone plan\n');
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('41-PLAN.md')).toMatchObject({ status: 'imported', id: '41-plan' });
    expect(byFile('42-03-PLAN.md')).toMatchObject({ status: 'imported', id: '42-03' });
    expect(p.plans.find((x) => x.id === '41-plan')?.summary?.file).toBe('41-SUMMARY.md');
    expect(byFile('MILESTONE-v2-PLAN.md')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not under phases\//) });
    // A copy at the top of a plan phases/ holds is the phases/ one's duplicate, listed with the reason.
    put('01-01-PLAN.md', plan('wave: 1', 'A stray copy.'));
    expect(loadGsdProject(planning).planFiles.find((x) => x.file === '01-01-PLAN.md')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^plan 01-01 is also phases\//) });
  });

  it('imports a plan named oddly whose frontmatter names phase and plan (cc-proxy 01-PLAN-01.md, phase: 1, plan: 1) under the numbers as its file name writes them', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/26-auth/26-PLAN-01.md', plan('phase: 26\nplan: 1\nwave: 1', 'Scaffold.'));
    put('phases/26-auth/26-PLAN-02.md', plan('phase: 26\nplan: 2\nwave: 2\ndepends_on: [1]', 'Login.'));
    // The name's numbers are not the frontmatter's: the frontmatter's, as written.
    put('phases/26-auth/26-PLAN-09.md', plan('phase: 26\nplan: 3\nwave: 3', 'Logout.'));
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/26-auth/26-PLAN-01.md')).toMatchObject({ status: 'imported', id: '26-01', reason: expect.stringMatching(/frontmatter names phase and plan/) });
    expect(byFile('phases/26-auth/26-PLAN-02.md')).toMatchObject({ status: 'imported', id: '26-02' });
    expect(byFile('phases/26-auth/26-PLAN-09.md')).toMatchObject({ status: 'imported', id: '26-3' });
    expect(p.plans.find((x) => x.id === '26-02')?.depends).toEqual(['26-01']);
  });

  it('imports NN-PLAN.md in its own phase folder as plan NN when its frontmatter or its numbered siblings say so (idnms 01-PLAN.md, 02-PLAN.md, depends_on [01])', () => {
    const { planning, put, plan } = oddPlanning();
    // Numbered siblings: 01-PLAN.md beside 02-PLAN.md is plan 01, even without a plan: key.
    put('phases/07-core/07-PLAN.md', plan('wave: 1', 'Types.'));
    put('phases/07-core/08-PLAN.md', plan('wave: 2\ndepends_on: [07]', 'Parser.'));
    put('phases/07-core/07-SUMMARY.md', '# 07 summary\n\nTypes done.\n');
    // Frontmatter alone: plan: 01 in phase 09's folder, no siblings.
    put('phases/09-solo/09-PLAN.md', plan('phase: 09-solo\nplan: 09\nwave: 1', 'Solo.'));
    put('phases/09-solo/09-SUMMARY.md', '# 09 summary\n\nSolo done.\n');
    // Neither: the phase's one plan, as before.
    put('phases/10-alone/10-PLAN.md', plan('wave: 1', 'Alone.'));
    // The phase-named summary of a numbering folder belongs to the plan its frontmatter names (idnms 03-SUMMARY.md).
    put('phases/11-viz/01-PLAN.md', plan('wave: 1', 'Chart.'));
    put('phases/12-base/01-PLAN.md', plan('phase: 12-base\nplan: 01\nwave: 1', 'Scaffold.'));
    put('phases/12-base/02-PLAN.md', plan('wave: 2\ndepends_on: [01-PLAN]', 'Store.'));
    put('phases/12-base/03-PLAN.md', plan('wave: 3\ndepends_on: [01-PLAN, 02-PLAN.md]', 'Config.'));
    put('phases/04-done/04-02-SUMMARY.md', '---\nphase: 04\nplan: 02\n---\n# 04-02 summary\n\nThe index is built.\n');
    put('phases/13-next/13-01-PLAN.md', plan('depends_on: [04-02]', 'Use the index.'));
    put('phases/11-viz/11-SUMMARY.md', '---\nphase: 11\nplan: 01\n---\n# Phase 11 summary\n\nChart done.\n');
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/07-core/07-PLAN.md')).toMatchObject({ status: 'imported', id: '07-07', reason: expect.stringMatching(/plan 07 of phase 07/) });
    expect(byFile('phases/07-core/08-PLAN.md')).toMatchObject({ status: 'imported', id: '07-08' });
    expect(byFile('phases/09-solo/09-PLAN.md')).toMatchObject({ status: 'imported', id: '09-09' });
    expect(byFile('phases/10-alone/10-PLAN.md')).toMatchObject({ status: 'imported', id: '10-plan' });
    const plans = new Map(p.plans.map((x) => [x.id, x]));
    expect(plans.get('07-08')?.depends).toEqual(['07-07']);
    expect(plans.get('07-07')?.summary?.file).toBe('phases/07-core/07-SUMMARY.md');
    expect(plans.get('09-09')?.summary?.file).toBe('phases/09-solo/09-SUMMARY.md');
    expect(plans.get('11-01')?.summary?.file).toBe('phases/11-viz/11-SUMMARY.md');
    // depends_on naming a plan file of the folder (ai-ext `[01-PLAN, 02-PLAN]`).
    expect(plans.get('12-03')?.depends).toEqual(['12-01', '12-02']);
    // depends_on naming a finished task whose PLAN is gone but whose SUMMARY is there (kwiki 05-01 on 03-01):
    // the dependency stands, so the brief carries that summary's capsule.
    expect(plans.get('13-01')?.depends).toEqual(['04-02']);
    expect(plans.get('13-01')?.wave).toBe(1);
    expect(p.issues.filter((i) => i.kind === 'unresolved_depends' || i.kind === 'summary_without_plan').map((i) => i.file)).toEqual(['phases/04-done/04-02-SUMMARY.md']);
  });

  it('imports plans its name cannot number under their frontmatter plan_id (codenexus 05-W1, 04.5-03-W1), with their dependencies', () => {
    const { planning, put, plan } = oddPlanning();
    put('phases/07-bridge/07-W0-PLAN.md', plan('phase: 7\nplan_id: 07-W0\nwave: 1', 'Schema.'));
    put('phases/07-bridge/07-W1-PLAN.md', plan('phase: 7\nplan_id: 07-W1\nwave: 2\ndepends_on: [07-W0]', 'Writer.'));
    put('phases/08-layer/08-03-W0-PLAN.md', plan('phase: 8\nplan_id: 08-03-W0\nwave: 1', 'Lift.'));
    put('phases/08-layer/08-03-W1-PLAN.md', plan('phase: 8\nplan_id: 08-03-W1\nwave: 2\ndepends_on: [08-03-W0]', 'Wire.'));
    // A plan_id of another phase is not taken: the file stays listed with the reason.
    put('phases/08-layer/08-W9-PLAN.md', plan('phase: 8\nplan_id: 09-W9', 'Stray.'));
    // A quick task named by its key in depends_on.
    put('quick/260427-abc-first/260427-abc-PLAN.md', plan('wave: 1', 'First.'));
    put('quick/260427-def-second/260427-def-PLAN.md', plan('wave: 2\ndepends_on: [260427-abc]', 'Second.'));
    const p = loadGsdProject(planning);
    const byFile = (f: string) => p.planFiles.find((x) => x.file === f);
    expect(byFile('phases/07-bridge/07-W0-PLAN.md')).toMatchObject({ status: 'imported', id: '07-W0' });
    expect(byFile('phases/07-bridge/07-W1-PLAN.md')).toMatchObject({ status: 'imported', id: '07-W1' });
    expect(byFile('phases/08-layer/08-03-W0-PLAN.md')).toMatchObject({ status: 'imported', id: '08-03' });
    expect(byFile('phases/08-layer/08-03-W1-PLAN.md')).toMatchObject({ status: 'imported', id: '08-03-W1', reason: expect.stringMatching(/frontmatter plan_id/) });
    expect(byFile('phases/08-layer/08-W9-PLAN.md')).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/not NN-MM-PLAN\.md/) });
    const plans = new Map(p.plans.map((x) => [x.id, x]));
    expect(plans.get('07-W1')?.depends).toEqual(['07-W0']);
    expect(plans.get('08-03-W1')?.depends).toEqual(['08-03']);
    expect(plans.get('quick-260427-def')?.depends).toEqual(['quick-260427-abc']);
    expect(p.issues.filter((i) => i.kind === 'unresolved_depends' || i.kind === 'duplicate_plan')).toEqual([]);
  });

  it('refuses a tasks.json or units.json it cannot read and leaves it untouched', () => {
    const project = syntheticProject();
    const ctx = ctxAt(path.join(project, '.planning'));
    fs.mkdirSync(ctx.paths.protocolDir, { recursive: true });
    fs.writeFileSync(tasksFilePath(ctx), '{"version": "2.0.0", "tasks": [');
    expect(() => importGsd(ctx)).toThrow(HeimdallError);
    expect(fs.readFileSync(tasksFilePath(ctx), 'utf8')).toBe('{"version": "2.0.0", "tasks": [');
    fs.rmSync(tasksFilePath(ctx));
    fs.writeFileSync(unitsFilePath(ctx), '{"version": "2.0.0", "units": [1]}');
    expect(() => importGsd(ctx)).toThrow(/units\.json must hold/);
    expect(fs.readFileSync(unitsFilePath(ctx), 'utf8')).toBe('{"version": "2.0.0", "units": [1]}');
    expect(fs.existsSync(tasksFilePath(ctx))).toBe(false);
  });

  it('says where it looked when there is no GSD tree', () => {
    const ctx = ctxAt(path.join(tmp(), '.planning'));
    expect(() => importGsd(ctx, { from: tmp() })).toThrow(/no GSD planning tree/);
    expect(() => loadGsdProject(path.join(tmp(), 'nope'))).toThrow(/phases/);
  });
});

describe('reading the tree within the storage limits', () => {
  it('lists a PLAN file over the read limit with the reason, and a FIFO in its place, never reading them unbounded', async () => {
    const { setStorageLimits, storageLimits } = await import('../planning/limits.js');
    const { execFileSync } = await import('node:child_process');
    const project = copyTestdata();
    const planning = path.join(project, '.planning');
    const plan = fs.readdirSync(path.join(planning, 'phases'), { recursive: true, encoding: 'utf8' }).find((f) => /01-01-PLAN\.md$/.test(f)) as string;
    const big = path.join(planning, 'phases', plan);
    fs.appendFileSync(big, `\n${'x'.repeat(4096)}\n`);
    const fifoPlan = big.replace('01-01-PLAN.md', '01-09-PLAN.md');
    execFileSync('mkfifo', [fifoPlan]);
    const before = storageLimits().maxReadBytes;
    setStorageLimits({ maxReadBytes: 2048 });
    try {
      const p = loadGsdProject(planning);
      const listed = (abs: string) => p.planFiles.find((f) => abs.endsWith(`/${f.file}`));
      expect(listed(big)).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/cannot be read: .*2 KiB|cannot be read: .*2048/) });
      expect(listed(fifoPlan)).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/cannot be read: .*(regular file|FIFO)/i) });
    } finally {
      setStorageLimits({ maxReadBytes: before });
    }
  });
});
