/**
 * Recall must be able to fail. On the real fixture briefs, remove one thing at a time (each unit
 * block, each whole-file read, each capsule recall expects, and task lines) and require that
 * recall notices every removal. Task lines are sampled deterministically (every 4th, the offset
 * varying per plan) to keep the suite fast on a shared machine; `npm run bench -- gsd` runs the
 * full set and prints its count.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { briefMutations } from './_mutate.js';
import { FIXTURE_NAMES, copyTestdata, requireFixtures } from './_testkit.js';
import { copyTree } from './bench.js';
import { buildGsdBrief } from './brief.js';
import { importGsd } from './importer.js';
import { checkRecall, recallItems, resolveBrief } from './recall.js';

function importCopy(planning: string) {
  const dest = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-recall-')), '.planning');
  copyTree(planning, dest);
  const ctx = makeCtx(dest);
  return { ctx, model: importGsd(ctx).model };
}

describe('recall mutation test on the real fixture briefs', () => {
  it('detects every removed unit, read, expected capsule and (sampled) task line', { timeout: 240_000 }, () => {
    const fixtures = requireFixtures();
    const counts = { unit: 0, read: 0, capsule: 0, task_line: 0 };
    const undetected: string[] = [];
    let planIndex = 0;
    for (const name of FIXTURE_NAMES) {
      const { ctx, model } = importCopy(path.join(fixtures, name, '.planning'));
      for (const plan of model.project.plans) {
        planIndex++;
        const b = buildGsdBrief(ctx, model, plan);
        const items = recallItems(ctx, model, b);
        expect(checkRecall(b.counted, items).pct, `${name}/${plan.id} before any mutation`).toBe(100);
        // Capsules recall expects: those of SUMMARYs the plan reads and of plans it depends on.
        const expectedCapsules = new Set(items.filter((i) => i.kind === 'capsule' || i.kind === 'summary').flatMap((i) => b.capsules.filter((c) => i.texts.includes(c.text)).map((c) => c.id)));
        let taskLine = 0;
        for (const m of briefMutations(b)) {
          if (m.kind === 'capsule' && !expectedCapsules.has(m.what)) continue;
          if (m.kind === 'task_line' && taskLine++ % 4 !== planIndex % 4) continue;
          counts[m.kind]++;
          const r = checkRecall(m.text, items);
          if (r.pct === 100) undetected.push(`${name}/${plan.id} ${m.kind} ${m.what}`);
        }
      }
    }
    expect(undetected).toEqual([]);
    // The briefs do carry units, reads and capsules: the test is not vacuous.
    expect(counts.unit).toBeGreaterThan(150);
    expect(counts.read).toBeGreaterThan(100);
    expect(counts.capsule).toBeGreaterThan(30);
    expect(counts.task_line).toBeGreaterThan(1500);
  });
});

describe('recall on a small tree', () => {
  it('detects every single removal, unsampled, and a brief that is still whole scores 100', () => {
    const project = copyTestdata();
    const ctx = makeCtx(path.join(project, '.planning'));
    const { model } = importGsd(ctx);
    let n = 0;
    for (const plan of model.project.plans) {
      const b = buildGsdBrief(ctx, model, plan);
      const items = recallItems(ctx, model, b);
      expect(checkRecall(b.counted, items).pct).toBe(100);
      for (const m of briefMutations(b)) {
        n++;
        expect(checkRecall(m.text, items).pct, `${plan.id} ${m.kind} ${m.what}`).toBeLessThan(100);
      }
    }
    expect(n).toBeGreaterThan(60);
  });

  it('carries units that overlap once, as one block under both ids, and still sees either one go (4qan/claude-directory-tree 02-02: 02-UI-SPEC "Layout Contract" and its lines 126-162)', () => {
    const project = copyTestdata();
    const planning = path.join(project, '.planning');
    const rel = 'phases/01-core/01-09-PLAN.md';
    fs.writeFileSync(
      path.join(planning, rel),
      '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md lines 5-11\n- .planning/phases/01-core/01-RESEARCH.md lines 9-15\n- .planning/phases/01-core/01-RESEARCH.md (Pitfall 1) lines 21-25\n</read_first><action>Hash and sign.</action></task></tasks>\n',
    );
    const ctx = makeCtx(planning);
    const { model } = importGsd(ctx);
    const plan = model.project.plans.find((p) => p.file === rel);
    if (!plan) throw new Error('no 01-09');
    const b = buildGsdBrief(ctx, model, plan);
    expect(b.units.map((u) => u.id)).toEqual(['01-RESEARCH#lines-5-11', '01-RESEARCH#lines-9-15', '01-RESEARCH#pitfall-1', '01-RESEARCH#lines-21-25']);
    // Lines 9-11 and line 21 are in two units each; the brief sends them once.
    const count = (t: string) => b.counted.split(t).length - 1;
    expect(count('Sign the cookie with HMAC-SHA256')).toBe(1);
    expect(count('Compare hashes in constant time.')).toBe(1);
    expect(b.counted).toContain('§ 01-RESEARCH#lines-5-11 + 01-RESEARCH#lines-9-15\n### Pattern 1: Password hashing\n');
    expect(b.counted).toContain('§ 01-RESEARCH#pitfall-1 + 01-RESEARCH#lines-21-25\n### Pitfall 1: Timing attacks\n');
    const items = recallItems(ctx, model, b);
    expect(items.filter((i) => i.kind === 'unit').map((i) => i.what)).toEqual(['01-RESEARCH#lines-5-11 + 01-RESEARCH#lines-9-15', '01-RESEARCH#pitfall-1 + 01-RESEARCH#lines-21-25']);
    expect(checkRecall(b.counted, items).pct).toBe(100);
    // Dropping the lines only one of the two units holds is seen, as is dropping the block.
    expect(checkRecall(b.counted.replace('- Rolling your own crypto.\n', ''), items).pct).toBeLessThan(100);
    const units = briefMutations(b).filter((m) => m.kind === 'unit');
    expect(units.map((m) => m.what)).toEqual(['01-RESEARCH#lines-5-11 + 01-RESEARCH#lines-9-15', '01-RESEARCH#pitfall-1 + 01-RESEARCH#lines-21-25']);
    for (const m of units) expect(checkRecall(m.text, items).pct).toBeLessThan(100);
  });

  it('counts a line the plan repeats as often as it repeats it, and resolves ids before comparing', () => {
    const project = copyTestdata();
    const ctx = makeCtx(path.join(project, '.planning'));
    const { model } = importGsd(ctx);
    const plan = model.project.plans.find((p) => p.id === '01-01');
    if (!plan) throw new Error('no 01-01');
    const b = buildGsdBrief(ctx, model, plan);
    const items = recallItems(ctx, model, b);
    // "Login rejects a wrong password with 401" is written four times (truth, acceptance, done, success criteria).
    const repeated = '- Login rejects a wrong password with 401';
    expect(b.spec.split('\n').filter((l) => l.trim() === repeated).length).toBeGreaterThanOrEqual(2);
    const resolved = resolveBrief(b.counted);
    const lines = resolved.split('\n');
    const at = lines.findIndex((l) => l.trim() === repeated);
    const once = [...lines.slice(0, at), ...lines.slice(at + 1)].join('\n');
    expect(checkRecall(once, items).missing.join('\n')).toMatch(/Login rejects a wrong password with 401/);
    // The same brief without its SYMBOLS section cannot be resolved: lines with ids go missing.
    if (b.symbols.length) expect(checkRecall(b.counted.replace(/^SYMBOLS\n(?:.*\t.*\n)+/m, ''), items).pct).toBeLessThan(100);
  });
});
