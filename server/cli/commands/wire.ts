/**
 * `heimdall wire ...`: the wire stream from the shell. Parses arguments, makes one core call per
 * subcommand, prints the result; the log and the read model come from the composition root.
 */
import {
  DEFAULT_TOPIC,
  checkTopic,
  describeRound,
  listenOnce,
  replay,
  WireListener,
  emitWire,
  emitWires,
  parseWireJson,
  formatReleasePlan,
  readReleasePlan,
  readWireState,
  type WireLog,
  type CatchUpResult,
  type ReadModelStore,
} from '../../core/index.js';
import type { Runtime } from '../../runtime.js';
import type { Io } from '../io.js';
import { bool, int, parseArgs, str, usageError, unknownWord } from '../args.js';
import type { Command } from '../command.js';
import { printJson } from './_util.js';

const USAGE = [
  'heimdall wire emit [--topic T] [--json]          a Wire (1.1, or 1.0 to upgrade) as JSON on stdin, or a JSON array of them; prints the canonical sequence number',
  '       heimdall wire tail [N] [--topic T] [--from SEQ] [--follow] [--json]',
  '       heimdall wire state [--task ID | --agent ID | --stream ID] [--json] [--no-catch-up]   (reduces pending events first unless --no-catch-up)',
  '       heimdall wire listen [--once] [--batch N] [--json]   reduce the log into the read model (--once: everything pending, then exit; --json: one object per round)',
  '       heimdall wire replay [--json]                 drop the read model and rebuild it from the log',
  '       heimdall wire release [--role R] [--json] [--no-catch-up]   how many available tasks the claimed capacity allows releasing',
  'environment: HEIMDALL_STREAM_URL=nats://... (JetStream log), DATABASE_URL=postgresql://... (read model), HEIMDALL_WIRE_MAX_PAYLOAD_BYTES',
].join('\n');

// The log and the read model belong to the composition root, which closes them when the command ends.
async function withLog<T>(runtime: Runtime, fn: (log: WireLog) => Promise<T>): Promise<T> {
  return fn(await runtime.wireLog());
}

/** Catch-ups and replays run one at a time per process (they race on the stored offsets otherwise). */
function withModel<T>(runtime: Runtime, fn: (log: WireLog, store: ReadModelStore) => Promise<T>): Promise<T> {
  return runtime.exclusive(({ log, store }) => fn(log, store));
}

function warnProblems(io: Io, prog: string, r: CatchUpResult): void {
  for (const p of r.problems) io.err(`${prog}: warning: ${p.message}`);
  if (r.rebuilt) io.err(`${prog}: the read model was built by reducer_version ${r.rebuilt.from.join(',')}; rebuilt with version ${r.rebuilt.to}`);
}

function printTail(io: Io, json: boolean, records: { sequence_number: number; consensus_timestamp: string; body: unknown; decode_error?: string }[]): void {
  for (const r of records) {
    if (json) {
      printJson(io, r);
      continue;
    }
    const w = (r.body ?? {}) as Record<string, unknown>;
    const seq = typeof w.stream_seq === 'number' ? `#${w.stream_seq}` : '';
    io.out([r.sequence_number, r.consensus_timestamp, String(w.type ?? '?'), `${String(w.stream_id ?? '?')}${seq}`, String(w.sender ?? '?'), String(w.wire_id ?? (r.decode_error ? `undecodable: ${r.decode_error}` : '?'))].join('\t'));
  }
}

export const command: Command = {
  summary: 'wire stream: emit | tail | state | listen | replay | release',
  async run(argv, { io, ctx, prog, runtime }) {
    const p = parseArgs(argv, {
      usage: USAGE,
      flags: { topic: 'string', json: 'boolean', from: 'int', follow: 'boolean', task: 'string', agent: 'string', stream: 'string', 'no-catch-up': 'boolean', once: 'boolean', batch: 'int', role: 'string' },
      positionals: [1, 2],
    });
    const [sub, extra] = p.positionals;
    const json = bool(p, 'json');
    if (extra !== undefined && sub !== 'tail') throw usageError(USAGE, `unexpected argument ${JSON.stringify(extra)}`);
    const topic = checkTopic(str(p, 'topic') ?? DEFAULT_TOPIC);
    switch (sub) {
      case 'emit': {
        if (io.stdinIsTTY) throw usageError(USAGE, 'pipe the wire to stdin, e.g. echo \'{"wire":"1.1",...}\' | heimdall wire emit');
        const body = parseWireJson(await io.readStdin());
        return withLog(runtime, async (log) => {
          const out = Array.isArray(body) ? await emitWires(ctx(), log, body, { topic }) : [await emitWire(ctx(), log, body, { topic })];
          for (const e of out) {
            if (json) printJson(io, { topic: e.topic, sequence_number: e.sequence_number, consensus_timestamp: e.consensus_timestamp, wire_id: e.wire.wire_id, stream_id: e.wire.stream_id, stream_seq: e.wire.stream_seq, upgraded: e.upgraded });
            else io.out(String(e.sequence_number));
          }
          return 0;
        });
      }
      case 'tail': {
        if (extra !== undefined && !/^\d+$/.test(extra)) throw usageError(USAGE, `N must be a non-negative integer, got ${JSON.stringify(extra)}`);
        const n = extra === undefined ? 20 : Number(extra);
        return withLog(runtime, async (log) => {
          let from = int(p, 'from');
          if (from === undefined) {
            // The last N records: find the end, then read back from end - N + 1.
            let end = 0;
            for (let next = 1; ; ) {
              const r = await log.read(topic, next, { limit: 10_000 });
              if (r.records.length === 0) break;
              end = (r.records[r.records.length - 1] as { sequence_number: number }).sequence_number;
              next = r.next;
            }
            from = Math.max(1, end - n + 1);
          }
          const r = await log.read(topic, from, { limit: Math.max(n, 1) });
          for (const prob of r.problems) io.err(`${prog}: warning: ${prob.message}`);
          printTail(io, json, r.records);
          if (!bool(p, 'follow')) return 0;
          const ac = new AbortController();
          const stop = () => ac.abort();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          const sub = log.subscribe(topic, r.next, (x) => printTail(io, json, x.records));
          await new Promise<void>((resolve) => ac.signal.addEventListener('abort', () => resolve()));
          await sub.stop();
          return 0;
        });
      }
      case 'state': {
        const q = { task: str(p, 'task'), agent: str(p, 'agent'), stream: str(p, 'stream') };
        if ([q.task, q.agent, q.stream].filter((x) => x !== undefined).length > 1) throw usageError(USAGE, 'give at most one of --task, --agent, --stream');
        return withModel(runtime, async (log, store) => {
          if (!bool(p, 'no-catch-up')) warnProblems(io, prog, await listenOnce(ctx(), log, store));
          const s = await readWireState(ctx(), store, q);
          if (json) {
            printJson(io, s.kind === 'task' ? s.task : s.kind === 'agent' ? s.agent : s);
            return 0;
          }
          switch (s.kind) {
            case 'task': {
              const t = s.task;
              io.out(`${t.task_id} (${t.stream_id}, attempt ${t.attempt} of ${t.attempts}): ${t.status}${t.claimed_by ? ` by ${t.claimed_by}` : ''}`);
              if (t.lease_expires_at) io.out(`  lease until ${t.lease_expires_at}${t.stale_since ? ' (stale: expired without heartbeat, available again)' : ''}`);
              if (t.last_heartbeat_at) io.out(`  last heartbeat ${t.last_heartbeat_at}`);
              for (const d of t.dependencies) io.out(`  depends on ${d.task_id}${d.contract ? ` contract ${d.contract}` : ' (complete)'}: ${d.satisfied ? 'met' : 'waiting'}`);
              if (t.plan_ref) io.out(`  plan ${t.plan_ref}`);
              if (t.blocker) io.out(`  blocked: ${t.blocker}`);
              if (t.output_ref) io.out(`  output ${t.output_ref}${t.verification_status ? ` (${t.verification_status})` : ''}`);
              if (t.lost_claim_count) io.out(`  lost claims: ${t.lost_claim_count} (${t.lost_claims.map((c) => `${c.agent}@${c.sequence_number}`).join(', ')})`);
              return 0;
            }
            case 'agent': {
              const a = s.agent;
              io.out(`${a.agent_id}: ${a.status}, ${a.liveness}${a.last_heartbeat_at ? ` (last heartbeat ${a.last_heartbeat_at})` : ''}`);
              io.out(`  units: ${a.free_units} free, ${a.reserved_units} reserved by ${a.active_leases} leases, available ${a.available_units ?? '?'} of ${a.max_units ?? '?'}`);
              for (const l of a.leases) io.out(`  lease ${l.task_id} (${l.units}u)${l.lease_expires_at ? ` until ${l.lease_expires_at}` : ''}${l.expired ? ' EXPIRED' : ''}`);
              return 0;
            }
            case 'stream': {
              const st = s.stream;
              io.out(`${st.stream_id} (${st.stream_type} on ${st.topic}): ${st.status}, ${st.event_count} events, last ${st.last_event_type} at ${st.last_event_at}`);
              io.out(`  stream_seq ${st.last_stream_seq ?? '-'}, gaps ${st.gap_count}, duplicates ${st.duplicate_count}, seq conflicts ${st.seq_conflict_count}`);
              for (const g of st.gaps) io.out(`  gap: expected ${g.expected}, got ${g.got} (sequence ${g.sequence_number})`);
              return 0;
            }
            case 'summary': {
              for (const o of s.offsets) io.out(`topic ${o.topic}: reduced up to ${o.last_sequence_number}`);
              io.out(`streams: ${s.streams}; tasks: ${Object.entries(s.tasks).map(([k, v]) => `${v} ${k}`).join(', ') || 'none'}`);
              for (const a of s.agents) io.out(`agent ${a.agent_id}${a.role ? ` (${a.role})` : ''}: ${a.liveness}, ${a.free_units} free units, ${a.active_leases} leases`);
              return 0;
            }
          }
          return 0;
        });
      }
      case 'listen': {
        const batchSize = int(p, 'batch');
        if (batchSize !== undefined && batchSize < 1) throw usageError(USAGE, '--batch must be at least 1');
        return withModel(runtime, async (log, store) => {
          if (bool(p, 'once')) {
            const r = await listenOnce(ctx(), log, store, { batchSize });
            warnProblems(io, prog, r);
            if (json) printJson(io, r);
            else io.out(describeRound(r));
            return 0;
          }
          const ac = new AbortController();
          const stop = () => ac.abort();
          process.once('SIGINT', stop);
          process.once('SIGTERM', stop);
          io.err(`${prog}: listening on ${log.location} -> ${store.location} (Ctrl-C to stop)`);
          await new WireListener(ctx(), log, store, { batchSize }).run(ac.signal, {
            onRound: (r) => {
              warnProblems(io, prog, r);
              if (json) printJson(io, r);
              else io.out(describeRound(r));
            },
          });
          return 0;
        });
      }
      case 'replay':
        return withModel(runtime, async (log, store) => {
          const r = await replay(ctx(), log, store);
          warnProblems(io, prog, r);
          if (json) printJson(io, r);
          else io.out(`replayed ${r.processed} events in ${r.seconds.toFixed(1)} s (${describeRound(r)})`);
          return 0;
        });
      case 'release':
        return withModel(runtime, async (log, store) => {
          if (!bool(p, 'no-catch-up')) warnProblems(io, prog, await listenOnce(ctx(), log, store));
          const plan = await readReleasePlan(ctx(), store, { role: str(p, 'role') });
          if (json) printJson(io, plan);
          else for (const l of formatReleasePlan(plan)) io.out(l);
          return 0;
        });
      default:
        throw unknownWord(USAGE, sub, ['emit', 'tail', 'state', 'listen', 'replay', 'release']);
    }
  },
};

