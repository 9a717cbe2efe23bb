/**
 * House style rule 8: the architecture's boundaries are checked by a tool (dependency-cruiser with
 * .dependency-cruiser.cjs), on the real tree and on a planted violation so the check can fail.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from '../server/testing/fixtures.js';

const depcruise = path.join(REPO_ROOT, 'node_modules/.bin/depcruise');
const config = path.join(REPO_ROOT, '.dependency-cruiser.cjs');

function cruise(cwd: string, targets: string[]) {
  const existing = targets.filter((t) => fs.existsSync(path.join(cwd, t)));
  return spawnSync(depcruise, [...existing, '--config', config, '--output-type', 'err'], { cwd, encoding: 'utf8' });
}

describe('architecture boundaries', () => {
  it('the tree has no violations (core pure, client imports no server code)', () => {
    const r = cruise(REPO_ROOT, ['server', 'app', 'components']);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/no dependency violations found/);
  });

  it('a core module importing a transport is reported', () => {
    const dir = tmpDir('heimdall-boundary-');
    fs.mkdirSync(path.join(dir, 'server/core'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'server/cli'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{"compilerOptions":{"module":"ESNext","moduleResolution":"Bundler"}}');
    fs.writeFileSync(path.join(dir, 'server/cli/main.ts'), 'export const x = 1;\n');
    fs.writeFileSync(path.join(dir, 'server/core/bad.ts'), "import { x } from '../cli/main';\nexport const y = x;\n");
    const r = cruise(dir, ['server']);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/core-is-pure/);
  });

  it('a transport importing a core file other than server/core/index.ts is reported; the index itself is allowed', () => {
    const dir = tmpDir('heimdall-boundary-');
    fs.mkdirSync(path.join(dir, 'server/core/symbols'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'server/mcp'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{"compilerOptions":{"module":"ESNext","moduleResolution":"Bundler"}}');
    fs.writeFileSync(path.join(dir, 'server/core/symbols/symbols.ts'), 'export const readSymbols = () => ({});\n');
    fs.writeFileSync(path.join(dir, 'server/core/index.ts'), "export { readSymbols } from './symbols/symbols';\n");
    fs.writeFileSync(path.join(dir, 'server/mcp/good.ts'), "import { readSymbols } from '../core/index';\nexport const a = readSymbols;\n");
    const good = cruise(dir, ['server']);
    expect(good.status, good.stdout + good.stderr).toBe(0);
    fs.writeFileSync(path.join(dir, 'server/mcp/bad.ts'), "import { readSymbols } from '../core/symbols/symbols';\nexport const b = readSymbols;\n");
    const bad = cruise(dir, ['server']);
    expect(bad.status).not.toBe(0);
    expect(bad.stdout + bad.stderr).toMatch(/transports-import-the-core-index[\s\S]*server\/mcp\/bad\.ts/);
  });
});
