/**
 * Prisma configuration for the wire stream's read model (see docs/stack.md, "Prisma"): the
 * WebAssembly engines through a driver adapter, so every step runs offline. SQLite file by default
 * (`<planning root>/wire/read-model.db`); PostgreSQL when DATABASE_URL is a postgres URL, with the
 * schema `node prisma/generate.mjs` derives from prisma/schema.prisma (run it first).
 */
import fs from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'prisma/config';

const planningRoot = process.env.HEIMDALL_PLANNING_DIR ? path.resolve(process.env.HEIMDALL_PLANNING_DIR) : path.resolve('.planning');
const url = process.env.DATABASE_URL && process.env.DATABASE_URL.trim() !== '' ? process.env.DATABASE_URL : `file:${path.join(planningRoot, 'wire', 'read-model.db')}`;
process.env.DATABASE_URL = url;
const postgres = /^postgres(ql)?:\/\//.test(url);

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: postgres ? 'generated/prisma/postgres.prisma' : 'prisma/schema.prisma',
  async adapter() {
    if (postgres) {
      const { PrismaPg } = await import('@prisma/adapter-pg');
      const schema = new URL(url).searchParams.get('schema') ?? undefined;
      return new PrismaPg({ connectionString: url }, schema ? { schema } : undefined);
    }
    const file = url.replace(/^file:/, '');
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3');
    return new PrismaBetterSQLite3({ url });
  },
});
