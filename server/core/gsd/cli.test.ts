/**
 * `heimdall import gsd`, `heimdall brief gsd|unit` and `heimdall bench gsd` end to end, through the
 * bundled executable (bin/heimdall, built before the suites run), so exit codes, text and JSON are
 * what a user sees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tmpPlanning } from '../../testing/fixtures.js';
import { copyFixture, copyTestdata, hashTree, requireFixtures, syntheticProject, tmp } from './_testkit.js';

describe('heimdall import gsd', () => {
  it('imports the planning root, reports oddities and skipped PLAN files, and says nothing changed the second time', () => {
    const planning = path.join(copyTestdata(), '.planning');
    const first = runBin('heimdall', ['import', 'gsd'], { planning });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/plans 9 in 4 phases \(9 of 10 PLAN files\), summaries 2/);
    expect(first.stdout).toMatch(/^units \d+ \(.*\d+ items?.*\d+ phases?/m);
    expect(first.stdout).toMatch(/^ {2}not imported\tphases\/02-hardening\/NOTES_PLAN\.md\t.*not a GSD plan/m);
    expect(first.stdout).toMatch(/^ {2}bad_frontmatter\tphases\/02-hardening\/02-03-PLAN\.md\t.*nothing taken from must_haves/m);
    const log = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
    expect(log).toMatch(/\timport\tgsd\t/);
    const second = runBin('heimdall', ['import', 'gsd', '--json'], { planning });
    expect(second.code, second.stderr).toBe(0);
    const r = JSON.parse(second.stdout);
    expect(r.changed).toBe(false);
    expect(r.capsules).toEqual({ total: 2, written: 0, removed: 0 });
    expect(r).toMatchObject({ plans_found: 10, plans_imported: 9 });
    expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toBe(log);
  });

  it('makes a unit of the line numbers a plan names beside a document, which brief unit prints', () => {
    const planning = path.join(copyTestdata(), '.planning');
    fs.writeFileSync(
      path.join(planning, 'phases/01-core/01-09-PLAN.md'),
      '---\nphase: 01-core\nplan: 09\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md lines 19-21 (the comparison)\n</read_first><action>Compare in constant time.</action></task></tasks>\n',
    );
    const r = runBin('heimdall', ['import', 'gsd'], { planning });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^units \d+ \(.*, 1 line range, /m);
    const u = runBin('heimdall', ['brief', 'unit', '01-RESEARCH#lines-19-21'], { planning });
    expect(u.code, u.stderr).toBe(0);
    expect(u.stdout).toBe('### Pitfall 1: Timing attacks\n\nCompare hashes in constant time.\n');
    const b = runBin('heimdall', ['brief', 'gsd', '01-09'], { planning });
    expect(b.stdout).toMatch(/^to units: \.planning\/phases\/01-core\/01-RESEARCH\.md > § 01-RESEARCH#lines-19-21$/m);
    // The note stays beside the read_first item in SPEC, once.
    expect(b.stdout.match(/lines 19-21 \(the comparison\)/g)).toHaveLength(1);
    expect(b.stdout).not.toMatch(/^READ /m);
  });

  it('reads --from another tree and writes only to its own planning root', () => {
    const src = path.join(requireFixtures(), 'FabienStarseed__wind-turbines-reports');
    const before = hashTree(src);
    const planning = tmpPlanning();
    const r = runBin('heimdall', ['import', 'gsd', '--from', src, '--json'], { planning });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ plans: 18, summaries: 18, capsules: { total: 18 } });
    expect(fs.existsSync(path.join(planning, 'protocol/tasks.json'))).toBe(true);
    expect(fs.existsSync(path.join(planning, 'protocol/units.json'))).toBe(true);
    expect(hashTree(src)).toEqual(before);
  });

  it('rejects unknown sources and missing trees with a usage or not-found exit code', () => {
    const planning = tmpPlanning();
    const bad = runBin('heimdall', ['import', 'jira'], { planning });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/usage: heimdall import gsd/);
    const none = runBin('heimdall', ['import', 'gsd', '--from', tmp()], { planning });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no GSD planning tree/);
  });
});

describe('heimdall brief gsd and brief unit', () => {
  it('prints the v2 brief of a plan, and --json its tokens, units and reads', () => {
    const planning = path.join(copyTestdata(), '.planning');
    expect(runBin('heimdall', ['import', 'gsd'], { planning }).code).toBe(0);
    const log = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
    const text = runBin('heimdall', ['brief', 'gsd', '02-01'], { planning });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^TASK 02-01 phases\/02-hardening\/02-01-PLAN\.md\nSPEC\n---/);
    expect(text.stdout).toContain('§ 02-CONTEXT#D-01\n- **D-01:** Audit rows are append-only.');
    expect(text.stdout).toContain('§ 01-CONTEXT#D-02');
    expect(text.stdout).toMatch(/^# \d+ tokens sent, \d+ counted with reads \(o200k_base/m);
    const json = runBin('heimdall', ['brief', 'gsd', '01-01', '--json'], { planning });
    expect(json.code, json.stderr).toBe(0);
    const b = JSON.parse(json.stdout);
    expect(b).toMatchObject({ plan: '01-01', phase: '01', file: 'phases/01-core/01-01-PLAN.md', tokenizer: expect.stringMatching(/o200k/) });
    expect(b.units.map((u: { id: string }) => u.id)).toContain('01-RESEARCH#pattern-1');
    expect(b.reads.map((r: { path: string }) => r.path)).toEqual(['.planning/PROJECT.md', '.planning/STATE.md']);
    expect(b.total_tokens).toBeGreaterThan(b.tokens);
    expect(b.counted_text.startsWith(b.text)).toBe(true);
    // Printing a brief writes nothing.
    expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toBe(log);
    const missing = runBin('heimdall', ['brief', 'gsd', '07-07'], { planning });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no plan "07-07"/);
    const usage = runBin('heimdall', ['brief', 'gsd'], { planning });
    expect(usage.code).toBe(2);
  });

  it('says what a unit id or label stands for, and finds the id of a text', () => {
    const planning = path.join(copyTestdata(), '.planning');
    const none = runBin('heimdall', ['brief', 'unit', 'D-01'], { planning });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/run heimdall import gsd first/);
    expect(runBin('heimdall', ['import', 'gsd'], { planning }).code).toBe(0);
    const one = runBin('heimdall', ['brief', 'unit', '02-CONTEXT#D-01'], { planning });
    expect(one.stdout.trim()).toBe('- **D-01:** Audit rows are append-only.');
    const both = runBin('heimdall', ['brief', 'unit', 'D-01'], { planning });
    expect(both.stdout).toMatch(/^== 01-CONTEXT#D-01 \(phases\/01-core\/01-CONTEXT\.md\)\n- \*\*D-01:\*\* Passwords/);
    expect(both.stdout).toMatch(/== 02-CONTEXT#D-01/);
    const scoped = runBin('heimdall', ['brief', 'unit', 'D-01', '--phase', '2', '--json'], { planning });
    expect(JSON.parse(scoped.stdout).units.map((u: { id: string }) => u.id)).toEqual(['02-CONTEXT#D-01']);
    const rev = runBin('heimdall', ['brief', 'unit', '--reverse', 'Audit rows are append-only.'], { planning });
    expect(rev.stdout).toMatch(/^02-CONTEXT#D-01\tphases\/02-hardening\/02-CONTEXT\.md\t\(contains it\)$/m);
    const list = runBin('heimdall', ['brief', 'unit', '--list', '--file', 'ROADMAP.md'], { planning });
    expect(list.stdout).toMatch(/^ROADMAP#phase-2\tphase\tROADMAP\.md\tPhase 2: Hardening$/m);
  });
});

describe('heimdall bench gsd', () => {
  it('prints per phase and total, and --json holds the interface: total, trees, phases, plans, tokenizer', () => {
    const small = copyTestdata();
    const planning = path.join(tmp(), '.planning');
    const text = runBin('heimdall', ['bench', 'gsd', small], { planning });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^phase +plans +v1 +lean +v2 +vs v1 +vs lean +recall v2 +lean$/m);
    expect(text.stdout).toMatch(/^01-core +3 /m);
    expect(text.stdout).toMatch(/^total +9 +\d+ +\d+ +\d+ +-?\d+\.\d% +-?\d+\.\d% +100% /m);
    expect(text.stdout).toMatch(/tokenizer o200k_base/);
    expect(text.stdout).toMatch(/^ablation/m);
    expect(text.stdout).toMatch(/^ {2}not imported: phases\/02-hardening\/NOTES_PLAN\.md: /m);

    const project = copyFixture('BarristanSelmy__hybrid-attendance-tracker');
    const before = hashTree(project);

    const out = path.join(tmp(), 'briefs');
    const json = runBin('heimdall', ['bench', 'gsd', project, '--json', '--emit-briefs', out], { planning });
    expect(json.code, json.stderr).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r.tokenizer).toMatch(/o200k_base/);
    expect(Object.keys(r.total)).toEqual(
      expect.arrayContaining(['v1_tokens', 'lean_tokens', 'v2_tokens', 'saving_pct', 'saving_vs_lean_pct', 'floor_tokens', 'completeness_pct', 'plans_found', 'plans_imported']),
    );
    expect(r.total.completeness_pct).toBe(100);
    expect(r.trees).toHaveLength(1);
    expect(r.phases).toHaveLength(3);
    expect(r.plans).toHaveLength(6);
    for (const p of r.plans) {
      expect(p.path).toMatch(/^\.planning\/phases\/.+-PLAN\.md$/);
      expect(p).toMatchObject({ id: expect.any(String), v1_tokens: expect.any(Number), lean_tokens: expect.any(Number), v2_tokens: expect.any(Number), recall: { v2: 100 } });
      for (const ext of ['v1', 'lean', 'v2', 'v2.resolved']) expect(fs.existsSync(path.join(out, `${p.id}.${ext}.txt`))).toBe(true);
    }
    expect(r.total.v1_tokens).toBe(r.plans.reduce((s: number, p: { v1_tokens: number }) => s + p.v1_tokens, 0));
    // The bench measures a copy: neither the tree nor the caller's planning root is written.
    expect(hashTree(project)).toEqual(before);
    expect(fs.existsSync(planning)).toBe(false);
  });

  it('--record writes the run into this planning root\'s ledger', () => {
    const project = syntheticProject();
    const planning = tmpPlanning();
    const r = runBin('heimdall', ['bench', 'gsd', project, '--json', '--record', '--run', 'odd-1'], { planning });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.recorded).toMatchObject({ run: 'odd-1', lines: out.plans.length * 3 });
    expect(fs.existsSync(path.join(planning, 'protocol/runs/odd-1.json'))).toBe(true);
    const lines = fs
      .readFileSync(path.join(planning, 'protocol/ledger.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.filter((l) => l.arm === 'v2').reduce((s, l) => s + l.tokens, 0)).toBe(out.total.v2_tokens);
  });

  it('needs a DIR', () => {
    const r = runBin('heimdall', ['bench', 'gsd'], { planning: path.join(tmp(), '.planning') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: heimdall bench gsd DIR/);
  });
});
