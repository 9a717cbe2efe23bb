/**
 * Test helpers for the phase run (imported by tests only): a small GSD project whose plans cover
 * every case the ready queue must tell apart: a first wave, a second wave whose two plans share a
 * file (the planted overlap), a plan that waits on both, an empty write set, a second phase and a
 * quick task.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function write(root: string, rel: string, text: string): void {
  const f = path.join(root, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
}

function plan(o: { phase: string; plan: string; wave: number; depends: string[]; files: string[]; title: string }): string {
  return `---
phase: ${o.phase}
plan: ${o.plan}
wave: ${o.wave}
depends_on: [${o.depends.map((d) => `"${d}"`).join(', ')}]
files_modified: [${o.files.join(', ')}]
---

<objective>
${o.title}
</objective>

<tasks>
<task type="auto">
  <name>Task 1: ${o.title}</name>
  <files>${o.files.join(', ')}</files>
  <action>Write ${o.files.join(' and ') || 'the notes'} as the objective says.</action>
  <done>${o.title} works</done>
</task>
</tasks>
`;
}

/** The plans of the synthetic project: id -> [phase dir, wave, depends, files]. */
export const PLANS: Record<string, { dir: string; wave: number; depends: string[]; files: string[]; title: string }> = {
  '01-01': { dir: '01-core', wave: 1, depends: [], files: ['src/core/base.ts'], title: 'Base types' },
  '01-02': { dir: '01-core', wave: 2, depends: ['01-01'], files: ['src/core/parser.ts', 'src/core/index.ts'], title: 'Parser' },
  '01-03': { dir: '01-core', wave: 2, depends: ['01-01'], files: ['src/core/printer.ts', 'src/core/index.ts'], title: 'Printer' },
  '01-04': { dir: '01-core', wave: 3, depends: ['01-02', '01-03'], files: ['src/core/roundtrip.ts'], title: 'Round trip' },
  '01-05': { dir: '01-core', wave: 1, depends: [], files: [], title: 'Notes without files' },
  '02-01': { dir: '02-api', wave: 1, depends: [], files: ['api/server.ts'], title: 'API server' },
};

/** Write the project (a .planning folder inside a fresh folder); returns the project folder. */
export function phaseProject(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-phase-'));
  write(root, '.planning/PROJECT.md', '# Project\n\nA parser and a printer.\n');
  write(root, '.planning/ROADMAP.md', '# Roadmap\n\n### Phase 1: Core\n**Goal**: parse and print\n\n### Phase 2: API\n**Goal**: serve it\n**Depends on**: Phase 1\n');
  write(root, '.planning/STATE.md', '# State\n\n## Current Position\n\nPhase: 1 of 2\n');
  for (const [id, p] of Object.entries(PLANS)) {
    const [phase, n] = id.split('-') as [string, string];
    write(root, `.planning/phases/${p.dir}/${id}-PLAN.md`, plan({ phase: p.dir, plan: n, wave: p.wave, depends: p.depends, files: p.files, title: p.title }));
    void phase;
  }
  write(root, '.planning/quick/001-typo/001-PLAN.md', plan({ phase: 'quick', plan: '001', wave: 1, depends: [], files: ['README.md'], title: 'Fix a typo' }));
  return root;
}

/** The SUMMARY an executor writes when it finishes plan `id`. */
export function writeSummary(project: string, id: string): string {
  const p = PLANS[id];
  if (!p) throw new Error(`no plan ${id} in the test project`);
  const rel = `.planning/phases/${p.dir}/${id}-SUMMARY.md`;
  write(
    project,
    rel,
    `---\nphase: ${p.dir}\nplan: ${id.split('-')[1]}\nprovides: ["${p.title.toLowerCase()}"]\nkey-files:\n  created: [${p.files.join(', ')}]\n---\n\n# ${id} Summary\n\n**${p.title} done, with tests**\n`,
  );
  return rel;
}
