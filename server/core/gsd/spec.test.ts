import { describe, expect, it } from 'vitest';
import { o200kTokenizer } from '../tokens/tokenizer.js';
import { PathReplacer, chooseIds, resolveIds } from './spec.js';

describe('ids in a brief', () => {
  it('replaces paths in prose only: not in fenced code, not in commands, not inside longer paths', () => {
    const r = new PathReplacer(new Map([['src/app.js', 'F7'], ['app.js', 'F8']]));
    const used: string[] = [];
    const out = r.text(
      ['Edit src/app.js and `src/app.js`.', 'Run `node src/app.js` or <automated>node src/app.js</automated>.', 'Keep lib/src/app.js, ./src/app.js and src/app.jsx.', '```', 'src/app.js', '```', 'Root app.js too.'].join('\n'),
      (id) => used.push(id),
    );
    expect(out.split('\n')).toEqual(['Edit F7 and `F7`.', 'Run `node src/app.js` or <automated>node src/app.js</automated>.', 'Keep lib/src/app.js, ./src/app.js and src/app.jsx.', '```', 'src/app.js', '```', 'Root F8 too.']);
    expect([...new Set(used)]).toEqual(['F7', 'F8']);
  });

  it('uses an id only where k uses plus its entry cost less than k copies, and resolving gives the text back exactly', () => {
    const long = 'src/renderer/src/lib/stores/useDataStore.ts';
    const paths = new Map([
      [long, 'F3'],
      ['a.ts', 'F4'],
    ]);
    const once = `Edit ${long}.\nAlso a.ts once.`;
    expect(chooseIds(once, paths, new Map(), o200kTokenizer)).toEqual({ text: once, symbols: [] });
    const many = Array.from({ length: 5 }, (_, i) => `Step ${i}: touch ${long} and a.ts.`).join('\n');
    const c = chooseIds(many, paths, new Map(), o200kTokenizer);
    expect(c.symbols).toEqual([['F3', long]]);
    expect(c.text).toContain('touch F3 and a.ts.');
    expect(o200kTokenizer.count(c.text) + o200kTokenizer.count(`SYMBOLS\nF3\t${long}\n`)).toBeLessThan(o200kTokenizer.count(many));
    expect(resolveIds(c.text, c.symbols)).toBe(many);
    // A truth restated word for word becomes its id when that pays.
    const truth = 'On startup, any in-progress jobs are marked stage=failed with a restart message';
    const spec = `truths:\n  - "${truth}"\n<done>\n- ${truth}\n</done>\n<success_criteria>\n- ${truth}\n</success_criteria>`;
    const t = chooseIds(spec, new Map(), new Map([[truth, '02-02.T2']]), o200kTokenizer);
    expect(t.symbols).toEqual([['02-02.T2', truth]]);
    expect(t.text).toContain('- 02-02.T2\n</done>');
    expect(resolveIds(t.text, t.symbols)).toBe(spec);
  });
});
