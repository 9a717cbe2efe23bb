/**
 * Real services for the integration tests (*.int.test.ts): NATS JetStream and PostgreSQL on
 * 127.0.0.1. A missing service fails the test with how to start it; these tests never skip.
 */
import pg from 'pg';
import { JetStreamWireLog } from '../jetstreamLog.js';

export const NATS_URL = 'nats://127.0.0.1:4222';

/** A prefix no other run uses, so parallel runs and other suites never share streams. */
export function uniquePrefix(tag: string): string {
  return `HT_${tag}_${process.pid}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`.toUpperCase();
}

export async function requireJetStream(prefix: string): Promise<JetStreamWireLog> {
  try {
    return await JetStreamWireLog.connect(NATS_URL, { prefix, timeoutMs: 3000 });
  } catch (e) {
    throw new Error(`NATS JetStream is required at ${NATS_URL} for the wire integration tests (start it with: nats-server -js -a 127.0.0.1 -p 4222): ${(e as Error).message}`);
  }
}

export interface PgSchema {
  url: string;
  schema: string;
  drop(): Promise<void>;
}

/** A fresh PostgreSQL schema in database `test` (user root, else postgres), dropped by drop(). */
export async function requirePostgres(tag: string): Promise<PgSchema> {
  const schema = `wire_${tag}_${process.pid}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`.toLowerCase();
  let lastError: unknown;
  for (const user of ['root', 'postgres']) {
    const client = new pg.Client({ host: '127.0.0.1', port: 5432, user, database: 'test', connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query(`CREATE SCHEMA "${schema}"`);
      await client.end();
      const url = `postgresql://${user}@127.0.0.1:5432/test?schema=${schema}`;
      return {
        url,
        schema,
        drop: async () => {
          const c = new pg.Client({ host: '127.0.0.1', port: 5432, user, database: 'test' });
          await c.connect();
          await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
          await c.end();
        },
      };
    } catch (e) {
      lastError = e;
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`PostgreSQL is required on 127.0.0.1:5432 (database "test", user root or postgres, trust auth) for the wire integration tests: ${(lastError as Error)?.message}`);
}
