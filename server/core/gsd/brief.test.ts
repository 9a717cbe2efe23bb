import { describe, expect, it } from 'vitest';
import { refsLines } from './brief.js';
import type { RefResolution } from './cite.js';

const ref = (r: Partial<RefResolution> & Pick<RefResolution, 'written' | 'resolution'>): RefResolution => ({ via: 'context', units: [], ...r });

describe('the REFS section', () => {
  const refs: RefResolution[] = [
    ref({ written: '.planning/STATE.md', rel: 'STATE.md', resolution: 'read' }),
    ref({ written: '.planning/phases/02-x/02-RESEARCH.md', rel: 'phases/02-x/02-RESEARCH.md', resolution: 'units', units: ['02-RESEARCH#pattern-1'] }),
    ref({ written: '.planning/phases/02-x/02-RESEARCH.md', via: 'read_first', note: 'Pitfall 2', rel: 'phases/02-x/02-RESEARCH.md', resolution: 'units', units: ['02-RESEARCH#pitfall-2', '02-RESEARCH#pattern-1'] }),
    ref({ written: '.planning/phases/01-y/01-01-SUMMARY.md', note: 'the login flow', rel: 'phases/01-y/01-01-SUMMARY.md', resolution: 'capsule', capsule: '01-01' }),
    ref({ written: '.planning/phases/02-x/02-VALIDATION.md', resolution: 'missing' }),
    ref({ written: 'src/app.ts', via: 'read_first', note: 'the router', resolution: 'outside' }),
    ref({ written: '/home/me/.claude/get-shit-done/workflows/execute-plan.md', resolution: 'outside' }),
  ];
  const lines = refsLines(refs, ['/home/me/.claude/get-shit-done/templates/summary.md']);

  it('lists every read once, on the line of what became of it', () => {
    expect(lines).toEqual([
      'read whole (below): .planning/STATE.md',
      'to units: .planning/phases/02-x/02-RESEARCH.md > § 02-RESEARCH#pattern-1, § 02-RESEARCH#pitfall-2',
      'to capsules: .planning/phases/01-y/01-01-SUMMARY.md (the login flow) > 01-01',
      'missing from the tree: .planning/phases/02-x/02-VALIDATION.md',
      'project files (read them in the repository): src/app.ts',
      "GSD's workflow (replaced by the Heimdall protocol): workflows/execute-plan.md; templates/summary.md",
    ]);
  });

  it('repeats the note of a <context> @-line, which the brief drops, and not that of a <read_first> item, which SPEC keeps', () => {
    const text = lines.join('\n');
    expect(text).toContain('(the login flow)');
    expect(text).not.toContain('the router');
    expect(text).not.toContain('Pitfall 2');
    const inline = refsLines([ref({ written: 'src/db.ts', via: 'inline', note: 'the pool', resolution: 'outside' })], []);
    expect(inline).toEqual(['project files (read them in the repository): src/db.ts']);
    const ctx = refsLines([ref({ written: 'src/db.ts', note: 'the pool', resolution: 'outside' })], []);
    expect(ctx).toEqual(['project files (read them in the repository): src/db.ts (the pool)']);
  });

  it('names a planning document where it is, however the plan wrote it', () => {
    const bare = refsLines([ref({ written: '06-VALIDATION.md', via: 'read_first', note: 'Wave 0', rel: 'phases/06-x/06-VALIDATION.md', resolution: 'units', units: ['06-VALIDATION#wave-0'] })], []);
    expect(bare).toEqual(['to units: .planning/phases/06-x/06-VALIDATION.md > § 06-VALIDATION#wave-0']);
    const root = refsLines([ref({ written: 'STATE.md', rel: 'STATE.md', resolution: 'read' }), ref({ written: '.planning/STATE.md', via: 'read_first', rel: 'STATE.md', resolution: 'read' })], []);
    expect(root).toEqual(['read whole (below): .planning/STATE.md']);
  });

  it('drops no path the plan wrote', () => {
    const text = lines.join('\n');
    for (const r of refs) {
      const shown = r.written.includes('get-shit-done/') ? r.written.replace(/.*get-shit-done\//, '') : r.written;
      expect(text).toContain(shown);
    }
    expect(refsLines(refs.slice(0, 1), [])).toEqual(['read whole (below): .planning/STATE.md']);
    expect(refsLines([], [])).toEqual([]);
  });
});
