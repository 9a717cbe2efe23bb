// Steps the test suites need before they run, after the CLI bundle is built (scripts/test-all.mjs
// runs this). One block per concern; each must fail loudly.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
function step(label, cmd, args, env = {}) {
  console.log(`prepare: ${label}`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`prepare: ${label} failed (exit ${r.status})`);
    process.exit(1);
  }
}

// --- steps (one block each; add yours below)
void step;

// --- wire stream read model (issue 4): generate both Prisma clients (SQLite, PostgreSQL) into
// generated/prisma/, bundle them for the built CLI, and refresh prisma/ddl/*.sql (the tables
// `prisma db push` creates; every test database is created from it by server/db/prisma.ts, and
// server/db/readModel.test.ts checks it against a real `prisma db push`).
step('wire read model: prisma generate + DDL', process.execPath, ['prisma/generate.mjs']);
