/**
 * `heimdall wire ...` end to end in-process: the real CLI entry, file log and SQLite read model,
 * with a clock the test moves.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../cli/main.js';
import { memoryIo } from '../cli/io.js';
import { type Ctx, makeCtx } from '../core/context.js';
import { fixedClock } from '../core/ports.js';

const T0 = Date.parse('2026-05-01T16:00:00Z');
let dir: string;
let clock: ReturnType<typeof fixedClock>;
let ctx: Ctx;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-wirecli-'));
  clock = fixedClock(T0);
  ctx = makeCtx(path.join(dir, '.planning'), { clock, env: { HEIMDALL_WIRE_FSYNC: '0' } });
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

async function wire(args: string[], stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo(stdin);
  const code = await main('heimdall', ['wire', ...args], io, () => ctx);
  return { code, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

const env = (type: string, stream: string, sender: string, payload: object) => JSON.stringify({ wire: '1.1', stream_id: stream, type, sender, payload });
const logFile = () => path.join(dir, '.planning', 'wire', 'main.jsonl');
const protocolLog = () => (fs.existsSync(path.join(dir, '.planning', 'protocol.log')) ? fs.readFileSync(path.join(dir, '.planning', 'protocol.log'), 'utf8') : '');

describe('heimdall wire emit', () => {
  it('prints the canonical sequence number, upgrades 1.0, takes arrays, and logs each mutation', async () => {
    expect(await wire(['emit'], env('task.available', 'task:T1:attempt:1', 'system', { task_id: 'T1', role: 'developer' }))).toEqual({ code: 0, out: '1', err: '' });
    const r = await wire(['emit', '--json'], JSON.stringify({ wire: '1.0', type: 'task.claim', sender: 'agent:quinn-07', payload: { task_id: 'T1' } }));
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ topic: 'main', sequence_number: 2, stream_id: 'task:T1:attempt:1', stream_seq: 2, upgraded: true });
    const batch = await wire(['emit', '--topic', 'roles.developer'], `[${env('agent.heartbeat', 'agent:a', 'agent:a', {})},${env('agent.heartbeat', 'agent:b', 'agent:b', {})}]`);
    expect(batch.out).toBe('1\n2');
    expect(protocolLog()).toMatch(/\twire\temit\tmain#1 task.available task:T1:attempt:1#1 /);
    expect(protocolLog()).toMatch(/\twire\temit\tmain#2 task.claim task:T1:attempt:1#2 .*\(upgraded from 1.0\)/);
    expect(protocolLog()).toMatch(/\twire\temit\troles.developer#1-2 2 wires/);
  });

  it('refuses malformed input with a clear error and appends nothing', async () => {
    await wire(['emit'], env('task.available', 'task:T1:attempt:1', 'system', { task_id: 'T1' }));
    const before = fs.readFileSync(logFile(), 'utf8');
    const bad = await wire(['emit'], '{"wire": "1.1", "type": task.available}');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/the wire on stdin is not valid JSON .*task\.availa.*; nothing was appended/);
    const schema = await wire(['emit'], env('task.claimed', 'task:T1:attempt:1', 'agent:a', { task_id: 'T1', lease_expires_at: 'tomorrow' }));
    expect(schema.code).toBe(1);
    expect(schema.err).toMatch(/wire refused, nothing was appended:\n {2}\/payload\/lease_expires_at must match pattern/);
    const big = await wire(['emit'], env('review.concern', 'task:T1:attempt:1', 'agent:a', { concern: 'x', task_id: 'T1', artifact_ref: 'r', extra: 'y'.repeat(17_000) }));
    expect(big.code).toBe(1);
    expect(big.err).toMatch(/over the 16384-byte limit.*artifact_ref.*sha256/s);
    expect((await wire(['emit', '--topic', '../etc'], env('agent.heartbeat', 'agent:a', 'agent:a', {}))).code).toBe(2);
    expect((await wire(['emit'], '')).code).toBe(2);
    expect(fs.readFileSync(logFile(), 'utf8')).toBe(before);
    expect(protocolLog()).toMatch(/\twire\trefuse\ttask.claimed: \/payload\/lease_expires_at/);
  });
});

describe('heimdall wire state, listen, replay, release, tail', () => {
  async function scenario(): Promise<void> {
    const lease = new Date(T0 + 30 * 60_000).toISOString();
    const wires = [
      env('agent.capacity.updated', 'agent:quinn-07', 'agent:quinn-07', { available_units: 4, max_units: 6, role: 'developer' }),
      env('agent.heartbeat', 'agent:quinn-07', 'agent:quinn-07', { status: 'working' }),
      env('dependency.created', 'project:kv', 'system', { task_id: 'T2', depends_on_task: 'T1', contract: 'auth' }),
      env('task.available', 'task:T1:attempt:1', 'system', { task_id: 'T1', role: 'developer' }),
      env('task.available', 'task:T2:attempt:1', 'system', { task_id: 'T2', role: 'developer' }),
      env('task.available', 'task:T3:attempt:1', 'system', { task_id: 'T3', role: 'developer', capacity_units: 2 }),
      env('task.claimed', 'task:T1:attempt:1', 'agent:quinn-07', { task_id: 'T1', lease_expires_at: lease, capacity_units_reserved: 3 }),
      env('task.claimed', 'task:T1:attempt:1', 'agent:bob', { task_id: 'T1', lease_expires_at: lease }),
    ];
    expect((await wire(['emit'], `[${wires.join(',')}]`)).code).toBe(0);
  }

  it('state --task --json carries status and claimed_by; the lease goes stale with time', async () => {
    await scenario();
    const t1 = await wire(['state', '--task', 'T1', '--json']);
    expect(t1.code).toBe(0);
    expect(JSON.parse(t1.out)).toMatchObject({ task_id: 'T1', status: 'claimed', claimed_by: 'quinn-07', lost_claim_count: 1, available: false });
    expect(JSON.parse((await wire(['state', '--task', 'T2', '--json'])).out)).toMatchObject({ status: 'waiting', claimed_by: null, dependencies: [{ task_id: 'T1', contract: 'auth', satisfied: false }] });
    clock.advance(31 * 60_000);
    expect(JSON.parse((await wire(['state', '--task', 'T1', '--json'])).out)).toMatchObject({ status: 'stale', available: true, claimed_by: 'quinn-07' });
    const text = await wire(['state', '--task', 'T1']);
    expect(text.out).toMatch(/T1 \(task:T1:attempt:1, attempt 1 of 1\): stale by quinn-07\n {2}lease until .*\(stale: expired without heartbeat, available again\)/);
    expect((await wire(['state', '--task', 'NOPE'])).code).toBe(1);
  });

  it('state --agent, --stream and the summary', async () => {
    await scenario();
    const a = JSON.parse((await wire(['state', '--agent', 'quinn-07', '--json'])).out);
    expect(a).toMatchObject({ agent_id: 'quinn-07', liveness: 'active', reserved_units: 3, free_units: 3, active_leases: 1 });
    clock.advance(400_000);
    expect(JSON.parse((await wire(['state', '--agent', 'quinn-07', '--json'])).out).liveness).toBe('stale');
    const s = JSON.parse((await wire(['state', '--stream', 'task:T1:attempt:1', '--json'])).out);
    expect(s).toMatchObject({ kind: 'stream', stream: { stream_id: 'task:T1:attempt:1', status: 'claimed', event_count: 3, gap_count: 0 }, task: { claimed_by: 'quinn-07' } });
    const sum = await wire(['state']);
    expect(sum.out).toMatch(/topic main: reduced up to 8/);
    expect(sum.out).toMatch(/tasks: .*1 claimed/);
    expect((await wire(['state', '--task', 'T1', '--agent', 'x'])).code).toBe(2);
  });

  it('listen --once processes what is pending, replay rebuilds, both are logged', async () => {
    await scenario();
    expect((await wire(['listen', '--once'])).out).toBe('processed 8 events (main#1-8)');
    expect((await wire(['listen', '--once'])).out).toBe('processed 0 events');
    const r = await wire(['replay']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^replayed 8 events in \d+\.\d s/);
    expect(protocolLog()).toMatch(/\twire\tlisten\tprocessed 8 events \(main#1-8\)/);
    expect(protocolLog()).toMatch(/\twire\treplay\tread model dropped and rebuilt: processed 8 events/);
  });

  it('release says how many available tasks the claimed capacity allows', async () => {
    await scenario();
    const r = await wire(['release', '--json']);
    const plan = JSON.parse(r.out);
    // T2 waits on T1's contract; T3 (2 units) fits quinn-07's 3 free units; bob has sent no heartbeat.
    expect(plan).toMatchObject({ available_tasks: 1, waiting_tasks: 1, live_agents: 1, free_units: 3, reserved_units: 3, releasable: 1 });
    expect((await wire(['release'])).out).toMatch(/^1 of 1 available tasks can be released now\nlive agents: 1, free units: 3 \(claimed capacity: 3 units reserved by 1 leases\)/);
    await wire(['emit'], env('contract.ready', 'task:T1:attempt:1', 'agent:quinn-07', { task_id: 'T1', contract: 'auth' }));
    // T2 is released early; 3 free units cover T3 (2) but then not T2 (1)? 3 - 2 = 1: both fit.
    expect(JSON.parse((await wire(['release', '--json'])).out)).toMatchObject({ available_tasks: 2, waiting_tasks: 0, releasable: 2 });
  });

  it('tail prints the last records', async () => {
    await scenario();
    const t = await wire(['tail', '2']);
    expect(t.out.split('\n')).toHaveLength(2);
    expect(t.out).toMatch(/^7\t.*\ttask.claimed\ttask:T1:attempt:1#2\tagent:quinn-07\t/);
    const j = await wire(['tail', '1', '--json']);
    expect(JSON.parse(j.out)).toMatchObject({ sequence_number: 8, body: { sender: 'agent:bob' } });
  });

  it('a hand-edited log line is reported, skipped, and corrupts nothing', async () => {
    await scenario();
    const lines = fs.readFileSync(logFile(), 'utf8').split('\n');
    lines[7] = lines[7]?.replace('"type":"task.claimed"', '"type":"task.claimed"}}garbage') as string;
    fs.writeFileSync(logFile(), lines.join('\n'));
    const r = await wire(['listen', '--once']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/warning: .*main\.jsonl: the line at byte \d+ \(after seq 7\) not valid JSON/);
    expect(r.out).toBe('processed 7 events (main#1-7); 1 unreadable log entries skipped');
    expect(JSON.parse((await wire(['state', '--task', 'T1', '--json'])).out)).toMatchObject({ claimed_by: 'quinn-07', lost_claim_count: 0 });
    // Appending goes on after the damaged line.
    expect((await wire(['emit'], env('task.started', 'task:T1:attempt:1', 'agent:quinn-07', { task_id: 'T1' }))).out).toBe('9');
    expect(JSON.parse((await wire(['state', '--task', 'T1', '--json'])).out).status).toBe('started');
  });

  it('says which service is missing or misconfigured (exit 2)', async () => {
    ctx = makeCtx(path.join(dir, '.planning'), { clock, env: { HEIMDALL_STREAM_URL: 'nats://127.0.0.1:1' } });
    const nats = await wire(['tail']);
    expect(nats.code).toBe(2);
    expect(nats.err).toMatch(/cannot reach NATS at nats:\/\/127\.0\.0\.1:1 \(HEIMDALL_STREAM_URL\)/);
    ctx = makeCtx(path.join(dir, '.planning'), { clock, env: { DATABASE_URL: 'postgresql://root@127.0.0.1:1/test' } });
    const pg = await wire(['state']);
    expect(pg.code).toBe(2);
    expect(pg.err).toMatch(/cannot reach PostgreSQL at 127\.0\.0\.1:1\/test \(DATABASE_URL\): Can't reach database server/);
    ctx = makeCtx(path.join(dir, '.planning'), { clock, env: { HEIMDALL_STREAM_URL: 'http://x' } });
    expect((await wire(['tail'])).err).toMatch(/HEIMDALL_STREAM_URL must be a nats:\/\/ URL/);
    ctx = makeCtx(path.join(dir, '.planning'), { clock, env: { DATABASE_URL: 'mysql://x' } });
    expect((await wire(['state'])).err).toMatch(/neither a postgres:\/\/ URL nor a file: URL/);
  });

  it('rejects unknown subcommands and options', async () => {
    expect((await wire(['frobnicate'])).code).toBe(2);
    expect((await wire(['state', '--bogus'])).code).toBe(2);
  });
});
