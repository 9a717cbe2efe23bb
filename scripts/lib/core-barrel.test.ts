/**
 * The build's barrel rewrite (scripts/lib/core-barrel.mjs) must name, for every export of
 * server/core/index.ts, the file and name that declare it: a wrong entry would bundle a different
 * function under the same name, or fail only in the built CLI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain ES module of the build scripts, without types
import { moduleExports, rewriteBarrelImports } from './core-barrel.mjs';
import * as core from '../../server/core/index.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BARREL = path.join(ROOT, 'server/core/index.ts');
type Target = { file: string; name: string; typeOnly: boolean };

describe('the core barrel map', () => {
  const map = moduleExports(BARREL) as Map<string, Target>;

  it('maps every value the barrel exports to the very binding its declaring file exports', async () => {
    const values = Object.keys(core);
    expect(values.length).toBeGreaterThan(300);
    for (const name of values) {
      const target = map.get(name);
      expect(target, `no entry for ${name}`).toBeDefined();
      expect(target!.typeOnly, name).toBe(false);
      const mod = await import(target!.file);
      expect(mod[target!.name], `${name} -> ${path.relative(ROOT, target!.file)}#${target!.name}`).toBe((core as Record<string, unknown>)[name]);
    }
    // Nothing the map calls a value is missing at run time (a type would be erased; a value cannot be).
    const mapped = [...map].filter(([, t]) => !t.typeOnly).map(([n]) => n).sort();
    expect(mapped).toEqual([...values].sort());
  });

  it('follows a renamed export to its original name (HerdAgentView is the herd AgentView)', () => {
    expect(map.get('HerdAgentView')).toMatchObject({ name: 'AgentView', typeOnly: true });
    expect(path.relative(ROOT, map.get('HerdAgentView')!.file)).toMatch(/^server\/core\/herd\//);
    expect(path.relative(ROOT, map.get('AgentView')!.file)).toMatch(/^server\/core\/wire\//);
  });
});

describe('rewriteBarrelImports', () => {
  const map = moduleExports(BARREL) as Map<string, Target>;
  const file = path.join(ROOT, 'server/cli/commands/example.ts');

  it('imports each value from its declaring file, drops types, keeps aliases and the line count', () => {
    const source = [
      "import fs from 'node:fs';",
      'import {',
      '  readSymbols,',
      '  HeimdallError as Failure,',
      '  type Ctx,',
      '  closest,',
      "} from '../../core/index.js';",
      'export const x = 1;',
    ].join('\n');
    const out = rewriteBarrelImports(file, source, BARREL, map) as string;
    expect(out.split('\n')).toHaveLength(source.split('\n').length);
    expect(out).toContain("import { readSymbols } from '../../core/symbols/symbols.js';");
    expect(out).toContain("import { HeimdallError as Failure } from '../../core/errors.js';");
    expect(out).toContain("import { closest } from '../../core/suggest.js';");
    expect(out).not.toMatch(/core\/index\.js|\bCtx\b/);
    expect(out.split('\n')[7]).toBe('export const x = 1;');
  });

  it('leaves type-only imports and other modules alone', () => {
    const source = "import type { Ctx } from '../../core/index.js';\nimport { run } from '../io.js';\n";
    expect(rewriteBarrelImports(file, source, BARREL, map)).toBe(source);
  });

  it('refuses a name the barrel does not export, and a namespace import', () => {
    expect(() => rewriteBarrelImports(file, "import { noSuchThing } from '../../core/index.js';", BARREL, map)).toThrow(/exports no 'noSuchThing'/);
    expect(() => rewriteBarrelImports(file, "import * as core from '../../core/index.js';", BARREL, map)).toThrow(/namespace import/);
  });

  it('resolves through a folder barrel and a local re-export of an import', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-barrel-'));
    fs.mkdirSync(path.join(dir, 'sub'));
    fs.writeFileSync(path.join(dir, 'sub', 'impl.ts'), 'export function f() {}\nexport type T = 1;\nexport const c = 2;\n');
    fs.writeFileSync(path.join(dir, 'sub', 'index.ts'), "export * from './impl.js';\n");
    fs.writeFileSync(path.join(dir, 'relay.ts'), "import { c } from './sub/index.js';\nexport { c as renamed };\n");
    fs.writeFileSync(path.join(dir, 'index.ts'), "export * from './sub/index.js';\nexport { renamed } from './relay.js';\n");
    const m = moduleExports(path.join(dir, 'index.ts')) as Map<string, Target>;
    expect(m.get('f')).toEqual({ file: path.join(dir, 'sub', 'impl.ts'), name: 'f', typeOnly: false });
    expect(m.get('T')).toMatchObject({ typeOnly: true });
    expect(m.get('renamed')).toEqual({ file: path.join(dir, 'sub', 'impl.ts'), name: 'c', typeOnly: false });
  });
});
