import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WireDraft } from '../core/wire/types.js';
import { Projector } from '../core/wire/projector.js';
import { FileWireLog } from './fileLog.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ROOT, WORKER, runWorkers } from './testing/spawn.js';
import { until } from '../testing/fixtures.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-filelog-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const draft = (stream: string, n: number, extra: Partial<WireDraft> = {}): WireDraft =>
  ({ wire: '1.1', wire_id: `w-${stream}-${n}`, stream_id: stream, type: 'agent.heartbeat', sender: 'agent:a', ts: '2026-05-01T16:00:00Z', payload: { status: 'working' }, ...extra }) as WireDraft;

function lines(file: string): string[] {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
}

describe('file log: append and read', () => {
  it('assigns gap-free sequence numbers, non-decreasing timestamps and per-stream stream_seq', async () => {
    let clock = Date.parse('2026-05-01T16:00:00Z');
    const log = new FileWireLog(dir, { now: () => clock });
    const a = await log.append('main', draft('agent:a', 1));
    clock -= 5000; // the machine clock steps back: consensus time must not
    const b = await log.appendBatch('main', [draft('agent:b', 1), draft('agent:a', 2), draft('agent:a', 3, { stream_seq: 9 }), draft('agent:a', 4)]);
    expect([a, ...b].map((x) => x.sequence_number)).toEqual([1, 2, 3, 4, 5]);
    expect([a, ...b].map((x) => x.wire.stream_seq)).toEqual([1, 1, 2, 9, 10]);
    expect(b[0]?.consensus_timestamp).toBe(a.consensus_timestamp);
    const r = await log.read('main', 1);
    expect(r.records.map((x) => [x.sequence_number, (x.body as { wire_id: string }).wire_id])).toEqual([
      [1, 'w-agent:a-1'],
      [2, 'w-agent:b-1'],
      [3, 'w-agent:a-2'],
      [4, 'w-agent:a-3'],
      [5, 'w-agent:a-4'],
    ]);
    expect(r.next).toBe(6);
    expect((await log.read('main', 4, { limit: 1 })).records.map((x) => x.sequence_number)).toEqual([4]);
    expect(await log.read('empty', 1)).toEqual({ records: [], problems: [], next: 1 });
    expect(await log.topics()).toEqual(['main']);
    // Another instance (another process) continues the same sequences.
    const other = new FileWireLog(dir);
    const c = await other.append('main', draft('agent:a', 5));
    expect([c.sequence_number, c.wire.stream_seq]).toEqual([6, 11]);
  });

  it('groups appends made in the same tick into one batch (one write, one timestamp)', async () => {
    const log = new FileWireLog(dir);
    const out = await Promise.all(Array.from({ length: 50 }, (_, i) => log.append('main', draft(`agent:s${i % 5}`, i))));
    expect(out.map((o) => o.sequence_number)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(new Set(out.map((o) => o.consensus_timestamp)).size).toBe(1);
  });

  it('refuses topic names that could escape the folder or break a subject', async () => {
    const log = new FileWireLog(dir);
    for (const t of ['../x', 'A', 'a..b', 'a_b', '', 'a/b']) await expect(log.append(t, draft('agent:a', 1))).rejects.toThrow(/topic .* is not allowed/);
  });

  it('finds a starting sequence number in a large file by bisection', async () => {
    const log = new FileWireLog(dir, { fsync: false });
    const pad = 'x'.repeat(300);
    for (let i = 0; i < 10; i++) await log.appendBatch('big', Array.from({ length: 500 }, (_, j) => draft(`agent:${j % 7}`, i * 500 + j, { payload: { status: 'working', note: pad } as never })));
    expect(fs.statSync(path.join(dir, 'big.jsonl')).size).toBeGreaterThan(1_000_000);
    for (const from of [1, 2, 777, 2500, 4999, 5000]) {
      const fresh = new FileWireLog(dir);
      const r = await fresh.read('big', from, { limit: 3 });
      expect(r.records[0]?.sequence_number).toBe(from);
      expect(r.records.length).toBe(Math.min(3, 5001 - from));
    }
    expect((await new FileWireLog(dir).read('big', 5001)).records).toEqual([]);
  });

  it('delivers appended records to a subscriber', async () => {
    const log = new FileWireLog(dir, { pollMs: 50 });
    await log.append('main', draft('agent:a', 1));
    const seen: number[] = [];
    const sub = log.subscribe('main', 1, (r) => {
      for (const x of r.records) seen.push(x.sequence_number);
    });
    await new FileWireLog(dir).appendBatch('main', [draft('agent:a', 2), draft('agent:a', 3)]);
    await until(() => seen.length >= 3);
    await sub.stop();
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe('file log: damage is reported, never spread', () => {
  it('tolerates a torn last line: readers skip it, the next appender sets it aside and goes on', async () => {
    const log = new FileWireLog(dir);
    await log.appendBatch('main', [draft('agent:a', 1), draft('agent:a', 2)]);
    const file = path.join(dir, 'main.jsonl');
    fs.appendFileSync(file, '{"seq":3,"ts":"2026-05-01T16:00:00.000Z","wire":{"wire":"1.1","wire_id":"half');
    const r = await new FileWireLog(dir).read('main', 1);
    expect(r.records.map((x) => x.sequence_number)).toEqual([1, 2]);
    expect(r.problems).toEqual([]);
    const c = await new FileWireLog(dir).append('main', draft('agent:a', 3));
    expect([c.sequence_number, c.wire.stream_seq]).toEqual([3, 3]);
    expect(lines(file)).toHaveLength(3);
    expect(lines(file).every((l) => JSON.parse(l).seq > 0)).toBe(true);
    expect(fs.readFileSync(`${file}.torn`, 'utf8')).toContain('"wire_id":"half');
  });

  it('reports a hand-edited line with file and position, skips it, and keeps appending correctly', async () => {
    const log = new FileWireLog(dir);
    await log.appendBatch('main', [draft('agent:a', 1), draft('agent:a', 2), draft('agent:a', 3)]);
    const file = path.join(dir, 'main.jsonl');
    const ls = lines(file);
    ls[1] = ls[1]?.replace('"seq":2', '"seq":2,,oops') as string;
    fs.writeFileSync(file, `${ls.join('\n')}\n`);
    const r = await new FileWireLog(dir).read('main', 1);
    expect(r.records.map((x) => x.sequence_number)).toEqual([1, 3]);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.message).toMatch(/main\.jsonl: the line at byte \d+ \(after seq 1\) not valid JSON/);
    const d = await new FileWireLog(dir).append('main', draft('agent:a', 4));
    expect(d.sequence_number).toBe(4);
    expect(lines(file)[1]).toContain(',,oops'); // the damaged line is left as it was
  });

  it('skips a line whose seq goes backwards', async () => {
    const log = new FileWireLog(dir);
    await log.appendBatch('main', [draft('agent:a', 1), draft('agent:a', 2)]);
    const file = path.join(dir, 'main.jsonl');
    fs.appendFileSync(file, `${lines(file)[0]}\n`);
    const r = await new FileWireLog(dir).read('main', 1);
    expect(r.records.map((x) => x.sequence_number)).toEqual([1, 2]);
    expect(r.problems[0]?.message).toMatch(/seq 1 follows seq 2/);
  });
});

describe('file log: many writer processes', () => {
  it('4 processes appending 1,000 events share one gap-free sequence and gap-free stream_seqs', async () => {
    const env = { HEIMDALL_PLANNING_DIR: dir, HEIMDALL_STREAM_URL: '' };
    // The interleaving is forced, not hoped for: the workers append in 10 rounds, all four released
    // together for each round (so they race within it) and none starts round k+1 before every
    // worker finished round k.
    const rounds = 10;
    const workers = [1, 5, 25, 1].map((batch, i) => {
      const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify({ mode: 'steps', env, topic: 'main', agent: `p${i}`, count: 250, rounds, batch, streams: 3, raw: true })], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      return { child, lines, exited };
    });
    for (let r = 0; r < rounds; r++) {
      for (const w of workers) w.child.stdin?.write('go\n');
      for (const w of workers) expect((await w.lines.next()).value).toBe('ok');
    }
    for (const w of workers) w.child.stdin?.end();
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0, 0, 0]);
    const recs = lines(path.join(dir, 'wire', 'main.jsonl')).map((l) => JSON.parse(l));
    expect(recs.map((r) => r.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    const byStream = new Map<string, number[]>();
    for (const r of recs) byStream.set(r.wire.stream_id, [...(byStream.get(r.wire.stream_id) ?? []), r.wire.stream_seq]);
    expect(byStream.size).toBe(12);
    for (const seqs of byStream.values()) expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    // Round by round: the first 100 records are exactly the four workers' first rounds.
    const writer = (r: { wire: { wire_id: string } }) => r.wire.wire_id.split('-')[0];
    for (let r = 0; r < rounds; r++) {
      const slice = recs.slice(r * 100, (r + 1) * 100);
      expect(new Set(slice.map(writer))).toEqual(new Set(['p0', 'p1', 'p2', 'p3']));
      expect(slice.every((x) => Math.floor(Number(x.wire.wire_id.split('-')[1]) / 25) === r)).toBe(true);
    }
  });

  it('15 processes race to claim one task: the lowest sequence number wins, 14 are recorded lost', async () => {
    const env = { HEIMDALL_PLANNING_DIR: dir, HEIMDALL_STREAM_URL: '' };
    const log = new FileWireLog(path.join(dir, 'wire'));
    await log.append('roles.developer', { wire: '1.1', wire_id: 'avail', stream_id: 'task:R:attempt:1', type: 'task.available', sender: 'system', ts: '2026-05-01T16:00:00Z', payload: { task_id: 'R', role: 'developer' } } as WireDraft);
    const startAt = Date.now() + 2500;
    const agents = Array.from({ length: 15 }, (_, i) => `dev-${i}`);
    const out = (await runWorkers(agents.map((agent) => ({ mode: 'race', env, topic: 'roles.developer', startAt, agent, task: 'R' })))).map((l) => JSON.parse(l));
    const seqs = out.map((o) => o.sequence_number).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 15 }, (_, i) => i + 2));
    // stream_seq was assigned under the lock: unique and gap-free too.
    expect(out.map((o) => o.stream_seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 15 }, (_, i) => i + 2));
    const first = out.find((o) => o.sequence_number === 2);
    const p = new Projector({ limits: { maxPayloadBytes: 16384 } });
    for (let from = 1; ; ) {
      const r = await log.read('roles.developer', from, { limit: 4 });
      if (!r.records.length) break;
      p.apply(r.records);
      from = r.next;
    }
    const t = p.task('task:R:attempt:1');
    expect(t?.claim?.agent).toBe(first.agent);
    expect(t?.claim?.sequence_number).toBe(2);
    expect(t?.lost_claim_count).toBe(14);
    expect(new Set(t?.lost_claims.map((c) => c.agent))).toEqual(new Set(agents.filter((a) => a !== first.agent)));
    // protocol.log has one emit line per racer.
    const plog = fs.readFileSync(path.join(dir, 'protocol.log'), 'utf8');
    expect(plog.split('\n').filter((l) => l.includes('\twire\temit\troles.developer#'))).toHaveLength(15);
  });
});
