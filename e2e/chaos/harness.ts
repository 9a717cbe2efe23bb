/**
 * The chaos harness (issue 15's proof), shared by the chaos suite (e2e/chaos/storage.test.ts) and
 * the benchmark (bench/chaos.bench.ts). Everything goes through the real bundled executables in
 * bin/, as users run them:
 *
 * - storage: 16 lanes of writers on every state file at once, with random SIGKILLs, SIGKILLs aimed
 *   at writers that hold a lock, and one writer stopped (SIGSTOP) while it holds a lock for longer
 *   than the old 10 s "stale" timeout. Torn lines are planted in the append-only files. It counts
 *   writes acknowledged (exit 0) and checks each one is kept, checks that every kept change has its
 *   protocol.log line, that every file still parses, and that no scratch, lock or journal file is
 *   left once the dust settles (one more ordinary write per file, then `heimdall-protocol init`);
 * - full disk: writers on a small tmpfs (ENOSPC) when one can be mounted, and under `ulimit -f`
 *   (EFBIG) always;
 * - hostile input: /dev/zero, a FIFO, an oversized stdin, JSON nested 100,000 deep, while writers run;
 * - MCP: thousands of frames to the stdio server (valid calls, malformed JSON, absurd
 *   Content-Length, deep JSON, notifications), each request answered once and in order.
 *
 * Interleavings are forced where a claim depends on them (the stopped writer is stopped while its
 * lock file names it); the random kills only add variety, and every check holds whatever they hit.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin');
const FSX_CHILD = path.join(ROOT, 'server/core/planning/testing/fsx-child.ts');

/** A small seeded PRNG, so a failing run can be replayed with its seed. */
export function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

export interface Done {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function startBin(name: string, args: string[], planning: string, opts: { input?: string; env?: Record<string, string>; ulimitBlocks?: number } = {}): { child: ChildProcess; done: Promise<Done> } {
  const env = { ...process.env, HEIMDALL_PLANNING_DIR: planning, HEIMDALL_STREAM_URL: '', ...opts.env };
  const child =
    opts.ulimitBlocks === undefined
      ? spawn(path.join(BIN, name), args, { env, stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${opts.ulimitBlocks}; exec "$0" "$@"`, path.join(BIN, name), ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(opts.input ?? '');
  const done = new Promise<Done>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export function runBin(name: string, args: string[], planning: string, opts: { input?: string; env?: Record<string, string> } = {}): Done {
  const r = spawnSync(path.join(BIN, name), args, {
    env: { ...process.env, HEIMDALL_PLANNING_DIR: planning, HEIMDALL_STREAM_URL: '', ...opts.env },
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Build the CLI bundle the executables in bin/ load. */
export function buildCli(): void {
  const r = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`build-cli failed: ${r.stderr}`);
}

export function freshTree(prefix = 'heimdall-chaos-'): { dir: string; planning: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const planning = path.join(dir, '.planning');
  const r = runBin('heimdall-protocol', ['init'], planning);
  if (r.code !== 0) throw new Error(`init failed: ${r.stderr}`);
  return { dir, planning };
}

/** Every file under `dir` (recursively). */
export function walk(dir: string): string[] {
  const out: string[] = [];
  const visit = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) visit(p);
      else out.push(p);
    }
  };
  if (fs.existsSync(dir)) visit(dir);
  return out;
}

/** Scratch, lock, guard and journal files: none may survive the dust settling. */
export function leftovers(planning: string): string[] {
  return walk(planning)
    .filter((f) => /\.(tmp|lock|break|audit)$/.test(f))
    .map((f) => path.relative(planning, f));
}

/** State files that no longer parse: JSON files whole, JSON lines files line by line (a `.torn` side file is evidence, not state). */
export function unparseable(planning: string): string[] {
  const bad: string[] = [];
  for (const f of walk(planning)) {
    const rel = path.relative(planning, f);
    if (/\.(tmp|torn|lock|break|audit|db|db-journal|db-wal|db-shm)$/.test(f)) continue;
    const text = fs.readFileSync(f, 'utf8');
    try {
      if (f.endsWith('.json')) JSON.parse(text);
      else if (f.endsWith('.jsonl')) {
        if (text !== '' && !text.endsWith('\n')) throw new Error('ends inside a line');
        for (const line of text.split('\n')) if (line.trim() !== '') JSON.parse(line);
      }
    } catch (e) {
      bad.push(`${rel}: ${(e as Error).message}`);
    }
  }
  return bad;
}

// ------------------------------------------------------------------------------------------------
// Storage chaos

type Kind = 'symbols' | 'blackboard' | 'baselines' | 'ledger' | 'haids' | 'claims' | 'mailbox' | 'agents' | 'capsules' | 'peers' | 'builtin';
export const KINDS: Kind[] = ['symbols', 'blackboard', 'baselines', 'ledger', 'haids', 'claims', 'mailbox', 'agents', 'capsules', 'peers', 'builtin'];

/** The built-in names the `builtin` writers use as blackboard keys (last writer wins). */
export const BUILTIN_KEYS = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', 'isPrototypeOf', 'prototype', 'apply', 'bind', 'call', 'length', 'name'];

interface Write {
  kind: Kind;
  lane: number;
  i: number;
  /** What identifies this write in the final state. */
  key: string;
  value: string;
  bin: string;
  args: string[];
  input?: string;
}

function announceJson(agentId: string): string {
  return JSON.stringify({
    type: 'SESSION_ANNOUNCE',
    protocol_version: '2.0',
    worker: { agent_id: agentId, model: 'chaos-model', model_tier: 'sonnet', context_window: 200000 },
    capabilities: { tools: ['terminal'], mcp_servers: ['ctx'] },
    mcp_health: { ctx: 'ok' },
    session: { context_id: 'chaos', active_tasks: 0, repo_state: { branch: 'main', clean: true }, session_fresh: true },
  });
}

function makeWrite(kind: Kind, lane: number, i: number, root: string): Write {
  const id = `${lane}x${i}`;
  switch (kind) {
    case 'symbols':
      return { kind, lane, i, key: `s${id}`, value: `v${id}`, bin: 'heimdall-resolve', args: ['set', `s${id}`, `v${id}`] };
    case 'blackboard':
      return { kind, lane, i, key: `b${id}`, value: `v${id}`, bin: 'heimdall-blackboard', args: ['set', `b${id}`, `v${id}`] };
    case 'baselines':
      return { kind, lane, i, key: `r${id}`, value: String(i + 1), bin: 'heimdall-ledger', args: ['baseline', '--role', `r${id}`, '--tokens', String(i + 1)] };
    case 'ledger':
      return { kind, lane, i, key: `l${id}`, value: '7', bin: 'heimdall-ledger', args: ['log', '--role', `l${id}`, '--kind', 'chaos', '--msg-id', `m${id}`, '--tokens', '7'] };
    case 'haids':
      return { kind, lane, i, key: `${root}/h${id}`, value: 'active', bin: 'heimdall-haid', args: ['register', `${root}/h${id}`] };
    case 'claims':
      return { kind, lane, i, key: `${root}/c${lane}`, value: `c${lane}/p${i}/**`, bin: 'heimdall-claim', args: ['claim', '--haid', `${root}/c${lane}`, '--surfaces', `c${lane}/p${i}/**`, '--task', `t${i}`] };
    case 'mailbox':
      return { kind, lane, i, key: `m${id}`, value: `m${id}`, bin: 'heimdall', args: ['herd', 'send', '--as', 'steve.1@core', '--to', '@anyone', '--type', 'inform', '--body', `m${id}`] };
    case 'agents':
      return { kind, lane, i, key: `w${lane}y${i}.1@core`, value: 'ok', bin: 'heimdall', args: ['herd', 'checkin', '--as', `w${lane}y${i}.1@core`, '--status', 'ok'] };
    case 'capsules':
      return { kind, lane, i, key: `k${id}`, value: 'w', bin: 'heimdall-capsule', args: ['write', `k${id}`, '--what', 'w', '--where', 'x'] };
    case 'peers':
      return { kind, lane, i, key: `p${id}`, value: 'sonnet', bin: 'heimdall', args: ['a2a', 'announce'], input: announceJson(`p${id}`) };
    case 'builtin': {
      const name = BUILTIN_KEYS[(lane + i) % BUILTIN_KEYS.length] as string;
      return { kind, lane, i, key: name, value: `lane${id}`, bin: 'heimdall-blackboard', args: ['set', name, `lane${id}`] };
    }
  }
}

/** The protocol.log line that proves a kept write was audited (undefined: the line does not name the write). */
function auditPattern(w: Write): RegExp | undefined {
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  switch (w.kind) {
    case 'symbols':
      return new RegExp(`\\tresolve\\tset\\t${esc(w.key)}=${esc(w.value)}(\\t|$)`, 'm');
    case 'blackboard':
    case 'builtin':
      return new RegExp(`\\tblackboard\\tset\\t${esc(w.key)}=${esc(w.value)}(\\t|$)`, 'm');
    case 'baselines':
      return new RegExp(`\\tledger\\tbaseline\\t${esc(w.key)}=${esc(w.value)}(\\t|$)`, 'm');
    case 'ledger':
      return new RegExp(`\\tledger\\tlog\\t${esc(w.key)}/chaos=7(\\t|$)`, 'm');
    case 'haids':
      return new RegExp(`\\thaid\\tregister\\t${esc(w.key)} role=`, 'm');
    case 'claims':
      return new RegExp(`\\tclaim\\t(claim|extend)\\t${esc(w.key)} [^\\t]*${esc(w.value)}`, 'm');
    case 'agents':
      return new RegExp(`\\therd\\tcheckin\\t${esc(w.key)} `, 'm');
    case 'capsules':
      return new RegExp(`\\tcapsule\\twrite\\t${esc(w.key)}(\\t|$)`, 'm');
    case 'peers':
      return new RegExp(`\\ta2a\\tannounce\\t${esc(w.key)} `, 'm');
    case 'mailbox':
      return undefined;
  }
}

interface FinalState {
  symbols: Record<string, string>;
  facts: Record<string, string>;
  baselines: Record<string, number>;
  ledgerRoles: Set<string>;
  haids: Record<string, unknown>;
  claims: Record<string, { haid: string; surfaces: string[] }>;
  mailboxBodies: Set<string>;
  agents: Record<string, unknown>;
  capsules: Set<string>;
  peers: Record<string, unknown>;
}

function readJson(file: string, key: string): Record<string, unknown> {
  if (!fs.existsSync(file)) return {};
  return (JSON.parse(fs.readFileSync(file, 'utf8'))[key] ?? {}) as Record<string, unknown>;
}

function jsonLines(file: string): Array<Record<string, unknown>> {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function finalState(planning: string): FinalState {
  const p = (...x: string[]) => path.join(planning, ...x);
  return {
    symbols: readJson(p('protocol', 'symbols.json'), 'symbols') as Record<string, string>,
    facts: readJson(p('blackboard.json'), 'facts') as Record<string, string>,
    baselines: readJson(p('protocol', 'baselines.json'), 'baselines') as Record<string, number>,
    ledgerRoles: new Set(jsonLines(p('protocol', 'ledger.jsonl')).map((e) => String(e.role))),
    haids: readJson(p('ledger', 'haids.json'), 'haids'),
    // Keyed by claim id; each claim names its holder (one claim per task, several per agent).
    claims: readJson(p('ledger', 'claims.json'), 'claims') as Record<string, { haid: string; surfaces: string[] }>,
    mailboxBodies: new Set(jsonLines(p('herd', 'mailbox.jsonl')).map((l) => String(l.body))),
    agents: readJson(p('herd', 'agents.json'), 'agents'),
    capsules: new Set(fs.existsSync(p('protocol', 'capsules')) ? fs.readdirSync(p('protocol', 'capsules')).filter((n) => n.endsWith('.md')).map((n) => n.slice(0, -3)) : []),
    peers: readJson(p('handshake', 'peers.json'), 'peers'),
  };
}

function isKept(w: Write, s: FinalState): boolean {
  const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  switch (w.kind) {
    case 'symbols':
      return own(s.symbols, w.key) && s.symbols[w.key] === w.value;
    case 'blackboard':
      return own(s.facts, w.key) && s.facts[w.key] === w.value;
    case 'baselines':
      return own(s.baselines, w.key) && String(s.baselines[w.key]) === w.value;
    case 'ledger':
      return s.ledgerRoles.has(w.key);
    case 'haids':
      return own(s.haids, w.key);
    case 'claims':
      return Object.values(s.claims).some((c) => c.haid === w.key && c.surfaces.includes(w.value));
    case 'mailbox':
      return s.mailboxBodies.has(w.key);
    case 'agents':
      return own(s.agents, w.key);
    case 'capsules':
      return s.capsules.has(w.key);
    case 'peers':
      return own(s.peers, w.key);
    case 'builtin':
      // Last writer wins: the key must exist (its value is checked against all attempts below).
      return own(s.facts, w.key);
  }
}

export interface StorageChaosOptions {
  lanes?: number;
  /** Writes per lane on each state file: all lanes write one file at once, then the next. */
  writesPerFile?: number;
  /** Probability that a started writer is killed at a random moment. */
  randomKillRate?: number;
  /** How many writers are killed while their lock file names them. */
  lockKills?: number;
  /** How long the one stopped writer stays stopped (the old stale timeout was 10 s). */
  stopMs?: number;
  seed?: number;
  log?: (m: string) => void;
}

export interface KindFigures {
  attempted: number;
  acknowledged: number;
  keptOfAcknowledged: number;
  failedCleanly: number;
  killed: number;
  keptUnacknowledged: number;
}

export interface StorageChaosResult {
  /** The writer stopped inside its critical section (holding the symbol table's lock) for `stopMs`. */
  slowWriter: { stoppedMs: number; exit: number | null; kept: boolean; audited: boolean; othersWaited: number };
  planning: string;
  byKind: Record<string, KindFigures>;
  acknowledged: number;
  keptOfAcknowledged: number;
  /** Acknowledged writes missing from the final state (must be empty). */
  lost: string[];
  /** Kept changes without their protocol.log line, after recovery (must be empty). */
  unaudited: string[];
  /** Failed writes whose error was not a clear one (a stack trace, a crash). */
  unclearFailures: string[];
  /** Built-in keys whose final value was never written to them. */
  builtinForeign: string[];
  unparseable: string[];
  leftovers: string[];
  randomKills: number;
  lockKills: number;
  stopped?: { file: string; ms: number };
  plantedTorn: number;
  hostile: { name: string; code: number | null; ok: boolean }[];
  seconds: number;
}

const STATE_LOCKS = (planning: string) => [
  'protocol/symbols.json',
  'blackboard.json',
  'protocol/baselines.json',
  'protocol/ledger.jsonl',
  'ledger/haids.json',
  'ledger/claims.json',
  'herd/state',
  'handshake/peers.json',
  'protocol.log',
].map((f) => path.join(planning, `${f}.lock`));

function lockOwnerPid(lockFile: string): number | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(lockFile, 'utf8')) as { pid?: unknown };
    return typeof v.pid === 'number' ? v.pid : undefined;
  } catch {
    return undefined;
  }
}

/** Is this failure a clear, refused write (exit 1 or 2 with a one-line reason), not a crash? */
function clearFailure(d: Done): boolean {
  return (d.code === 1 || d.code === 2) && d.stderr.trim() !== '' && !/internal error|\n\s+at .+:\d+:\d+/.test(d.stderr);
}

export async function runStorageChaos(opts: StorageChaosOptions = {}): Promise<StorageChaosResult> {
  const lanes = opts.lanes ?? 16;
  const perFile = opts.writesPerFile ?? 2;
  const killRate = opts.randomKillRate ?? 0.08;
  const stopMs = opts.stopMs ?? 11_000;
  const rand = prng(opts.seed ?? 15);
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const { planning } = freshTree();
  const live = new Set<number>();
  const results: Array<{ w: Write; d: Done; killed: boolean; t0: number; t1: number }> = [];
  let randomKills = 0;
  let lockKills = 0;
  let stopped: StorageChaosResult['stopped'];
  let stoppedPid: number | undefined;
  const killedPids = new Set<number>();
  const rootOut = runBin('heimdall-haid', ['root'], planning);
  if (rootOut.code !== 0) throw new Error(`haid root failed: ${rootOut.stderr}`);
  const root = rootOut.stdout.trim().split(/\s+/).pop() as string;
  // Writers wait longer than the stop lasts: the stopped writer makes them wait, never give up.
  const env = { HEIMDALL_LOCK_TIMEOUT_MS: String(stopMs + 60_000), HEIMDALL_WIRE_FSYNC: '0' };

  // The slow writer: the symbol table's own read-modify-write, stopped (SIGSTOP) while it holds the
  // lock, for longer than the old 10 s stale timeout. Forced, not hoped for: it stops itself in the
  // critical section first (waiting on stdin), then is stopped there.
  const symbolsFile = path.join(planning, 'protocol', 'symbols.json');
  const slow = spawn(process.execPath, ['--import', 'tsx', FSX_CHILD, JSON.stringify({ op: 'slow-set', file: symbolsFile, key: 'slowWriter', value: 'kept', audit: { log: path.join(planning, 'protocol.log'), lines: [] } })], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let slowErr = '';
  slow.stderr?.on('data', (d) => (slowErr += d));
  const slowExit = new Promise<number | null>((resolve) => slow.on('close', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    slow.stdout?.once('data', () => resolve());
    slow.once('close', () => reject(new Error(`the slow writer exited before taking the lock: ${slowErr}`)));
  });
  slow.kill('SIGSTOP');
  stoppedPid = slow.pid;
  stopped = { file: 'protocol/symbols.json', ms: stopMs };
  let resumedAt = Number.POSITIVE_INFINITY;
  log(`slow writer pid ${slow.pid} stopped inside the symbol table's critical section for ${stopMs} ms`);
  const slowDone = (async () => {
    await new Promise((r) => setTimeout(r, stopMs));
    resumedAt = Date.now();
    slow.kill('SIGCONT');
    slow.stdin?.end('\n');
    return slowExit;
  })();

  // Torn lines, as a writer killed mid-line would leave them: the next appends must repair them.
  fs.appendFileSync(path.join(planning, 'protocol.log'), '2026-01-01T00:00:00Z\tresolve\tset\ttorn-by-ha');
  fs.appendFileSync(path.join(planning, 'protocol', 'ledger.jsonl'), '{"ts":"2026-01-01T00:00:00Z","role":"torn","ki');
  fs.mkdirSync(path.join(planning, 'herd'), { recursive: true });
  fs.appendFileSync(path.join(planning, 'herd', 'mailbox.jsonl'), '{"op":"send","id":"torn');
  const plantedTorn = 3;



  // The watcher aims at writers while they hold a lock: a few are killed there.
  let watching = true;
  const locks = STATE_LOCKS(planning);
  const watcher = (async () => {
    // Let every lane get going first.
    await new Promise((r) => setTimeout(r, 1500));
    while (watching) {
      for (const lf of locks) {
        const pid = lockOwnerPid(lf);
        if (pid === undefined || !live.has(pid) || killedPids.has(pid) || pid === stoppedPid) continue;
        if (lockKills < (opts.lockKills ?? 6) && rand() < 0.5) {
          try {
            process.kill(pid, 'SIGKILL');
            killedPids.add(pid);
            lockKills++;
          } catch {
            /* already gone */
          }
        }
      }
      await new Promise((r) => setTimeout(r, 5 + rand() * 20));
    }
  })();

  // Hostile input arrives while the writers run.
  const hostileRun = hostileInputs(planning);
  // Every state file in turn gets all lanes at once (16 writers on one file), the symbol table first:
  // its writers queue behind the stopped slow writer.
  const rounds: Write[][][] = KINDS.map((kind) => Array.from({ length: lanes }, (_, lane) => Array.from({ length: perFile }, (_, i) => makeWrite(kind, lane, i, root))));
  for (const round of rounds) {
    await Promise.all(
      round.map(async (laneWrites) => {
        for (const w of laneWrites) {
          const t0 = Date.now();
          const { child, done } = startBin(w.bin, w.args, planning, { input: w.input, env });
          const pid = child.pid as number;
          live.add(pid);
          let killedRandom = false;
          if (rand() < killRate) {
            const t = setTimeout(() => {
              if (pid === stoppedPid) return;
              try {
                process.kill(pid, 'SIGKILL');
                killedPids.add(pid);
                killedRandom = true;
                randomKills++;
              } catch {
                /* finished */
              }
            }, rand() * 400);
            void done.then(() => clearTimeout(t));
          }
          const d = await done;
          live.delete(pid);
          results.push({ w, d, killed: killedRandom || killedPids.has(pid) || d.signal === 'SIGKILL', t0, t1: Date.now() });
        }
      }),
    );
  }
  watching = false;
  await watcher;
  const slowCode = await slowDone;
  // Informational: symbol writes started while the slow writer was stopped, and kept waiting until it resumed.
  const othersWaited = results.filter((r) => r.w.kind === 'symbols' && r.d.code === 0 && r.t0 < resumedAt && r.t1 >= resumedAt).length;

  const hostile = await hostileRun;

  // The dust settles: one more ordinary write on every file (what a user does next), then init,
  // which sweeps what no later write touched.
  const settle = KINDS.map((k) => makeWrite(k, 999, 0, root));
  for (const w of settle) {
    const d = runBin(w.bin, w.args, planning, { input: w.input, env });
    if (d.code !== 0) throw new Error(`settling write ${w.bin} ${w.args.join(' ')} failed: ${d.stderr}`);
  }
  const init = runBin('heimdall-protocol', ['init'], planning);
  if (init.code !== 0) throw new Error(`init after the chaos failed: ${init.stderr}`);

  const s = finalState(planning);
  const plog = fs.readFileSync(path.join(planning, 'protocol.log'), 'utf8');
  const byKind: Record<string, KindFigures> = {};
  const lost: string[] = [];
  const unaudited: string[] = [];
  const unclearFailures: string[] = [];
  for (const { w, d, killed } of results) {
    const f = (byKind[w.kind] ??= { attempted: 0, acknowledged: 0, keptOfAcknowledged: 0, failedCleanly: 0, killed: 0, keptUnacknowledged: 0 });
    f.attempted++;
    const kept = isKept(w, s);
    if (d.code === 0 && !killed) {
      f.acknowledged++;
      if (kept) f.keptOfAcknowledged++;
      else lost.push(`${w.kind} ${w.key}=${w.value} (${w.bin} ${w.args.join(' ')})`);
    } else if (killed || d.signal) {
      f.killed++;
      if (kept && w.kind !== 'builtin') f.keptUnacknowledged++;
    } else if (clearFailure(d)) f.failedCleanly++;
    else unclearFailures.push(`${w.bin} ${w.args.join(' ')} -> exit ${d.code}: ${d.stderr.slice(0, 300)}`);
    const audit = auditPattern(w);
    if (kept && audit && w.kind !== 'builtin' && !audit.test(plog)) unaudited.push(`${w.kind} ${w.key}=${w.value}`);
  }
  const builtinForeign: string[] = [];
  for (const k of BUILTIN_KEYS) {
    const attempts = results.filter((r) => r.w.kind === 'builtin' && r.w.key === k).map((r) => r.w.value);
    if (Object.prototype.hasOwnProperty.call(s.facts, k) && !attempts.includes(s.facts[k] as string) && s.facts[k] !== 'lane999x0') builtinForeign.push(`${k}=${s.facts[k]}`);
  }
  let acknowledgedSlow = 0;
  let keptSlow = 0;
  const acknowledgedLanes = Object.values(byKind).reduce((n, f) => n + f.acknowledged, 0);
  const keptLanes = Object.values(byKind).reduce((n, f) => n + f.keptOfAcknowledged, 0);
  const slowAudited = /\tresolve\tset\tslowWriter=kept(\t|$)/m.test(plog);
  if (slowCode === 0) {
    acknowledgedSlow = 1;
    if (s.symbols.slowWriter === 'kept') keptSlow = 1;
    else lost.push('symbols slowWriter=kept (the stopped writer)');
  }
  return {
    slowWriter: { stoppedMs: stopMs, exit: slowCode, kept: s.symbols.slowWriter === 'kept', audited: slowAudited, othersWaited },
    planning,
    byKind,
    acknowledged: acknowledgedLanes + acknowledgedSlow,
    keptOfAcknowledged: keptLanes + keptSlow,
    lost,
    unaudited,
    unclearFailures,
    builtinForeign,
    unparseable: unparseable(planning),
    leftovers: leftovers(planning),
    randomKills,
    lockKills,
    stopped,
    plantedTorn,
    hostile,
    seconds: (Date.now() - started) / 1000,
  };
}

/** Hostile input against a tree (run while writers work): each must fail fast with a clear error and change nothing. */
export async function hostileInputs(planning: string): Promise<{ name: string; code: number | null; ok: boolean }[]> {
  const out: { name: string; code: number | null; ok: boolean }[] = [];
  const check = async (name: string, bin: string, args: string[], expect: RegExp, opts: { input?: string; env?: Record<string, string> } = {}) => {
    const d = await startBin(bin, args, planning, opts).done;
    out.push({ name, code: d.code, ok: d.code === 2 || d.code === 1 ? expect.test(d.stderr + d.stdout) : false });
  };
  const fifo = path.join(path.dirname(planning), `report-${process.pid}.fifo`);
  if (!fs.existsSync(fifo)) execFileSync('mkfifo', [fifo]);
  const deep = `{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  await check('--report /dev/zero', 'heimdall-gate', ['to-message', '--report', '/dev/zero', '--from', 'a', '--msg-id', 'z1'], /character device, expected a regular file/);
  await check('--report FIFO', 'heimdall-gate', ['to-message', '--report', fifo, '--from', 'a', '--msg-id', 'z2'], /FIFO \(named pipe\), expected a regular file/);
  await check('oversized stdin', 'heimdall-ledger', ['log', '--role', 'big', '--kind', 'k', '--msg-id', 'big'], /stdin is larger than the limit/, { input: 'x'.repeat(300_000), env: { HEIMDALL_MAX_READ_BYTES: '100000' } });
  await check('JSON 100,000 deep (wire emit)', 'heimdall', ['wire', 'emit'], /more than \d+ levels deep/, { input: deep });
  await check('JSON 100,000 deep (a2a dispatch)', 'heimdall', ['a2a', 'dispatch'], /more than \d+ levels deep/, { input: deep });
  await check('--tokens 1e23', 'heimdall-ledger', ['baseline', '--role', 'big', '--tokens', '100000000000000000000000'], /whole number from/);
  return out;
}

// ------------------------------------------------------------------------------------------------
// Full disk

export interface FullDiskResult {
  /** 'tmpfs' (a real ENOSPC) and/or 'ulimit -f' (a real EFBIG). */
  mode: string;
  acknowledged: number;
  keptOfAcknowledged: number;
  failed: number;
  /** Failures whose message named the reason. */
  failedWithReason: number;
  unparseable: string[];
  leftovers: string[];
}

/** Mount a small tmpfs if this machine allows it (root); undefined otherwise. */
export function mountTmpfs(bytes: number): { dir: string; unmount(): void } | undefined {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'heimdall-tmpfs-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (r.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    unmount: () => {
      spawnSync('umount', [dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function fillUp(planning: string, writers: number, perWriter: number, opts: { ulimitBlocks?: number }): Promise<{ ok: Write[]; failed: Done[] }> {
  const ok: Write[] = [];
  const failed: Done[] = [];
  // Big values: however the writers interleave, all of them cannot fit (the failures are certain).
  const value = 'v'.repeat(4000);
  await Promise.all(
    Array.from({ length: writers }, async (_, lane) => {
      for (let i = 0; i < perWriter; i++) {
        const kind: Kind = i % 2 === 0 ? 'symbols' : 'ledger';
        const w = makeWrite(kind, lane, i, '');
        // Big values fill the disk quickly; the ledger line stays small (its append path is what is tested).
        if (kind === 'symbols') {
          w.value = `${value}${lane}x${i}`;
          w.args = ['set', w.key, w.value];
        }
        const d = await startBin(w.bin, w.args, planning, { ulimitBlocks: opts.ulimitBlocks }).done;
        if (d.code === 0) ok.push(w);
        else failed.push(d);
      }
    }),
  );
  return { ok, failed };
}

export async function runFullDisk(opts: { writers?: number; perWriter?: number } = {}): Promise<FullDiskResult[]> {
  const writers = opts.writers ?? 4;
  const perWriter = opts.perWriter ?? 24;
  const out: FullDiskResult[] = [];
  const judge = (mode: string, planning: string, r: { ok: Write[]; failed: Done[] }, reason: RegExp): FullDiskResult => {
    const s = finalState(planning);
    return {
      mode,
      acknowledged: r.ok.length,
      keptOfAcknowledged: r.ok.filter((w) => isKept(w, s)).length,
      failed: r.failed.length,
      failedWithReason: r.failed.filter((d) => clearFailure(d) && reason.test(d.stderr)).length,
      unparseable: unparseable(planning),
      leftovers: leftovers(planning),
    };
  };

  const fs0 = mountTmpfs(128 * 1024);
  if (fs0) {
    try {
      const planning = path.join(fs0.dir, '.planning');
      const init = runBin('heimdall-protocol', ['init'], planning);
      if (init.code !== 0) throw new Error(`init on tmpfs failed: ${init.stderr}`);
      const r = await fillUp(planning, writers, perWriter, {});
      out.push(judge('tmpfs (ENOSPC)', planning, r, /the disk is full \(ENOSPC\)/));
    } finally {
      fs0.unmount();
    }
  }
  const { planning } = freshTree('heimdall-ulimit-');
  // The limit sits just above what init wrote: the first writes fit, then the symbol table cannot grow.
  const size = fs.statSync(path.join(planning, 'protocol', 'message-schema.json')).size;
  const blocks = Math.ceil(size / 1024) + 24;
  const r = await fillUp(planning, writers, perWriter, { ulimitBlocks: blocks });
  out.push(judge('ulimit -f (EFBIG)', planning, r, /the file size limit was reached \(EFBIG/));
  return out;
}

// ------------------------------------------------------------------------------------------------
// MCP frames

export interface McpFramesResult {
  frames: number;
  requests: number;
  answered: number;
  /** Requests answered out of the order they were sent. */
  outOfOrder: number;
  /** Requests answered more than once or never. */
  duplicates: number;
  missing: number;
  parseErrors: number;
  claimsAcknowledged: number;
  claimsKept: number;
  serverAlive: boolean;
  seconds: number;
}

export async function runMcpFrames(opts: { frames?: number; seed?: number } = {}): Promise<McpFramesResult> {
  const total = opts.frames ?? 10_000;
  const rand = prng(opts.seed ?? 1015);
  const { planning } = freshTree('heimdall-mcp-chaos-');
  const started = Date.now();
  const child = spawn(path.join(BIN, 'heimdall-ledger-mcp'), [], { env: { ...process.env, HEIMDALL_PLANNING_DIR: planning, HEIMDALL_STREAM_URL: '' }, stdio: ['pipe', 'pipe', 'ignore'] });
  const answers: Array<{ id: unknown; error?: { code: number }; result?: { isError?: boolean; structuredContent?: Record<string, unknown> } }> = [];
  let buf = '';
  child.stdout.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.trim()) answers.push(JSON.parse(line));
    }
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const frame = (o: object) => `${JSON.stringify(o)}\n`;
  const framed = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const chunks: string[] = [frame({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'chaos', version: '1' } } }), frame({ jsonrpc: '2.0', method: 'notifications/initialized' })];
  const requestIds: unknown[] = ['init'];
  const claimIds = new Map<string, string>();
  let parseErrors = 0;
  for (let k = 0; k < total - 2; k++) {
    const r = rand();
    const id = k;
    if (r < 0.5) {
      chunks.push(frame({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'read_claims', arguments: {} } }));
      requestIds.push(id);
    } else if (r < 0.53) {
      const agent = `agent-${k}`;
      chunks.push(framed(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'make_claim', arguments: { client_identity: agent, surfaces: [`m${k}/**`], task: `T${k}` } } })));
      requestIds.push(id);
      claimIds.set(String(id), `m${k}/**`);
    } else if (r < 0.7) {
      chunks.push(frame({ jsonrpc: '2.0', id, method: 'ping' }));
      requestIds.push(id);
    } else if (r < 0.8) {
      chunks.push('{"jsonrpc": "2.0", "id": oops\n');
      parseErrors++;
    } else if (r < 0.85) {
      // An absurd length, then a real request right after the headers: the stream must resynchronise.
      chunks.push(`Content-Length: 100000000000000000000\r\n\r\n${frame({ jsonrpc: '2.0', id, method: 'ping' })}`);
      requestIds.push(id);
      parseErrors++;
    } else if (r < 0.88) {
      chunks.push(`{"jsonrpc":"2.0","id":${id},"method":"ping","params":{"x":${'['.repeat(2000)}${']'.repeat(2000)}}}\n`);
      parseErrors++;
    } else if (r < 0.93) {
      chunks.push(frame({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: k, progress: 1 } }));
    } else {
      chunks.push(frame({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }));
      requestIds.push(id);
    }
  }
  // Everything back to back, as fast as the pipe takes it.
  for (const c of chunks) if (!child.stdin.write(c)) await new Promise((r) => child.stdin.once('drain', r));
  child.stdin.end();
  await exited;
  const answered = answers.filter((a) => a.id !== null);
  const seen = new Map<string, number>();
  for (const a of answered) seen.set(String(a.id), (seen.get(String(a.id)) ?? 0) + 1);
  const order = answered.map((a) => String(a.id));
  const expected = requestIds.map(String);
  let outOfOrder = 0;
  for (let i = 0; i < Math.min(order.length, expected.length); i++) if (order[i] !== expected[i]) outOfOrder++;
  const claimsAcknowledged = answered.filter((a) => claimIds.has(String(a.id)) && a.result && !a.result.isError).length;
  const claims = readJson(path.join(planning, 'ledger', 'claims.json'), 'claims') as Record<string, { surfaces: string[] }>;
  const keptSurfaces = new Set(Object.values(claims).flatMap((c) => c.surfaces));
  const claimsKept = [...claimIds.entries()].filter(([id, surface]) => answered.some((a) => String(a.id) === id && a.result && !a.result.isError) && keptSurfaces.has(surface)).length;
  return {
    frames: total,
    requests: requestIds.length,
    answered: answered.length,
    outOfOrder,
    duplicates: [...seen.values()].filter((n) => n > 1).length,
    missing: expected.filter((id) => !seen.has(id)).length,
    parseErrors: answers.filter((a) => a.id === null && a.error?.code === -32700).length,
    claimsAcknowledged,
    claimsKept,
    serverAlive: child.exitCode === 0,
    seconds: (Date.now() - started) / 1000,
  };
}
