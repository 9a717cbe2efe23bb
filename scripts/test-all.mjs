// The one test command (`npm test`, called by .ci/run): builds the CLI, then runs every suite, each
// also runnable on its own: unit (`npm run test:unit`), CLI/MCP end to end (`npm run test:e2e`),
// integration against PostgreSQL and NATS (`npm run test:int`), the chaos suite (`npm run chaos`)
// and the Playwright browser suite (`npm run test:browser`). It ends with one line
// `N passed, N failed` for all of them together.
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
const bySuite = [];

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

// The vitest projects of vitest.config.ts, in the order a failure is cheapest to find.
for (const project of ['unit', 'e2e', 'int', 'chaos']) {
  const report = path.join(out, `vitest-${project}.json`);
  const status = run('npx', ['vitest', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile=${report}`]);
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    // A skipped or todo test is not a passed one: it counts as failed (nothing is called done by
    // being left out), and so does every test of a file that failed before its tests ran (a
    // beforeAll that threw leaves its tests "skipped"; a syntax error leaves none at all).
    let projectFailed = r.numFailedTests + r.numPendingTests + r.numTodoTests;
    for (const s of r.testResults ?? []) {
      const results = s.assertionResults ?? [];
      if (s.status !== 'failed' || results.some((a) => a.status === 'failed')) continue;
      const unrun = results.filter((a) => a.status !== 'passed').length;
      if (unrun === 0) projectFailed++; // no test of it ran at all
      problems.push(`${project}: ${path.relative(root, s.name)} failed to run${s.message ? `: ${String(s.message).split('\n')[0]}` : ''}`);
    }
    if (r.numPendingTests || r.numTodoTests) problems.push(`${project}: ${r.numPendingTests + r.numTodoTests} vitest tests skipped or todo, counted as failed`);
    if (status !== 0 && projectFailed === 0) {
      projectFailed = 1;
      problems.push(`${project}: vitest exited ${status} with no failed test in its report`);
    }
    passed += r.numPassedTests;
    failed += projectFailed;
    bySuite.push(`${project}: ${r.numPassedTests} passed, ${projectFailed} failed`);
  } else if (status !== 0) {
    failed++;
    problems.push(`${project}: vitest did not produce a report`);
  }
}

const hasSpecs = existsSync(path.join(root, 'e2e')) && readdirSync(path.join(root, 'e2e')).some((f) => f.endsWith('.spec.ts'));
if (hasSpecs) {
  const pwJson = path.join(out, 'playwright.json');
  const pStatus = run('npx', ['playwright', 'test'], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
  if (existsSync(pwJson)) {
    const r = JSON.parse(readFileSync(pwJson, 'utf8'));
    const p = (r.stats?.expected ?? 0) + (r.stats?.flaky ?? 0);
    const f = (r.stats?.unexpected ?? 0) + (r.stats?.skipped ?? 0);
    passed += p;
    failed += f;
    bySuite.push(`browser: ${p} passed, ${f} failed`);
    if (r.stats?.skipped) problems.push(`${r.stats.skipped} playwright tests skipped, counted as failed`);
    for (const e of r.errors ?? []) {
      failed++;
      problems.push(`playwright: ${e.message?.split('\n')[0]}`);
    }
  } else if (pStatus !== 0) {
    failed++;
    problems.push('playwright did not produce a report');
  }
}

for (const s of bySuite) console.log(`suite ${s}`);
for (const p of problems) console.log(`note: ${p}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
