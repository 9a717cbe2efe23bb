/**
 * Claims with a collision gate, `.planning/ledger/claims.json`:
 *
 *   { "version": "2.0.0",
 *     "claims": { "c-0lx3k2a9f3e2a1b4c6": { "haid": "h-3fa9c2e1/cursor.s1", "surfaces": ["src/a/**"],
 *                 "task": "T-9", "task_ref": "h-3fa9c2e1/cursor.s1:T-9", "created_at": "...",
 *                 "expires_at": "...", "status": "active" } } }
 *
 * Claims are keyed by their own id. An agent may hold several claims, one per task: claiming again
 * for the same task extends that claim (surfaces merged, expiry moved to now + ttl, never earlier);
 * claiming for another task adds a claim. A claim whose surfaces overlap (see glob.ts) an active
 * claim of another, non-retired agent is refused with a `conflict` error that names the holder, its
 * task and the overlapping globs. An agent's own claims never collide with each other.
 *
 * Released and expired claims stay in the file as history, with their status (`released` with who
 * released it, when and why; `expired` once its time ran out), so Studio can show them. The file
 * keeps the newest MAX_FINISHED finished claims; older ones are dropped on the next write
 * (protocol.log keeps their lines). A 1.x file (one claim per HAID, keyed by HAID) is read as is and
 * rewritten in this shape at the next write.
 *
 * Race-proof: reading the claims, checking for collisions and writing the new claim all happen under
 * one exclusive lock on claims.json, so of N simultaneous overlapping claims exactly one wins and the
 * others see its claim.
 */
import { createHash } from 'node:crypto';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntries, auditEntry, logAction } from '../log/protocolLog.js';
import { type Audit, atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { dataMap, hasKey } from '../planning/state.js';
import { checkValue } from '../planning/ids.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { isoSeconds } from '../ports.js';
import { addressOfHaid } from '../identity/agent.js';
import { checkHaid } from '../identity/haid.js';
import { checkTreeHaid, readRegistry } from '../identity/registry.js';
import { checkGlob, compileGlob, normalizeGlob, overlappingPairs } from './glob.js';

export const DEFAULT_TTL_MINUTES = 60;
export const MAX_TTL_MINUTES = 7 * 24 * 60;
export const MAX_SURFACES = 64;
export const MAX_TASK_LENGTH = 256;
export const MAX_REASON_LENGTH = 1000;
/** Expired claims are listed (and seen by the context pane) this long; `history` lists them all. */
export const EXPIRED_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Released and expired claims kept in claims.json; the oldest beyond this are dropped on a write. */
export const MAX_FINISHED = 1000;

/** A decision id in decisions.md (`D-0007`), as a released claim links to it. */
export const DECISION_ID = /^D-\d{4,}$/;

/** A claim id: `c-` and a lowercase token (the id port's output). */
export const CLAIM_ID = /^c-[a-z0-9][a-z0-9-]{0,62}$/;

/** What claims.json stores: `active` until released; an active claim past its expiry is written back as `expired`. */
export type StoredClaimStatus = 'active' | 'released' | 'expired';

export interface Claim {
  id: string;
  haid: string;
  surfaces: string[];
  /** The task as the claimer gave it. */
  task: string;
  /** `{haid}:{task}`: the task reference with the holder woven in, unique across agents. */
  task_ref: string;
  created_at: string;
  expires_at: string;
  status: StoredClaimStatus;
  released_at?: string;
  /** The HAID that released it (the holder, or another agent once it stopped blocking, or an operator). */
  released_by?: string;
  reason?: string;
  /** The decisions.md entry that records this release, when it was made as a decision (Studio). */
  decision?: string;
}

/** `retired`: the holder was retired, so the claim no longer blocks anyone. */
export type ClaimStatus = 'active' | 'expired' | 'retired' | 'released';

export interface ClaimView extends Omit<Claim, 'status'> {
  status: ClaimStatus;
  /** The holder's herd address (one identity, two names), or null when its HAID names no agent session. */
  address: string | null;
}

export interface ClaimRequest {
  haid: string;
  surfaces: string[];
  task: string;
  ttlMinutes?: number;
}

export interface ClaimResult {
  claim: ClaimView;
  /** True when the agent already held an active claim for this task and this call extended it. */
  extended: boolean;
}

export interface Collision {
  holder: string;
  /** The holder's claim id. */
  id: string;
  task: string;
  task_ref: string;
  created_at: string;
  expires_at: string;
  /** [requested glob, held glob] pairs that overlap. */
  overlaps: Array<[string, string]>;
}

export function claimsFile(ctx: Ctx): string {
  return ctx.paths.claims;
}

/** The task reference with the holder woven in: `h-3fa9c2e1/cursor:T-9`. */
export function weaveTaskRef(haid: string, task: string): string {
  return task.startsWith(`${haid}:`) ? task : `${haid}:${task}`;
}

/** Plain code-unit order: ISO times and HAIDs are ASCII, and localeCompare is slow on 10,000 claims. */
function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isIsoTime(v: unknown): v is string {
  return typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v) && !Number.isNaN(Date.parse(v));
}

/** The id a 1.x claim (keyed by its holder) gets, the same on every read until it is rewritten. */
function legacyId(haid: string, createdAt: string): string {
  return `c-${createHash('sha256').update(`${haid}\n${createdAt}`).digest('hex').slice(0, 12)}`;
}

const STORED: readonly string[] = ['active', 'released', 'expired'];

/**
 * Read and check claims.json, keyed by claim id. Any hand edit that breaks the shape is reported;
 * the file is never rewritten then.
 */
export function readClaims(ctx: Ctx): Map<string, Claim> {
  const file = claimsFile(ctx);
  const data = readJsonFile(file);
  const out = new Map<string, Claim>();
  if (data === undefined) return out;
  const bad = (why: string): never => {
    throw new HeimdallError('environment', `${file}: ${why}; the file was left untouched (fix it by hand or restore it from git)`);
  };
  if (!isObject(data)) bad(`expected an object {"version": "${PROTOCOL_VERSION}", "claims": {...}}`);
  const obj = data as Record<string, unknown>;
  checkStateVersion(file, obj.version);
  const raw = hasKey(obj, 'claims') ? obj.claims : {};
  if (!isObject(raw)) bad('"claims" must be an object keyed by claim id');
  for (const [key, c] of Object.entries(raw as Record<string, unknown>)) {
    const at = `"claims.${key}"`;
    if (!isObject(c)) bad(`${at} must be an object {"haid", "surfaces", "task", "task_ref", "created_at", "expires_at", "status"}`);
    const r = c as Record<string, unknown>;
    // 1.x: keyed by the holder's HAID, no id, no status.
    const legacy = !CLAIM_ID.test(key) && r.haid === undefined;
    const haid = legacy ? key : r.haid;
    try {
      checkHaid(haid, legacy ? 'HAID key' : 'holder HAID');
    } catch (e) {
      bad(`${at}: ${(e as Error).message}`);
    }
    if (!legacy && !CLAIM_ID.test(key)) bad(`key ${JSON.stringify(key)} must be a claim id such as "c-0001" (${CLAIM_ID.source})`);
    if (!Array.isArray(r.surfaces) || r.surfaces.length === 0) bad(`${at}.surfaces must be a non-empty array of globs`);
    const surfaces = r.surfaces as unknown[];
    for (const s of surfaces) {
      try {
        checkGlob(s);
      } catch (e) {
        bad(`${at}.surfaces: ${(e as Error).message}`);
      }
    }
    if (typeof r.task !== 'string' || r.task === '') bad(`${at}.task must be a non-empty string`);
    if (typeof r.task_ref !== 'string' || r.task_ref === '') bad(`${at}.task_ref must be a non-empty string`);
    if (!isIsoTime(r.created_at)) bad(`${at}.created_at must be an ISO-8601 time, got ${JSON.stringify(r.created_at)}`);
    if (!isIsoTime(r.expires_at)) bad(`${at}.expires_at must be an ISO-8601 time, got ${JSON.stringify(r.expires_at)}`);
    const status = legacy ? 'active' : r.status;
    if (typeof status !== 'string' || !STORED.includes(status)) bad(`${at}.status must be one of ${STORED.join(', ')}, got ${JSON.stringify(r.status)}`);
    if (r.released_at !== undefined && !isIsoTime(r.released_at)) bad(`${at}.released_at must be an ISO-8601 time, got ${JSON.stringify(r.released_at)}`);
    if (r.released_by !== undefined) {
      try {
        checkHaid(r.released_by, 'released_by');
      } catch (e) {
        bad(`${at}: ${(e as Error).message}`);
      }
    }
    if (r.reason !== undefined && typeof r.reason !== 'string') bad(`${at}.reason must be a string`);
    if (r.decision !== undefined && (typeof r.decision !== 'string' || !DECISION_ID.test(r.decision))) bad(`${at}.decision must be a decision id such as "D-0007", got ${JSON.stringify(r.decision)}`);
    const id = legacy ? legacyId(haid as string, r.created_at as string) : key;
    out.set(id, {
      id,
      haid: haid as string,
      surfaces: surfaces as string[],
      task: r.task as string,
      task_ref: r.task_ref as string,
      created_at: r.created_at as string,
      expires_at: r.expires_at as string,
      status: status as StoredClaimStatus,
      ...(r.released_at !== undefined ? { released_at: r.released_at as string } : {}),
      ...(r.released_by !== undefined ? { released_by: r.released_by as string } : {}),
      ...(r.reason !== undefined ? { reason: r.reason as string } : {}),
      ...(r.decision !== undefined ? { decision: r.decision as string } : {}),
    });
  }
  return out;
}

function finishedAt(c: Claim): string {
  return c.released_at ?? c.expires_at;
}

/**
 * Write every claim back, keyed by id: active claims past their expiry become `expired`, and only
 * the newest MAX_FINISHED finished claims are kept. Returns how many were dropped.
 */
function writeClaims(ctx: Ctx, claims: Map<string, Claim>, now: number, audit?: (dropped: number) => Audit): number {
  for (const c of claims.values()) if (c.status === 'active' && Date.parse(c.expires_at) <= now) c.status = 'expired';
  const finished = [...claims.values()].filter((c) => c.status !== 'active').sort((a, b) => cmp(finishedAt(b), finishedAt(a)) || cmp(b.id, a.id));
  const drop = finished.slice(MAX_FINISHED);
  for (const c of drop) claims.delete(c.id);
  const body: Record<string, Omit<Claim, 'id'>> = {};
  for (const k of [...claims.keys()].sort()) {
    const { id: _omit, ...rest } = claims.get(k) as Claim;
    body[k] = rest;
  }
  atomicWrite(claimsFile(ctx), `${JSON.stringify({ version: PROTOCOL_VERSION, claims: body }, null, 2)}\n`, audit?.(drop.length));
  return drop.length;
}

function retiredSet(ctx: Ctx): Set<string> {
  const reg = readRegistry(ctx);
  return new Set(Object.values(reg.haids).filter((r) => r.status === 'retired').map((r) => r.haid));
}

/** The claim as it stands now: released, held by a retired agent, expired, or active. */
export function statusOf(c: Claim, now: number, retired: Set<string>): ClaimStatus {
  if (c.status === 'released') return 'released';
  if (retired.has(c.haid)) return 'retired';
  return c.status === 'expired' || Date.parse(c.expires_at) <= now ? 'expired' : 'active';
}

function view(c: Claim, status: ClaimStatus, root: string | undefined, addresses?: Map<string, string | null>): ClaimView {
  let address = addresses?.get(c.haid);
  if (address === undefined) {
    address = root ? addressOfHaid(root, c.haid) : null;
    addresses?.set(c.haid, address);
  }
  return { ...c, status, address };
}

/** Check and normalise a list of surfaces; duplicates (after normalisation) are dropped. */
export function checkSurfaces(surfaces: unknown): string[] {
  if (!Array.isArray(surfaces) || surfaces.length === 0) {
    throw new HeimdallError('invalid', 'surfaces must be a non-empty list of globs, e.g. ["src/a/**", "docs/x.md"]');
  }
  if (surfaces.length > MAX_SURFACES) {
    throw new HeimdallError('invalid', `${surfaces.length} surfaces given; at most ${MAX_SURFACES} are allowed (claim a wider glob such as src/**)`);
  }
  const out: string[] = [];
  for (const s of surfaces) {
    const n = normalizeGlob(s);
    compileGlob(n); // braces and classes are checked when compiled
    if (!out.includes(n)) out.push(n);
  }
  return out;
}

function checkTtl(ttl: unknown): number {
  if (ttl === undefined) return DEFAULT_TTL_MINUTES;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_MINUTES) {
    throw new HeimdallError('invalid', `ttl must be a whole number of minutes from 1 to ${MAX_TTL_MINUTES} (7 days), got ${JSON.stringify(ttl)}`);
  }
  return ttl;
}

function checkClaimId(id: unknown): string {
  if (typeof id !== 'string' || !CLAIM_ID.test(id)) {
    throw new HeimdallError('invalid', `invalid claim id ${JSON.stringify(id)}: expected "c-" and lowercase letters, digits or "-" (e.g. c-0001; see heimdall-claim list)`);
  }
  return id;
}

/** The active claims of other, non-retired agents that overlap `surfaces` (already normalised). */
export function findCollisions(claims: Iterable<Claim>, haid: string, surfaces: string[], now: number, retired: Set<string> = new Set()): Collision[] {
  const out: Collision[] = [];
  for (const c of claims) {
    if (c.haid === haid || statusOf(c, now, retired) !== 'active') continue;
    const overlaps = overlappingPairs(surfaces, c.surfaces);
    if (overlaps.length) out.push({ holder: c.haid, id: c.id, task: c.task, task_ref: c.task_ref, created_at: c.created_at, expires_at: c.expires_at, overlaps });
  }
  // Oldest claim first: it is the one the caller lost to.
  return out.sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.holder, b.holder) || cmp(a.id, b.id));
}

/** A dry run of the gate: who would refuse `haid` these surfaces right now. */
export function checkCollisions(ctx: Ctx, haid: string, surfaces: string[]): Collision[] {
  const h = checkTreeHaid(ctx, haid);
  return findCollisions(readClaims(ctx).values(), h, checkSurfaces(surfaces), ctx.clock.now(), retiredSet(ctx));
}

/** The active claims an agent holds now, oldest first. */
export function activeClaimsOf(ctx: Ctx, haid: string): ClaimView[] {
  const h = checkTreeHaid(ctx, haid);
  const now = ctx.clock.now();
  const retired = retiredSet(ctx);
  const root = readRegistry(ctx).root;
  return [...readClaims(ctx).values()]
    .filter((c) => c.haid === h && statusOf(c, now, retired) === 'active')
    .sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id))
    .map((c) => view(c, 'active', root));
}

function describeCollisions(haid: string, cs: Collision[]): string {
  const parts = cs.map(
    (c) =>
      `${c.holder} holds ${[...new Set(c.overlaps.map(([, h]) => h))].join(', ')} for task ${c.task} (claim ${c.id}, task_ref ${c.task_ref}) until ${c.expires_at}; overlapping: ${c.overlaps
        .map(([r, h]) => (r === h ? r : `${r} ~ ${h}`))
        .join(', ')}`,
  );
  return `claim refused for ${haid}: ${parts.join('; ')}. Wait for a release or the expiry, narrow your surfaces, or raise a conflict PR.`;
}

function newClaimId(ctx: Ctx, claims: Map<string, Claim>): string {
  for (;;) {
    const id = ctx.ids.next('c-').toLowerCase();
    if (!CLAIM_ID.test(id)) throw new HeimdallError('internal', `the id port gave ${JSON.stringify(id)}, which is not a claim id`);
    if (!claims.has(id)) return id;
  }
}

/**
 * Claim `surfaces` for an agent's task, or extend its active claim for that same task. Throws
 * `conflict` (naming every holder it collides with, in `details.collisions`), `forbidden` for a
 * retired agent, `invalid` for bad input.
 */
export function makeClaim(ctx: Ctx, req: ClaimRequest): ClaimResult {
  const haid = checkTreeHaid(ctx, req.haid);
  const surfaces = checkSurfaces(req.surfaces);
  const task = checkValue('task', typeof req.task === 'string' ? req.task.trim() : (req.task as unknown as string), MAX_TASK_LENGTH);
  const ttl = checkTtl(req.ttlMinutes);
  if (retiredSet(ctx).has(haid)) {
    throw new HeimdallError('forbidden', `${haid} is retired and cannot claim; register it again (heimdall-haid register ${haid}) or use another HAID`);
  }
  const root = readRegistry(ctx).root;
  let refused: Collision[] | undefined;
  let dropped = 0;
  const result = withLock(claimsFile(ctx), (): { claim: Claim; extended: boolean } | undefined => {
    const claims = readClaims(ctx);
    const now = ctx.clock.now();
    const retired = retiredSet(ctx);
    const collisions = findCollisions(claims.values(), haid, surfaces, now, retired);
    if (collisions.length) {
      refused = collisions;
      return undefined;
    }
    const fresh = now + ttl * 60_000;
    const same = [...claims.values()].find((c) => c.haid === haid && c.task === task && statusOf(c, now, retired) === 'active');
    let claim: Claim;
    if (same) {
      claim = {
        ...same,
        surfaces: [...same.surfaces, ...surfaces.filter((s) => !same.surfaces.includes(s))],
        expires_at: isoSeconds(Math.max(Date.parse(same.expires_at), fresh)),
      };
    } else {
      claim = { id: newClaimId(ctx, claims), haid, surfaces, task, task_ref: weaveTaskRef(haid, task), created_at: isoSeconds(now), expires_at: isoSeconds(fresh), status: 'active' };
    }
    claims.set(claim.id, claim);
    const extended = same !== undefined;
    writeClaims(ctx, claims, now, (dropped) =>
      auditEntry(ctx, 'claim', extended ? 'extend' : 'claim', `${haid} ${claim.id} ${claim.surfaces.join(',')} task=${claim.task_ref} until=${claim.expires_at}${dropped ? ` (dropped ${dropped} old finished claims)` : ''}`),
    );
    return { claim, extended };
  });
  if (!result) {
    const cs = refused as Collision[];
    logAction(ctx, 'claim', 'refuse', `${haid} ${surfaces.join(',')}: held by ${cs.map((c) => `${c.holder} (${c.id} ${c.task_ref})`).join(', ')}`);
    throw new HeimdallError('conflict', describeCollisions(haid, cs), { collisions: cs });
  }
  return { claim: view(result.claim, 'active', root), extended: result.extended };
}

export interface ReleaseRequest {
  /** Who asks (any agent name); defaults to `haid`. */
  by?: string;
  /** Release this one claim. */
  id?: string;
  /** Whose claims: default the asker's own. Without `id`, all of them. */
  haid?: string;
  /** Why (recorded with the claim). */
  reason?: string;
  /** The decisions.md entry recording this release (releaseClaimAsDecision), kept with the claim. */
  decision?: string;
  /**
   * Release another agent's claims even while they block: an operator acting for the team (Studio,
   * which records the release as a decision). Without it, another agent's claim can be released only
   * once it stopped blocking (expired, or its holder retired).
   */
  override?: boolean;
}

export interface ReleasedClaim extends ClaimView {
  /** What the claim was before this release. */
  was: ClaimStatus;
}

/**
 * Release claims: one by id, or every unreleased claim of an agent (the asker's own by default).
 * `not_found` when there is nothing to release; `forbidden` for another agent's active claim.
 * Released claims stay in the file with status `released`, who released them, when and why.
 */
export function releaseClaim(ctx: Ctx, req: ReleaseRequest): { released: ReleasedClaim[] } {
  if (req.by === undefined && req.haid === undefined) throw new HeimdallError('invalid', 'say who releases (by) or whose claims (haid)');
  const by = checkTreeHaid(ctx, req.by ?? req.haid, 'releasing agent');
  const whose = req.haid === undefined ? undefined : checkTreeHaid(ctx, req.haid, 'holder');
  const id = req.id === undefined ? undefined : checkClaimId(req.id);
  const reason = req.reason === undefined || req.reason.trim() === '' ? undefined : checkValue('reason', req.reason.trim(), MAX_REASON_LENGTH);
  if (req.decision !== undefined && !DECISION_ID.test(req.decision)) throw new HeimdallError('invalid', `decision must be a decision id such as D-0007, got ${JSON.stringify(req.decision)}`);
  const retired = retiredSet(ctx);
  const root = readRegistry(ctx).root;
  const released = withLock(claimsFile(ctx), () => {
    const claims = readClaims(ctx);
    const now = ctx.clock.now();
    let chosen: Claim[];
    if (id !== undefined) {
      const c = claims.get(id);
      if (!c) throw new HeimdallError('not_found', `no claim ${id} (see heimdall-claim list --all)`);
      if (c.status === 'released') throw new HeimdallError('not_found', `claim ${id} was already released at ${c.released_at ?? '?'}${c.released_by ? ` by ${c.released_by}` : ''}`);
      if (whose !== undefined && c.haid !== whose) throw new HeimdallError('invalid', `claim ${id} is held by ${c.haid}, not ${whose}`);
      chosen = [c];
    } else {
      const holder = whose ?? by;
      chosen = [...claims.values()].filter((c) => c.haid === holder && c.status !== 'released').sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.id, b.id));
      if (chosen.length === 0) throw new HeimdallError('not_found', `${holder} holds no claim (see heimdall-claim list)`);
    }
    if (!req.override) {
      const blocking = chosen.find((c) => c.haid !== by && statusOf(c, now, retired) === 'active');
      if (blocking) {
        throw new HeimdallError(
          'forbidden',
          `${blocking.haid}'s claim ${blocking.id} on ${blocking.surfaces.join(', ')} (task ${blocking.task}) is active until ${blocking.expires_at}; only its holder can release it. Wait for the expiry, or raise a conflict PR to override it.`,
        );
      }
    }
    const at = isoSeconds(now);
    const out: ReleasedClaim[] = [];
    for (const c of chosen) {
      const was = statusOf(c, now, retired);
      const r: Claim = { ...c, status: 'released', released_at: at, released_by: by, ...(reason ? { reason } : {}), ...(req.decision ? { decision: req.decision } : {}) };
      claims.set(c.id, r);
      out.push({ ...view(r, 'released', root), was });
    }
    writeClaims(ctx, claims, now, () =>
      auditEntries(
        ctx,
        out.map((r) => ['claim', 'release', `${r.haid} ${r.id} ${r.surfaces.join(',')}${by !== r.haid ? ` by=${by}` : ''} (${r.was})${reason ? ` reason=${JSON.stringify(reason)}` : ''}${req.decision ? ` decision=${req.decision}` : ''}`]),
      ),
    );
    return out;
  });
  return { released };
}

export interface ClaimList {
  claims: ClaimView[];
  /** Number of claims listed. */
  count: number;
  active: number;
  expired: number;
  retired: number;
  released: number;
}

/**
 * Claims with their status, oldest first: by default the active ones, the ones of retired holders
 * and those that expired within the last day; `history` adds every released and older expired claim.
 * The counts describe that scope; `activeOnly` then keeps only the claims that block.
 */
export function listClaims(ctx: Ctx, opts: { activeOnly?: boolean; history?: boolean } = {}): ClaimList {
  const claims = readClaims(ctx);
  const now = ctx.clock.now();
  const retired = retiredSet(ctx);
  const root = readRegistry(ctx).root;
  const addresses = new Map<string, string | null>();
  const scope = [...claims.values()]
    .map((c): ClaimView => view(c, statusOf(c, now, retired), root, addresses))
    .filter((c) => opts.history || (c.status !== 'released' && !(c.status === 'expired' && Date.parse(c.expires_at) + EXPIRED_RETENTION_MS <= now)))
    .sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.haid, b.haid) || cmp(a.id, b.id));
  const n = (s: ClaimStatus) => scope.filter((c) => c.status === s).length;
  const shown = opts.activeOnly ? scope.filter((c) => c.status === 'active') : scope;
  return { claims: shown, count: shown.length, active: n('active'), expired: n('expired'), retired: n('retired'), released: n('released') };
}
