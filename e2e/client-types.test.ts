/**
 * Studio's components take their data types from the router (RouterOutputs), never from core files:
 * checked by dependency-cruiser (`client-types-from-router` in .dependency-cruiser.cjs) on the real
 * tree and on a planted violation, so the check can fail.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tmpDir } from '../server/testing/fixtures.js';

const depcruise = path.join(REPO_ROOT, 'node_modules/.bin/depcruise');
const config = path.join(REPO_ROOT, '.dependency-cruiser.cjs');

function plant(files: Record<string, string>): string {
  const dir = tmpDir('heimdall-client-types-');
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), '{"compilerOptions":{"module":"ESNext","moduleResolution":"Bundler","jsx":"preserve"}}');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

function cruise(cwd: string) {
  return spawnSync(depcruise, ['components', 'server', '--config', config, '--output-type', 'err'], { cwd, encoding: 'utf8' });
}

const core = {
  'server/core/log/query.ts': 'export interface LogPage { total: number }\n',
  'server/core/index.ts': "export type { LogPage } from './log/query';\n",
};
const router = {
  'server/trpc/root.ts': "import type { LogPage } from '../core/index';\nexport type AppRouter = { log: LogPage };\n",
  'components/trpc/types.ts': "import type { AppRouter } from '../../server/trpc/root';\nexport type LogPage = AppRouter['log'];\n",
};

describe('client types come from the router', () => {
  it('a component importing a core type, even type-only, is reported', () => {
    const dir = plant({ ...core, ...router, 'components/log/LogView.tsx': "import type { LogPage } from '../../server/core/log/query';\nexport const n = (p: LogPage) => p.total;\n" });
    const r = cruise(dir);
    expect(r.status).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/client-types-from-router/);
    expect(r.stdout + r.stderr).toContain('components/log/LogView.tsx');
  });

  it('the same component taking the type from the router passes', () => {
    const dir = plant({ ...core, ...router, 'components/log/LogView.tsx': "import type { LogPage } from '../trpc/types';\nexport const n = (p: LogPage) => p.total;\n" });
    const r = cruise(dir);
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });
});
