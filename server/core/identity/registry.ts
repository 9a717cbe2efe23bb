/**
 * The identity registry, `.planning/ledger/haids.json`:
 *
 *   { "version": "2.0.0", "root": "h-3fa9c2e1",
 *     "haids": { "h-3fa9c2e1/claude-code.s1": { "role": "claude-code", "address": "claude-code.s1@team",
 *                                               "status": "active", "registered_at": "..." } },
 *     "sessions": { "claude-code:9f2c41d0a7b3e611": "h-3fa9c2e1/claude-code.s1" } }
 *
 * The root HAID is generated on first use and never changes afterwards, so every HAID of a planning
 * tree shares it. Each record stores the agent's herd address next to its HAID (one identity, two
 * names; see agent.ts). `sessions` binds a client's session id (hashed: the raw id is not written to
 * a file that may be committed) to the identity that session was given, so a reconnect of the same
 * session keeps its HAID and its claims.
 *
 * Registration is idempotent (registering an active HAID writes nothing); retiring keeps the record,
 * marked retired, so history stays attributable. A session identity is never handed out twice.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { type Audit, atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { dataMap, hasKey } from '../planning/state.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { isoSeconds } from '../ports.js';
import { isAgentAddress } from '../herd/address.js';
import { type AgentIdentity, addressOfHaid, parseAgentRef } from './agent.js';
import { HAID_SEGMENT, checkHaid, clientSlug, roleOf } from './haid.js';

export type HaidStatus = 'active' | 'retired';

export interface HaidRecord {
  haid: string;
  role: string;
  /** The herd address of the same agent; absent for a HAID that names a client or process. */
  address?: string;
  status: HaidStatus;
  registered_at: string;
  retired_at?: string;
}

export interface HaidRegistry {
  /** Undefined until the first call that needs it generates it. */
  root?: string;
  haids: Record<string, HaidRecord>;
  /** Session key (`client:hash`) -> the HAID that session was given. */
  sessions: Record<string, string>;
}

export { HAID_ENV } from './env.js';
/** The client name the CLI acts as by default: `{root}/cli`. */
export const CLI_CLIENT = 'cli';

const SESSION_KEY = /^[a-z][a-z0-9_-]{0,31}:[0-9a-f]{16}$/;

export function haidsFile(ctx: Ctx): string {
  return ctx.paths.haids;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Read and check haids.json; a hand-edited file that breaks the shape is reported, never rewritten. */
export function readRegistry(ctx: Ctx): HaidRegistry {
  const file = haidsFile(ctx);
  const data = readJsonFile(file);
  // Keyed by data: a HAID or session key such as "constructor" is an ordinary key, never a property.
  const haids = dataMap<HaidRecord>();
  const sessions = dataMap<string>();
  if (data === undefined) return { haids, sessions };
  const bad = (why: string): never => {
    throw new HeimdallError('environment', `${file}: ${why}; the file was left untouched (fix it by hand or restore it from git)`);
  };
  if (!isObject(data)) bad(`expected an object {"version": "${PROTOCOL_VERSION}", "root": "h-...", "haids": {...}}`);
  const obj = data as Record<string, unknown>;
  checkStateVersion(file, obj.version);
  const root = obj.root;
  if (root !== undefined && (typeof root !== 'string' || !HAID_SEGMENT.test(root))) {
    bad(`"root" must be one HAID segment such as "h-3fa9c2e1", got ${JSON.stringify(root)}`);
  }
  const raw = hasKey(obj, 'haids') ? obj.haids : {};
  if (!isObject(raw)) bad(`"haids" must be an object keyed by HAID`);
  for (const [haid, rec] of Object.entries(raw as Record<string, unknown>)) {
    try {
      checkHaid(haid);
    } catch (e) {
      bad(`key ${(e as Error).message}`);
    }
    if (!isObject(rec)) bad(`"haids.${haid}" must be an object {"role", "status", "registered_at"}`);
    const r = rec as Record<string, unknown>;
    if (typeof r.role !== 'string' || !HAID_SEGMENT.test(r.role)) bad(`"haids.${haid}.role" must be a role such as "cursor", got ${JSON.stringify(r.role)}`);
    if (r.address !== undefined && !isAgentAddress(r.address)) bad(`"haids.${haid}.address" must be a herd address such as "mason.1@core", got ${JSON.stringify(r.address)}`);
    if (r.status !== 'active' && r.status !== 'retired') bad(`"haids.${haid}.status" must be "active" or "retired", got ${JSON.stringify(r.status)}`);
    if (typeof r.registered_at !== 'string' || Number.isNaN(Date.parse(r.registered_at))) {
      bad(`"haids.${haid}.registered_at" must be an ISO-8601 time, got ${JSON.stringify(r.registered_at)}`);
    }
    if (r.retired_at !== undefined && (typeof r.retired_at !== 'string' || Number.isNaN(Date.parse(r.retired_at)))) {
      bad(`"haids.${haid}.retired_at" must be an ISO-8601 time, got ${JSON.stringify(r.retired_at)}`);
    }
    haids[haid] = {
      haid,
      role: r.role as string,
      ...(r.address !== undefined ? { address: r.address as string } : {}),
      status: r.status as HaidStatus,
      registered_at: r.registered_at as string,
      ...(r.retired_at !== undefined ? { retired_at: r.retired_at as string } : {}),
    };
  }
  const rawSessions = hasKey(obj, 'sessions') ? obj.sessions : {};
  if (!isObject(rawSessions)) bad('"sessions" must be an object of session key -> HAID');
  for (const [key, haid] of Object.entries(rawSessions as Record<string, unknown>)) {
    if (!SESSION_KEY.test(key)) bad(`session key ${JSON.stringify(key)} must be client:hash (e.g. "claude-code:9f2c41d0a7b3e611")`);
    try {
      checkHaid(haid);
    } catch (e) {
      bad(`"sessions.${key}": ${(e as Error).message}`);
    }
    sessions[key] = haid as string;
  }
  return { root: root as string | undefined, haids, sessions };
}

function writeRegistry(ctx: Ctx, reg: HaidRegistry, audit?: Audit): void {
  const haids = dataMap<Omit<HaidRecord, 'haid'>>();
  for (const k of Object.keys(reg.haids).sort()) {
    const { haid: _omit, ...rest } = reg.haids[k] as HaidRecord;
    haids[k] = rest;
  }
  const keys = Object.keys(reg.sessions).sort();
  const sessions = keys.length ? Object.fromEntries(keys.map((k) => [k, reg.sessions[k]])) : undefined;
  atomicWrite(haidsFile(ctx), `${JSON.stringify({ version: PROTOCOL_VERSION, root: reg.root, haids, ...(sessions ? { sessions } : {}) }, null, 2)}\n`, audit);
}

function newRoot(ctx: Ctx): string {
  // The id port's tail is random (sequential in tests); 8 characters keep HAIDs short in every result.
  const id = ctx.ids.next('').toLowerCase().replace(/[^a-z0-9]/g, '');
  return `h-${id.slice(-8).padStart(8, '0')}`;
}

/** The root HAID of this planning tree, generated and stored on first use. */
export function rootHaid(ctx: Ctx): string {
  const existing = readRegistry(ctx).root;
  if (existing) return existing;
  return withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    if (reg.root) return reg.root;
    reg.root = newRoot(ctx);
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'root', reg.root));
    return reg.root;
  });
}

/**
 * `{root}/{client}` for a client name ("cursor"), or the HAID of any other way an agent is named
 * (a HAID, `mason.1@core`, `claude-code.2`). Derives; registers nothing.
 */
export function spawnHaid(ctx: Ctx, clientOrAgent: string): string {
  return parseAgentRef(rootHaid(ctx), clientOrAgent, 'client', { clients: true }).haid;
}

/**
 * A HAID of this planning tree from any way an agent is named: the HAID itself, its herd address
 * (`mason.1@core`) or an agent session (`claude-code.2`). A bare word is refused with a suggestion.
 */
export function checkTreeHaid(ctx: Ctx, value: unknown, kind = 'HAID'): string {
  return parseAgentRef(rootHaid(ctx), value, kind).haid;
}

/** Both names of an agent named any of the ways `checkTreeHaid` accepts (plus bare client names when `clients`). */
export function resolveAgent(ctx: Ctx, value: unknown, kind = 'agent', opts: { clients?: boolean } = {}): AgentIdentity {
  return parseAgentRef(rootHaid(ctx), value, kind, opts);
}

export interface RegisterResult {
  record: HaidRecord;
  /** False when the HAID was already registered active with this role (nothing was written). */
  changed: boolean;
}

function recordFor(root: string, haid: string, role: string, now: number): HaidRecord {
  const address = addressOfHaid(root, haid);
  return { haid, role, ...(address ? { address } : {}), status: 'active', registered_at: isoSeconds(now) };
}

/**
 * Record an agent as active with `role` (default: its role, see roleOf). The role must equal the
 * HAID's own, so the registry and the HAID cannot disagree. The herd address is stored with it.
 * Registering a retired HAID makes it active again.
 */
export function registerHaid(ctx: Ctx, haidInput: string, roleInput?: string): RegisterResult {
  const root = rootHaid(ctx);
  const haid = parseAgentRef(root, haidInput, 'HAID').haid;
  if (haid === root) throw new HeimdallError('invalid', `${haid} is the root HAID; register a client HAID beneath it, e.g. ${root}/cursor`);
  const own = roleOf(haid);
  const role = roleInput === undefined ? own : clientSlug(roleInput);
  if (role !== own) {
    throw new HeimdallError(
      'invalid',
      `HAID ${haid} has the role ${own} (its last segment, without a .instance suffix), not ${role}: the role is what tells clients apart. Register ${root}/${role} (heimdall-haid spawn ${role}) instead.`,
    );
  }
  const result = withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    const old = reg.haids[haid];
    const fresh = recordFor(root, haid, role, ctx.clock.now());
    if (old && old.status === 'active' && old.role === role && old.address === fresh.address) return { record: old, changed: false };
    reg.haids[haid] = fresh;
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'register', `${haid} role=${role}${fresh.address ? ` address=${fresh.address}` : ''}`));
    return { record: fresh, changed: true };
  });
  return result;
}

/**
 * Make sure an agent that acts is in the registry: registered active when it is unknown, left as it
 * is otherwise (a retired agent stays retired: its claims are refused until it registers again).
 */
export function ensureRegistered(ctx: Ctx, id: AgentIdentity): HaidRecord {
  const known = readRegistry(ctx).haids[id.haid];
  if (known) return known;
  const root = rootHaid(ctx);
  if (id.haid === root) throw new HeimdallError('invalid', `${id.haid} is the root HAID; an agent acts under it, e.g. ${root}/cursor`);
  const record = withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    const again = reg.haids[id.haid];
    if (again) return again;
    const fresh = recordFor(root, id.haid, roleOf(id.haid), ctx.clock.now());
    reg.haids[id.haid] = fresh;
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'register', `${fresh.haid} role=${fresh.role}${fresh.address ? ` address=${fresh.address}` : ''}`));
    return fresh;
  });
  return record;
}

/**
 * The identity of a client session: the one bound to `sessionKey` if this session was seen before
 * (a reconnect), else a new one, `{root}/{agent}.s{n}` (`claude-code.s3`), with n above every
 * instance ever handed out to that agent name, registered and (with a key) bound. Never shared: two
 * calls without a key get two identities.
 */
export function sessionIdentity(ctx: Ctx, agentName: string, sessionKey?: string): { record: HaidRecord; reused: boolean } {
  if (sessionKey !== undefined && !SESSION_KEY.test(sessionKey)) throw new HeimdallError('internal', `bad session key ${JSON.stringify(sessionKey)}`);
  const root = rootHaid(ctx);
  let out: { record: HaidRecord; reused: boolean; bound: boolean } | undefined;
  withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    const bound = sessionKey === undefined ? undefined : reg.sessions[sessionKey];
    if (bound !== undefined) {
      const rec = reg.haids[bound];
      if (rec) {
        out = { record: rec, reused: true, bound: false };
        return;
      }
    }
    const prefix = `${root}/${agentName}.s`;
    let n = 0;
    for (const h of Object.keys(reg.haids)) {
      if (h.startsWith(prefix) && /^\d+$/.test(h.slice(prefix.length))) n = Math.max(n, Number(h.slice(prefix.length)));
    }
    const haid = `${prefix}${n + 1}`;
    const record = recordFor(root, haid, roleOf(haid), ctx.clock.now());
    reg.haids[haid] = record;
    if (sessionKey !== undefined) reg.sessions[sessionKey] = haid;
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'session', `${haid} address=${record.address ?? '-'}${sessionKey !== undefined ? ` session=${sessionKey}` : ' (new connection)'}`));
    out = { record, reused: false, bound: sessionKey !== undefined };
  });
  const r = out as { record: HaidRecord; reused: boolean; bound: boolean };
  return { record: r.record, reused: r.reused };
}

/** Mark a registered HAID retired: its claims stop blocking and it can no longer claim. */
export function retireHaid(ctx: Ctx, haidInput: string): RegisterResult {
  const reg0 = readRegistry(ctx);
  const haid = reg0.root && !haidInput.includes('/') ? parseAgentRef(reg0.root, haidInput, 'HAID').haid : checkHaid(haidInput);
  const result = withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    const old = reg.haids[haid];
    if (!old) throw new HeimdallError('not_found', `HAID ${haid} is not registered (see heimdall-haid list)`);
    if (old.status === 'retired') return { record: old, changed: false };
    const record: HaidRecord = { ...old, status: 'retired', retired_at: isoSeconds(ctx.clock.now()) };
    reg.haids[haid] = record;
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'retire', haid));
    return { record, changed: true };
  });
  return result;
}

/** Every registered HAID with its herd address, sorted, with the root (generated if this is the first call). */
export function listHaids(ctx: Ctx): { root: string; haids: HaidRecord[] } {
  const root = rootHaid(ctx);
  const reg = readRegistry(ctx);
  return { root, haids: Object.keys(reg.haids).sort().map((k) => reg.haids[k] as HaidRecord) };
}

/** 'unregistered' for a HAID never registered (the CLI's default HAID, for instance). */
export function haidStatus(ctx: Ctx, haid: string): HaidStatus | 'unregistered' {
  return readRegistry(ctx).haids[haid]?.status ?? 'unregistered';
}
