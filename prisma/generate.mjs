// Prepares the wire stream's read model for use, offline (see /work/shared/docs/stack.md, "Prisma"):
//   1. derives the PostgreSQL schema from prisma/schema.prisma (only the datasource differs);
//   2. `prisma generate` for both (TypeScript clients under generated/prisma/<provider>/);
//   3. `prisma migrate diff --from-empty --script` for both: the DDL a store applies to an empty
//      database (the same tables `prisma db push` creates), written to prisma/ddl/<provider>.sql and
//      committed like a migration. The JavaScript schema engine needs a live database even for a
//      diff from empty: SQLite uses a scratch file; PostgreSQL uses DATABASE_URL when it is a
//      postgres URL, else postgresql://127.0.0.1:5432/postgres, and keeps the committed file (with a
//      note) when no server answers;
//   4. bundles each generated client, with the Prisma runtime it imports, to one self-contained
//      generated/prisma/<provider>.mjs that the built CLI and Studio (plain JavaScript) load at run
//      time; the package ships these two files prebuilt.
// Run it after a fresh checkout and after every change to prisma/schema.prisma:
//   node prisma/generate.mjs        (npm run db:generate)
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'generated', 'prisma');
mkdirSync(outDir, { recursive: true });

const sqliteSchema = path.join(root, 'prisma', 'schema.prisma');
const pgSchema = path.join(outDir, 'postgres.prisma');
const source = readFileSync(sqliteSchema, 'utf8');
const derived = source
  .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
  .replace(/output\s*=\s*"\.\.\/generated\/prisma\/sqlite"/, 'output     = "./postgres"');
if (derived === source || !derived.includes('"postgresql"') || !derived.includes('"./postgres"')) {
  console.error('prisma/generate.mjs: could not derive the PostgreSQL schema (datasource provider or generator output changed?)');
  process.exit(1);
}
writeFileSync(pgSchema, `// GENERATED from prisma/schema.prisma by prisma/generate.mjs: do not edit.\n${derived}`);

const prismaBin = path.join(root, 'node_modules', '.bin', 'prisma');
function prisma(args, env, optional = false) {
  const r = spawnSync(prismaBin, args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    if (optional) return undefined;
    console.error(`prisma ${args.join(' ')} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
    process.exit(1);
  }
  return r.stdout;
}

const scratch = path.join(os.tmpdir(), `heimdall-prisma-ddl-${process.pid}.db`);
const pgBase = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '') ? process.env.DATABASE_URL : `postgresql://${encodeURIComponent(os.userInfo().username)}@127.0.0.1:5432/postgres`;
const pgUrl = new URL(pgBase);
pgUrl.searchParams.set('schema', 'heimdall_wire_ddl');
const targets = [
  { name: 'sqlite', schema: sqliteSchema, env: { DATABASE_URL: `file:${scratch}` }, required: true },
  { name: 'postgres', schema: pgSchema, env: { DATABASE_URL: pgUrl.toString() }, required: false },
];
const ddlDir = path.join(root, 'prisma', 'ddl');
mkdirSync(ddlDir, { recursive: true });
for (const t of targets) {
  prisma(['generate', '--schema', t.schema], t.env);
  const diff = prisma(['migrate', 'diff', '--from-empty', '--to-schema-datamodel', t.schema, '--script'], t.env, !t.required);
  rmSync(scratch, { force: true });
  if (diff === undefined) {
    console.log(`prisma/generate.mjs: no PostgreSQL answered at ${pgBase}; kept the committed prisma/ddl/${t.name}.sql`);
  } else {
    // The store creates (and names) its own schema; the DDL itself stays unqualified.
    const ddl = diff.replace(/^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "[^"]+";\n\n?/m, '');
    if (!/CREATE TABLE "wire_events"/.test(ddl) || /CREATE SCHEMA/.test(ddl)) {
      console.error(`prisma/generate.mjs: unexpected DDL for ${t.name}:\n${ddl}`);
      process.exit(1);
    }
    writeFileSync(path.join(ddlDir, `${t.name}.sql`), ddl);
  }
  await build({
    entryPoints: [path.join(outDir, t.name, 'client.ts')],
    outfile: path.join(outDir, `${t.name}.mjs`),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // Self-contained (the Prisma runtime and its WebAssembly query compiler included), so the
    // installed package ships these files prebuilt and needs neither @prisma/client nor prisma.
    banner: { js: "import { createRequire as __heimdallCreateRequire } from 'node:module'; const require = __heimdallCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  console.log(`prisma/generate.mjs: ${t.name} client ready in generated/prisma/`);
}
