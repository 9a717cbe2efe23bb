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
  kind: 'id' | 'read' | 'section' | 'lines' | 'task_line';
  what: string;
}
interface OracleReport {
  counts: { plans: number; ids: number; context_reads: number; reads: number; sections: number; line_ranges: number; task_lines: number };
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

/**
 * A hand-made tree with one plan (`files` relative to its .planning folder, the plan at `planRel`)
 * and a function that runs the oracle on a resolved v2 brief for it: the oracle alone, no product code.
 */
function handTree(name: string, planRel: string, files: Record<string, string>): (brief: string) => OracleReport {
  const root = path.join(dir, name);
  const tree = path.join(root, 't');
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(tree, '.planning', rel)), { recursive: true });
    fs.writeFileSync(path.join(tree, '.planning', rel), text);
  }
  const json = path.join(root, 'bench.json');
  fs.writeFileSync(json, JSON.stringify({ trees: [{ tree: 't', dir: tree }], plans: [{ tree: 't', id: '01-01', path: `.planning/${planRel}` }] }));
  return (brief) => {
    const briefs = path.join(root, `b${fs.readdirSync(root).length}`);
    fs.mkdirSync(briefs);
    fs.writeFileSync(path.join(briefs, '01-01.v2.resolved.txt'), brief);
    return JSON.parse(spawnSync(process.execPath, [ORACLE, json, briefs, '--json'], { encoding: 'utf8' }).stdout) as OracleReport;
  };
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

  it('reports a brief missing a section a <read_first> item names with a section sign', () => {
    const run = handTree('hand', 'phases/01-ui/01-01-PLAN.md', {
      'phases/01-ui/01-UI-SPEC.md': '# UI\n\n## Visual Hierarchy\n\n### SignIn Page (`/Auth/SignIn`)\n\nOne card, centred, brand blue button.\n\n## Sign-Off\n\nApproved by the checker on the day.\n',
      'phases/01-ui/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-ui/01-UI-SPEC.md §SignIn Page — copywriting\n</read_first><action>Build the page.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nBuild the page.\nREFS\nread_first .planning/phases/01-ui/01-UI-SPEC.md -> units\n';
    const ok = run(`${head}### SignIn Page (\`/Auth/SignIn\`)\nOne card, centred, brand blue button.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.sections).toBe(1);
    // The section's body without its heading, or another section: the named one is missing.
    const bad = run(`${head}## Sign-Off\nApproved by the checker on the day.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'section', what: '.planning/phases/01-ui/01-UI-SPEC.md §SignIn Page' }]);
  });

  it('takes a section sign, a dash and the title of a heading inside the named section for that heading (Angeluis001/Gaff 01-01 "§Architecture Patterns — Recommended Project Structure tree")', () => {
    const run = handTree('nested', 'phases/01-core/01-01-PLAN.md', {
      'phases/01-core/01-RESEARCH.md': '# Research\n\n## Architecture Patterns\n\n### Recommended Project Structure\n\nsrc/app and src/lib, nothing else.\n\n### Pattern 1: Pool\n\nOne pool for the whole app.\n',
      'phases/01-core/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md §Architecture Patterns — Recommended Project Structure tree\n</read_first><action>Scaffold.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nScaffold.\nREFS\nto units: .planning/phases/01-core/01-RESEARCH.md\n';
    const ok = run(`${head}### Recommended Project Structure\nsrc/app and src/lib, nothing else.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.sections).toBe(1);
    // The outer heading and another part of it do not stand for the part the item names.
    expect(run(`${head}## Architecture Patterns\n### Pattern 1: Pool\nOne pool for the whole app.\n`).misses).toEqual([
      { tree: 't', plan: '01-01', kind: 'section', what: '.planning/phases/01-core/01-RESEARCH.md §Architecture Patterns — recommended project structure' },
    ]);
  });

  it('reports a brief that does not name a planning file a <context> line reads, however its path begins (GradProj "@G:/AI/AXIOM-V2/.planning/ROADMAP.md")', () => {
    const run = handTree('context-reads', 'phases/01-ui/01-01-PLAN.md', {
      'ROADMAP.md': '# Roadmap\n\n### Phase 1: UI\n\n**Goal**: A page.\n',
      'phases/01-ui/01-01-PLAN.md': '---\nwave: 1\n---\n<context>\n@G:/AI/app/.planning/ROADMAP.md\n@G:/AI/app/backend/main.py\n</context>\n<tasks><task><action>Build the page.</action></task></tasks>\n',
    });
    const task = 'TASK 01-01\nBuild the page.\n';
    const ok = run(`${task}REFS\nto units: .planning/ROADMAP.md > § ROADMAP#phase-1\n### Phase 1: UI\n**Goal**: A page.\n`);
    expect(ok.misses).toEqual([]);
    // The source file outside .planning is not the oracle's to check; the roadmap is.
    expect(ok.counts.context_reads).toBe(1);
    expect(run(task).misses).toEqual([{ tree: 't', plan: '01-01', kind: 'context', what: 'G:/AI/app/.planning/ROADMAP.md (<context>)' }]);
  });

  it('takes a section sign before a number for the heading numbered so', () => {
    const research = '# Research\n\n## Findings\n\n### 1. Profile Schema Shape\n\nWrap the profile.\n\n### 3. Atomic Write Pattern\n\nWrite then rename.\n\n### 30. Other\n\nNot this.\n';
    const run = handTree('numbered-sign', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-RESEARCH.md': research,
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-store/01-RESEARCH.md §3 (atomic writes)\n</read_first><action>Save it.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nSave it.\nREFS\nto units: .planning/phases/01-store/01-RESEARCH.md\n';
    const ok = run(`${head}### 3. Atomic Write Pattern\nWrite then rename.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.sections).toBe(1);
    // Another numbered section (section 30 shares the digit): section 3 is missing.
    const bad = run(`${head}### 30. Other\nNot this.\n### 1. Profile Schema Shape\nWrap the profile.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'section', what: '.planning/phases/01-store/01-RESEARCH.md §3' }]);
  });

  it('takes "Section N" in a read_first item for the heading numbered so, as it does a section sign', () => {
    const research = '# Research\n\n## 1. API Surface\n\nMemories are listed with GET /memories.\n\n## 4. Card Layout\n\nOne card shell holds every memory type.\n\n## 7. Pagination\n\nPages are cursor based, fifty at a time.\n';
    const run = handTree('numbered-word', 'phases/01-mem/01-01-PLAN.md', {
      'phases/01-mem/01-RESEARCH.md': research,
      'phases/01-mem/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-mem/01-RESEARCH.md (Section 1, Section 4)\n</read_first><action>Type it.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nType it.\nREFS\nto units: .planning/phases/01-mem/01-RESEARCH.md\n';
    const ok = run(`${head}## 1. API Surface\nMemories are listed with GET /memories.\n## 4. Card Layout\nOne card shell holds every memory type.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.sections).toBe(2);
    const bad = run(`${head}## 1. API Surface\nMemories are listed with GET /memories.\n## 7. Pagination\nPages are cursor based, fifty at a time.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'section', what: '.planning/phases/01-mem/01-RESEARCH.md Section 4' }]);
  });

  it('takes a label set off at the start of a list item for a definition, not prose that begins with a name', () => {
    const run = handTree('labels', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-CONTEXT.md': "# Context\n\n## Decisions\n\n- **D-01:** Snapshots are JSON files, one per run.\n\n## Claude's Discretion\n\n- ISO-8601 timestamp precision in filenames\n",
      'REQUIREMENTS.md': '# Requirements\n\n- [REQ-040] System detects attempts - new\n',
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\nrequirements: [REQ-040]\n---\n<tasks><task><action>Write snapshots per D-01 with an ISO-8601 name.</action></task></tasks>\n',
    });
    const task = 'TASK 01-01\nWrite snapshots per D-01 with an ISO-8601 name.\n';
    const ok = run(`${task}- **D-01:** Snapshots are JSON files, one per run.\n- [REQ-040] System detects attempts - new\n`);
    expect(ok.misses).toEqual([]);
    // D-01 and the bracketed REQ-040; not ISO-8601.
    expect(ok.counts.ids).toBe(2);
    const bad = run(task);
    expect(bad.misses).toEqual([
      expect.objectContaining({ plan: '01-01', kind: 'id', what: expect.stringMatching(/^REQ-040 /) }),
      expect.objectContaining({ plan: '01-01', kind: 'id', what: expect.stringMatching(/^D-01 /) }),
    ]);
  });

  it('takes neither a range after a label ("GLOBAL-01–03, SCHED-01–05") for a definition nor a document\'s title for a section a note names (ArnaudD-FR/climate-manager 01-03, 02-02)', () => {
    const run = handTree('ranges-titles', 'phases/02-engine/02-01-PLAN.md', {
      'phases/02-engine/02-CONTEXT.md': '# Phase 2: Engine - Context\n\n## Scope\n\n- `.planning/REQUIREMENTS.md` — Phase 2 scope:\n  GLOBAL-01–03, SCHED-01–05\n',
      'phases/02-engine/02-RESEARCH.md': '# Research\n\n| ID | Behaviour |\n|----|-----------|\n| GLOBAL-01 | User sets the global mode |\n',
      'phases/02-engine/02-01-PLAN.md': '---\nwave: 1\nrequirements: [GLOBAL-01]\n---\n<tasks><task><read_first>\n- .planning/phases/02-engine/02-CONTEXT.md (scope for Phase 2)\n</read_first><action>Set the mode.</action></task></tasks>\n',
    });
    const task = 'TASK 01-01\nSet the mode.\nREFS\nto units: .planning/phases/02-engine/02-CONTEXT.md\n';
    const ok = run(`${task}- \`.planning/REQUIREMENTS.md\` — Phase 2 scope:\n| GLOBAL-01 | User sets the global mode |\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts).toMatchObject({ ids: 1, sections: 0 });
    // The table row is the definition wanted.
    expect(run(`${task}- \`.planning/REQUIREMENTS.md\` — Phase 2 scope:\n  GLOBAL-01–03, SCHED-01–05\n`).misses).toEqual([expect.objectContaining({ kind: 'id', what: 'GLOBAL-01 (defined in phases/02-engine/02-RESEARCH.md)' })]);
  });

  it('takes a label with a qualifier in parentheses before its colon for a definition (prisma-generate-uml "- **D-06 (CODE-02):** ...")', () => {
    const run = handTree('qualified', 'phases/01-core/01-01-PLAN.md', {
      'phases/01-core/01-CONTEXT.md': '# Context\n\n- **D-05:** Create the file only.\n- **D-06 (CODE-02):** Explain the cast in a comment.\n',
      'phases/02-perf/02-CONTEXT.md': '# Context\n\n- **D-06:** Build an adjacency map.\n',
      'phases/01-core/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><action>Per D-06, comment the cast.</action></task></tasks>\n',
    });
    const task = 'TASK 01-01\nPer D-06, comment the cast.\n';
    // Phase 1's own D-06 is the definition wanted; phase 2's does not stand for it.
    expect(run(`${task}- **D-06 (CODE-02):** Explain the cast in a comment.\n`).misses).toEqual([]);
    expect(run(`${task}- **D-06:** Build an adjacency map.\n`).misses).toEqual([expect.objectContaining({ kind: 'id', what: 'D-06 (defined in phases/01-core/01-CONTEXT.md)' })]);
  });

  it('wants the REQUIREMENTS entry of a requirement even when the phase CONTEXT discusses it too', () => {
    const run = handTree('reqs', 'phases/01-auth/01-01-PLAN.md', {
      'REQUIREMENTS.md': '# Requirements\n\n- [ ] **AUTH-01**: Users log in with a password\n',
      'phases/01-auth/01-CONTEXT.md': '# Context\n\n### AUTH-01: Login\n\nErrors stay generic.\n',
      'phases/01-auth/01-01-PLAN.md': '---\nwave: 1\nrequirements: [AUTH-01]\n---\n<tasks><task><action>Build login.</action></task></tasks>\n',
    });
    const task = 'TASK 01-01\nBuild login.\n';
    expect(run(`${task}### AUTH-01: Login\nErrors stay generic.\n- [ ] **AUTH-01**: Users log in with a password\n`).misses).toEqual([]);
    expect(run(`${task}### AUTH-01: Login\nErrors stay generic.\n`).misses).toEqual([expect.objectContaining({ kind: 'id', what: 'AUTH-01 (defined in REQUIREMENTS.md)' })]);
  });

  it('reports a brief missing a line of the line numbers a <read_first> item names', () => {
    const run = handTree('ranges', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-RESEARCH.md': '# Research\n\n## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n\n## Other\n\nNot cited.\n',
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-store/01-RESEARCH.md lines 3–6 (queue)\n</read_first><action>Build the queue.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nBuild the queue.\nREFS\nto units: .planning/phases/01-store/01-RESEARCH.md\n';
    const ok = run(`${head}## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.line_ranges).toBe(1);
    const bad = run(`${head}## Queue\n\nOne creator at a time.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'lines', what: expect.stringMatching(/01-RESEARCH\.md lines 3-6: 1 of them, first "Retry twice, then fail\."/) }]);
    // Lines named beside another file of the same line are that file's (0jrm/truth 01-02:
    // `VISION.MD (lines 70-77), .planning/ROADMAP.md Phase 1 success criteria`).
    const other = handTree('ranges-other', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-RESEARCH.md': '# Research\n\n## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n\n## Other\n\nNot cited.\n',
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>VISION.MD (lines 3-6), .planning/phases/01-store/01-RESEARCH.md Queue</read_first><action>Build the queue.</action></task></tasks>\n',
    });
    const mine = other(`${head}## Queue\n\nOne creator at a time.\n`);
    expect(mine.misses).toEqual([]);
    expect(mine.counts.line_ranges).toBe(0);
  });

  it('checks a <read_first> item written with an absolute path to the planning folder as the planning file it is (1269/larraes-kitchen 01-05 "/Users/jashia/.../.planning/phases/01-foundation/01-RESEARCH.md lines 199-203")', () => {
    const run = handTree('absolute', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-RESEARCH.md': '# Research\n\n## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n\n## Other\n\nNot cited.\n',
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- /Users/me/app/.planning/phases/01-store/01-RESEARCH.md lines 3-6 (queue)\n</read_first><action>Build the queue.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nBuild the queue.\nREFS\nto units: .planning/phases/01-store/01-RESEARCH.md\n';
    const ok = run(`${head}## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts).toMatchObject({ reads: 1, line_ranges: 1 });
    expect(run(`${head}## Queue\n\nOne creator at a time.\n`).misses).toEqual([{ tree: 't', plan: '01-01', kind: 'lines', what: expect.stringMatching(/01-RESEARCH\.md lines 3-6: 1 of them/) }]);
    // From a Windows drive, with backslashes (Angeluis001/Gaff 01-01 "d:\\GAFF\\.planning\\phases\\01-foundation\\01-RESEARCH.md").
    const drive = handTree('drive', 'phases/01-store/01-01-PLAN.md', {
      'phases/01-store/01-RESEARCH.md': '# Research\n\n## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n\n## Other\n\nNot cited.\n',
      'phases/01-store/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- d:\\APP\\.planning\\phases\\01-store\\01-RESEARCH.md lines 3-6 (queue)\n</read_first><action>Build the queue.</action></task></tasks>\n',
    });
    expect(drive(`${head}## Queue\n\nOne creator at a time.\nRetry twice, then fail.\n`).counts).toMatchObject({ reads: 1, line_ranges: 1 });
    expect(drive(`${head}## Queue\n\nOne creator at a time.\n`).misses).toEqual([{ tree: 't', plan: '01-01', kind: 'lines', what: expect.stringMatching(/01-RESEARCH\.md lines 3-6: 1 of them/) }]);
  });

  it('takes the line numbers a read_first item names for what it cites, the section beside them for their description, and checks lines named after a section sign in prose (1269/larraes-kitchen 01-01, 01-03)', () => {
    const research = '# Research\n\n## Pitfalls\n\n### Pitfall 7: Non-empty directory\nThe CLI may refuse.\nScaffold with --git no.\n\n## Code Examples\n\n### astro.config.mjs\nexport default defineConfig({});\nadapter: vercel(),\n';
    const run = handTree('lines-described', 'phases/01-site/01-01-PLAN.md', {
      'phases/01-site/01-RESEARCH.md': research,
      'phases/01-site/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/01-site/01-RESEARCH.md lines 6-7 (Pitfall 7 — non-empty dir)\n</read_first><action>Scaffold it. Match RESEARCH § Code Examples lines 12-13 exactly.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nScaffold it. Match RESEARCH § Code Examples lines 12-13 exactly.\nREFS\nto units: .planning/phases/01-site/01-RESEARCH.md\n';
    const lines67 = 'The CLI may refuse.\nScaffold with --git no.\n';
    const lines1213 = 'export default defineConfig({});\nadapter: vercel(),\n';
    const ok = run(`${head}${lines67}${lines1213}`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts).toMatchObject({ sections: 0, line_ranges: 2 });
    const bad = run(`${head}${lines67}export default defineConfig({});\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'lines', what: expect.stringMatching(/RESEARCH\.md lines 12-13: 1 of them, first "adapter: vercel\(\),"/) }]);
  });

  it('takes a label in a read_first item ("(Pattern 1: I2S Audio)") for the heading it begins (dagra68/esp32-alarm-clock 02-01)', () => {
    const research = '# Research\n\n### Pattern 1: I2S Audio (core)\n\nThree pins.\n\n### Pattern 2: Weekday Switch\n\nA global flag.\n\n### Pitfall 1: Pins unknown\n\nRead the schematic.\n';
    const run = handTree('labelled-read-first', 'phases/02-alarm/02-01-PLAN.md', {
      'phases/02-alarm/02-RESEARCH.md': research,
      'phases/02-alarm/02-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><read_first>\n- .planning/phases/02-alarm/02-RESEARCH.md (Pattern 1: I2S Audio; Task 3 output)\n</read_first><action>Wire it.</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nWire it.\nREFS\nto units: .planning/phases/02-alarm/02-RESEARCH.md\n';
    const ok = run(`${head}### Pattern 1: I2S Audio (core)\nThree pins.\n`);
    expect(ok.misses).toEqual([]);
    // "Task 3" begins no heading of the document: only Pattern 1 is counted.
    expect(ok.counts.sections).toBe(1);
    const bad = run(`${head}### Pattern 2: Weekday Switch\nA global flag.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'section', what: '.planning/phases/02-alarm/02-RESEARCH.md Pattern 1' }]);
  });

  it('reports a brief missing a numbered section the plan names in prose beside a document, or the list holding it', () => {
    const research = '# Research\n\n### Pitfall 1: Clock skew\n\nUse server time.\n\n## Open Questions\n\n1. **Hosting**\n2. **RLS on the API too**\n';
    const run = handTree('numbered', 'phases/01-sync/01-01-PLAN.md', {
      'phases/01-sync/01-RESEARCH.md': research,
      'phases/01-sync/01-01-PLAN.md': '---\nwave: 1\n---\n<tasks><task><action>Per RESEARCH.md pitfall 1, use server time. Scope queries (Open Question 2 from RESEARCH.md).</action></task></tasks>\n',
    });
    const head = 'TASK 01-01\nPer RESEARCH.md pitfall 1, use server time. Scope queries (Open Question 2 from RESEARCH.md).\n';
    const ok = run(`${head}### Pitfall 1: Clock skew\n\nUse server time.\n## Open Questions\n\n1. **Hosting**\n2. **RLS on the API too**\n`);
    expect(ok.misses).toEqual([]);
    expect(ok.counts.sections).toBe(2);
    const bad = run(`${head}### Pitfall 1: Clock skew\n\nUse server time.\n`);
    expect(bad.misses).toEqual([{ tree: 't', plan: '01-01', kind: 'section', what: 'RESEARCH.md Question 2' }]);
    // Read whole, nothing more is asked.
    expect(run(`${head}READ .planning/phases/01-sync/01-RESEARCH.md\n${research}`).misses).toEqual([]);
  });

  it('refuses input that is not a bench report, saying what it expected', () => {
    const empty = path.join(dir, 'empty.json');
    fs.writeFileSync(empty, '');
    const r = spawnSync(process.execPath, [ORACLE, empty, out], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cannot read .*empty\.json as the JSON of `heimdall bench gsd DIR --json --emit-briefs OUT`/);
    const noBriefs = spawnSync(process.execPath, [ORACLE, benchFile, path.join(dir, 'no-such-folder')], { encoding: 'utf8' });
    expect(noBriefs.status).toBe(2);
    expect(noBriefs.stderr).toMatch(/no briefs folder .*no-such-folder/);
  });

  it('reports a brief missing the line a plan cites by number in prose', () => {
    // HYDRA 06-03: "Reference: 06-RESEARCH.md line 421 recommends the FastAPI lifespan ...".
    const tree = '001TMF__HYDRA';
    const plan = bench.plans.find((p) => p.tree === tree && p.id === '06-03') as { path: string };
    const research = path.join(FIXTURES, tree, path.dirname(plan.path), '06-RESEARCH.md');
    const line = fs.readFileSync(research, 'utf8').split('\n')[420] as string;
    expect(line).toMatch(/lifespan/);
    expect(oracle().report.counts).toMatchObject({ line_ranges: 1 });
    const copy = mutated(tree, '06-03', (t) => t.split(`${line}\n`).join('\n'));
    expect(oracle(copy).report.misses).toEqual([expect.objectContaining({ plan: '06-03', kind: 'lines', what: expect.stringMatching(/^06-RESEARCH\.md lines 421-421: 1 of them/) })]);
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
