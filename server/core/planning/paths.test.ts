import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../../testing/fixtures.js';
import { locatePlanningTree, noTreeMessage, planningPaths } from './paths.js';

function repo() {
  const top = fs.realpathSync(tmpDir('heimdall-locate-'));
  const deep = path.join(top, 'a/b/c');
  fs.mkdirSync(deep, { recursive: true });
  // The walk never climbs above the temporary folder, whatever the machine has there.
  return { top, deep, env: { HEIMDALL_CEILING_DIRECTORIES: path.dirname(top) } };
}

describe('locatePlanningTree (like git finds .git)', () => {
  it('finds the nearest .planning/ in the working directory or above it', () => {
    const { top, deep, env } = repo();
    expect(locatePlanningTree(env, deep)).toEqual({ root: path.join(deep, '.planning'), exists: false, source: 'none', cwd: deep });
    fs.mkdirSync(path.join(top, '.planning'));
    expect(locatePlanningTree(env, deep)).toEqual({ root: path.join(top, '.planning'), exists: true, source: 'found', cwd: deep });
    fs.mkdirSync(path.join(top, 'a/.planning'));
    expect(locatePlanningTree(env, deep).root).toBe(path.join(top, 'a/.planning')); // the nearest wins
    expect(locatePlanningTree(env, top).root).toBe(path.join(top, '.planning'));
  });

  it('a file named .planning is not a tree; the walk goes on past it', () => {
    const { top, deep, env } = repo();
    fs.mkdirSync(path.join(top, '.planning'));
    fs.writeFileSync(path.join(top, 'a/.planning'), 'not a folder');
    expect(locatePlanningTree(env, deep).root).toBe(path.join(top, '.planning'));
  });

  it('HEIMDALL_PLANNING_DIR overrides the walk (relative to the working directory), existing or not', () => {
    const { top, deep, env } = repo();
    fs.mkdirSync(path.join(top, '.planning'));
    expect(locatePlanningTree({ ...env, HEIMDALL_PLANNING_DIR: '../elsewhere' }, deep)).toEqual({ root: path.join(top, 'a/b/elsewhere'), exists: false, source: 'env', cwd: deep });
    expect(locatePlanningTree({ ...env, HEIMDALL_PLANNING_DIR: '  ' }, deep).source).toBe('found'); // blank is unset
  });

  it('HEIMDALL_CEILING_DIRECTORIES stops the walk below the folders it names', () => {
    const { top, deep } = repo();
    fs.mkdirSync(path.join(top, '.planning'));
    expect(locatePlanningTree({ HEIMDALL_CEILING_DIRECTORIES: `relative/ignored:${top}` }, deep).exists).toBe(false);
    expect(locatePlanningTree({ HEIMDALL_CEILING_DIRECTORIES: path.join(top, 'a') }, deep).exists).toBe(false);
    expect(locatePlanningTree({ HEIMDALL_CEILING_DIRECTORIES: path.dirname(top) }, deep).exists).toBe(true);
  });

  it('says how to make a tree when there is none', () => {
    const { deep, env } = repo();
    expect(noTreeMessage(locatePlanningTree(env, deep))).toMatch(/no \.planning\/ in .*a\/b\/c or any folder above it\. Create one with `heimdall init`/);
    expect(noTreeMessage(locatePlanningTree({ HEIMDALL_PLANNING_DIR: '/nowhere/x' }, deep))).toMatch(/no planning tree at \/nowhere\/x \(HEIMDALL_PLANNING_DIR\): create it with `heimdall init`/);
  });

  it('names every folder of the tree, each under the root', () => {
    const p = planningPaths('/r/.planning');
    for (const [k, v] of Object.entries(p)) if (k !== 'root') expect(v.startsWith('/r/.planning/'), k).toBe(true);
    expect([p.herdDir, p.handshakeDir, p.cspDir, p.teamLedgerDir, p.wireDir, p.runsDir]).toEqual([
      '/r/.planning/herd',
      '/r/.planning/handshake',
      '/r/.planning/csp',
      '/r/.planning/ledger',
      '/r/.planning/wire',
      '/r/.planning/protocol/runs',
    ]);
  });
});
