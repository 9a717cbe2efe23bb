/**
 * The bench's recall checked by an independent count (scripts/gsd-oracle.mjs, which imports nothing
 * from the product): on the real fixture trees, every id a plan cites has a definition line in its
 * v2 brief, every `<read_first>` file is read or resolved, every task line is carried. The oracle
 * must be able to fail: a brief with one definition line or one task line taken out is reported.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBin, tmpDir } from '../server/testing/fixtures.js';

const FIXTURES = path.resolve(REPO_ROOT, process.env.HEIMDALL_GSD_FIXTURES ?? '../shared/fixtures/gsd');
const ORACLE = path.join(REPO_ROOT, 'scripts/gsd-oracle.mjs');

interface Miss {
  tree: string;
  plan: string;
  kind: 'id' | 'read' | 'task_line';
  what: string;
}
interface OracleReport {
  counts: { plans: number; ids: number; reads: number; task_lines: number };
  misses: Miss[];
}

let dir: string;
let benchFile: string;
let out: string;
let bench: { trees: { tree: string }[]; plans: { tree: string; id: string; path: string }[] };

function oracle(briefs = out): { code: number; report: OracleReport } {
  const r = spawnSync(process.execPath, [ORACLE, benchFile, briefs, '--json'], { encoding: 'utf8' });
  return { code: r.status ?? -1, report: JSON.parse(r.stdout) as OracleReport };
}

/** A copy of the emitted briefs with `edit` applied to one plan's resolved v2 brief. */
function mutated(tree: string, plan: string, edit: (text: string) => string): string {
  const copy = path.join(dir, `mut-${fs.readdirSync(dir).length}`);
  fs.cpSync(out, copy, { recursive: true });
  const f = path.join(copy, tree, `${plan}.v2.resolved.txt`);
  const before = fs.readFileSync(f, 'utf8');
  const after = edit(before);
  expect(after).not.toBe(before);
  fs.writeFileSync(f, after);
  return copy;
}

beforeAll(() => {
  if (!fs.existsSync(FIXTURES)) throw new Error(`the real GSD fixtures are missing: ${FIXTURES} (set HEIMDALL_GSD_FIXTURES)`);
  dir = tmpDir('heimdall-oracle-');
  out = path.join(dir, 'briefs');
  const r = runBin('heimdall', ['bench', 'gsd', FIXTURES, '--json', '--emit-briefs', out], { planning: path.join(dir, 'unused', '.planning') });
  expect(r.code, r.stderr).toBe(0);
  benchFile = path.join(dir, 'bench.json');
  fs.writeFileSync(benchFile, r.stdout);
  bench = JSON.parse(r.stdout);
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('an independent count of what each plan cites', () => {
  it('finds every cited id, read_first file and task line of the real fixtures in the v2 briefs', () => {
    const { code, report } = oracle();
    expect(report.misses).toEqual([]);
    expect(code).toBe(0);
    expect(report.counts.plans).toBe(bench.plans.length);
    // The count is not vacuous: the fixtures cite ids and carry task lines in nearly every plan.
    expect(report.counts.ids).toBeGreaterThan(50);
    expect(report.counts.task_lines).toBeGreaterThan(1000);
  });

  it('reports a brief missing the definition of a decision or requirement it cites', () => {
    // 02-02 of wind-turbines cites PERS-01, defined in REQUIREMENTS.md.
    const tree = 'FabienStarseed__wind-turbines-reports';
    const def = fs
      .readFileSync(path.join(FIXTURES, tree, '.planning/REQUIREMENTS.md'), 'utf8')
      .split('\n')
      .find((l) => /\*\*PERS-01\*\*/.test(l)) as string;
    expect(def).toBeDefined();
    const copy = mutated(tree, '02-02', (t) => t.split(def).join(''));
    const { code, report } = oracle(copy);
    expect(code).toBe(1);
    expect(report.misses).toEqual([expect.objectContaining({ tree, plan: '02-02', kind: 'id', what: expect.stringMatching(/^PERS-01 /) })]);
  });

  it('reports a brief missing one line of an <action>', () => {
    const tree = '001TMF__HYDRA';
    const plan = bench.plans.find((p) => p.tree === tree && p.id === '02-03') as { path: string };
    const raw = fs.readFileSync(path.join(FIXTURES, tree, plan.path), 'utf8');
    const action = /<action>([\s\S]*?)<\/action>/.exec(raw)?.[1] ?? '';
    const line = action.split('\n').find((l) => l.trim().length > 40) as string;
    expect(line).toBeDefined();
    const copy = mutated(tree, '02-03', (t) => t.split(`${line}\n`).join('\n'));
    const { report } = oracle(copy);
    expect(report.misses).toEqual([expect.objectContaining({ plan: '02-03', kind: 'task_line' })]);
  });
});
