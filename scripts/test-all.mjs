// The one test command (`npm test`, called by .ci/run): builds the CLI, runs every vitest suite
// (unit, CLI end-to-end, integration against PostgreSQL and NATS) and the Playwright browser suite,
// then prints one line `N passed, N failed` for all of them together.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, '.test-results');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };

function run(cmd, args, extraEnv = {}) {
  console.log(`\n$ ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  return r.status ?? 1;
}

let passed = 0;
let failed = 0;
const problems = [];

const prep = [
  ['node', ['scripts/build-cli.mjs']],
  ...(existsSync(path.join(root, 'scripts/prepare-test.mjs')) ? [['node', ['scripts/prepare-test.mjs']]] : []),
];
for (const [cmd, args] of prep) {
  if (run(cmd, args) !== 0) {
    problems.push(`${cmd} ${args.join(' ')} failed`);
    failed++;
  }
}

const vitestJson = path.join(out, 'vitest.json');
const vStatus = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${vitestJson}`]);
if (existsSync(vitestJson)) {
  const r = JSON.parse(readFileSync(vitestJson, 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  // A suite that failed to load (syntax error, missing import) has no tests but must count.
  for (const s of r.testResults ?? []) if (s.status === 'failed' && (s.assertionResults ?? []).length === 0) {
    failed++;
    problems.push(`suite failed to run: ${path.relative(root, s.name)}`);
  }
  if (r.numPendingTests || r.numTodoTests) problems.push(`${r.numPendingTests + r.numTodoTests} vitest tests skipped or todo`);
} else if (vStatus !== 0) {
  failed++;
  problems.push('vitest did not produce a report');
}

const hasSpecs = existsSync(path.join(root, 'e2e')) && readdirSync(path.join(root, 'e2e')).some((f) => f.endsWith('.spec.ts'));
if (hasSpecs) {
  const pwJson = path.join(out, 'playwright.json');
  const pStatus = run('npx', ['playwright', 'test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  if (existsSync(pwJson)) {
    const r = JSON.parse(readFileSync(pwJson, 'utf8'));
    passed += (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    failed += r.stats?.unexpected ?? 0;
    if (r.stats?.skipped) problems.push(`${r.stats.skipped} playwright tests skipped`);
    for (const e of r.errors ?? []) {
      failed++;
      problems.push(`playwright: ${e.message?.split('\n')[0]}`);
    }
  } else if (pStatus !== 0) {
    failed++;
    problems.push('playwright did not produce a report');
  }
}

for (const p of problems) console.log(`note: ${p}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
