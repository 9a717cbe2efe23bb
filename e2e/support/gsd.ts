/**
 * Record a GSD-bench-shaped run in a planning tree (e2e/support/gsd-run.ts) in a child process: the
 * script calls the core directly, which the spec runner's loader cannot import (JSON modules), so
 * specs and the fixture run it as the bench itself would be run, as its own process.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO } from './cli.js';

/** The fixture's GSD bench run, the latest run of the fixture. */
export const GSD_FIXTURE_RUN = 'gsd-fixture';
/** The project name the synthetic bench records as its workspace. */
export const GSD_WORKSPACE = 'acme-ledger';

export function recordGsdRun(planning: string, run: string, createdIso: string, opts: { partial?: boolean } = {}): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO, 'e2e/support/gsd-run.ts'), planning, run, createdIso, ...(opts.partial ? ['partial'] : [])], {
    cwd: REPO,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`e2e/support/gsd-run.ts ${run} exited ${r.status}\n${r.stderr}${r.stdout}`);
}
