import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { fixedClock, sequentialIds } from '../ports.js';
import { MAX_CAPSULE_LINES, listCapsuleIds, readCapsule, writeCapsule } from '../capsules/capsules.js';
import { PROTOCOL_VERSION } from '../planning/version.js';
import { readSymbols, setSymbol } from '../symbols/symbols.js';
import { FIXTURES, FIXTURE_NAMES, copyFixture, hashTree, syntheticProject, tmp } from './_testkit.js';
import { type TasksFile, importGsd, tasksFilePath } from './importer.js';
import { loadGsdProject } from './tree.js';

const ctxAt = (planning: string) => makeCtx(planning, { clock: fixedClock(Date.parse('2026-06-11T12:00:00Z')), ids: sequentialIds('t') });

describe('import gsd on the real fixtures', () => {
  const expected: Record<string, { plans: number; summaries: number }> = {
    '001TMF__HYDRA': { plans: 31, summaries: 31 },
    'BarristanSelmy__hybrid-attendance-tracker': { plans: 6, summaries: 6 },
    'FabienStarseed__wind-turbines-reports': { plans: 18, summaries: 18 },
  };

  for (const name of FIXTURE_NAMES) {
    it(`${name}: writes symbols, one capsule per SUMMARY and the task list beside GSD's files`, () => {
      const project = copyFixture(name);
      const planning = path.join(project, '.planning');
      const before = hashTree(planning);
      const ctx = ctxAt(planning);
      const { report, model } = importGsd(ctx);

      expect(report.plans).toBe(expected[name]?.plans);
      expect(report.summaries).toBe(expected[name]?.summaries);
      // GSD's own files are untouched; everything new is under protocol/ or protocol.log.
      const after = hashTree(planning);
      for (const [f, h] of Object.entries(before)) expect(after[f], f).toBe(h);
      for (const f of Object.keys(after).filter((x) => !(x in before))) expect(f).toMatch(/^protocol(\/|\.log$)/);

      const caps = listCapsuleIds(ctx);
      expect(caps.length).toBe(report.summaries);
      for (const id of caps) {
        const c = readCapsule(ctx, id);
        expect(c.text.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_CAPSULE_LINES);
        expect(c.what).toBeTruthy();
        expect(c.where).toBeTruthy();
        // Capsule depends come from the plan's depends_on (restricted to plans with a capsule).
        const p = model.project.plans.find((x) => x.id === id);
        expect(c.depends).toEqual((p?.depends ?? []).filter((d) => caps.includes(d)));
      }

      const table = readSymbols(ctx);
      const tasks = JSON.parse(fs.readFileSync(tasksFilePath(ctx), 'utf8')) as TasksFile;
      expect(tasks.version).toBe(PROTOCOL_VERSION);
      expect(tasks.tasks.filter((t) => t.plan_file).length).toBe(report.plans);
      for (const t of tasks.tasks) {
        for (const id of [...t.truths, ...t.requirements]) expect(table[id], `${t.id} ${id}`).toBeDefined();
        for (const f of t.files) expect(table[f] !== undefined || f.includes('/') || f.includes('.'), f).toBe(true);
      }
      // Every recurring path is a symbol; requirements and truths too.
      expect(report.symbols.paths).toBeGreaterThan(0);
      expect(report.symbols.requirements).toBeGreaterThan(0);
      for (const [p, id] of model.pathIds) expect(table[id]).toBe(p);
    });
  }

  it('runs twice and changes nothing the second time (state files and protocol.log identical)', () => {
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
    expect(second.tasks_written).toBe(false);
    expect(hashTree(planning)).toEqual(before);
  });

  it('reads a tree it may not write (--from the read-only fixture) and writes only to its own root', () => {
    const src = path.join(FIXTURES, 'BarristanSelmy__hybrid-attendance-tracker');
    const before = hashTree(src);
    const ctx = ctxAt(path.join(tmp(), '.planning'));
    const { report } = importGsd(ctx, { from: src });
    expect(report.plans).toBe(6);
    expect(fs.existsSync(path.join(ctx.root, 'protocol', 'tasks.json'))).toBe(true);
    expect(hashTree(src)).toEqual(before);
  });

  it('keeps ids stable when the tree grows, and never overwrites a symbol or capsule it did not write', () => {
    const project = syntheticProject();
    const planning = path.join(project, '.planning');
    const ctx = ctxAt(planning);
    setSymbol(ctx, 'F1', 'something the team defined by hand');
    setSymbol(ctx, 'AUTH-01', 'hand-written meaning');
    writeCapsule(ctx, '01-01', { what: 'hand-written capsule', where: 'README.md' });
    const { model, report } = importGsd(ctx);
    const table = readSymbols(ctx);
    expect(table.F1).toBe('something the team defined by hand');
    expect(table['AUTH-01']).toBe('hand-written meaning');
    expect(model.requirementIds.get('AUTH-01')).not.toBe('AUTH-01');
    expect(table[model.requirementIds.get('AUTH-01') as string]).toBe('Users can log in with a password');
    expect([...model.pathIds.values()]).not.toContain('F1');
    expect(readCapsule(ctx, '01-01').what).toBe('hand-written capsule');
    expect(report.issues.map((i) => i.kind)).toEqual(expect.arrayContaining(['symbol_conflict', 'capsule_conflict']));

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
});

describe('import gsd on an odd synthetic tree', () => {
  it('imports every plan with what it has and lists the oddities in the report', () => {
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
    expect(kinds('ignored_file')).toEqual(['NOTES-PLAN.md']);

    const byId = new Map(model.project.plans.map((p) => [p.id, p]));
    expect(byId.get('01-02')?.depends).toEqual(['01-01']);
    expect(byId.get('01-04')?.depends).toEqual(['01-02', '01-03']); // from broken YAML, read line by line
    expect(byId.get('01-05')?.depends).toEqual(['01-02']); // "1-2" unpadded; 09-09 dropped
    expect(byId.get('01-05')?.wave).toBe(3); // no wave: one after its dependency
    expect(byId.get('02.1-01')?.depends).toEqual(['01-02']);
    expect(byId.get('01-03')?.wave).toBe(1);
    // CRLF + BOM plan: frontmatter read in full.
    expect(byId.get('01-01')?.parsed.truths).toEqual(['Login rejects a wrong password', 'Passwords are hashed with argon2id']);

    const table = readSymbols(ctx);
    expect(table['DATA-2']).toBe('Store events append-only');
    expect(table['REQ-9']).toBe('Hotfix the parser for odd inputs'); // from the ROADMAP table
    // "F1" occurs in PROJECT.md only, not in plans: allocation avoids numbers the plans' own text uses.
    expect(Object.values(table)).toContain('src/auth/session.ts');
    expect(readCapsule(ctx, '01-02').depends).toEqual(['01-01']);
    expect(readCapsule(ctx, '01-02').decision).toBe('Sliding expiry');
    expect(readCapsule(ctx, '01-01').gotcha).toBe('The argon2 package needs node-gyp on Alpine');
    expect(readCapsule(ctx, '01-09').what).toBe('A hotfix done outside any plan.');
  });

  it('never allocates a path id whose text already occurs in a plan', () => {
    const project = syntheticProject();
    const planning = path.join(project, '.planning');
    const f = path.join(planning, 'phases/01-core/01-02-PLAN.md');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('Sessions for logged-in users.', 'Sessions for logged-in users (F1 and F3 keys refresh).'));
    const ctx = ctxAt(planning);
    const { model } = importGsd(ctx);
    const ids = [...model.pathIds.values()];
    expect(ids).not.toContain('F1');
    expect(ids).not.toContain('F3');
    expect(model.tasks.path_ids.skipped).toEqual([1, 3]);
  });

  it('also reads phases archived by a finished milestone; a live plan wins over an archived one', () => {
    const project = syntheticProject();
    const planning = path.join(project, '.planning');
    const arch = path.join(planning, 'milestones/v0.9-phases/00-setup');
    fs.mkdirSync(arch, { recursive: true });
    fs.writeFileSync(path.join(arch, '00-01-PLAN.md'), '---\nwave: 1\n---\n<objective>setup</objective>\n<tasks><task><name>s</name></task></tasks>\n');
    fs.writeFileSync(path.join(arch, '00-01-SUMMARY.md'), '# Setup Summary\n\n**repo scaffolded**\n');
    const dup = path.join(planning, 'milestones/v0.9-phases/01-core');
    fs.mkdirSync(dup, { recursive: true });
    fs.writeFileSync(path.join(dup, '01-01-PLAN.md'), '<objective>old copy</objective>\n');
    const ctx = ctxAt(planning);
    const { report, model } = importGsd(ctx);
    expect(report.plans).toBe(9);
    expect(model.project.plans.find((p) => p.id === '00-01')?.file).toBe('milestones/v0.9-phases/00-setup/00-01-PLAN.md');
    expect(model.project.plans.find((p) => p.id === '01-01')?.file).toBe('phases/01-core/01-01-PLAN.md');
    expect(report.issues.filter((i) => i.kind === 'duplicate_plan').map((i) => i.file)).toEqual(['milestones/v0.9-phases/01-core/01-01-PLAN.md']);
    expect(readCapsule(ctx, '00-01').what).toBe('repo scaffolded');
  });

  it('refuses a tasks.json it cannot read and leaves it untouched', () => {
    const project = syntheticProject();
    const ctx = ctxAt(path.join(project, '.planning'));
    fs.mkdirSync(ctx.paths.protocolDir, { recursive: true });
    fs.writeFileSync(tasksFilePath(ctx), '{"version": "2.0.0", "tasks": [');
    expect(() => importGsd(ctx)).toThrow(HeimdallError);
    expect(fs.readFileSync(tasksFilePath(ctx), 'utf8')).toBe('{"version": "2.0.0", "tasks": [');
  });

  it('says where it looked when there is no GSD tree', () => {
    const ctx = ctxAt(path.join(tmp(), '.planning'));
    expect(() => importGsd(ctx, { from: tmp() })).toThrow(/no GSD planning tree/);
    expect(() => loadGsdProject(path.join(tmp(), 'nope'))).toThrow(/phases/);
  });
});
