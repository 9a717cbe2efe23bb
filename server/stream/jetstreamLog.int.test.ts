/** The wire log on a real NATS JetStream server (127.0.0.1:4222). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Projector } from '../core/wire/projector.js';
import type { WireDraft } from '../core/wire/types.js';
import { isoFromNs, nsFromIso, type JetStreamWireLog } from './jetstreamLog.js';
import { NATS_URL, requireJetStream, uniquePrefix } from './testing/services.js';
import { runWorkers } from './testing/spawn.js';
import { until } from '../testing/fixtures.js';

const prefix = uniquePrefix('JS');
let log: JetStreamWireLog;
const planning = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-js-'));

beforeAll(async () => {
  log = await requireJetStream(prefix);
});
afterAll(async () => {
  if (log) {
    await log.destroy();
    await log.close();
  }
  fs.rmSync(planning, { recursive: true, force: true });
});

const draft = (stream: string, n: number, extra: Partial<WireDraft> = {}): WireDraft =>
  ({ wire: '1.1', wire_id: `w-${stream}-${n}`, stream_id: stream, type: 'agent.heartbeat', sender: 'agent:a', ts: '2026-05-01T16:00:00Z', payload: { status: 'working' }, ...extra }) as WireDraft;

async function readAll(topic: string, limit = 1000) {
  const out = [];
  for (let from = 1; ; ) {
    const r = await log.read(topic, from, { limit });
    if (!r.records.length) break;
    out.push(...r.records);
    from = r.next;
  }
  return out;
}

describe('JetStream log', () => {
  it("uses JetStream's stream sequence and timestamp as the canonical ones", async () => {
    const a = await log.append('main', draft('agent:a', 1));
    const b = await log.appendBatch('main', [draft('agent:b', 1), draft('agent:a', 2), draft('agent:a', 3, { stream_seq: 9 }), draft('agent:a', 4)]);
    const all = [a, ...b];
    expect(all.map((x) => x.sequence_number)).toEqual([1, 2, 3, 4, 5]);
    expect(all.map((x) => x.wire.stream_seq)).toEqual([1, 1, 2, 9, 10]);
    const read = await readAll('main', 2);
    expect(read.map((r) => r.sequence_number)).toEqual([1, 2, 3, 4, 5]);
    // The timestamp append returned is exactly the one a reader sees (nanoseconds included).
    expect(read.map((r) => r.consensus_timestamp)).toEqual(all.map((x) => x.consensus_timestamp));
    expect(all[0]?.consensus_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    expect((await log.read('main', 4, { limit: 1 })).records.map((r) => r.sequence_number)).toEqual([4]);
    expect(await log.read('never-written', 1)).toEqual({ records: [], problems: [], next: 1 });
    expect(await log.topics()).toEqual(['main']);
    // Another connection (another process) continues the stream_seq of a stream.
    const other = await requireJetStream(prefix);
    const c = await other.append('main', draft('agent:a', 5));
    await other.close();
    expect([c.sequence_number, c.wire.stream_seq]).toEqual([6, 11]);
  });

  it('round-trips nanosecond timestamps', () => {
    for (const s of ['2026-11-22T06:23:00.782571868Z', '2026-11-22T06:23:00.7825718Z', '2026-11-22T06:23:00Z', '2026-11-22T06:23:00.5Z']) expect(isoFromNs(nsFromIso(s))).toBe(s);
  });

  it('returns an undecodable message as a record with decode_error, which the listener records as invalid', async () => {
    const nc = await connect({ servers: NATS_URL });
    await log.append('dirty', draft('agent:a', 1));
    await jetstream(nc).publish(`${prefix}.dirty.${Buffer.from('agent:a').toString('base64url')}`, 'not json at all');
    await nc.close();
    await log.append('dirty', draft('agent:a', 2));
    const recs = await readAll('dirty');
    expect(recs.map((r) => [r.sequence_number, r.decode_error === undefined])).toEqual([
      [1, true],
      [2, false],
      [3, true],
    ]);
    const p = new Projector({ limits: { maxPayloadBytes: 16384 } });
    p.apply(recs);
    expect(p.takeBatch().events.map((e) => e.disposition)).toEqual(['applied', 'invalid', 'applied']);
  });

  it('delivers appended records to a subscriber', async () => {
    await log.append('sub', draft('agent:a', 1));
    const seen: number[] = [];
    const sub = log.subscribe('sub', 1, (r) => {
      for (const x of r.records) seen.push(x.sequence_number);
    });
    await log.appendBatch('sub', [draft('agent:a', 2), draft('agent:a', 3)]);
    await until(() => seen.length >= 3);
    await sub.stop();
    expect(seen).toEqual([1, 2, 3]);
  });

  it('assigns gap-free stream_seqs to 4 processes appending to the same streams at once', async () => {
    const env = { HEIMDALL_STREAM_URL: NATS_URL, HEIMDALL_STREAM_PREFIX: prefix, HEIMDALL_PLANNING_DIR: planning };
    const startAt = Date.now() + 2000;
    // Every worker writes to the same two wire streams (streams: 2 with the same agent name).
    await runWorkers([0, 1, 2, 3].map((i) => ({ mode: 'load', env, topic: 'shared', startAt, agent: 'same', count: 60, batch: i % 2 ? 5 : 1, streams: 2, raw: true })));
    const recs = await readAll('shared');
    expect(recs.map((r) => r.sequence_number)).toEqual(Array.from({ length: 240 }, (_, i) => i + 1));
    const byStream = new Map<string, number[]>();
    for (const r of recs) {
      const w = r.body as { stream_id: string; stream_seq: number };
      byStream.set(w.stream_id, [...(byStream.get(w.stream_id) ?? []), w.stream_seq]);
    }
    expect([...byStream.keys()].sort()).toEqual(['agent:same-0', 'agent:same-1']);
    for (const seqs of byStream.values()) expect(seqs).toEqual(Array.from({ length: 120 }, (_, i) => i + 1));
  });

  it('two connections appending batches to the same streams at once: refused chains are retried, nothing is numbered twice', async () => {
    const other = await requireJetStream(prefix);
    try {
      const batches = (who: string) => Array.from({ length: 10 }, (_, b) => Array.from({ length: 8 }, (_, i) => draft(`agent:x${i % 3}`, b * 8 + i, { wire_id: `${who}-${b}-${i}` })));
      const [mine, theirs] = [batches('me'), batches('them')];
      await Promise.all([(async () => { for (const b of mine) await log.appendBatch('chain', b); })(), (async () => { for (const b of theirs) await other.appendBatch('chain', b); })()]);
    } finally {
      await other.close();
    }
    const recs = await readAll('chain');
    expect(recs).toHaveLength(160);
    const byStream = new Map<string, number[]>();
    for (const r of recs) {
      const w = r.body as { stream_id: string; stream_seq: number };
      byStream.set(w.stream_id, [...(byStream.get(w.stream_id) ?? []), w.stream_seq]);
    }
    for (const seqs of byStream.values()) expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    // Each batch landed in order (a chain is stored as a contiguous prefix, the rest retried after).
    for (const who of ['me', 'them']) {
      const ids = recs.map((r) => (r.body as { wire_id: string }).wire_id).filter((id) => id.startsWith(`${who}-`));
      expect(ids).toEqual([...ids].sort((a, b) => { const [, ab, ai] = a.split('-').map(Number); const [, bb, bi] = b.split('-').map(Number); return (ab as number) - (bb as number) || (ai as number) - (bi as number); }));
    }
  });

  it('15 processes race to claim one task: the lowest JetStream sequence wins, 14 are recorded lost', async () => {
    const env = { HEIMDALL_STREAM_URL: NATS_URL, HEIMDALL_STREAM_PREFIX: prefix, HEIMDALL_PLANNING_DIR: planning };
    await log.append('roles.developer', { wire: '1.1', wire_id: 'avail', stream_id: 'task:R:attempt:1', type: 'task.available', sender: 'system', ts: '2026-05-01T16:00:00Z', payload: { task_id: 'R', role: 'developer' } } as WireDraft);
    const startAt = Date.now() + 3000;
    const agents = Array.from({ length: 15 }, (_, i) => `dev-${i}`);
    const out = (await runWorkers(agents.map((agent) => ({ mode: 'race', env, topic: 'roles.developer', startAt, agent, task: 'R' })))).map((l) => JSON.parse(l));
    expect(out.map((o) => o.sequence_number).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 2));
    expect(out.map((o) => o.stream_seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 2));
    const first = out.find((o) => o.sequence_number === 2);
    const p = new Projector({ limits: { maxPayloadBytes: 16384 } });
    p.apply(await readAll('roles.developer', 4));
    const t = p.task('task:R:attempt:1');
    expect(t?.claim).toMatchObject({ agent: first.agent, sequence_number: 2 });
    expect(t?.lost_claim_count).toBe(14);
    expect(new Set(t?.lost_claims.map((c) => c.agent))).toEqual(new Set(agents.filter((a) => a !== first.agent)));
  });
});
