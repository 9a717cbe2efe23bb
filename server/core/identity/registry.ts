/**
 * The HAID registry, `.planning/ledger/haids.json`:
 *
 *   { "version": "2.0.0", "root": "h-3fa9c2e1",
 *     "haids": { "h-3fa9c2e1/cursor": { "role": "cursor", "status": "active", "registered_at": "..." } } }
 *
 * The root HAID is generated on first use and never changes afterwards, so every HAID of a planning
 * tree shares it. Registration is idempotent (registering an active HAID writes nothing); retiring
 * keeps the record, marked retired, so history stays attributable.
 */
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry } from '../log/protocolLog.js';
import { type Audit, atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { dataMap, hasKey } from '../planning/state.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { isoSeconds } from '../ports.js';
import { HAID_SEGMENT, checkHaid, clientSlug, deriveSpawnHaid, haidSegments, isInTree, roleSuffix } from './haid.js';

export type HaidStatus = 'active' | 'retired';

export interface HaidRecord {
  haid: string;
  role: string;
  status: HaidStatus;
  registered_at: string;
  retired_at?: string;
}

export interface HaidRegistry {
  /** Undefined until the first call that needs it generates it. */
  root?: string;
  haids: Record<string, HaidRecord>;
}

/** The environment variable that sets the CLI's acting HAID when --haid is not given. */
export const HAID_ENV = 'HEIMDALL_HAID';
/** The client name the CLI acts as by default: `{root}/cli`. */
export const CLI_CLIENT = 'cli';

export function haidsFile(ctx: Ctx): string {
  return path.join(ctx.paths.teamLedgerDir, 'haids.json');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Read and check haids.json; a hand-edited file that breaks the shape is reported, never rewritten. */
export function readRegistry(ctx: Ctx): HaidRegistry {
  const file = haidsFile(ctx);
  const data = readJsonFile(file);
  if (data === undefined) return { haids: dataMap<HaidRecord>() };
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
  // Keyed by data: a HAID such as "constructor" is an ordinary (unregistered) key, never a property.
  const haids = dataMap<HaidRecord>();
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
      status: r.status as HaidStatus,
      registered_at: r.registered_at as string,
      ...(r.retired_at !== undefined ? { retired_at: r.retired_at as string } : {}),
    };
  }
  return { root: root as string | undefined, haids };
}

function writeRegistry(ctx: Ctx, reg: HaidRegistry, audit?: Audit): void {
  const haids = dataMap<Omit<HaidRecord, 'haid'>>();
  for (const k of Object.keys(reg.haids).sort()) {
    const { haid: _omit, ...rest } = reg.haids[k] as HaidRecord;
    haids[k] = rest;
  }
  atomicWrite(haidsFile(ctx), `${JSON.stringify({ version: PROTOCOL_VERSION, root: reg.root, haids }, null, 2)}\n`, audit);
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

/** `{root}/{client}`: derive (not register) the spawn HAID of a client such as "cursor". */
export function spawnHaid(ctx: Ctx, client: string): string {
  return deriveSpawnHaid(rootHaid(ctx), client);
}

/** Check syntax and that the HAID belongs to this planning tree (the root or beneath it). */
export function checkTreeHaid(ctx: Ctx, value: unknown, kind = 'HAID'): string {
  const haid = checkHaid(value, kind);
  const root = rootHaid(ctx);
  if (!isInTree(haid, root)) {
    const suggestion = haidSegments(haid).length === 1 ? ` (did you mean ${root}/${haid}? see heimdall-haid spawn ${haid})` : '';
    throw new HeimdallError('invalid', `${kind} ${haid} is not part of this planning tree, whose root HAID is ${root}${suggestion}`);
  }
  return haid;
}

export interface RegisterResult {
  record: HaidRecord;
  /** False when the HAID was already registered active with this role (nothing was written). */
  changed: boolean;
}

/**
 * Record `haid` as active with `role` (default: its role suffix). The role must equal the suffix:
 * the suffix is what distinguishes clients, so the registry and the HAID cannot disagree.
 * Registering a retired HAID makes it active again.
 */
export function registerHaid(ctx: Ctx, haidInput: string, roleInput?: string): RegisterResult {
  const haid = checkTreeHaid(ctx, haidInput);
  const root = rootHaid(ctx);
  if (haid === root) throw new HeimdallError('invalid', `${haid} is the root HAID; register a client HAID beneath it, e.g. ${root}/cursor`);
  const suffix = roleSuffix(haid);
  const role = roleInput === undefined ? suffix : clientSlug(roleInput);
  if (role !== suffix) {
    throw new HeimdallError(
      'invalid',
      `HAID ${haid} ends in /${suffix}, so its role is ${suffix}, not ${role}: the role suffix is what tells clients apart. Register ${root}/${role} (heimdall-haid spawn ${role}) instead.`,
    );
  }
  const result = withLock(haidsFile(ctx), () => {
    const reg = readRegistry(ctx);
    const old = reg.haids[haid];
    if (old && old.status === 'active' && old.role === role) return { record: old, changed: false };
    const record: HaidRecord = { haid, role, status: 'active', registered_at: isoSeconds(ctx.clock.now()) };
    reg.haids[haid] = record;
    writeRegistry(ctx, reg, auditEntry(ctx, 'haid', 'register', `${haid} role=${role}`));
    return { record, changed: true };
  });
  return result;
}

/** Mark a registered HAID retired: its claims stop blocking and it can no longer claim. */
export function retireHaid(ctx: Ctx, haidInput: string): RegisterResult {
  const haid = checkHaid(haidInput);
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

/** Every registered HAID, sorted, with the root (generated if this is the first call). */
export function listHaids(ctx: Ctx): { root: string; haids: HaidRecord[] } {
  const root = rootHaid(ctx);
  const reg = readRegistry(ctx);
  return { root, haids: Object.keys(reg.haids).sort().map((k) => reg.haids[k] as HaidRecord) };
}

/** 'unregistered' for a HAID never registered (the CLI's default HAID, for instance). */
export function haidStatus(ctx: Ctx, haid: string): HaidStatus | 'unregistered' {
  return readRegistry(ctx).haids[haid]?.status ?? 'unregistered';
}

/**
 * The HAID a CLI call acts as: `--haid` when given, else $HEIMDALL_HAID, else `{root}/cli`.
 * Each must belong to this planning tree.
 */
export function actingHaid(ctx: Ctx, explicit?: string): string {
  if (explicit !== undefined) return checkTreeHaid(ctx, explicit, '--haid');
  const fromEnv = ctx.env[HAID_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return checkTreeHaid(ctx, fromEnv, `$${HAID_ENV}`);
  return spawnHaid(ctx, CLI_CLIENT);
}

/**
 * The HAID of an MCP client: a client name ("cursor") becomes its spawn HAID `{root}/cursor`; a
 * value with a "/" is taken as a full HAID of this tree. Either way it is registered active.
 */
export function spawnAndRegister(ctx: Ctx, clientOrHaid: string): HaidRecord {
  const haid = typeof clientOrHaid === 'string' && clientOrHaid.includes('/') ? checkTreeHaid(ctx, clientOrHaid, 'client_identity') : spawnHaid(ctx, clientOrHaid);
  return registerHaid(ctx, haid).record;
}
