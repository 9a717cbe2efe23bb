import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeCtx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { headingLabel, mdItems, mdSections, slug } from './markdown.js';
import { listUnits, readUnitsFile, resolveUnit, reverseUnit, unitText, unitsFilePath, writeUnits } from './units.js';

const doc = [
  '# Phase 2: Persistence - Context', // 0
  '',
  '## Area A: Job history',
  '',
  '### Locked decisions',
  '- **D-01:** Keep 30 days.',
  '- **D-02:** Mark interrupted jobs failed;',
  '  say why in stage_message.',
  '  - a nested note',
  '- D-03 - Manual delete removes files.',
  '</decisions>',
  '',
  '```yaml',
  '# not a heading',
  '- **D-99:** not a definition inside code',
  '```',
  '',
  '## Area B: Files',
  '',
  '| AUTH-01 | Users log in | Phase 1 |',
  '### FR-3: Store events',
  'Append-only.',
  '',
  '---',
  '',
  '## Pitfall #3 Timing',
  'Compare in constant time.',
].join('\n');

describe('markdown units', () => {
  it('finds headings outside code, each covering up to the next heading of its level or higher', () => {
    const secs = mdSections(doc);
    expect(secs.map((s) => [s.level, s.title, s.label])).toEqual([
      [1, 'Phase 2: Persistence - Context', 'Phase 2'],
      [2, 'Area A: Job history', 'Area A'],
      [3, 'Locked decisions', undefined],
      [2, 'Area B: Files', 'Area B'],
      [3, 'FR-3: Store events', undefined],
      [2, 'Pitfall #3 Timing', 'Pitfall 3'],
    ]);
    const areaA = secs[1];
    expect(doc.slice(areaA?.start, areaA?.end)).toMatch(/^## Area A: Job history[\s\S]*```$/);
    // The bare tag closing a GSD block is not part of the section before it.
    const wrapped = '<decisions>\n## Decisions\n- keep it\n</decisions>\n\n<specifics>\n## Specifics\nnone\n';
    const d = mdSections(wrapped)[0];
    expect(wrapped.slice(d?.start, d?.end)).toBe('## Decisions\n- keep it');
    // A trailing rule and blank lines are not part of a section.
    const fr3 = secs[4];
    expect(doc.slice(fr3?.start, fr3?.end)).toBe('### FR-3: Store events\nAppend-only.');
    expect(headingLabel('Pattern 2: FastAPI lifespan')).toBe('Pattern 2');
    expect(headingLabel('Anti-Patterns to Avoid')).toBeUndefined();
    expect(slug('Anti-Patterns to Avoid')).toBe('anti-patterns-to-avoid');
  });

  it('finds labelled items with their continuation lines, in lists, headings and table rows, never in code', () => {
    const items = mdItems(doc);
    expect(items.map((i) => [i.label, i.form, doc.slice(i.start, i.end)])).toEqual([
      ['D-01', 'item', '- **D-01:** Keep 30 days.'],
      ['D-02', 'item', '- **D-02:** Mark interrupted jobs failed;\n  say why in stage_message.\n  - a nested note'],
      ['D-03', 'item', '- D-03 - Manual delete removes files.'],
      ['AUTH-01', 'row', '| AUTH-01 | Users log in | Phase 1 |'],
      ['FR-3', 'heading', '### FR-3: Store events\nAppend-only.'],
    ]);
    // A mention is not a definition.
    expect(mdItems('We follow D-07 here.\n- see FR-3 for details\n').map((i) => i.label)).toEqual([]);
    // A label in brackets is set off by them: `- [REQ-040] System detects ...`; a checkbox is not a label.
    expect(mdItems('- [REQ-040] System detects attempts - new\n- [ ] **REQ-041**: Shows them\n- [x] [REQ-042] Exports them\n').map((i) => i.label)).toEqual(['REQ-040', 'REQ-041', 'REQ-042']);
    // A row whose first cell qualifies its label in parentheses still defines it (a coverage table
    // `| NOTE-01 (W2 portion) | 02-03 | ... |`); a cell that names two labels defines neither.
    expect(mdItems('| NOTE-01 (W2 portion) | 02-03 | Visual revamp |\n| **NOTE-02** (W3) | 03-01 | Utils |\n| NOTE-03 and NOTE-04 | x |\n').map((i) => [i.label, i.form])).toEqual([
      ['NOTE-01', 'row'],
      ['NOTE-02', 'row'],
    ]);
    // A qualifier in parentheses between the label and its colon, inside the bold or after it, still
    // defines it (prisma-generate-uml 01-CONTEXT.md `- **D-06 (CODE-02):** Include an inline comment`);
    // a parenthesis not followed by the colon is a mention.
    expect(mdItems('- **D-06 (CODE-02):** Include a comment\n- **D-07** (PERF-05): Memo\n- D-08 (see above) was dropped\n- D-09 (CODE-01) - Rename\n').map((i) => i.label)).toEqual(['D-06', 'D-07', 'D-09']);
  });
});

describe('the units store', () => {
  const ctx = () => makeCtx(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-units-')), '.planning'));
  const planningDir = '/nowhere/.planning';
  const units = [
    { id: '02-CONTEXT#D-07', kind: 'item' as const, file: 'phases/02-x/02-CONTEXT.md', title: 'D-07', label: 'D-07', phase: '02', text: '- **D-07:** Use argon2id.' },
    { id: '03-CONTEXT#D-07', kind: 'item' as const, file: 'phases/03-y/03-CONTEXT.md', title: 'D-07', label: 'D-07', phase: '03', text: '- **D-07:** Rows are append-only.' },
    { id: 'REQUIREMENTS#FR-3', kind: 'item' as const, file: 'REQUIREMENTS.md', title: 'FR-3', label: 'FR-3', text: '- [ ] **FR-3**: Users can log in with a password' },
  ];

  it('resolves ids and labels both ways; a label repeated across phases means its own phase when one is given', () => {
    const c = ctx();
    expect(writeUnits(c, 'gsd', planningDir, units)).toEqual({ changed: true, added: 3, removed: 0 });
    expect(resolveUnit(c, '02-CONTEXT#D-07').map((u) => u.text)).toEqual(['- **D-07:** Use argon2id.']);
    expect(resolveUnit(c, 'D-07').map((u) => u.id)).toEqual(['02-CONTEXT#D-07', '03-CONTEXT#D-07']);
    expect(resolveUnit(c, 'd-07', { phase: '3' }).map((u) => u.id)).toEqual(['03-CONTEXT#D-07']);
    expect(resolveUnit(c, 'D-7', { phase: '02' }).map((u) => u.id)).toEqual(['02-CONTEXT#D-07']);
    expect(resolveUnit(c, 'FR-03').map((u) => u.id)).toEqual(['REQUIREMENTS#FR-3']);
    expect(reverseUnit(c, '- **D-07:**   Use argon2id.')).toMatchObject({ exact: true, units: [{ id: '02-CONTEXT#D-07' }] });
    expect(reverseUnit(c, 'log in with a password')).toMatchObject({ exact: false, units: [{ id: 'REQUIREMENTS#FR-3' }] });
    expect(() => resolveUnit(c, 'D-99')).toThrow(HeimdallError);
    expect(() => reverseUnit(c, 'nothing like this')).toThrow(/no unit holds/);
    expect(listUnits(c, { file: 'REQUIREMENTS.md' }).map((u) => u.id)).toEqual(['REQUIREMENTS#FR-3']);
  });

  it('writes nothing when the set is unchanged, prunes what left it, and refuses a broken file', () => {
    const c = ctx();
    writeUnits(c, 'gsd', planningDir, units);
    const before = fs.readFileSync(unitsFilePath(c), 'utf8');
    const mtime = fs.statSync(unitsFilePath(c)).mtimeMs;
    const log = fs.readFileSync(c.paths.protocolLog, 'utf8');
    expect(writeUnits(c, 'gsd', planningDir, [...units].reverse())).toEqual({ changed: false, added: 0, removed: 0 });
    expect(fs.readFileSync(unitsFilePath(c), 'utf8')).toBe(before);
    expect(fs.statSync(unitsFilePath(c)).mtimeMs).toBe(mtime);
    expect(fs.readFileSync(c.paths.protocolLog, 'utf8')).toBe(log);
    expect(writeUnits(c, 'gsd', planningDir, units.slice(0, 1))).toEqual({ changed: true, added: 0, removed: 2 });
    expect(Object.keys(readUnitsFile(c)?.units ?? {})).toEqual(['02-CONTEXT#D-07']);
    fs.writeFileSync(unitsFilePath(c), '{"version":"2.0.0","units":');
    expect(() => readUnitsFile(c)).toThrow(HeimdallError);
    expect(() => resolveUnit(ctx(), 'D-07')).toThrow(/run heimdall import gsd first/);
  });

  it('reads a whole-file unit from the file it names', () => {
    const c = ctx();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-units-tree-'));
    fs.writeFileSync(path.join(dir, 'STATE.md'), '# State\n\nPhase 2.\n');
    writeUnits(c, 'gsd', dir, [{ id: 'STATE', kind: 'file', file: 'STATE.md', title: 'STATE.md' }]);
    const store = readUnitsFile(c);
    if (!store) throw new Error('no store');
    expect(unitText(store, resolveUnit(c, 'STATE')[0] as never)).toBe('# State\n\nPhase 2.\n');
  });
});
