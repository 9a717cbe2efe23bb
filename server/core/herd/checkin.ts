/**
 * HDR-0039's one tool: `checkin(status)` records the heartbeat and the status, drains the caller's
 * pending messages and returns the context pane, in one call. `send` is the write path.
 *
 * A check-in's registry update and mailbox drain happen in one critical section under the herd lock:
 * two agents checking in at the same moment are serialised, so an @anyone message goes to exactly
 * one of them. Each check-in then appends an agent.heartbeat event to the wire log the transport
 * passes in, and liveness (active / deep work / stale / unresponsive) is the wire's one
 * `heartbeatStatus`, with its thresholds from the environment. Everything is read and validated before anything is written, so a bad team.json, a
 * hand-broken registry or journal line fails the call and leaves every file as it was.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { listCapsuleIds, readCapsule } from '../capsules/capsules.js';
import { listClaims } from '../claims/claims.js';
import { globsOverlap } from '../claims/glob.js';
import { haidOfAddress, parseAgentRef } from '../identity/agent.js';
import { readRegistry as readIdentities } from '../identity/registry.js';
import { auditEntry, logAction } from '../log/protocolLog.js';
import { checkName } from '../planning/ids.js';
import { heartbeatStatus, heartbeatThresholdsFromEnv, type HeartbeatStatus, type HeartbeatThresholds } from '../wire/liveness.js';
import { DEFAULT_TOPIC, type WireLog } from '../wire/log.js';
import { emitWire } from '../wire/producer.js';
import { type Address, type AgentAddress, parseAddress, parseAgentAddress, parseSessionName, ADDRESS_FORMS } from './address.js';
import { type HerdMessage, MAX_BODY_CHARS, type SendLine, pendingCopies, takeFor, toMessage } from './mailbox.js';
import { type LinkSources, type PaneAgent, findLinks, renderPane } from './pane.js';
import {
  type AgentRecord,
  HISTORY_MAX,
  appendJournal,
  commitCheckin,
  compactJournal,
  readJournal,
  readRegistry,
  withHerdLock,
} from './store.js';
import { HERD_MESSAGE_TYPES, type HerdMessageType, type TeamConfig, readTeam, tierOf } from './team.js';

export const MAX_STATUS_CHARS = 1_000;
export const MAX_DEPENDS = 32;

export interface CheckinInput {
  /** The caller: its herd address, its HAID or `name.instance` (CLI --as, MCP session or client_identity). */
  as: string;
  status: string;
  /** The task the caller works on; omitted keeps the previous one, null clears it. */
  task?: string | null;
  /** Tasks that task depends on; omitted keeps the previous list. */
  depends?: string[];
}

export interface CheckinResult {
  messages: HerdMessage[];
  /** The context pane, or null when nothing is linked (or the tier's budget is 0). */
  context: string | null;
  heartbeat_ack: true;
  agent: string;
  tier: string;
  checked_in_at: string;
  /** Tokens in `context`, counted with `tokenizer`, always within the tier's budget. */
  context_tokens: number;
  context_budget: number;
  tokenizer: string;
  /** Where the agent.heartbeat event landed in the wire log (absent without a log, or if the append failed). */
  heartbeat_event?: { topic: string; sequence_number: number; wire_id: string };
  /** Problems that did not stop the check-in (an unreadable capsule, a repaired journal tail). */
  warnings?: string[];
}

/** What a check-in needs from the transport: the wire log its heartbeat goes to. */
export interface HerdDeps {
  wire?: WireLog;
  /** Wire topic for heartbeats; default "main". */
  topic?: string;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/;

export function checkStatus(status: unknown): string {
  if (typeof status !== 'string' || status.trim() === '') {
    throw new HeimdallError('invalid', 'status must be a non-empty string saying where you are, e.g. "validation layer done, starting unit tests"');
  }
  if (status.length > MAX_STATUS_CHARS) throw new HeimdallError('invalid', `status is ${status.length} characters; at most ${MAX_STATUS_CHARS} are allowed (a pane shows one line of it)`);
  if (CONTROL.test(status)) throw new HeimdallError('invalid', 'status must be text without control characters other than newlines and tabs');
  return status.trim();
}

function checkBody(body: unknown): string {
  if (typeof body !== 'string' || body.trim() === '') throw new HeimdallError('invalid', 'message body must be a non-empty string, e.g. "pause the migration until w1 lands"');
  if (body.length > MAX_BODY_CHARS) throw new HeimdallError('invalid', `message body is ${body.length} characters; at most ${MAX_BODY_CHARS} are allowed (reference large artifacts by path or id)`);
  if (CONTROL.test(body)) throw new HeimdallError('invalid', 'message body must be text without control characters other than newlines and tabs');
  return body;
}

export function checkMessageType(type: unknown): HerdMessageType {
  if (!(HERD_MESSAGE_TYPES as readonly unknown[]).includes(type)) {
    throw new HeimdallError('invalid', `message type must be one of ${HERD_MESSAGE_TYPES.join(', ')} (directive: change what you do; inform: context, no action; flag: needs attention at the next pause), got ${JSON.stringify(type)}`);
  }
  return type as HerdMessageType;
}

function checkDepends(depends: unknown): string[] {
  if (!Array.isArray(depends)) throw new HeimdallError('invalid', 'depends must be a list of task ids, e.g. ["w1", "w2"]');
  if (depends.length > MAX_DEPENDS) throw new HeimdallError('invalid', `depends lists ${depends.length} tasks; at most ${MAX_DEPENDS}`);
  return [...new Set(depends.map((d) => checkName('task', d as string)))];
}

/**
 * The herd address of an agent named any way an agent is named: its address (`mason.1@core`), its
 * HAID (`h-3fa9c2e1/core/mason.1`, the same identity; see identity/agent.ts) or `name.instance`
 * (`claude-code.2`, meaning `claude-code.2@team`). A HAID that names a client rather than an agent
 * session (`{root}/cli`) has no address, and is refused saying so.
 */
export function agentAddress(ctx: Ctx, ref: unknown, role: string): AgentAddress {
  if (typeof ref === 'string' && ref.includes('/')) {
    const root = readIdentities(ctx).root;
    if (!root) throw new HeimdallError('invalid', `${role} ${ref} is not a HAID of this planning tree (it has no root HAID yet); name the agent by its herd address, e.g. mason.1@core`);
    const id = parseAgentRef(root, ref, role);
    if (!id.address) {
      throw new HeimdallError('invalid', `${role} ${ref} names a client, not an agent session, so it has no herd address; name one agent as name.instance@team (e.g. mason.1@core) or set HEIMDALL_AGENT`);
    }
    return parseAgentAddress(id.address, role);
  }
  return parseSessionName(ref) ?? parseAgentAddress(ref, role);
}

function caller(ctx: Ctx, as: unknown): AgentAddress {
  if (as === undefined || as === null || as === '') {
    throw new HeimdallError('usage', `name the caller with --as ADDRESS or HEIMDALL_AGENT (CLI), or connect with a known identity (MCP); an address is ${ADDRESS_FORMS.split(',')[0]}`);
  }
  return agentAddress(ctx, as, 'caller');
}

/** A recipient: @anyone, @everyone, or one agent named any way (address, HAID, name.instance). */
function recipient(ctx: Ctx, to: unknown): Address {
  if (typeof to === 'string' && (to.includes('/') || parseSessionName(to))) return agentAddress(ctx, to, 'recipient');
  return parseAddress(to, 'recipient');
}

/** Addresses known to herd: every agent that has checked in, and the team file's members. */
export function knownAgents(registry: Record<string, AgentRecord>, team: TeamConfig): string[] {
  return [...new Set([...Object.keys(registry), ...team.members])].sort();
}

/** Task dependency edges from capsules and from what agents declared at check-in. */
export function taskGraph(ctx: Ctx, registry: Record<string, AgentRecord>, warnings: string[]): Map<string, Set<string>> {
  const deps = new Map<string, Set<string>>();
  const add = (t: string, ds: string[]) => {
    let s = deps.get(t);
    if (!s) deps.set(t, (s = new Set()));
    for (const d of ds) if (d !== t) s.add(d);
  };
  for (const id of listCapsuleIds(ctx)) {
    try {
      add(id, readCapsule(ctx, id).depends);
    } catch (e) {
      warnings.push(`capsule ${id} was skipped for the context pane: ${(e as Error).message}`);
    }
  }
  for (const r of Object.values(registry)) if (r.task) add(r.task, r.depends);
  return deps;
}

/**
 * Claimed surfaces per herd address: a claim is made under the holder's HAID, which is the same
 * identity as its address (identity/agent.ts), so no guessing from names is needed.
 *
 * Expired claims count too (the claims store lists them for a day): the collision gate never lets
 * two active claims overlap, so an overlap always means "someone recently edited what you are
 * editing now", which is exactly the activity the pane is for.
 */
export function claimedSurfaces(ctx: Ctx, warnings: string[]): Map<string, string[]> {
  const byAddress = new Map<string, string[]>();
  try {
    for (const c of listClaims(ctx).claims) {
      if (!c.address) continue;
      byAddress.set(c.address, [...(byAddress.get(c.address) ?? []), ...c.surfaces]);
    }
  } catch (e) {
    warnings.push(`claims were left out of the context pane: ${(e as Error).message}`);
  }
  return byAddress;
}

function surfacesOf(address: string, byAddress: Map<string, string[]>): string[] {
  return byAddress.get(address) ?? [];
}

function paneAgent(r: AgentRecord, claims: Map<string, string[]>): PaneAgent {
  const a = parseAgentAddress(r.address);
  return {
    address: r.address,
    team: a.team,
    task: r.task,
    surfaces: surfacesOf(r.address, claims),
    lastMs: Date.parse(r.last_checkin),
    history: r.history.map((h) => ({ ms: Date.parse(h.ts), status: h.status, task: h.task })),
  };
}

/** The context pane for `who`, computed from the registry as it is now. */
export function contextPane(ctx: Ctx, who: string, registry: Record<string, AgentRecord>, team: TeamConfig, warnings: string[] = []): { text: string | null; tokens: number; budget: number } {
  const me = parseAgentAddress(who);
  const tier = tierOf(team, me);
  if (tier.context_budget <= 0) return { text: null, tokens: 0, budget: 0 };
  const self = registry[me.text];
  if (!self) return { text: null, tokens: 0, budget: tier.context_budget };
  const sources: LinkSources = {
    deps: taskGraph(ctx, registry, warnings),
    overlaps: (a, b) => a.some((x) => b.some((y) => globsOverlap(x, y))),
  };
  const claims = claimedSurfaces(ctx, warnings);
  const agents = Object.values(registry).map((r) => paneAgent(r, claims));
  const mine = paneAgent(self, claims);
  const links = findLinks(mine, agents, tier.visibility, sources);
  const now = ctx.clock.now();
  const thresholds = heartbeatThresholdsFromEnv(ctx.env);
  const tag = (a: PaneAgent) => {
    const h = heartbeatStatus(a.lastMs, now, thresholds);
    return h === 'active' ? undefined : h.replace('_', ' ');
  };
  const text = renderPane(agents, links, { budget: tier.context_budget, tokenizer: ctx.tokenizer, nowMs: now, tag });
  return { text, tokens: text === null ? 0 : ctx.tokenizer.count(text), budget: tier.context_budget };
}

/**
 * Record a heartbeat and status, drain the caller's messages, return the context pane, and append
 * an agent.heartbeat event to `deps.wire` (every transport passes its log). A failed append is a
 * warning: the check-in itself is already recorded and its messages are already handed out.
 */
export async function checkin(ctx: Ctx, input: CheckinInput, deps: HerdDeps = {}): Promise<CheckinResult> {
  const me = caller(ctx, input.as);
  const status = checkStatus(input.status);
  const task = input.task === undefined || input.task === null ? input.task : checkName('task', input.task);
  const depends = input.depends === undefined ? undefined : checkDepends(input.depends);
  const team = readTeam(ctx);
  const tier = tierOf(team, me);
  const now = ctx.clock.now();
  const ts = new Date(now).toISOString();
  const warnings: string[] = [];

  const { taken, dropped, registry } = withHerdLock(ctx, (repaired) => {
    if (repaired) warnings.push(`mailbox.jsonl line ${repaired} was cut short by a writer that died mid-line; it was removed (that send never completed)`);
    const registry = readRegistry(ctx);
    const journal = readJournal(ctx);
    const prev = registry[me.text];
    const nextTask = task === undefined ? (prev?.task ?? null) : task;
    const rec: AgentRecord = {
      address: me.text,
      first_seen: prev?.first_seen ?? ts,
      last_checkin: ts,
      checkins: (prev?.checkins ?? 0) + 1,
      status,
      task: nextTask,
      depends: depends ?? (task === undefined || task === prev?.task ? (prev?.depends ?? []) : []),
      history: [...(prev?.history ?? []), { ts, status, task: nextTask }].slice(-HISTORY_MAX),
    };
    registry[me.text] = rec;
    const { take, dropped } = takeFor(pendingCopies(journal.lines), me.text, tier.receives);
    // The action's protocol.log line is committed with its last write (the drain line, if any).
    const audit = auditEntry(ctx, 'herd', 'checkin', `${me.text} status=${JSON.stringify(status.length > 60 ? `${status.slice(0, 57)}...` : status)} messages=${take.length}${take.length ? ` (${take.map((t) => t.id).join(',')})` : ''}`);
    const drains = take.length > 0 || dropped.length > 0;
    const line = { op: 'drain' as const, ts, agent: me.text, copies: take.map((s) => s.copy), ...(dropped.length ? { dropped: dropped.map((s) => s.copy) } : {}) };
    // Registry and drain line are one commit: a writer killed between them is finished by the next.
    commitCheckin(ctx, registry, drains ? [line] : [], audit);
    if (drains) compactJournal(ctx, [...journal.lines, line]);
    return { taken: take, dropped, registry };
  });

  if (dropped.length > 0) warnings.push(`${dropped.length} message(s) of a type the ${tier.name} tier no longer receives were withdrawn: ${dropped.map((d) => d.id).join(', ')}`);
  let heartbeat_event: CheckinResult['heartbeat_event'];
  if (deps.wire) {
    try {
      const e = await emitWire(
        ctx,
        deps.wire,
        {
          wire: '1.1',
          stream_id: `agent:${me.text}`,
          type: 'agent.heartbeat',
          sender: `agent:${me.text}`,
          ts,
          payload: { agent: me.text, status: 'working', ...(registry[me.text]?.task ? { task_id: registry[me.text]?.task } : {}) },
        },
        { topic: deps.topic ?? DEFAULT_TOPIC },
      );
      heartbeat_event = { topic: e.topic, sequence_number: e.sequence_number, wire_id: e.wire.wire_id };
    } catch (e) {
      warnings.push(`the agent.heartbeat wire event was not appended: ${(e as Error).message}`);
    }
  }
  const pane = contextPane(ctx, me.text, registry, team, warnings);
  return {
    messages: taken.map(toMessage),
    context: pane.text,
    heartbeat_ack: true,
    agent: me.text,
    tier: tier.name,
    checked_in_at: ts,
    context_tokens: pane.tokens,
    context_budget: tier.context_budget,
    tokenizer: ctx.tokenizer.name,
    ...(heartbeat_event ? { heartbeat_event } : {}),
    ...(warnings.length ? { warnings } : {}),
  };
}

export interface SendInput {
  from: string;
  to: string;
  type: string;
  body: string;
}

export interface SendResult {
  id: string;
  from: string;
  to: string;
  type: HerdMessageType;
  /** The agents that got a copy; for @anyone, empty until one of them checks in. */
  recipients: string[];
  /** True for @anyone: one copy waits for the first eligible agent to check in. */
  pooled: boolean;
  ts: string;
  note?: string;
}

/** Queue a message. Unknown or malformed recipients are errors that show the accepted forms. */
export function send(ctx: Ctx, input: SendInput): SendResult {
  const from = caller(ctx, input.from);
  const to = recipient(ctx, input.to);
  const type = checkMessageType(input.type);
  const body = checkBody(input.body);
  const team = readTeam(ctx);
  const senderTier = tierOf(team, from);
  if (!senderTier.sends.includes(type)) {
    throw new HeimdallError('forbidden', `${from.text} is ${senderTier.name} tier, which may send ${senderTier.sends.join(', ') || 'nothing'}, not ${type} (tiers are set in .planning/herd/team.json)`);
  }
  const now = ctx.clock.now();
  const ts = new Date(now).toISOString();
  const id = ctx.ids.next('m');

  const result = withHerdLock(ctx, () => {
    const registry = readRegistry(ctx);
    readJournal(ctx); // validate before appending: a broken journal is never appended to
    const known = knownAgents(registry, team);
    const base = { op: 'send' as const, id, ts, from: from.text, to: to.text, type, body };
    let lines: SendLine[];
    let note: string | undefined;
    if (to.kind === 'agent') {
      if (!known.includes(to.text)) {
        throw new HeimdallError(
          'not_found',
          `unknown recipient ${to.text}: no agent with that address has checked in or is listed in .planning/herd/team.json "members". Accepted forms: ${ADDRESS_FORMS}. Known agents: ${known.length ? known.slice(0, 20).join(', ') + (known.length > 20 ? `, ... (${known.length})` : '') : 'none yet'}`,
        );
      }
      const rt = tierOf(team, to);
      if (!rt.receives.includes(type)) {
        throw new HeimdallError('forbidden', `${to.text} is ${rt.name} tier and receives ${rt.receives.join(', ')} only, not ${type}`);
      }
      lines = [{ ...base, copy: `${id}.0`, recipient: to.text }];
    } else if (to.kind === 'everyone') {
      const recipients = known.filter((a) => a !== from.text && tierOf(team, parseAgentAddress(a)).receives.includes(type));
      lines = recipients.map((r, i) => ({ ...base, copy: `${id}.${i}`, recipient: r }));
      if (recipients.length === 0) note = `no known agent other than the sender receives ${type} messages; nothing was queued`;
    } else {
      lines = [{ ...base, copy: `${id}.0`, recipient: null }];
    }
    const detail = `${id} ${from.text} -> ${to.text} ${type}${to.kind === 'everyone' ? ` (${lines.filter((l) => l.recipient).length} copies)` : ''}`;
    // Committed with the journal lines; a send that queues nothing still gets its line.
    if (lines.length > 0) appendJournal(ctx, lines, auditEntry(ctx, 'herd', 'send', detail));
    else logAction(ctx, 'herd', 'send', detail);
    return { lines, note };
  });

  const recipients = result.lines.flatMap((l) => (l.recipient ? [l.recipient] : []));
  return { id, from: from.text, to: to.text, type, recipients, pooled: to.kind === 'anyone', ts, ...(result.note ? { note: result.note } : {}) };
}

/** The caller's pending messages, without draining them (they stay for its next check-in). */
export function peekInbox(ctx: Ctx, as: string): { agent: string; tier: string; messages: Array<HerdMessage & { pooled: boolean }>; tornLine?: number } {
  const me = caller(ctx, as);
  const team = readTeam(ctx);
  const tier = tierOf(team, me);
  const j = readJournal(ctx);
  const { take } = takeFor(pendingCopies(j.lines), me.text, tier.receives);
  return {
    agent: me.text,
    tier: tier.name,
    messages: take.map((s) => ({ ...toMessage(s), pooled: s.recipient === null })),
    ...(j.torn ? { tornLine: j.torn } : {}),
  };
}

export interface AgentView {
  address: string;
  /** The same agent's HAID (one identity, two names); null until the tree has a root HAID. */
  haid: string | null;
  name: string;
  team: string;
  tier: string;
  /** Latest reported status; null for a member that has never checked in. */
  status: string | null;
  task: string | null;
  depends: string[];
  last_checkin: string | null;
  checkins: number;
  /** Seconds since the last check-in by the core clock; null when never. */
  seconds_since_checkin: number | null;
  /** Liveness by the shared thresholds (wire/liveness.ts); a member that never checked in is unresponsive. */
  heartbeat: HeartbeatStatus;
  /** Copies waiting for this agent at its next check-in. */
  pending: number;
}

/** Every known agent with its tier, last status and last check-in, sorted by address. */
export function listAgents(ctx: Ctx): { agents: AgentView[]; pooled: number; thresholds: HeartbeatThresholds; tornLine?: number } {
  const team = readTeam(ctx);
  const thresholds = heartbeatThresholdsFromEnv(ctx.env);
  const registry = readRegistry(ctx);
  const j = readJournal(ctx);
  const pending = pendingCopies(j.lines);
  const now = ctx.clock.now();
  const root = readIdentities(ctx).root;
  const agents = knownAgents(registry, team).map((addr): AgentView => {
    const a = parseAgentAddress(addr);
    const r = registry[addr];
    const last = r ? Date.parse(r.last_checkin) : undefined;
    return {
      address: addr,
      haid: root ? haidOfAddress(root, a) : null,
      name: a.name,
      team: a.team,
      tier: tierOf(team, a).name,
      status: r?.status ?? null,
      task: r?.task ?? null,
      depends: r?.depends ?? [],
      last_checkin: r?.last_checkin ?? null,
      checkins: r?.checkins ?? 0,
      seconds_since_checkin: last === undefined ? null : Math.max(0, Math.floor((now - last) / 1000)),
      heartbeat: heartbeatStatus(last ?? null, now, thresholds),
      pending: pending.filter((p) => p.recipient === addr).length,
    };
  });
  return { agents, pooled: pending.filter((p) => p.recipient === null).length, thresholds, ...(j.torn ? { tornLine: j.torn } : {}) };
}
