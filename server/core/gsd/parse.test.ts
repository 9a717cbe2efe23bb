import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, FIXTURE_NAMES } from './_testkit.js';
import {
  asList,
  cleanDeclaredPath,
  cleanPath,
  contextRefs,
  parseDependency,
  parsePlan,
  parseSummary,
  planFileRef,
  refKey,
  splitFrontmatter,
  summaryFileRef,
  taskElements,
} from './parse.js';

const plan = (fm: string, body = '<objective>x</objective>\n') => `---\n${fm}\n---\n${body}`;

describe('frontmatter', () => {
  it('reads CRLF files with a BOM like LF files', () => {
    const lf = plan('phase: 01-core\nplan: 02\nwave: 2\ndepends_on:\n  - 01-01');
    const crlf = `\uFEFF${lf.replace(/\n/g, '\r\n')}`;
    const a = parsePlan(lf);
    const b = parsePlan(crlf);
    expect(b.wave).toBe(2);
    expect(b.dependsOn).toEqual(['01-01']);
    expect(b.phase).toBe(a.phase);
    expect(b.frontmatter.body).toBe(a.frontmatter.body);
  });

  it('reads depends_on in all three YAML list styles, a scalar, and null', () => {
    expect(parsePlan(plan('depends_on:\n  - 01-01\n  - "01-02"')).dependsOn).toEqual(['01-01', '01-02']);
    expect(parsePlan(plan('depends_on: [03-02, 03-03]')).dependsOn).toEqual(['03-02', '03-03']);
    expect(parsePlan(plan('depends_on: ["06-01", \'06-02\']')).dependsOn).toEqual(['06-01', '06-02']);
    expect(parsePlan(plan('depends_on: []')).dependsOn).toEqual([]);
    expect(parsePlan(plan('depends_on: "01-01, 01-02"')).dependsOn).toEqual(['01-01', '01-02']);
    expect(parsePlan(plan('depends_on:')).dependsOn).toEqual([]);
    expect(parsePlan(plan('depends: [1]')).dependsOn).toEqual(['1']);
  });

  it('keeps plan numbers as strings whether YAML saw 01 or "01"', () => {
    expect(parsePlan(plan('plan: 01')).plan).toBe('1');
    expect(parsePlan(plan('plan: "01"')).plan).toBe('01');
    expect(refKey({ phase: '01', plan: '1' })).toBe(refKey({ phase: '1', plan: '01' }));
    expect(refKey({ phase: '02.1', plan: '3' })).toBe(refKey({ phase: '2.1', plan: '03' }));
    expect(refKey({ phase: '02.1', plan: '3' })).not.toBe(refKey({ phase: '2', plan: '3' }));
  });

  it('reads a broken frontmatter key by key: what parses is taken as written, nothing is guessed from the rest', () => {
    const p = parsePlan(plan('wave: 3\ndepends_on: [01-02, 01-03\nfiles_modified:\n  - ./src/a.ts\nbad: : :'));
    expect(p.frontmatter.error).toBeTruthy();
    expect(p.frontmatter.unreadable).toEqual(['depends_on', 'bad']);
    expect(p.wave).toBe(3);
    expect(p.filesModified).toEqual(['src/a.ts']);
    expect(p.dependsOn).toEqual([]);
    // The old failure: a broken must_haves block gave truths read from its artifacts and links.
    const broken = parsePlan(plan('wave: 1\nmust_haves:\n  truths:\n    - `x` works\n  artifacts:\n    - path: src/a.ts\n      provides: "A"'));
    expect(broken.frontmatter.unreadable).toEqual(['must_haves']);
    expect(broken.truths).toEqual([]);
    expect(broken.artifacts).toEqual([]);
    expect(broken.wave).toBe(1);
  });

  it('treats a file without --- as body only, and an unclosed block as no frontmatter', () => {
    const none = splitFrontmatter('# Plan\n\n## Goal\nx\n');
    expect(none.present).toBe(false);
    expect(none.body).toContain('## Goal');
    const open = splitFrontmatter('---\nwave: 1\n# never closed\n');
    expect(open.present).toBe(false);
    expect(open.error).toMatch(/never closed/);
  });

  it('reads must_haves truths, artifacts and key_links, and survives empty or list-shaped must_haves', () => {
    const p = parsePlan(
      plan(`must_haves:
  truths:
    - "A is true"
    - B holds
  artifacts:
    - path: "src/a.py"
      provides: "A"
      min_lines: 60
    - src/b.py
  key_links:
    - from: "src/a.py"
      to: "SQLite database"
      via: "sqlite3"
      pattern: "available_at.*<="`),
    );
    expect(p.truths).toEqual(['A is true', 'B holds']);
    expect(p.artifacts.map((a) => a.path)).toEqual(['src/a.py', 'src/b.py']);
    expect(p.artifacts[0]?.fields).toEqual([
      ['provides', 'A'],
      ['min_lines', '60'],
    ]);
    expect(p.keyLinks[0]).toMatchObject({ from: 'src/a.py', to: 'SQLite database' });
    expect(parsePlan(plan('must_haves:\n  truths:\n  artifacts:\n  key_links:')).truths).toEqual([]);
    expect(parsePlan(plan('must_haves: ["only a truth"]')).truths).toEqual(['only a truth']);
  });
});

describe('dependencies, file names and paths', () => {
  it('reads the ways plans name other plans', () => {
    const k = (s: string) => {
      const r = parseDependency(s, '03');
      return r && refKey(r);
    };
    expect(k('01-01')).toBe('1-1');
    expect(k('1-1')).toBe('1-1');
    expect(k('01-02-PLAN.md')).toBe('1-2');
    expect(k('Plan 01-03')).toBe('1-3');
    expect(k('02.1-04')).toBe('2.1-4');
    expect(k('02')).toBe('3-2');
    expect(k('whatever')).toBeUndefined();
    expect(k('03-05b')).toBe('3-5b');
    expect(k('05b')).toBe('3-5b');
  });

  it('recognises plan and summary files and nothing else', () => {
    expect(planFileRef('01-02-PLAN.md')).toEqual({ phase: '01', plan: '02' });
    expect(planFileRef('02.1-01-PLAN.md')).toEqual({ phase: '02.1', plan: '01' });
    expect(planFileRef('03-05b-PLAN.md')).toEqual({ phase: '03', plan: '05b' });
    expect(planFileRef('02A-01-PLAN.md')).toEqual({ phase: '02A', plan: '01' });
    expect(refKey({ phase: '02A', plan: '01' })).not.toBe(refKey({ phase: '02', plan: '01' }));
    expect(refKey({ phase: '03', plan: '05b' })).not.toBe(refKey({ phase: '03', plan: '05' }));
    expect(refKey({ phase: '3', plan: '5B' })).toBe(refKey({ phase: '03', plan: '05b' }));
    expect(planFileRef('PAPER_TRADING_PLAN.md')).toBeUndefined();
    expect(planFileRef('01-RESEARCH.md')).toBeUndefined();
    expect(summaryFileRef('03-01-SUMMARY.md')).toEqual({ phase: '03', plan: '01' });
    expect(summaryFileRef('01-02-PLAN.md')).toBeUndefined();
  });

  it('cleans paths and refuses what is not one', () => {
    expect(cleanPath('`./src/a.ts`')).toBe('src/a.ts');
    expect(cleanPath('src/a.ts (new)')).toBe('src/a.ts');
    expect(cleanPath('SQLite database')).toBeUndefined();
    expect(cleanPath('https://x.io/a.js')).toBeUndefined();
    expect(cleanPath('requirements.txt')).toBe('requirements.txt');
    expect(cleanPath('Dockerfile')).toBeUndefined();
    expect(cleanDeclaredPath('Dockerfile')).toBe('Dockerfile');
    expect(cleanDeclaredPath('none')).toBeUndefined();
    expect(parsePlan(plan('files_modified: [Dockerfile, "src/a.ts (new)", ./b.py]')).filesModified).toEqual(['Dockerfile', 'src/a.ts', 'b.py']);
    expect(asList('[a, "b", c]')).toEqual(['a', 'b', 'c']);
  });

  it('reads @ references, skipping code fences and @-words that are not paths', () => {
    const block = [
      '@.planning/PROJECT.md',
      '- @.planning/STATE.md (current position)',
      '@src/app.ts',
      '// @param {string} x',
      '```python',
      '@app.get("/x")',
      '```',
      'Prior work: see @.planning/phases/01-a/01-01-SUMMARY.md for details.',
      '@.planning\\phases\\01-a\\01-RESEARCH.md',
    ].join('\n');
    expect(contextRefs(block).refs).toEqual([
      '.planning/PROJECT.md',
      '.planning/STATE.md',
      'src/app.ts',
      '.planning/phases/01-a/01-01-SUMMARY.md',
      '.planning/phases/01-a/01-RESEARCH.md',
    ]);
  });

  it('lists everything a plan says to read: context @-lines, inline @-references, read_first items with their notes', () => {
    const body = [
      '<context>',
      '@.planning/PROJECT.md',
      '- @.planning/phases/02-a/02-RESEARCH.md (Pattern 2, anti-patterns)',
      '@src/app.ts',
      '```',
      '@decorator.fn',
      '```',
      '</context>',
      '<tasks><task>',
      '<read_first>',
      '  - .planning/phases/02-a/02-CONTEXT.md (Area A, locked decisions)',
      '  - `./src/storage.js` (STATUS constants)',
      '</read_first>',
      '<files_to_read>.planning/ROADMAP.md, src/dates.js</files_to_read>',
      '<action>Follow @.planning/phases/02-a/02-RESEARCH.md closely; see `@.planning/STATE.md`. Email me@example.com.</action>',
      '</task></tasks>',
    ].join('\n');
    const p = parsePlan(`---\nwave: 1\n---\n${body}`);
    expect(p.reads).toEqual([
      { path: '.planning/PROJECT.md', via: 'context' },
      { path: '.planning/phases/02-a/02-RESEARCH.md', via: 'context', note: 'Pattern 2, anti-patterns' },
      { path: 'src/app.ts', via: 'context' },
      { path: '.planning/phases/02-a/02-RESEARCH.md', via: 'inline' },
      { path: '.planning/STATE.md', via: 'inline' },
      { path: '.planning/phases/02-a/02-CONTEXT.md', via: 'read_first', note: 'Area A, locked decisions' },
      { path: 'src/storage.js', via: 'read_first', note: 'STATUS constants' },
      { path: '.planning/ROADMAP.md', via: 'read_first' },
      { path: 'src/dates.js', via: 'read_first' },
    ]);
    expect(p.workflowRefs).toEqual([]);
  });

  it('reads a path written from a Windows drive (GradProj 06-01 "@G:/AI/AXIOM-V2/.planning/ROADMAP.md"), not a read named "G" dropped', () => {
    const body = [
      '<context>',
      '@G:/AI/AXIOM-V2/.planning/ROADMAP.md',
      '@C:\\code\\app\\backend\\main.py (the app factory)',
      '</context>',
      '<tasks><task><read_first>',
      '- D:/work/app/.planning/phases/06-x/06-RESEARCH.md: Pattern 2',
      '</read_first><action>x</action></task></tasks>',
    ].join('\n');
    expect(parsePlan(`---\nwave: 1\n---\n${body}`).reads).toEqual([
      { path: 'G:/AI/AXIOM-V2/.planning/ROADMAP.md', via: 'context' },
      { path: 'C:/code/app/backend/main.py', via: 'context', note: 'the app factory' },
      { path: 'D:/work/app/.planning/phases/06-x/06-RESEARCH.md', via: 'read_first', note: 'Pattern 2' },
    ]);
  });

  it('takes no package name, pinned or not, or import alias in prose for a file to read (j16z "@slack/webhook", "@/lib/api"; idnms "@testing-library/react"; primorholding "@clerk/nextjs@^6.39.0")', () => {
    const body = [
      '<tasks><task>',
      '<action>Install @testing-library/react and `@types/node`. Import useQuery from "@convex-dev/react" and api from "@/lib/api".',
      // A package pinned to a version (primorholding 01-02) ends in what looks like an extension.
      'If v7 breaks, fall back to `@clerk/nextjs@^6.39.0`, or @vitejs/plugin-react@4.3.1, or @scope/pkg@latest.',
      'Read @src/lib/api.ts, the helpers in @src/lib/ and @.planning/research/STACK.</action>',
      '</task></tasks>',
    ].join('\n');
    expect(parsePlan(`---\nwave: 1\n---\n${body}`).reads).toEqual([
      { path: 'src/lib/api.ts', via: 'inline' },
      { path: 'src/lib/', via: 'inline' },
      { path: '.planning/research/STACK', via: 'inline' },
    ]);
  });

  it('takes another document a read_first note sends the executor to for a read of its own (TemuDosen 06-06: "see STATE.md Todos")', () => {
    const body = [
      '<tasks><task><read_first>',
      '    - .planning/phases/06-x/06-UI-SPEC.md (S-13 states; use the gated label, not line 180 — see STATE.md Todos)',
      '    - src/setup.ts (the jsdom shim, per 06-VALIDATION.md Wave 0)',
      '    - .planning/ROADMAP.md (Phase 6; the same file as .planning/ROADMAP.md)',
      '</read_first><action>x</action></task></tasks>',
    ].join('\n');
    expect(parsePlan(`---\nwave: 1\n---\n${body}`).reads).toEqual([
      { path: '.planning/phases/06-x/06-UI-SPEC.md', via: 'read_first', note: 'S-13 states; use the gated label, not line 180 — see STATE.md Todos' },
      { path: 'STATE.md', via: 'read_first', note: 'Todos' },
      { path: 'src/setup.ts', via: 'read_first', note: 'the jsdom shim, per 06-VALIDATION.md Wave 0' },
      { path: '06-VALIDATION.md', via: 'read_first', note: 'Wave 0' },
      { path: '.planning/ROADMAP.md', via: 'read_first', note: 'Phase 6; the same file as .planning/ROADMAP.md' },
    ]);
  });

  it('finds <task> and TDD <feature> elements in document order', () => {
    const body = '<feature><name>f</name></feature>\n<tasks>\n<task type="auto"><name>t</name></task>\n</tasks>';
    expect(taskElements(body).map((t) => t.slice(0, 8))).toEqual(['<feature', '<task ty']);
  });
});

describe('summaries', () => {
  it('reads hyphen, underscore and dependency_graph spellings alike', () => {
    const hyphen = parseSummary(
      '---\nrequires:\n  - phase: 01-01\n    provides: "lake"\nprovides: [A]\naffects: [01-03]\nkey-files:\n  created: [src/a.py]\n  modified: [src/b.py]\nkey-decisions:\n  - "use X"\n---\n# T Summary\n\n**did A**\n',
    );
    const underscore = parseSummary(
      '---\ndependency_graph:\n  requires: ["01-01"]\n  provides: [A]\n  affects: [01-03]\nkey_files:\n  created:\n    - src/a.py\n  modified:\n    - src/b.py\nkey_decisions:\n  - "use X"\n---\n# T Summary\n\ndid A\n',
    );
    const dash = parseSummary('---\ndependency-graph:\n  provides: [A]\nkey-files:\n  modified: [src/a.py, src/b.py]\ndecisions:\n  - decision: "use X"\n    rationale: "fast"\n---\n');
    for (const s of [hyphen, underscore]) {
      expect(s.provides).toEqual(['A']);
      expect(s.affects).toEqual(['01-03']);
      expect(s.keyFiles).toEqual(['src/a.py', 'src/b.py']);
      expect(s.decisions).toEqual(['use X']);
      expect(s.oneLiner).toBe('did A');
      expect(s.requires.join(' ')).toContain('01-01');
    }
    expect(dash.provides).toEqual(['A']);
    expect(dash.keyFiles).toEqual(['src/a.py', 'src/b.py']);
    expect(dash.decisions).toEqual(['use X']);
  });

  it('takes the first real deviation or issue as the gotcha, not "None"', () => {
    const s = parseSummary('# S\n\nx\n\n## Deviations from Plan\n\nNone - plan executed exactly as written.\n\n## Issues Encountered\n\n- **Alpine** needs node-gyp\n');
    expect(s.gotcha).toBe('Alpine needs node-gyp');
  });

  it('takes the files a summary lists in its body when its frontmatter names none (wind-turbines-reports 05-02 "## Files modified")', () => {
    const body = '# 05-02\n\nHeader.\n\n## Files modified\n\n- `frontend/index.html` — full rewrite\n- `frontend/style.css` — additions prepended\n- src/app.js (stripped)\n\n## Verification checklist\n\n- [x] `rgba(5,5,20,0.85)` header\n';
    expect(parseSummary(`---\nplan: 05-02\n---\n${body}`).keyFiles).toEqual(['frontend/index.html', 'frontend/style.css', 'src/app.js']);
    expect(parseSummary(`---\nkey-files:\n  created: [a.ts]\n---\n${body}`).keyFiles).toEqual(['a.ts']);
    // "## Files Created/Modified" with sub-lists, and a section that lists none.
    expect(parseSummary('# S\n\nx\n\n## Files Created/Modified\n\n**Created:**\n- `src/db.ts` - pool\n\n**Modified:**\n- `package.json` - deps\n').keyFiles).toEqual(['src/db.ts', 'package.json']);
    expect(parseSummary('# S\n\nx\n\n## Files Modified\n\nNone.\n').keyFiles).toEqual([]);
    // An item whose first word only has a dot is no path: "None.", "e.g.", "...".
    expect(parseSummary('# S\n\nx\n\n## Files Modified\n\n- None.\n- e.g. nothing\n- ...\n- Makefile.am\n').keyFiles).toEqual(['Makefile.am']);
  });

  it('takes the decisions a summary records in its body when its frontmatter holds none (hybrid-attendance-tracker 03-01 "## Decisions Made")', () => {
    const body = '# 03-01 Summary\n\nStats panel.\n\n## Decisions Made\n\n- `buildDayObjects` placed in stats.js for testability\n- Future days excluded from totals\n\n## Issues Encountered\n\nNone\n';
    expect(parseSummary(`---\nphase: 03\n---\n${body}`).decisions).toEqual(['`buildDayObjects` placed in stats.js for testability', 'Future days excluded from totals']);
    // The frontmatter's own list wins; a section that records none gives none.
    expect(parseSummary(`---\nkey-decisions:\n  - use X\n---\n${body}`).decisions).toEqual(['use X']);
    expect(parseSummary('# S\n\nx\n\n## Key Decisions\n\nNone - followed plan as specified.\n').decisions).toEqual([]);
    expect(parseSummary('# S\n\nx\n\n## Files\n\n- a.ts\n').decisions).toEqual([]);
  });
});

describe('every plan and summary of the real fixtures', () => {
  const files: string[] = [];
  for (const name of FIXTURE_NAMES) {
    const phases = path.join(FIXTURES, name, '.planning', 'phases');
    for (const d of fs.readdirSync(phases)) for (const f of fs.readdirSync(path.join(phases, d))) files.push(path.join(phases, d, f));
  }

  it('parses, with frontmatter where the file has one', () => {
    const plans = files.filter((f) => planFileRef(path.basename(f)));
    expect(plans.length).toBe(55);
    for (const f of plans) {
      const raw = fs.readFileSync(f, 'utf8');
      const p = parsePlan(raw);
      expect(p.frontmatter.error, f).toBeUndefined();
      expect(p.frontmatter.present, f).toBe(raw.startsWith('---'));
      expect(p.tasks, `${f} has tasks`).toBeTruthy();
      expect(p.objective, `${f} has an objective`).toBeTruthy();
    }
  });

  it('finds the truths and context references the files hold', () => {
    let truths = 0;
    let refs = 0;
    for (const f of files.filter((x) => planFileRef(path.basename(x)))) {
      const raw = fs.readFileSync(f, 'utf8');
      const p = parsePlan(raw);
      truths += p.truths.length;
      refs += p.contextRefs.length;
      for (const r of p.contextRefs) expect(raw).toContain(`@${r}`);
    }
    // Counted independently with awk over the fixtures: "    - " items under "  truths:" in each frontmatter.
    expect(truths).toBe(295);
    expect(refs).toBeGreaterThan(200);
  });

  it('reads key files of every summary that declares them', () => {
    for (const f of files.filter((x) => summaryFileRef(path.basename(x)))) {
      const raw = fs.readFileSync(f, 'utf8');
      const s = parseSummary(raw);
      if (/^key[-_]files:\s*$/m.test(raw) && /^\s+- \S/m.test(raw)) expect(s.keyFiles.length, f).toBeGreaterThan(0);
      expect(s.oneLiner || s.title, f).toBeTruthy();
    }
  });
});
