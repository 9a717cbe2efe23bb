import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TESTDATA, copyTestdata } from './_testkit.js';
import { analysePlan } from './cite.js';
import { loadGsdProject } from './tree.js';
import { projectUnits } from './units.js';

/** The odd testdata tree plus one plan written for the case at hand (phase 01 unless given). */
function analyse(plan: string, file = 'phases/01-core/01-09-PLAN.md', extra: Record<string, string> = {}) {
  const project = copyTestdata();
  const planning = path.join(project, '.planning');
  for (const [rel, text] of Object.entries({ [file]: plan, ...extra })) {
    fs.mkdirSync(path.dirname(path.join(planning, rel)), { recursive: true });
    fs.writeFileSync(path.join(planning, rel), text);
  }
  const p = loadGsdProject(project);
  const index = projectUnits(p);
  const target = p.plans.find((x) => x.file === file);
  if (!target) throw new Error(`no plan ${file}`);
  return { ...analysePlan({ project: p, index, capsules: new Set(['01-01']) }, target), index };
}

const ids = (a: ReturnType<typeof analyse>) => a.units.map((u) => u.id);

describe('what a plan references', () => {
  it('reads a folder or glob reference as the files it holds, and lists one that matches nothing as missing', () => {
    const a = analyse('<context>\n@.planning/phases/01-core/\n@.planning/phases/09-none/*-RESEARCH.md\n</context>\n<tasks><task><action>x</action></task></tasks>\n');
    const rels = a.refs.map((r) => `${r.rel} ${r.resolution}`);
    expect(rels).toEqual(
      expect.arrayContaining(['phases/01-core/01-CONTEXT.md read', 'phases/01-core/01-RESEARCH.md read', 'phases/01-core/01-01-SUMMARY.md capsule', 'phases/09-none/*-RESEARCH.md missing']),
    );
    expect(a.capsules).toEqual(['01-01']);
  });

  it('takes a phase named beside a decision id over its own phase, in the forms plans write it', () => {
    const body = (s: string) => `---\nwave: 1\n---\n<objective>${s}</objective>\n<tasks><task><action>x</action></task></tasks>\n`;
    expect(ids(analyse(body('Keep 01-CONTEXT D-02 in mind.'), 'phases/02-hardening/02-09-PLAN.md'))).toEqual(['01-CONTEXT#D-02']);
    expect(ids(analyse(body("Keep Phase 1's D-02."), 'phases/02-hardening/02-09-PLAN.md'))).toEqual(['01-CONTEXT#D-02']);
    expect(ids(analyse(body('Keep D-02.'), 'phases/02-hardening/02-09-PLAN.md'))).toEqual(['02-CONTEXT#D-02']);
    // Zero padding does not matter: D-2 is D-02.
    expect(ids(analyse(body('Keep D-2.'), 'phases/02-hardening/02-09-PLAN.md'))).toEqual(['02-CONTEXT#D-02']);
    // A range is every id in it.
    expect(ids(analyse(body('Decisions D-01..D-04 hold.')))).toEqual(['01-CONTEXT#D-01', '01-CONTEXT#D-02', '01-CONTEXT#D-03', '01-CONTEXT#D-04']);
  });

  it('names sections by label, by short title in a read note, and not by the plan\'s own <verification> block', () => {
    const plan = [
      '---',
      'wave: 1',
      '---',
      '<context>',
      '@.planning/phases/01-core/01-RESEARCH.md (cookie scope, anti-patterns)',
      '</context>',
      '<tasks><task><action>Hash as in Pattern 1 from research.</action></task></tasks>',
      '<verification>',
      'Phase 1 done: Pitfall 2 checked.',
      '</verification>',
    ].join('\n');
    const a = analyse(plan);
    expect(ids(a)).toEqual(['01-RESEARCH#pattern-1', '01-RESEARCH#anti-patterns-to-avoid', '01-RESEARCH#pitfall-2']);
    expect(a.refs[0]).toMatchObject({ resolution: 'units', units: ['01-RESEARCH#pattern-1', '01-RESEARCH#anti-patterns-to-avoid', '01-RESEARCH#pitfall-2'] });
  });

  it('takes a quoted name after a document as the heading it begins, and lets a file named on the line govern its words', () => {
    const extra = { 'research/PITFALLS.md': '# Pitfalls\n\n### Pitfall 2: Not this one\n\nText.\n', 'research/ARCHITECTURE.md': '# Architecture\n\n### Pattern 1: Nor this one\n\nText.\n' };
    const plan = (action: string) => `---\nwave: 1\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
    // "Architecture" and "Pitfalls" are headings of RESEARCH.md here, not research/ARCHITECTURE.md or
    // research/PITFALLS.md; each section says where the part in parentheses is.
    expect(ids(analyse(plan('Reference RESEARCH.md sections: Architecture Patterns (Pattern 1), Common Pitfalls (Pitfall 2)'), undefined, extra))).toEqual([
      '01-RESEARCH#pattern-1',
      '01-RESEARCH#pitfall-2',
    ]);
    // Without a file named on the line, a prose word followed by a section still names its document.
    expect(ids(analyse(plan('Mind the pitfalls: Pitfall 2.'), undefined, extra))).toEqual(['research/PITFALLS#pitfall-2']);
    // A quoted name, with or without the heading's label.
    expect(ids(analyse(plan('Follow RESEARCH.md "Session cookie" example.')))).toEqual(['01-RESEARCH#pattern-2']);
    expect(ids(analyse(plan('Follow RESEARCH.md "Pattern 2: Session cookie".')))).toEqual(['01-RESEARCH#pattern-2']);
    // A section sign in a read_first item, one or several, with or without the label.
    const rf = (item: string) => `---\nwave: 1\n---\n<tasks><task><read_first>\n- ${item}\n</read_first><action>x</action></task></tasks>\n`;
    const spec = { 'phases/01-core/01-UI-SPEC.md': '# UI\n\n## Visual Hierarchy\n\n### SignIn Page (`/Auth/SignIn`)\n\nOne card.\n\n### Nav Bar (Updated `_Layout.cshtml`)\n\nThree links.\n\n## Sign-Off\n\nDone.\n' };
    expect(ids(analyse(rf('.planning/phases/01-core/01-UI-SPEC.md §SignIn Page — exact copywriting, card layout'), undefined, spec))).toEqual(['01-UI-SPEC#signin-page-auth-signin']);
    expect(ids(analyse(rf('.planning/phases/01-core/01-UI-SPEC.md §SignIn Page and §Nav Bar — layout specs'), undefined, spec))).toEqual(['01-UI-SPEC#signin-page-auth-signin', '01-UI-SPEC#nav-bar-updated-layout-cshtml']);
    // A quote that begins no heading names nothing.
    expect(ids(analyse(plan('Follow RESEARCH.md "session handling" notes.')))).toEqual([]);
    // A list of short names closed by "sections" or "table": each names the heading it shortens
    // (dash-persona 02-04: `02-UI-SPEC.md Color, Typography, Spacing sections` -> "Spacing Scale").
    const ui = { 'phases/01-core/01-UI-SPEC.md': '# UI\n\n## Spacing Scale\n\n4px grid.\n\n## Typography\n\nGeist.\n\n## Color\n\nZinc.\n\n## Registry Safety\n\nNone.\n' };
    expect(ids(analyse(rf('.planning/phases/01-core/01-UI-SPEC.md Color, Typography, Spacing sections'), undefined, ui))).toEqual(['01-UI-SPEC#spacing-scale', '01-UI-SPEC#typography', '01-UI-SPEC#color']);
    expect(ids(analyse(rf('.planning/phases/01-core/01-UI-SPEC.md Registry table'), undefined, ui))).toEqual(['01-UI-SPEC#registry-safety']);
    // A heading's whole title followed by "section" names it, short words or not (dash-persona 02-04:
    // `02-UI-SPEC.md Run Log View section (720×560px, toolbar, table columns, ...)`).
    const view = { 'phases/01-core/01-UI-SPEC.md': '# UI\n\n## Components\n\n### Run Log View\n\n#### Window Properties\n\n720x560.\n\n#### Toolbar\n\nButtons.\n\n### Log Out\n\nBye.\n' };
    expect(ids(analyse(rf('.planning/phases/01-core/01-UI-SPEC.md Run Log View section (720×560px, toolbar)'), undefined, view))).toEqual(['01-UI-SPEC#run-log-view']);
    // A section sign before a number names the heading numbered so, not 30 nor 3.1 (dash-persona
    // 01-01: `01-RESEARCH.md §1 (snapshot wrapper design, D-04)`, 01-03: `§5, §6 (...)`).
    const num = { 'phases/01-core/01-NOTES.md': '# Notes\n\n## Findings\n\n### 1. Profile Schema Shape\n\nWrap.\n\n### 3. Atomic Write Pattern\n\nRename.\n\n#### 3.1 APFS\n\nFsync.\n\n### 5) Routes\n\nGET.\n\n### 30. Other\n\nNo.\n' };
    expect(ids(analyse(rf('.planning/phases/01-core/01-NOTES.md §1 (snapshot wrapper design)'), undefined, num))).toEqual(['01-NOTES#1-profile-schema-shape']);
    expect(ids(analyse(rf('.planning/phases/01-core/01-NOTES.md §3, §5 (write pattern, routes)'), undefined, num))).toEqual(['01-NOTES#3-atomic-write-pattern', '01-NOTES#5-routes']);
    // The word says it as well as the sign (evermemos-pretext 02-01: `02-RESEARCH.md (Section 1, Section 4)`,
    // 02-05: `(Section 8 -- SSR boundary pattern)`), one number or a list of them.
    expect(ids(analyse(rf('.planning/phases/01-core/01-NOTES.md (Section 1, Section 5)'), undefined, num))).toEqual(['01-NOTES#1-profile-schema-shape', '01-NOTES#5-routes']);
    expect(ids(analyse(rf('.planning/phases/01-core/01-NOTES.md (Sections 3 and 5 -- write pattern)'), undefined, num))).toEqual(['01-NOTES#3-atomic-write-pattern', '01-NOTES#5-routes']);
    expect(ids(analyse(rf('.planning/phases/01-core/01-NOTES.md (section 3.1)'), undefined, num))).toEqual(['01-NOTES#3-1-apfs']);
  });

  it('takes a labelled name in a read note ("Pattern 1: I2S Audio + RTTTL Speaker") for that heading alone, not also for another heading its title begins (dagra68/esp32-alarm-clock 02-01)', () => {
    const research = {
      'phases/01-core/01-AUDIO.md': [
        '# Audio',
        '',
        '### Pattern 1: I2S Audio + RTTTL Speaker (core pattern)',
        '',
        'Bus on three pins.',
        '',
        '### Pattern 2: Weekday Switch',
        '',
        'A global.',
        '',
        '## Code Examples',
        '',
        '### I2S Audio + RTTTL Speaker Full Configuration (Template)',
        '',
        'yaml here.',
        '',
      ].join('\n'),
    };
    const rf = (item: string) => `---\nwave: 1\n---\n<tasks><task><read_first>\n- ${item}\n</read_first><action>x</action></task></tasks>\n`;
    expect(ids(analyse(rf('.planning/phases/01-core/01-AUDIO.md (Pattern 1: I2S Audio + RTTTL Speaker)'), undefined, research))).toEqual(['01-AUDIO#pattern-1']);
    // The same words as a name of their own, with no label, still name the heading they shorten.
    expect(ids(analyse(rf('.planning/phases/01-core/01-AUDIO.md (I2S Audio RTTTL Speaker Full Configuration, Pattern 2)'), undefined, research))).toEqual([
      '01-AUDIO#pattern-2',
      '01-AUDIO#i2s-audio-rtttl-speaker-full-configuration-template',
    ]);
    // Written whole in prose, the longer title is the heading named, not the shorter one its words begin.
    const prose = `---\nwave: 1\n---\n<tasks><task><action>Copy the 01-AUDIO.md I2S Audio RTTTL Speaker Full Configuration block.</action></task></tasks>\n`;
    expect(ids(analyse(prose, undefined, research))).toEqual(['01-AUDIO#i2s-audio-rtttl-speaker-full-configuration-template']);
  });

  it('takes a section written right before one of its own subsections for where to find it, and the subsection for what is cited (Angeluis001/Gaff 01-02 "§Architecture Patterns Pattern 2 — domain-split schema")', () => {
    const research = {
      'phases/01-core/01-RESEARCH.md': [
        '# Phase 1: Core - Research',
        '',
        '## Architecture Patterns',
        '',
        '### Recommended Project Structure',
        '',
        'src/ app/ lib/',
        '',
        '### Pattern 1: Neon Connection',
        '',
        'One pool.',
        '',
        '### Pattern 2: Domain-Split Schema',
        '',
        'enums.ts first.',
        '',
        '## Common Pitfalls',
        '',
        '### Pitfall 1: Wrong Version',
        '',
        'Pin it.',
        '',
      ].join('\n'),
    };
    const rf = (item: string) => `---\nwave: 1\n---\n<tasks><task><read_first>\n- ${item}\n</read_first><action>x</action></task></tasks>\n`;
    const cited = (item: string) => ids(analyse(rf(item), undefined, research));
    expect(cited('d:\\APP\\.planning\\phases\\01-core\\01-RESEARCH.md §Architecture Patterns Pattern 2 — domain-split schema')).toEqual(['01-RESEARCH#pattern-2']);
    expect(cited('.planning/phases/01-core/01-RESEARCH.md — §Architecture Patterns — Recommended Project Structure tree')).toEqual(['01-RESEARCH#recommended-project-structure']);
    expect(cited('.planning/phases/01-core/01-RESEARCH.md (Architecture Patterns > Pattern 1, Pitfall 1)')).toEqual(['01-RESEARCH#pattern-1', '01-RESEARCH#pitfall-1']);
    // Named in an item of its own, the section is asked for whole.
    expect(cited('.planning/phases/01-core/01-RESEARCH.md (Architecture Patterns; Pattern 2)')).toEqual(['01-RESEARCH#architecture-patterns']);
  });

  it('ends what a document governs at its sentence when the section comes first, and takes no phrase in capitals for a document', () => {
    const plan = (action: string) => `---\nwave: 1\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
    // Helix-iOS 01.1-02: "mark Phase 1.1 complete in ROADMAP.md. Proceed to Phase 2." names phase 1.1 only.
    expect(ids(analyse(plan('Next step: mark Phase 1 complete in ROADMAP.md. Proceed to Phase 2.')))).toEqual(['ROADMAP#phase-1']);
    // "PROJECT CONTEXT" (a marker in the app's prompt) is not PROJECT.md's Context section; "PROJECT Constraints" is its section.
    const project = { 'PROJECT.md': '# Project\n\n## Context\n\nWhy we build it.\n\n## Constraints\n\nOffline first.\n' };
    expect(ids(analyse(plan('Check the log shows the PROJECT CONTEXT preamble.'), undefined, project))).toEqual([]);
    expect(ids(analyse(plan('Keep to PROJECT Constraints.'), undefined, project))).toEqual(['PROJECT#constraints']);
  });

  it('takes a heading of one word for a name only where the plan writes it as one, not as a word of its prose (primorholding 01-01 "includes metadata")', () => {
    const research = '# Phase 3 - Research\n\n### Pattern 6: Root Layout\n\nWrap children in the provider.\n\n## Sources\n\n- docs\n\n## Metadata\n\nConfidence: high.\n';
    const extra = { 'phases/03-extra/03-RESEARCH.md': research };
    const plan = (action: string) => `---\nwave: 1\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
    const at = 'phases/03-extra/03-09-PLAN.md';
    expect(ids(analyse(plan('Replace layout.tsx with the root layout from 03-RESEARCH.md Pattern 6: it includes metadata with a title template.'), at, extra))).toEqual(['03-RESEARCH#pattern-6']);
    // Written as a name, capitalised or right after the document's name, it is the section.
    expect(ids(analyse(plan('Keep the confidence levels in 03-RESEARCH.md Pattern 6 and Metadata.'), at, extra))).toEqual(['03-RESEARCH#pattern-6', '03-RESEARCH#metadata']);
    expect(ids(analyse(plan('Per 03-RESEARCH.md metadata, confidence is high.'), at, extra))).toEqual(['03-RESEARCH#metadata']);
    // A number written with a leading zero is the same label: "Pattern 06" is the heading "Pattern 6".
    expect(ids(analyse(plan('Replace layout.tsx per 03-RESEARCH.md Pattern 06.'), at, extra))).toEqual(['03-RESEARCH#pattern-6']);
    // HYDRA 03-02: "(prevents the relative-path pitfall from research)" names the Common Pitfalls section.
    expect(ids(analyse(plan('Default to an absolute path (prevents the timing pitfall from research).')))).toEqual(['01-RESEARCH#common-pitfalls']);
  });

  it('does not take a document\'s title heading for a section it names', () => {
    const extra = { 'phases/01-core/01-VERIFICATION.md': '---\nstatus: passed\n---\n\n# Phase 1: Core Verification Report\n\n## Goal Achievement\n\nAll of it.\n\n## Gaps\n\nNone.\n' };
    const plan = (action: string) => `---\nwave: 1\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
    // "verification (Phase 1 ...)" names no section: the phase is the whole document's title.
    expect(ids(analyse(plan('Production build verification (Phase 1 Plan 2).'), undefined, extra))).toEqual([]);
    // A section under the title is still named.
    expect(ids(analyse(plan('See 01-VERIFICATION.md Goal Achievement.'), undefined, extra))).toEqual(['01-VERIFICATION#goal-achievement']);
  });

  it('resolves a ROADMAP read to the plan\'s own phase entry, and reads it whole when the phase has none', () => {
    const body = '---\nwave: 1\n---\n<context>\n@.planning/ROADMAP.md\n</context>\n<tasks><task><action>x</action></task></tasks>\n';
    expect(analyse(body).refs[0]).toMatchObject({ resolution: 'units', units: ['ROADMAP#phase-1'] });
    expect(analyse(body, 'phases/07-later/07-01-PLAN.md').refs[0]).toMatchObject({ resolution: 'read', units: [] });
  });

  it('resolves a ROADMAP read to the phase entry a finished milestone archived when ROADMAP.md keeps none (hybrid-attendance-tracker milestones/v1.0-ROADMAP.md)', () => {
    const body = '---\nwave: 1\n---\n<context>\n@.planning/ROADMAP.md\n</context>\n<tasks><task><action>x</action></task></tasks>\n';
    const archive = (v: string, phases: number[]) =>
      [`# Roadmap ${v}`, '', '## Phase Details', '', ...phases.flatMap((n) => [`### Phase ${n}: Step ${n} of ${v}`, `**Goal**: ship step ${n} of ${v}`, ''])].join('\n');
    // One archive holds phase 7: its entry.
    const one = analyse(body, 'phases/07-later/07-01-PLAN.md', { 'milestones/v1.0-ROADMAP.md': archive('v1.0', [7, 8]) });
    expect(one.refs[0]).toMatchObject({ rel: 'ROADMAP.md', resolution: 'units', units: ['milestones/v1.0-ROADMAP#phase-7'] });
    expect(one.units.map((u) => u.id)).toEqual(['milestones/v1.0-ROADMAP#phase-7']);
    // Two archives hold phase 7 (numbering restarted): the one beside the plan's archived phases folder, else none.
    const two = { 'milestones/v1.0-ROADMAP.md': archive('v1.0', [7]), 'milestones/v2.0-ROADMAP.md': archive('v2.0', [7]) };
    expect(analyse(body, 'milestones/v2.0-phases/07-later/07-01-PLAN.md', two).refs[0]).toMatchObject({ resolution: 'units', units: ['milestones/v2.0-ROADMAP#phase-7'] });
    expect(analyse(body, 'phases/07-later/07-01-PLAN.md', two).refs[0]).toMatchObject({ resolution: 'read', units: [] });
    // ROADMAP.md has the phase: its own entry, archives aside.
    expect(analyse(body, 'phases/01-core/01-09-PLAN.md', { 'milestones/v1.0-ROADMAP.md': archive('v1.0', [1]) }).refs[0]).toMatchObject({ resolution: 'units', units: ['ROADMAP#phase-1'] });
  });

  it('keeps a note that names nothing as an unresolved note, and the file as a whole read', () => {
    const a = analyse('<tasks><task><read_first>.planning/phases/01-core/01-CONTEXT.md (the vibe)</read_first><action>x</action></task></tasks>\n');
    expect(a.refs[0]).toMatchObject({ via: 'read_first', resolution: 'read' });
    expect(a.unresolvedNotes).toEqual(['.planning/phases/01-core/01-CONTEXT.md: the vibe']);
    // A note naming the file's ids is resolved by them: the read becomes those units, nothing is flagged.
    const b = analyse('<tasks><task><read_first>.planning/phases/01-core/01-CONTEXT.md §D-01 and §D-03</read_first><action>x</action></task></tasks>\n');
    expect(b.refs[0]).toMatchObject({ via: 'read_first', resolution: 'units', units: ['01-CONTEXT#D-01', '01-CONTEXT#D-03'] });
    expect(b.unresolvedNotes).toEqual([]);
  });

  it('reads a document whole when the plan names a numbered section of it the document does not have (skull-king 01-05 "per PATTERNS.md Pattern 6", a heading of RESEARCH.md)', () => {
    const patterns = '# Phase 1: Pattern Map\n\n## Pattern Assignments\n\n### `netlify/functions/keep-alive.ts`\n\n**Source pattern:** RESEARCH.md Pattern 6\n\n```ts\nexport default async () => ping();\n```\n\n### `netlify.toml`\n\nSPA fallback.\n\n## Shared Patterns\n\n### Error Handling\n\nThrow early.\n';
    const extra = { 'phases/01-core/01-PATTERNS.md': patterns };
    const plan = (action: string) => `<context>\n@.planning/phases/01-core/01-PATTERNS.md\n</context>\n<tasks><task><read_first>\n- .planning/phases/01-core/01-PATTERNS.md lines 15–17 — netlify.toml\n</read_first><action>${action}</action></task></tasks>\n`;
    const a = analyse(plan('Create keep-alive.ts per PATTERNS.md Pattern 6: ping daily.'), undefined, extra);
    const read = a.refs.filter((r) => r.rel === 'phases/01-core/01-PATTERNS.md');
    expect(read.map((r) => [r.resolution, r.gaps])).toEqual([['read', ['Pattern 6']], ['read', ['Pattern 6']]]);
    // The lines it names are inside the whole read, not carried again.
    expect(ids(a).filter((id) => id.startsWith('01-PATTERNS'))).toEqual([]);
    expect(a.unresolvedNotes).toEqual(['phases/01-core/01-PATTERNS.md: Pattern 6, which no heading of it carries']);
    // The section it names exists: the read is that section and the lines.
    const b = analyse(plan('Handle errors per PATTERNS.md Error Handling.'), undefined, extra);
    expect(b.refs.filter((r) => r.rel === 'phases/01-core/01-PATTERNS.md').map((r) => r.resolution)).toEqual(['units', 'units']);
    expect(b.unresolvedNotes).toEqual([]);
    // A number after a word no heading holds is no section ("PATTERNS.md recommends React 19", "lists 3 options").
    const c = analyse(plan('PATTERNS.md recommends React 19 and lists 3 options.'), undefined, extra);
    expect(c.refs.filter((r) => r.rel === 'phases/01-core/01-PATTERNS.md').map((r) => r.resolution)).toEqual(['units', 'units']);
    expect(c.unresolvedNotes).toEqual([]);
  });

  it('resolves line numbers a read note names to exactly those lines of the file', () => {
    const research = fs.readFileSync(path.join(TESTDATA, 'odd/.planning/phases/01-core/01-RESEARCH.md'), 'utf8').split('\n');
    const a = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md lines 19–21 (timing)\n- .planning/phases/01-core/01-RESEARCH.md line 25\n</read_first><action>x</action></task></tasks>\n');
    // One line means the section holding it (Pitfall 2), a range exactly its lines.
    expect(a.refs).toEqual([expect.objectContaining({ via: 'read_first', resolution: 'units', units: ['01-RESEARCH#lines-19-21', '01-RESEARCH#pitfall-2'] })]);
    expect(a.unresolvedNotes).toEqual([]);
    const u = a.index.byId.get('01-RESEARCH#lines-19-21');
    expect(u).toMatchObject({ kind: 'lines', title: 'lines 19–21', text: research.slice(18, 21).join('\n') });
    expect(a.index.byId.get('01-RESEARCH#lines-25-25')?.text).toBe('Set `Path=/` and `HttpOnly`.');
    // Lines of a section the same note names are what it cites of that section (1269/larraes-kitchen
    // 01-02 "lines 408-412 (Pitfall 4 — ...)"); a range inside a section the plan names elsewhere is
    // carried once, inside that section.
    const b = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md (Pitfall 1) lines 20-21\n</read_first><action>x</action></task></tasks>\n');
    expect(ids(b)).toEqual(['01-RESEARCH#lines-20-21']);
    const b2 = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md lines 20-21\n</read_first><action>Mind RESEARCH.md Pitfall 1.</action></task></tasks>\n');
    expect(ids(b2)).toEqual(['01-RESEARCH#pitfall-1']);
    // In prose, a section sign, the section, then its lines: those lines, the unit made at import from
    // the prose (1269/larraes-kitchen 01-03 "RESEARCH § Code Examples lines 442-464"); the section
    // named without lines is the whole section.
    const c2 = analyse('<tasks><task><action>Match RESEARCH § Common Pitfalls lines 20-21 exactly. Then per RESEARCH.md § Pattern 1 sign it.</action></task></tasks>\n');
    expect(ids(c2)).toEqual(['01-RESEARCH#pattern-1', '01-RESEARCH#lines-20-21']);
    // Written in prose right after the document's name: the @-read of the whole file becomes what is cited.
    const prose = analyse('<context>\n@.planning/phases/01-core/01-RESEARCH.md\n</context>\n<tasks><task><action>As 01-RESEARCH.md lines 9-11 say, sign the cookie. 01-RESEARCH.md line 7 has the call.</action></task></tasks>\n');
    expect(prose.refs[0]).toMatchObject({ via: 'context', resolution: 'units', units: ['01-RESEARCH#pattern-1', '01-RESEARCH#lines-9-11'] });
    // Lines the file does not have: the file stays a whole read.
    const c = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-RESEARCH.md lines 900-950\n</read_first><action>x</action></task></tasks>\n');
    expect(c.refs[0]).toMatchObject({ resolution: 'read', units: [] });
  });

  it('carries a requirement\'s REQUIREMENTS entry beside the section of the phase CONTEXT that discusses it', () => {
    const context = '# Phase 1 - Context\n\n### AUTH-01: Login\n\nThe form posts to /login; errors stay generic.\n';
    const a = analyse('---\nwave: 1\nrequirements: [AUTH-01]\n---\n<tasks><task><action>x</action></task></tasks>\n', 'phases/01-core/01-09-PLAN.md', { 'phases/01-core/01-CONTEXT.md': context });
    expect(ids(a)).toEqual(['01-CONTEXT#AUTH-01', 'REQUIREMENTS#AUTH-01']);
    // A decision id only the phase defines is still the phase's alone.
    expect(ids(analyse('<objective>Keep D-02.</objective>\n<tasks><task><action>x</action></task></tasks>\n'))).toEqual(['01-CONTEXT#D-02']);
  });


  it('means the plan\'s own phase\'s D-01 in a tree laid out flat, phase files beside one another (0999312/Cookery 2-PLAN.md beside 1-CONTEXT.md and 2-CONTEXT.md; Ollamac phases/02-PLAN.md)', () => {
    const ctx = (n: string) => `# Phase ${n} context\n\n## Decisions\n\n- **D-01:** phase ${n} decision one.\n- **D-02:** phase ${n} decision two.\n`;
    const plan = '<tasks><task><action>Follow D-01.</action></task></tasks>\n';
    // At the top of the planning folder: 7-PLAN.md is phase 7's plan; 6-CONTEXT.md is phase 6's.
    const top = analyse(plan, '7-PLAN.md', { '6-CONTEXT.md': ctx('6'), '7-CONTEXT.md': ctx('7') });
    expect(ids(top)).toEqual(['7-CONTEXT#D-01']);
    expect(top.index.byId.get('6-CONTEXT')?.phase).toBe('6');
    // In phases/ itself.
    const flat = analyse(plan, 'phases/18-PLAN.md', { 'phases/17-CONTEXT.md': ctx('17'), 'phases/18-CONTEXT.md': ctx('18') });
    expect(ids(flat)).toEqual(['phases/18-CONTEXT#D-01']);
  });

  it('takes a label\'s definition in a document written before the plan ran over the VERIFICATION report written after it (GradProj 01-01 REQ-AUTH-01)', () => {
    const plan = '---\nwave: 1\nrequirements: [REQ-X-01]\n---\n<tasks><task><action>x</action></task></tasks>\n';
    const research = '# Phase 3 - Research\n\n## Requirements\n\n| ID | Description |\n|----|-------------|\n| REQ-X-01 | Sign up creates a profile row |\n';
    const verification = '# Phase 3 Verification\n\n## Requirements Coverage\n\n| Req | Plan | Status |\n|-----|------|--------|\n| REQ-X-01 | 03-09 | SATISFIED: router.py line 33 |\n';
    const extra = { 'phases/03-extra/03-RESEARCH.md': research, 'phases/03-extra/03-VERIFICATION.md': verification };
    expect(ids(analyse(plan, 'phases/03-extra/03-09-PLAN.md', extra))).toEqual(['03-RESEARCH#REQ-X-01']);
    // Defined only in the report, it is still carried: the plan cites it and nothing else defines it.
    expect(ids(analyse(plan, 'phases/03-extra/03-09-PLAN.md', { 'phases/03-extra/03-VERIFICATION.md': verification }))).toEqual(['03-VERIFICATION#REQ-X-01']);
  });
  it('does not take a document the plan writes for one it cites by its section names', () => {
    // The plan creates 01-FINDINGS.md and describes its sections: that is output, not context.
    const findings = '# Findings\n\n## Root Cause\n\nThe path was wrong.\n\n## Recommended Fix\n\nJoin the parts.\n';
    const plan = '---\nwave: 1\nfiles_modified: [.planning/phases/01-core/01-FINDINGS.md]\n---\n<tasks><task><files>.planning/phases/01-core/01-FINDINGS.md</files><action>Write 01-FINDINGS.md with ## Root Cause and ## Recommended Fix.</action></task></tasks>\n';
    expect(ids(analyse(plan, 'phases/01-core/01-09-PLAN.md', { 'phases/01-core/01-FINDINGS.md': findings }))).toEqual([]);
    // Another plan that names those sections does cite them.
    const reader = '---\nwave: 2\n---\n<tasks><task><action>Fix what 01-FINDINGS.md Root Cause says.</action></task></tasks>\n';
    expect(ids(analyse(reader, 'phases/01-core/01-09-PLAN.md', { 'phases/01-core/01-FINDINGS.md': findings }))).toEqual(['01-FINDINGS#root-cause']);
  });

  it('takes a prose word for a document only with a section right beside it (Buildable_Dashboard 03-02, 04-02)', () => {
    const summary = '# Project Research Summary\n\n## Executive Summary\n\nShip it.\n\n## Sheet 1\n\nThe weekly report.\n\n## Sources\n\n- the docs\n';
    const plan = (action: string) => `---\nwave: 1\n---\n<tasks><task><action>${action}</action></task></tasks>\n`;
    const cited = (action: string) => ids(analyse(plan(action), 'phases/01-core/01-09-PLAN.md', { 'research/SUMMARY.md': summary }));
    // "summary" is a word of the sentence here, and the section names are a few words on.
    expect(cited('All data tables (project summary, lead sources, revenue by region)')).toEqual([]);
    expect(cited('Test 4 pages: Executive Summary (`/` or root with executive_summary active)')).toEqual([]);
    // Beside the word, before or after it, a section is named.
    expect(cited('Row mappings from summary (Sheet 1, "Weekly Report")')).toEqual(['research/SUMMARY#sheet-1']);
    expect(cited('Use the summary Sources list.')).toEqual(['research/SUMMARY#sources']);
    expect(cited('Keep the Executive Summary from summary in view.')).toEqual(['research/SUMMARY#executive-summary']);
    // Named by its file, the document governs the rest of the line.
    expect(cited('See SUMMARY.md: the docs listed under Sources.')).toEqual(['research/SUMMARY#sources']);
  });

  it('takes the words beside ids in a read note for a description of those ids, not a section name', () => {
    // "(D-02, D-03 decisions)": the ids, not "Implementation Decisions" (which holds every decision).
    const a = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-CONTEXT.md (D-02, D-03 decisions)\n</read_first><action>x</action></task></tasks>\n');
    expect(a.refs[0]).toMatchObject({ via: 'read_first', resolution: 'units', units: ['01-CONTEXT#D-02', '01-CONTEXT#D-03'] });
    // A section named in its own item of the same note still counts.
    const b = analyse('<tasks><task><read_first>\n- .planning/phases/01-core/01-CONTEXT.md (D-02 decision; rate limits)\n</read_first><action>x</action></task></tasks>\n');
    expect(ids(b)).toEqual(['01-CONTEXT#D-02', '01-CONTEXT#area-a']);
  });

  it('takes a numbered item the document has no heading for ("open question 2") for the section holding the list (j16z 01-02)', () => {
    const research = [
      '# Phase 3: Sync - Research',
      '',
      '## Pitfalls',
      '',
      '1. **Clock skew** between devices.',
      '2. **Lost acks** on reconnect.',
      '',
      '## Open Questions',
      '',
      '1. **Hosting** for the worker.',
      '2. **RLS on the API side** as well as in the database.',
      '',
      '## Sources',
      '',
      '- the vendor docs',
      '',
    ].join('\n');
    const plan = (s: string) => `---\nwave: 1\n---\n<context>\n@.planning/phases/03-sync/03-RESEARCH.md\n</context>\n<tasks><task><action>${s}</action></task></tasks>\n`;
    const extra = { 'phases/03-sync/03-RESEARCH.md': research };
    const cited = (s: string) => ids(analyse(plan(s), 'phases/03-sync/03-01-PLAN.md', extra));
    expect(cited('Defense in depth per RESEARCH.md open question 2: scope every query.')).toEqual(['03-RESEARCH#open-questions']);
    expect(cited('Guard against lost acks (RESEARCH.md pitfall 2).')).toEqual(['03-RESEARCH#pitfalls']);
    // A label with a heading of its own still names only that heading.
    const own = ids(analyse('<tasks><task><action>Avoid RESEARCH.md Pitfall 2.</action></task></tasks>\n'));
    expect(own).toEqual(['01-RESEARCH#pitfall-2']);
    // A parenthesis in the heading is a remark on it, not a word of its name (climate-manager 02-02:
    // "Open Question 1" under "## Open Questions (RESOLVED)").
    const remarked = { 'phases/03-sync/03-RESEARCH.md': research.replace('## Open Questions', '## Open Questions (RESOLVED)') };
    expect(ids(analyse(plan('Defense in depth per RESEARCH.md open question 2: scope every query.'), 'phases/03-sync/03-01-PLAN.md', remarked))).toEqual(['03-RESEARCH#open-questions-resolved']);
  });

  it('ends a clause after a document\'s name with its sentence or its parenthesis (j16z 04-02: "per RESEARCH.md pitfall 5). Update ... metadata")', () => {
    const research = '# Phase 3: Sync - Research\n\n### Pitfall 5: Weekend canary\n\nTwo zero polls first.\n\n## Metadata\n\nResearch date: today.\n\n## Sources\n\n- docs\n';
    const plan = (s: string) => `---\nwave: 1\n---\n<context>\n@.planning/phases/03-sync/03-RESEARCH.md\n</context>\n<tasks><task><action>${s}</action></task></tasks>\n`;
    const extra = { 'phases/03-sync/03-RESEARCH.md': research };
    const cited = (s: string) => ids(analyse(plan(s), 'phases/03-sync/03-01-PLAN.md', extra));
    expect(cited('Keep the streak (avoids weekend alerts per RESEARCH.md pitfall 5). Update the metadata streak count.')).toEqual(['03-RESEARCH#pitfall-5']);
    expect(cited('Follow RESEARCH.md pitfall 5. Then store sources in the metadata column.')).toEqual(['03-RESEARCH#pitfall-5']);
    // Another document's name ends the clause: "RESEARCH.md Pattern 3 and CONTEXT.md locked decisions" (j16z 01-02).
    expect(cited('Per RESEARCH.md Pitfall 5 and CONTEXT.md metadata rules: keep the streak.')).toEqual(['03-RESEARCH#pitfall-5']);
    // Within one sentence a list still names every section: "RESEARCH.md (Pitfall 5), Metadata and Sources".
    expect(cited('Read RESEARCH.md (Pitfall 5), Metadata and Sources first.')).toEqual(['03-RESEARCH#pitfall-5', '03-RESEARCH#metadata', '03-RESEARCH#sources']);
  });
});
