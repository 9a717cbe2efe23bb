/**
 * The handshake as the hub runs it: announce -> profile; dispatch -> checks -> routing decision or
 * an immediate blocked TASK_RESULT; result -> reply_schema check, re-route or queue on blocked, and
 * the self-reported tokens beside the ledger's count.
 *
 * Task state lives in `.planning/handshake/tasks.json` (versioned), updated under its lock so two
 * dispatchers never both pick the same "least loaded" peer from the same stale count. Herd messages
 * (the leader's flag, the executor's directive) are sent after the lock is released.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { readLedger } from '../ledger/ledger.js';
import { auditEntries, auditEntry } from '../log/protocolLog.js';
import { readJsonFile, withLock } from '../planning/fsx.js';
import { hasKey, readVersionedMap, writeVersionedMap } from '../planning/state.js';
import { checkStateVersion, PROTOCOL_VERSION } from '../planning/version.js';
import { isAgentAddress, parseAgentAddress, parseSessionName } from '../herd/address.js';
import { parseAgentRef } from '../identity/agent.js';
import { roleSuffix } from '../identity/haid.js';
import { readRegistry as readIdentities } from '../identity/registry.js';
import { knownAgents, send } from '../herd/checkin.js';
import { MAX_BODY_CHARS } from '../herd/mailbox.js';
import { readRegistry } from '../herd/store.js';
import { readTeam, tierOf } from '../herd/team.js';
import { DEFAULT_TOPIC, type WireLog } from '../wire/log.js';
import { emitWire } from '../wire/producer.js';
import { blockedResult, checkAgainstPeer, checkDispatchItself } from './checks.js';
import {
  HANDSHAKE_VERSION,
  type Priority,
  type SessionAnnounce,
  type TaskDispatch,
  type TaskResult,
  formatErrors,
  majorVersion,
  validateAnnounce,
  validateDispatch,
  validateResult,
} from './messages.js';
import { type PeerProfile, type PeerStore, buildProfile, filePeerStore } from './profile.js';
import { checkReply } from './reply.js';
import { DEFAULT_PRIORITY_TIERS, type RouteDecision, route } from './route.js';

/** The sender of hub-originated herd messages when the caller has no herd address. */
export const ROUTER_ADDRESS = 'router.a2a@heimdall';

export type TaskState = 'routed' | 'queued' | 'rejected' | 'done' | 'error' | 'partial';

export interface TaskAttempt {
  at: string;
  agent_id: string | null;
  outcome: 'routed' | 'blocked' | 'queued' | 'rejected' | 'done' | 'error' | 'partial';
  reason?: string;
}

export interface TaskRecord {
  task_id: string;
  dispatch: TaskDispatch;
  state: TaskState;
  executor: string | null;
  dispatched_by: string | null;
  created_at: string;
  updated_at: string;
  attempts: TaskAttempt[];
  last_result: TaskResult | null;
  flagged: string[];
}

export interface HandshakeDeps {
  /** Where the hub keeps profiles for routing; the file store by default. */
  peers?: PeerStore;
  /** The wire log: each announce appends agent.started with the profile, so the read model keeps it. */
  wire?: WireLog;
  /** Wire topic; default "main". */
  topic?: string;
}

export interface CallerOpts extends HandshakeDeps {
  /** Who is calling: an agent id, a herd address, a HAID or `name.instance` (CLI --as, the MCP session or client_identity). */
  as?: string;
}

function peersOf(ctx: Ctx, deps: HandshakeDeps): PeerStore {
  return deps.peers ?? filePeerStore(ctx);
}

function tasksFile(ctx: Ctx): string {
  return ctx.paths.handshakeTasks;
}

const STATES: TaskState[] = ['routed', 'queued', 'rejected', 'done', 'error', 'partial'];
function isTaskRecord(v: unknown): v is TaskRecord {
  const t = v as TaskRecord;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.task_id === 'string' &&
    validateDispatch(t.dispatch).valid &&
    STATES.includes(t.state) &&
    (t.executor === null || typeof t.executor === 'string') &&
    Array.isArray(t.attempts) &&
    Array.isArray(t.flagged) &&
    typeof t.created_at === 'string'
  );
}
const TASK_SHAPE = 'a task record {"task_id", "dispatch" (a valid TASK_DISPATCH), "state" (routed|queued|rejected|done|error|partial), "executor", "attempts", "flagged", ...}';

export function readTasks(ctx: Ctx): Record<string, TaskRecord> {
  const file = tasksFile(ctx);
  const map = readVersionedMap(file, 'tasks', isTaskRecord, TASK_SHAPE);
  for (const [k, v] of Object.entries(map)) {
    if (k !== v.task_id) throw new HeimdallError('environment', `${file}: key ${JSON.stringify(k)} differs from its record's task_id ${JSON.stringify(v.task_id)}; the file was left untouched`);
  }
  return map;
}

/** Priority -> model tiers, from `.planning/handshake/routing.json` merged over the defaults. */
export function readPriorityTiers(ctx: Ctx): Record<Priority, string[]> {
  const file = ctx.paths.handshakeRouting;
  const raw = readJsonFile(file);
  const out: Record<Priority, string[]> = { ...DEFAULT_PRIORITY_TIERS };
  if (raw === undefined) return out;
  const bad = (what: string, got: unknown): never => {
    throw new HeimdallError('environment', `${file}: ${what}, got ${JSON.stringify(got)}; expected {"version": "${PROTOCOL_VERSION}", "priority_tiers": {"high": ["opus", "sonnet"]}}. The file was left untouched.`);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return bad('must be a JSON object', raw);
  const o = raw as Record<string, unknown>;
  checkStateVersion(file, o.version);
  for (const k of Object.keys(o)) if (k !== 'version' && k !== 'priority_tiers') bad(`unknown key "${k}"`, k);
  if (o.priority_tiers === undefined) return out;
  if (typeof o.priority_tiers !== 'object' || o.priority_tiers === null || Array.isArray(o.priority_tiers)) return bad('"priority_tiers" must be an object', o.priority_tiers);
  for (const [p, tiers] of Object.entries(o.priority_tiers as Record<string, unknown>)) {
    if (!hasKey(DEFAULT_PRIORITY_TIERS, p)) bad(`priority "${p}" must be one of ${Object.keys(DEFAULT_PRIORITY_TIERS).join(', ')}`, p);
    if (!Array.isArray(tiers) || tiers.length === 0 || !tiers.every((t) => typeof t === 'string' && /^[a-z0-9][a-z0-9._-]{0,31}$/.test(t))) {
      bad(`"priority_tiers.${p}" must be a non-empty list of model tiers`, tiers);
    }
    out[p as Priority] = [...(tiers as string[])];
  }
  return out;
}

/** Active tasks per peer: its announced count plus tasks routed to it since that announce. */
function loadFn(tasks: Record<string, TaskRecord>): (p: PeerProfile) => number {
  return (p) => {
    const since = Date.parse(p.announced_at);
    let n = p.active_tasks;
    for (const t of Object.values(tasks)) {
      if (t.state !== 'routed' || t.executor !== p.agent_id) continue;
      const routedAt = [...t.attempts].reverse().find((a) => a.outcome === 'routed' && a.agent_id === p.agent_id)?.at;
      if (routedAt && Date.parse(routedAt) >= since) n++;
    }
    return n;
  };
}

function invalid(what: string, errors: { path: string; message: string }[]): HeimdallError {
  return new HeimdallError('invalid', `invalid ${what}: ${formatErrors(errors)}`, errors);
}

/**
 * The caller as the handshake records it: an agent named by HAID or `name.instance` becomes its
 * herd address (one identity, two names; identity/agent.ts), so the hub can deliver and flag
 * through herd; a HAID that names a client keeps its last segment. Anything else is kept as given
 * (an agent id such as hermes-1, or a herd address) and checked by optCaller.
 */
function callerName(ctx: Ctx, as: unknown): unknown {
  if (typeof as !== 'string' || as === '') return as;
  if (as.includes('/')) {
    const root = readIdentities(ctx).root;
    if (!root) throw new HeimdallError('invalid', `caller ${as} is not a HAID of this planning tree (it has no root HAID yet)`);
    const id = parseAgentRef(root, as, 'caller');
    return id.address ?? roleSuffix(id.haid);
  }
  return parseSessionName(as)?.text ?? as;
}

function optCaller(as: unknown): string | null {
  if (as === undefined || as === null || as === '') return null;
  if (typeof as !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,99}$/.test(as)) {
    throw new HeimdallError('invalid', `caller ${JSON.stringify(as)} must be an agent id or a herd address such as mason.1@core`);
  }
  return isAgentAddress(as) ? parseAgentAddress(as).text : as;
}

// ---------------------------------------------------------------- announce

export interface AnnounceOutcome {
  profile: PeerProfile;
  /** Queued tasks this announce made routable, and where they went. */
  routed: Array<{ task_id: string; executor: string }>;
  /** The agent.started event that carries the profile into the read model. */
  wire_event?: { topic: string; sequence_number: number; wire_id: string };
  warnings?: string[];
}

/** SESSION_ANNOUNCE -> the peer's profile (created or replaced), then retry queued tasks. */
export async function announce(ctx: Ctx, message: unknown, opts: CallerOpts = {}): Promise<AnnounceOutcome> {
  const v = validateAnnounce(message);
  if (!v.valid) throw invalid('SESSION_ANNOUNCE', v.errors);
  const a = message as SessionAnnounce;
  if (majorVersion(a.protocol_version) !== majorVersion(HANDSHAKE_VERSION)) {
    throw new HeimdallError('invalid', `SESSION_ANNOUNCE speaks protocol ${a.protocol_version}; this hub speaks ${HANDSHAKE_VERSION} (major versions must match)`);
  }
  const by = optCaller(callerName(ctx, opts.as));
  const store = peersOf(ctx, opts);
  const nowIso = new Date(ctx.clock.now()).toISOString();
  const profile = await store.upsert(
    a.worker.agent_id,
    (prev) => buildProfile(a, nowIso, prev, by ?? undefined),
    (p) => auditEntry(ctx, 'a2a', 'announce', `${p.agent_id} tier=${p.model_tier} active=${p.active_tasks} mcp=${Object.entries(p.mcp_health).map(([k, h]) => `${k}:${h}`).join(',') || '-'} #${p.announce_count}`),
  );
  const warnings: string[] = [];
  let wire_event: AnnounceOutcome['wire_event'];
  if (opts.wire) {
    try {
      const id = profile.agent_id;
      const e = await emitWire(
        ctx,
        opts.wire,
        { wire: '1.1', stream_id: `agent:${id}`, type: 'agent.started', sender: `agent:${id}`, ts: nowIso, payload: { agent: id, profile: { ...profile } } },
        { topic: opts.topic ?? DEFAULT_TOPIC },
      );
      wire_event = { topic: e.topic, sequence_number: e.sequence_number, wire_id: e.wire.wire_id };
    } catch (e) {
      warnings.push(`the profile was not appended to the wire log (agent.started): ${(e as Error).message}`);
    }
  }
  const routed = await retryQueued(ctx, store);
  return { profile, routed, ...(wire_event ? { wire_event } : {}), ...(warnings.length ? { warnings } : {}) };
}

async function retryQueued(ctx: Ctx, store: PeerStore): Promise<Array<{ task_id: string; executor: string }>> {
  if (Object.values(readTasks(ctx)).every((t) => t.state !== 'queued')) return [];
  const peers = await store.list();
  const tiers = readPriorityTiers(ctx);
  const nowMs = ctx.clock.now();
  const at = new Date(nowMs).toISOString();
  const routed = withLock(tasksFile(ctx), () => {
    const tasks = readTasks(ctx);
    const out: Array<{ task_id: string; executor: string }> = [];
    for (const t of Object.values(tasks).sort((x, y) => x.created_at.localeCompare(y.created_at))) {
      if (t.state !== 'queued' || checkDispatchItself(t.dispatch, nowMs).length > 0) continue;
      const d = route(t.dispatch, peers, { load: loadFn(tasks), exclude: blockedBy(t), priorityTiers: tiers });
      if (!d.executor) continue;
      t.state = 'routed';
      t.executor = d.executor;
      t.updated_at = at;
      t.attempts.push({ at, agent_id: d.executor, outcome: 'routed', reason: 'queued task retried after an announce' });
      out.push({ task_id: t.task_id, executor: d.executor });
    }
    if (out.length) writeVersionedMap(tasksFile(ctx), 'tasks', tasks, auditEntries(ctx, out.map((r) => ['a2a', 'route', `${r.task_id} -> ${r.executor} (was queued)`])));
    return out;
  });
  for (const r of routed) {
    const t = readTasks(ctx)[r.task_id];
    if (t) deliver(ctx, t.dispatch, r.executor, t.dispatched_by);
  }
  return routed;
}

function blockedBy(t: TaskRecord): Set<string> {
  return new Set(t.attempts.filter((a) => a.outcome === 'blocked' && a.agent_id).map((a) => a.agent_id as string));
}

// ---------------------------------------------------------------- herd side effects

/** Flag every known Leader-tier agent through herd. Failures become warnings, never lost tasks. */
function flagLeaders(ctx: Ctx, by: string | null, body: string, warnings: string[]): string[] {
  try {
    const team = readTeam(ctx);
    const leaders = knownAgents(readRegistry(ctx), team).filter((a) => tierOf(team, parseAgentAddress(a)).name === 'Leader');
    if (leaders.length === 0) {
      warnings.push('no Leader-tier agent is known to herd, so nobody was flagged; the task stays queued');
      return [];
    }
    const from = by && isAgentAddress(by) && tierOf(team, parseAgentAddress(by)).sends.includes('flag') ? by : ROUTER_ADDRESS;
    const text = body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS - 3)}...` : body;
    for (const l of leaders) send(ctx, { from, to: l, type: 'flag', body: text });
    return leaders;
  } catch (e) {
    warnings.push(`flagging the leader failed: ${(e as Error).message}`);
    return [];
  }
}

/**
 * Hand a routed dispatch to its executor as a herd directive when the executor is a herd agent and
 * the dispatcher may send directives. Returns where it went, or why it did not.
 */
function deliver(ctx: Ctx, d: TaskDispatch, executor: string, by: string | null): { delivered_to: string | null; note?: string } {
  if (!isAgentAddress(executor)) return { delivered_to: null, note: `${executor} is not a herd address; hand it the dispatch yourself` };
  try {
    const team = readTeam(ctx);
    if (!by || !isAgentAddress(by) || !tierOf(team, parseAgentAddress(by)).sends.includes('directive')) {
      return { delivered_to: null, note: 'not sent through herd: name a caller that may send directives (--as / client_identity) to deliver it at the executor\'s next check-in' };
    }
    let body = JSON.stringify(d);
    if (body.length > MAX_BODY_CHARS) {
      const over = body.length - MAX_BODY_CHARS + 40;
      body = JSON.stringify({ ...d, brief: `${d.brief.slice(0, Math.max(0, d.brief.length - over))} [brief cut to fit a herd message]` });
    }
    send(ctx, { from: by, to: executor, type: 'directive', body });
    return { delivered_to: executor };
  } catch (e) {
    return { delivered_to: null, note: `not sent through herd: ${(e as Error).message}` };
  }
}

// ---------------------------------------------------------------- dispatch

export interface RoutedOutcome {
  decision: 'routed';
  task_id: string;
  executor: string;
  reason: string;
  candidates: RouteDecision['candidates'];
  delivered_to: string | null;
  note?: string;
}

export interface BlockedOutcome {
  decision: 'blocked';
  /** The TASK_RESULT a failed check produces: status blocked, the reason, tokens_spent 0. */
  result: TaskResult;
  handling: { rerouted_to: string | null; queued: boolean; flagged: string[]; delivered_to?: string | null };
  candidates: RouteDecision['candidates'];
  warnings?: string[];
}

export type DispatchOutcome = RoutedOutcome | BlockedOutcome;

export interface DispatchOpts extends CallerOpts {
  /** Dispatch to this peer (its checks decide); otherwise route among every live profile. */
  to?: string;
}

/**
 * Check a TASK_DISPATCH and record the decision. With `to`, the named peer's checks decide: a
 * failure is an immediate blocked TASK_RESULT, which is then re-routed to the next qualifying peer
 * or queued and flagged to the leader. Without `to`, routing picks an executor; if none qualifies,
 * the blocked result says why for each peer, and the task is queued and flagged.
 */
export async function dispatch(ctx: Ctx, message: unknown, opts: DispatchOpts = {}): Promise<DispatchOutcome> {
  const v = validateDispatch(message);
  if (!v.valid) throw invalid('TASK_DISPATCH', v.errors);
  const d = message as TaskDispatch;
  const by = optCaller(callerName(ctx, opts.as) ?? d.from);
  const peers = await peersOf(ctx, opts).list();
  const tiers = readPriorityTiers(ctx);
  const nowMs = ctx.clock.now();
  const at = new Date(nowMs).toISOString();
  if (opts.to !== undefined && !peers.some((p) => p.agent_id === opts.to)) {
    throw new HeimdallError('not_found', `no peer ${JSON.stringify(opts.to)} has announced itself; known peers: ${peers.map((p) => p.agent_id).join(', ') || 'none'}`);
  }

  type Locked = { kind: 'routed'; decision: RouteDecision; executor: string } | { kind: 'blocked'; result: TaskResult; next: RouteDecision | null; state: TaskState; candidates: RouteDecision['candidates'] };
  const locked = withLock(tasksFile(ctx), (): Locked => {
    const tasks = readTasks(ctx);
    const prev = tasks[d.task.task_id];
    if (prev && (prev.state === 'routed' || prev.state === 'done')) {
      throw new HeimdallError('conflict', `task ${d.task.task_id} is already ${prev.state}${prev.executor ? ` (${prev.executor})` : ''}; use a new task_id, or wait for its TASK_RESULT`);
    }
    const rec: TaskRecord = prev
      ? { ...prev, dispatch: d, updated_at: at }
      : { task_id: d.task.task_id, dispatch: d, state: 'queued', executor: null, dispatched_by: by, created_at: at, updated_at: at, attempts: [], last_result: null, flagged: [] };
    tasks[d.task.task_id] = rec;
    const load = loadFn(tasks);
    let out: Locked;

    const own = checkDispatchItself(d, nowMs);
    if (own.length > 0) {
      rec.state = 'rejected';
      rec.executor = null;
      const result = blockedResult(d, own.map((f) => f.reason), opts.to);
      rec.attempts.push({ at, agent_id: opts.to ?? null, outcome: 'rejected', reason: result.blocked_reason as string });
      rec.last_result = result;
      out = { kind: 'blocked', result, next: null, state: 'rejected', candidates: [] };
    } else if (opts.to !== undefined) {
      const peer = peers.find((p) => p.agent_id === opts.to) as PeerProfile;
      const fails = checkAgainstPeer(d, peer);
      if (fails.length === 0) {
        const candidates = [{ agent_id: peer.agent_id, model_tier: peer.model_tier, load: load(peer), qualifies: true, reasons: [] }];
        out = { kind: 'routed', executor: peer.agent_id, decision: { executor: peer.agent_id, candidates, reason: `dispatched to ${peer.agent_id} by name; every check passed` } };
      } else {
        const result = blockedResult(d, fails.map((f) => f.reason), peer.agent_id);
        rec.attempts.push({ at, agent_id: peer.agent_id, outcome: 'blocked', reason: result.blocked_reason as string });
        rec.last_result = result;
        const next = route(d, peers, { load, exclude: blockedBy(rec), priorityTiers: tiers });
        out = { kind: 'blocked', result, next, state: next.executor ? 'routed' : 'queued', candidates: next.candidates };
      }
    } else {
      const decision = route(d, peers, { load, exclude: blockedBy(rec), priorityTiers: tiers });
      if (decision.executor) out = { kind: 'routed', executor: decision.executor, decision };
      else {
        const result = blockedResult(d, [decision.reason]);
        rec.last_result = result;
        out = { kind: 'blocked', result, next: decision, state: 'queued', candidates: decision.candidates };
      }
    }

    if (out.kind === 'routed') {
      rec.state = 'routed';
      rec.executor = out.executor;
      rec.attempts.push({ at, agent_id: out.executor, outcome: 'routed', reason: out.decision.reason });
    } else if (out.state === 'routed' && out.next?.executor) {
      rec.state = 'routed';
      rec.executor = out.next.executor;
      rec.attempts.push({ at, agent_id: out.next.executor, outcome: 'routed', reason: `re-routed after a blocked result: ${out.next.reason}` });
    } else if (out.state === 'queued') {
      rec.state = 'queued';
      rec.executor = null;
      rec.attempts.push({ at, agent_id: null, outcome: 'queued', reason: out.next?.reason ?? 'no qualifying peer' });
    }
    const lines: Array<[string, string, string]> =
      out.kind === 'routed'
        ? [['a2a', 'dispatch', `${d.task.task_id} -> ${out.executor}`]]
        : [
            ['a2a', 'dispatch', `${d.task.task_id} blocked${opts.to ? ` on ${opts.to}` : ''}: ${out.result.blocked_reason}`],
            ...(out.state === 'routed' && out.next?.executor ? [['a2a', 'route', `${d.task.task_id} -> ${out.next.executor} (re-routed)`] as [string, string, string]] : []),
          ];
    writeVersionedMap(tasksFile(ctx), 'tasks', tasks, auditEntries(ctx, lines));
    return out;
  });

  if (locked.kind === 'routed') {
    const del = deliver(ctx, d, locked.executor, by);
    return { decision: 'routed', task_id: d.task.task_id, executor: locked.executor, reason: locked.decision.reason, candidates: locked.decision.candidates, ...del };
  }
  const warnings: string[] = [];
  const handling: BlockedOutcome['handling'] = { rerouted_to: null, queued: locked.state === 'queued', flagged: [] };
  if (locked.state === 'routed' && locked.next?.executor) {
    handling.rerouted_to = locked.next.executor;
    handling.delivered_to = deliver(ctx, d, locked.next.executor, by).delivered_to;
  } else {
    handling.flagged = flagLeaders(ctx, by, `task ${d.task.task_id} ${locked.state === 'queued' ? 'is queued' : 'was rejected'}: ${locked.result.blocked_reason}`, warnings);
    recordFlagged(ctx, d.task.task_id, handling.flagged);
  }
  return { decision: 'blocked', result: locked.result, handling, candidates: locked.candidates, ...(warnings.length ? { warnings } : {}) };
}

function recordFlagged(ctx: Ctx, taskId: string, flagged: string[]): void {
  if (flagged.length === 0) return;
  withLock(tasksFile(ctx), () => {
    const tasks = readTasks(ctx);
    const t = tasks[taskId];
    if (!t) return;
    t.flagged = [...new Set([...t.flagged, ...flagged])];
    writeVersionedMap(tasksFile(ctx), 'tasks', tasks);
  });
}

/** The routing decision for a dispatch, without recording anything. */
export async function routeOnly(ctx: Ctx, message: unknown, deps: HandshakeDeps = {}): Promise<RouteDecision & { task_id: string; blocked?: TaskResult }> {
  const v = validateDispatch(message);
  if (!v.valid) throw invalid('TASK_DISPATCH', v.errors);
  const d = message as TaskDispatch;
  const own = checkDispatchItself(d, ctx.clock.now());
  const peers = await peersOf(ctx, deps).list();
  const tasks = readTasks(ctx);
  const prev = tasks[d.task.task_id];
  const decision = route(d, peers, { load: loadFn(tasks), exclude: prev ? blockedBy(prev) : undefined, priorityTiers: readPriorityTiers(ctx) });
  if (own.length > 0) {
    const blocked = blockedResult(d, own.map((f) => f.reason));
    return { ...decision, executor: null, reason: blocked.blocked_reason as string, task_id: d.task.task_id, blocked };
  }
  return decision.executor ? { ...decision, task_id: d.task.task_id } : { ...decision, task_id: d.task.task_id, blocked: blockedResult(d, [decision.reason]) };
}

// ---------------------------------------------------------------- result

export interface TokenCheck {
  /** What the executor reported in tokens_spent. */
  self_reported: number;
  /** What the ledger holds for this task (entries whose run or msg_id is the task id). */
  ledger_tokens: number;
  ledger_entries: number;
  /** Of ledger_tokens: counted here with the tokenizer vs reported by a caller. */
  ledger_counted: number;
  ledger_reported: number;
  tokenizer: string;
  /** self_reported - ledger_tokens; null when the ledger has nothing for the task. */
  difference: number | null;
}

/** The executor's tokens_spent beside the ledger's own count for the task. */
export function tokenCheck(ctx: Ctx, taskId: string, selfReported: number): TokenCheck {
  const entries = readLedger(ctx).entries.filter((e) => e.run === taskId || e.msg_id === taskId);
  const sum = (f: (e: (typeof entries)[number]) => boolean) => entries.filter(f).reduce((s, e) => s + e.tokens, 0);
  const ledger = sum(() => true);
  return {
    self_reported: selfReported,
    ledger_tokens: ledger,
    ledger_entries: entries.length,
    ledger_counted: sum((e) => e.source === 'tokenizer'),
    ledger_reported: sum((e) => e.source !== 'tokenizer'),
    tokenizer: ctx.tokenizer.name,
    difference: entries.length ? selfReported - ledger : null,
  };
}

export interface ResultOutcome {
  task_id: string;
  status: TaskResult['status'];
  state: TaskState;
  tokens: TokenCheck;
  /** For a blocked result: where the task went next. */
  handling?: BlockedOutcome['handling'];
  warnings?: string[];
}

/** Accept a TASK_RESULT: schema, reply_schema, then record; blocked re-routes or queues and flags. */
export async function submitResult(ctx: Ctx, message: unknown, opts: CallerOpts = {}): Promise<ResultOutcome> {
  const v = validateResult(message);
  if (!v.valid) throw invalid('TASK_RESULT', v.errors);
  const r = message as TaskResult;
  if (majorVersion(r.protocol_version) !== majorVersion(HANDSHAKE_VERSION)) {
    throw new HeimdallError('invalid', `TASK_RESULT speaks protocol ${r.protocol_version}; this hub speaks ${HANDSHAKE_VERSION} (major versions must match)`);
  }
  const by = optCaller(callerName(ctx, opts.as));
  const peers = await peersOf(ctx, opts).list();
  const tiers = readPriorityTiers(ctx);
  const at = new Date(ctx.clock.now()).toISOString();

  const out = withLock(tasksFile(ctx), () => {
    const tasks = readTasks(ctx);
    const t = tasks[r.task_id];
    if (!t) throw new HeimdallError('not_found', `no dispatched task ${r.task_id}; results are accepted for tasks dispatched through this hub (heimdall a2a dispatch)`);
    if (t.state !== 'routed') throw new HeimdallError('conflict', `task ${r.task_id} is ${t.state}, not waiting for a result${t.executor ? ` (executor ${t.executor})` : ''}`);
    const reporter = r.agent_id ?? by ?? t.executor;
    if (t.executor && reporter && reporter !== t.executor) {
      throw new HeimdallError('conflict', `task ${r.task_id} is routed to ${t.executor}, not ${reporter}; only its executor reports its result`);
    }
    const reply = checkReply(t.dispatch, r);
    if (!reply.valid) throw new HeimdallError('invalid', `TASK_RESULT does not satisfy reply_schema "${t.dispatch.task.reply_schema}" of ${r.task_id}: ${formatErrors(reply.errors)}`, reply.errors);
    t.last_result = r;
    t.updated_at = at;
    let next: RouteDecision | null = null;
    if (r.status === 'blocked') {
      t.attempts.push({ at, agent_id: t.executor, outcome: 'blocked', reason: r.blocked_reason ?? undefined });
      next = route(t.dispatch, peers, { load: loadFn(tasks), exclude: blockedBy(t), priorityTiers: tiers });
      if (next.executor) {
        t.state = 'routed';
        t.executor = next.executor;
        t.attempts.push({ at, agent_id: next.executor, outcome: 'routed', reason: `re-routed after a blocked result: ${next.reason}` });
      } else {
        t.state = 'queued';
        t.executor = null;
        t.attempts.push({ at, agent_id: null, outcome: 'queued', reason: next.reason });
      }
    } else {
      t.state = r.status;
      t.attempts.push({ at, agent_id: t.executor, outcome: r.status, ...(r.status === 'error' ? { reason: r.error_summary } : {}) });
    }
    const tokens = tokenCheck(ctx, r.task_id, r.tokens_spent);
    writeVersionedMap(
      tasksFile(ctx),
      'tasks',
      tasks,
      auditEntries(ctx, [
        ['a2a', 'result', `${r.task_id} ${r.status} tokens_spent=${r.tokens_spent} ledger=${tokens.ledger_tokens}`],
        ...(r.status === 'blocked' && next?.executor ? [['a2a', 'route', `${r.task_id} -> ${next.executor} (re-routed)`] as [string, string, string]] : []),
      ]),
    );
    return { state: t.state, next, dispatch: t.dispatch, dispatchedBy: t.dispatched_by, tokens };
  });

  const tokens = out.tokens;
  const result: ResultOutcome = { task_id: r.task_id, status: r.status, state: out.state, tokens };
  if (r.status === 'blocked') {
    const warnings: string[] = [];
    const handling: BlockedOutcome['handling'] = { rerouted_to: out.next?.executor ?? null, queued: out.state === 'queued', flagged: [] };
    if (out.next?.executor) {
      handling.delivered_to = deliver(ctx, out.dispatch, out.next.executor, out.dispatchedBy).delivered_to;
    } else {
      handling.flagged = flagLeaders(ctx, by, `task ${r.task_id} is queued: ${r.blocked_reason}; ${out.next?.reason ?? ''}`, warnings);
      recordFlagged(ctx, r.task_id, handling.flagged);
    }
    result.handling = handling;
    if (warnings.length) result.warnings = warnings;
  }
  return result;
}

// ---------------------------------------------------------------- reads

export interface PeerView extends PeerProfile {
  /** Announced active tasks plus tasks routed to it since. */
  load: number;
  /** Servers whose health is not "ok". */
  unhealthy_mcp: string[];
}

export async function listPeers(ctx: Ctx, deps: HandshakeDeps = {}): Promise<PeerView[]> {
  const load = loadFn(readTasks(ctx));
  return (await peersOf(ctx, deps).list()).map((p) => ({ ...p, load: load(p), unhealthy_mcp: Object.entries(p.mcp_health).filter(([, h]) => h !== 'ok').map(([s]) => s) }));
}

export function listTasks(ctx: Ctx): TaskRecord[] {
  return Object.values(readTasks(ctx)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.task_id.localeCompare(b.task_id));
}
