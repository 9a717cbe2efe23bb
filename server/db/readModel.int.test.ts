/**
 * The listener against a real PostgreSQL read model (its own schema per run), reading the file log
 * and the NATS JetStream log: replay equality, the same rows as SQLite, reducer_version rebuilds,
 * and a listener process killed mid-stream.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ctx, makeCtx } from '../core/context.js';
import { fixedClock } from '../core/ports.js';
import { WireListener, listenOnce, replay } from '../core/wire/listener.js';
import { FileWireLog } from '../stream/fileLog.js';
import type { JetStreamWireLog } from '../stream/jetstreamLog.js';
import { scenario } from '../stream/testing/scenario.js';
import { NATS_URL, type PgSchema, requireJetStream, requirePostgres, uniquePrefix } from '../stream/testing/services.js';
import { ROOT, start } from '../stream/testing/spawn.js';
import { PrismaReadModelStore, dumpReadModel } from './readModel.js';
import { until } from '../testing/fixtures.js';

let dir: string;
let ctx: Ctx;
const schemas: PgSchema[] = [];
const stores: PrismaReadModelStore[] = [];
let js: JetStreamWireLog | undefined;
const prefix = uniquePrefix('PG');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-pg-'));
  ctx = makeCtx(path.join(dir, '.planning'), { clock: fixedClock(Date.parse('2026-05-01T17:00:00Z')) });
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  for (const s of schemas) await s.drop();
  if (js) {
    await js.destroy();
    await js.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

async function pgStore(tag: string): Promise<{ store: PrismaReadModelStore; schema: PgSchema }> {
  const schema = await requirePostgres(tag);
  schemas.push(schema);
  const store = await PrismaReadModelStore.open({ url: schema.url, wireDir: ctx.paths.wireDir });
  stores.push(store);
  return { store, schema };
}

async function sqliteStore(name: string): Promise<PrismaReadModelStore> {
  const s = await PrismaReadModelStore.open({ url: `file:${path.join(dir, name)}`, wireDir: ctx.paths.wireDir });
  stores.push(s);
  return s;
}

describe('PostgreSQL read model', () => {
  it('creates its tables in its own schema, and rebuilt tables equal the incremental ones', async () => {
    const { store, schema } = await pgStore('replay');
    expect(store.kind).toBe('postgres');
    const c = new pg.Client({ connectionString: schema.url.replace(/\?schema=.*/, '') });
    await c.connect();
    const tables = (await c.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`, [schema.schema])).rows.map((r) => r.table_name);
    await c.end();
    expect(tables).toEqual(['agent_runtime_state', 'read_model_meta', 'stream_offsets', 'stream_state', 'task_run_state', 'wire_events']);

    const log = new FileWireLog(path.join(dir, 'file-log'), { fsync: false });
    const wires = scenario(1500);
    for (let i = 0; i < wires.length; i += 211) {
      await log.appendBatch(i % 2 ? 'main' : 'roles.developer', wires.slice(i, i + 211));
      await listenOnce(ctx, log, store, { batchSize: 64 });
    }
    const incremental = await dumpReadModel(store.db);
    expect(incremental.wire_events).toHaveLength(1500);
    await replay(ctx, log, store);
    expect(await dumpReadModel(store.db)).toEqual(incremental);
    // The same log gives the same rows on SQLite.
    const lite = await sqliteStore('same.db');
    await listenOnce(ctx, log, lite);
    expect(await dumpReadModel(lite.db)).toEqual(incremental);
  });

  it('rebuilds when the reducer_version changes, and refuses a second listener commit', async () => {
    const { store } = await pgStore('version');
    const log = new FileWireLog(path.join(dir, 'file-log-2'), { fsync: false });
    await log.appendBatch('main', scenario(200));
    await listenOnce(ctx, log, store, { reducerVersion: 1 });
    const r = await listenOnce(ctx, log, store, { reducerVersion: 7 });
    expect(r.rebuilt).toEqual({ from: [1], to: 7 });
    expect(r.processed).toBe(200);
    const a = new WireListener(ctx, log, store, { reducerVersion: 7 });
    const b = new WireListener(ctx, log, store, { reducerVersion: 7 });
    await a.catchUp();
    await b.catchUp();
    await log.appendBatch('main', scenario(20, { prefix: 'x' }));
    await a.catchUp();
    await log.appendBatch('main', scenario(5, { prefix: 'y' }));
    await expect(b.catchUp()).rejects.toThrow(/another listener/);
    expect((await b.catchUp()).processed).toBe(5);
    expect((await store.offsets())[0]?.last_sequence_number).toBe(225);
  });
});

describe('JetStream log -> PostgreSQL read model', () => {
  it('a listener process killed mid-stream and restarted ends with the same read model', async () => {
    js = await requireJetStream(prefix);
    await js.appendBatch('main', scenario(2000));
    const { schema, store } = await pgStore('killed');
    const env = { HEIMDALL_PLANNING_DIR: ctx.paths.root, DATABASE_URL: schema.url, HEIMDALL_STREAM_URL: NATS_URL, HEIMDALL_STREAM_PREFIX: prefix, HEIMDALL_WIRE_BATCH: '40' };
    const count = async () => Number((await store.db.prisma.$queryRawUnsafe<{ n: bigint }[]>('SELECT count(*) AS n FROM wire_events'))[0]?.n ?? 0);
    const counts: number[] = [];
    for (let round = 0; round < 2; round++) {
      const run = start(path.join(ROOT, 'server/stream/testing/cli-entry.ts'), ['wire', 'listen', '--once'], env);
      const before = counts[counts.length - 1] ?? 0;
      // Wait for progress (or the end), then kill at once; see readModel.test.ts for why no upper bound is asserted.
      await until(async () => (await count()) >= Math.min(before + 200, 2000), 25);
      run.child.kill('SIGKILL');
      expect((await run.done).signal).toBe('SIGKILL');
      counts.push(await count());
    }
    expect(counts[0]).toBeGreaterThanOrEqual(200);
    expect(counts[1]).toBeGreaterThanOrEqual(counts[0] as number);
    const finish = await start(path.join(ROOT, 'server/stream/testing/cli-entry.ts'), ['wire', 'listen', '--once'], env).done;
    expect(finish.code, finish.stderr).toBe(0);
    const killed = await dumpReadModel(store.db);
    expect(killed.wire_events).toHaveLength(2000);

    const straight = await pgStore('straight');
    await listenOnce(ctx, js, straight.store, { batchSize: 5000 });
    expect(await dumpReadModel(straight.store.db)).toEqual(killed);
    // And replaying from JetStream rebuilds the same tables.
    await replay(ctx, js, store);
    expect(await dumpReadModel(store.db)).toEqual(killed);
  });
});
