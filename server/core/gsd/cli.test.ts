/**
 * `heimdall import gsd` and `heimdall bench gsd` end to end, through the bundled executable
 * (bin/heimdall, built before the suites run), so exit codes, text and JSON are what a user sees.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin, tmpPlanning } from '../../testing/fixtures.js';
import { FIXTURES, copyFixture, hashTree, syntheticProject, tmp } from './_testkit.js';

describe('heimdall import gsd', () => {
  it('imports the planning root, reports oddities, and says nothing changed the second time', () => {
    const planning = path.join(syntheticProject(), '.planning');
    const first = runBin('heimdall', ['import', 'gsd'], { planning });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/plans 8 in 2 phases, summaries 3/);
    expect(first.stdout).toMatch(/^ {2}no_frontmatter\tphases\/01-core\/01-03-PLAN\.md\t/m);
    expect(first.stdout).toMatch(/^ {2}no_context\tphases\/01-core\/01-03-PLAN\.md\t/m);
    const log = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
    expect(log).toMatch(/\timport\tgsd\t/);
    const second = runBin('heimdall', ['import', 'gsd', '--json'], { planning });
    expect(second.code, second.stderr).toBe(0);
    const r = JSON.parse(second.stdout);
    expect(r.changed).toBe(false);
    expect(r.capsules).toEqual({ total: 3, written: 0 });
    expect(fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8')).toBe(log);
  });

  it('reads --from another tree and writes only to its own planning root', () => {
    const src = path.join(FIXTURES, 'FabienStarseed__wind-turbines-reports');
    const before = hashTree(src);
    const planning = tmpPlanning();
    const r = runBin('heimdall', ['import', 'gsd', '--from', src, '--json'], { planning });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ plans: 18, summaries: 18, capsules: { total: 18 } });
    expect(fs.existsSync(path.join(planning, 'protocol/tasks.json'))).toBe(true);
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

describe('heimdall bench gsd', () => {
  it('prints per phase and total, and --json names the tokenizer and holds total, phases and plans', () => {
    const project = copyFixture('BarristanSelmy__hybrid-attendance-tracker');
    const before = hashTree(project);
    const planning = path.join(tmp(), '.planning');
    const text = runBin('heimdall', ['bench', 'gsd', project], { planning });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^phase +plans +v1 tokens +v2 tokens +saving +floor +v2\/floor +complete$/m);
    expect(text.stdout).toMatch(/^01-foundation +2 /m);
    expect(text.stdout).toMatch(/^total +6 +\d+ +\d+ +\d+\.\d% +\d+ +\d+\.\d\dx +100%$/m);
    expect(text.stdout).toMatch(/tokenizer o200k_base/);

    const json = runBin('heimdall', ['bench', 'gsd', project, '--json'], { planning });
    expect(json.code, json.stderr).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r.tokenizer).toMatch(/o200k_base/);
    expect(Object.keys(r.total)).toEqual(expect.arrayContaining(['v1_tokens', 'v2_tokens', 'saving_pct', 'floor_tokens', 'completeness_pct']));
    expect(r.total.completeness_pct).toBe(100);
    expect(r.phases).toHaveLength(3);
    expect(r.plans).toHaveLength(6);
    expect(r.total.v1_tokens).toBe(r.plans.reduce((s: number, p: { v1_tokens: number }) => s + p.v1_tokens, 0));
    // The bench measures a copy: neither the tree nor the caller's planning root is written.
    expect(hashTree(project)).toEqual(before);
    expect(fs.existsSync(planning)).toBe(false);
  });

  it('needs a DIR', () => {
    const r = runBin('heimdall', ['bench', 'gsd'], { planning: path.join(tmp(), '.planning') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/usage: heimdall bench gsd DIR/);
  });
});
