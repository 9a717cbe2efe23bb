/**
 * Claims with a collision gate, `.planning/ledger/claims.json`:
 *
 *   { "version": "2.0.0",
 *     "claims": { "h-3fa9c2e1/cursor": { "surfaces": ["src/a/**"], "task": "T-9",
 *                 "task_ref": "h-3fa9c2e1/cursor:T-9", "created_at": "...", "expires_at": "..." } } }
 *
 * One claim per HAID. A claim whose surfaces overlap (see glob.ts) an unexpired claim of another,
 * non-retired HAID is refused with a `conflict` error that names the holder, its task and the
 * overlapping globs. The same HAID claiming again extends its claim: surfaces are merged, the task
 * is updated, and the expiry moves to now + ttl (never earlier than it was).
 *
 * Race-proof: reading the claims, checking for collisions and writing the new claim all happen under
 * one exclusive lock on claims.json, so of N simultaneous overlapping claims exactly one wins and the
 * others see its claim.
 *
 * Claims that expired more than a day ago are dropped the next time the file is written; until then
 * `list` shows them as expired.
 */
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { auditEntry, logAction } from '../log/protocolLog.js';
import { type Audit, atomicWrite, readJsonFile, withLock } from '../planning/fsx.js';
import { dataMap, hasKey } from '../planning/state.js';
import { checkValue } from '../planning/ids.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { isoSeconds } from '../ports.js';
import { checkHaid } from '../identity/haid.js';
import { checkTreeHaid, readRegistry } from '../identity/registry.js';
import { checkGlob, compileGlob, normalizeGlob, overlappingPairs } from './glob.js';

export const DEFAULT_TTL_MINUTES = 60;
export const MAX_TTL_MINUTES = 7 * 24 * 60;
export const MAX_SURFACES = 64;
export const MAX_TASK_LENGTH = 256;
/** Expired claims are kept (and listed as expired) this long, then dropped on the next write. */
export const EXPIRED_RETENTION_MS = 24 * 60 * 60 * 1000;

export interface Claim {
  haid: string;
  surfaces: string[];
  /** The task as the claimer gave it. */
  task: string;
  /** `{haid}:{task}`: the task reference with the holder woven in, unique across agents. */
  task_ref: string;
  created_at: string;
  expires_at: string;
}

/** `retired`: the holder's HAID was retired, so the claim no longer blocks anyone. */
export type ClaimStatus = 'active' | 'expired' | 'retired';

export interface ClaimView extends Claim {
  status: ClaimStatus;
}

export interface ClaimRequest {
  haid: string;
  surfaces: string[];
  task: string;
  ttlMinutes?: number;
}

export interface ClaimResult {
  claim: Claim;
  /** True when the HAID already held an unexpired claim and this call extended it. */
  extended: boolean;
}

export interface Collision {
  holder: string;
  task: string;
  task_ref: string;
  created_at: string;
  expires_at: string;
  /** [requested glob, held glob] pairs that overlap. */
  overlaps: Array<[string, string]>;
}

export function claimsFile(ctx: Ctx): string {
  return path.join(ctx.paths.teamLedgerDir, 'claims.json');
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

/** Read and check claims.json. Any hand edit that breaks the shape is reported; the file is never rewritten then. */
export function readClaims(ctx: Ctx): Record<string, Claim> {
  const file = claimsFile(ctx);
  const data = readJsonFile(file);
  if (data === undefined) return dataMap<Claim>();
  const bad = (why: string): never => {
    throw new HeimdallError('environment', `${file}: ${why}; the file was left untouched (fix it by hand or restore it from git)`);
  };
  if (!isObject(data)) bad(`expected an object {"version": "${PROTOCOL_VERSION}", "claims": {...}}`);
  const obj = data as Record<string, unknown>;
  checkStateVersion(file, obj.version);
  const raw = hasKey(obj, 'claims') ? obj.claims : {};
  if (!isObject(raw)) bad('"claims" must be an object keyed by HAID');
  // Keyed by data: a HAID such as "constructor" is an ordinary key, never an inherited property.
  const out = dataMap<Claim>();
  for (const [haid, c] of Object.entries(raw as Record<string, unknown>)) {
    const at = `"claims.${haid}"`;
    try {
      checkHaid(haid);
    } catch (e) {
      bad(`key ${(e as Error).message}`);
    }
    if (!isObject(c)) bad(`${at} must be an object {"surfaces", "task", "task_ref", "created_at", "expires_at"}`);
    const r = c as Record<string, unknown>;
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
    out[haid] = {
      haid,
      surfaces: surfaces as string[],
      task: r.task as string,
      task_ref: r.task_ref as string,
      created_at: r.created_at as string,
      expires_at: r.expires_at as string,
    };
  }
  return out;
}

function writeClaims(ctx: Ctx, claims: Record<string, Claim>, audit?: Audit): void {
  const body = dataMap<Omit<Claim, 'haid'>>();
  for (const k of Object.keys(claims).sort()) {
    const { haid: _omit, ...rest } = claims[k] as Claim;
    body[k] = rest;
  }
  atomicWrite(claimsFile(ctx), `${JSON.stringify({ version: PROTOCOL_VERSION, claims: body }, null, 2)}\n`, audit);
}

function retiredSet(ctx: Ctx): Set<string> {
  const reg = readRegistry(ctx);
  return new Set(Object.values(reg.haids).filter((r) => r.status === 'retired').map((r) => r.haid));
}

function statusOf(c: Claim, now: number, retired: Set<string>): ClaimStatus {
  if (retired.has(c.haid)) return 'retired';
  return Date.parse(c.expires_at) <= now ? 'expired' : 'active';
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

/** The unexpired claims of other, non-retired HAIDs that overlap `surfaces` (already normalised). */
export function findCollisions(claims: Record<string, Claim>, haid: string, surfaces: string[], now: number, retired: Set<string> = new Set()): Collision[] {
  const out: Collision[] = [];
  for (const c of Object.values(claims)) {
    if (c.haid === haid || statusOf(c, now, retired) !== 'active') continue;
    const overlaps = overlappingPairs(surfaces, c.surfaces);
    if (overlaps.length) out.push({ holder: c.haid, task: c.task, task_ref: c.task_ref, created_at: c.created_at, expires_at: c.expires_at, overlaps });
  }
  // Oldest claim first: it is the one the caller lost to.
  return out.sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.holder, b.holder));
}

/** A dry run of the gate: who would refuse `haid` these surfaces right now. */
export function checkCollisions(ctx: Ctx, haid: string, surfaces: string[]): Collision[] {
  const h = checkTreeHaid(ctx, haid);
  return findCollisions(readClaims(ctx), h, checkSurfaces(surfaces), ctx.clock.now(), retiredSet(ctx));
}

function describeCollisions(haid: string, cs: Collision[]): string {
  const parts = cs.map(
    (c) =>
      `${c.holder} holds ${[...new Set(c.overlaps.map(([, h]) => h))].join(', ')} for task ${c.task} (task_ref ${c.task_ref}) until ${c.expires_at}; overlapping: ${c.overlaps
        .map(([r, h]) => (r === h ? r : `${r} ~ ${h}`))
        .join(', ')}`,
  );
  return `claim refused for ${haid}: ${parts.join('; ')}. Wait for a release or the expiry, narrow your surfaces, or raise a conflict PR.`;
}

/**
 * Claim `surfaces` for `haid`, or extend its claim. Throws `conflict` (naming every holder it
 * collides with, in `details.collisions`), `forbidden` for a retired HAID, `invalid` for bad input.
 */
export function makeClaim(ctx: Ctx, req: ClaimRequest): ClaimResult {
  const haid = checkTreeHaid(ctx, req.haid);
  const surfaces = checkSurfaces(req.surfaces);
  const task = checkValue('task', typeof req.task === 'string' ? req.task.trim() : (req.task as unknown as string), MAX_TASK_LENGTH);
  const ttl = checkTtl(req.ttlMinutes);
  if (retiredSet(ctx).has(haid)) {
    throw new HeimdallError('forbidden', `${haid} is retired and cannot claim; register it again (heimdall-haid register ${haid}) or use another HAID`);
  }
  let refused: Collision[] | undefined;
  let pruned = 0;
  const result = withLock(claimsFile(ctx), (): ClaimResult | undefined => {
    const claims = readClaims(ctx);
    const now = ctx.clock.now();
    const collisions = findCollisions(claims, haid, surfaces, now, retiredSet(ctx));
    if (collisions.length) {
      refused = collisions;
      return undefined;
    }
    for (const c of Object.values(claims)) {
      if (c.haid !== haid && Date.parse(c.expires_at) + EXPIRED_RETENTION_MS <= now) {
        delete claims[c.haid];
        pruned++;
      }
    }
    const old = claims[haid];
    const fresh = now + ttl * 60_000;
    let claim: Claim;
    let extended = false;
    if (old && Date.parse(old.expires_at) > now) {
      extended = true;
      claim = {
        haid,
        surfaces: [...old.surfaces, ...surfaces.filter((s) => !old.surfaces.includes(s))],
        task,
        task_ref: weaveTaskRef(haid, task),
        created_at: old.created_at,
        expires_at: isoSeconds(Math.max(Date.parse(old.expires_at), fresh)),
      };
    } else {
      claim = { haid, surfaces, task, task_ref: weaveTaskRef(haid, task), created_at: isoSeconds(now), expires_at: isoSeconds(fresh) };
    }
    claims[haid] = claim;
    writeClaims(
      ctx,
      claims,
      auditEntry(ctx, 'claim', extended ? 'extend' : 'claim', `${haid} ${claim.surfaces.join(',')} task=${claim.task_ref} until=${claim.expires_at}${pruned ? ` (dropped ${pruned} long-expired)` : ''}`),
    );
    return { claim, extended };
  });
  if (!result) {
    const cs = refused as Collision[];
    logAction(ctx, 'claim', 'refuse', `${haid} ${surfaces.join(',')}: held by ${cs.map((c) => `${c.holder} (${c.task_ref})`).join(', ')}`);
    throw new HeimdallError('conflict', describeCollisions(haid, cs), { collisions: cs });
  }
  return result;
}

export interface ReleaseRequest {
  /** Whose claim to release. */
  haid: string;
  /** Who asks; defaults to `haid`. Another HAID's claim can be released only once it stopped blocking. */
  by?: string;
}

/** Release a claim. `not_found` when the HAID holds none; `forbidden` for another HAID's active claim. */
export function releaseClaim(ctx: Ctx, req: ReleaseRequest): { released: ClaimView } {
  const haid = checkHaid(req.haid);
  const by = req.by === undefined ? haid : checkTreeHaid(ctx, req.by);
  const retired = retiredSet(ctx);
  const released = withLock(claimsFile(ctx), () => {
    const claims = readClaims(ctx);
    const c = claims[haid];
    if (!c) throw new HeimdallError('not_found', `${haid} holds no claim (see heimdall-claim list)`);
    const status = statusOf(c, ctx.clock.now(), retired);
    if (by !== haid && status === 'active') {
      throw new HeimdallError(
        'forbidden',
        `${haid}'s claim on ${c.surfaces.join(', ')} (task ${c.task}) is active until ${c.expires_at}; only its holder can release it. Wait for the expiry, or raise a conflict PR to override it.`,
      );
    }
    delete claims[haid];
    writeClaims(ctx, claims, auditEntry(ctx, 'claim', 'release', `${haid} ${c.surfaces.join(',')}${by !== haid ? ` by=${by}` : ''} (${status})`));
    return { ...c, status };
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
}

/**
 * Every claim with its status, oldest first; `activeOnly` keeps only the ones that block.
 */
export function listClaims(ctx: Ctx, opts: { activeOnly?: boolean } = {}): ClaimList {
  const claims = readClaims(ctx);
  const now = ctx.clock.now();
  const retired = retiredSet(ctx);
  const all = Object.values(claims)
    .map((c): ClaimView => ({ ...c, status: statusOf(c, now, retired) }))
    .sort((a, b) => cmp(a.created_at, b.created_at) || cmp(a.haid, b.haid));
  const n = (s: ClaimStatus) => all.filter((c) => c.status === s).length;
  const shown = opts.activeOnly ? all.filter((c) => c.status === 'active') : all;
  return { claims: shown, count: shown.length, active: n('active'), expired: n('expired'), retired: n('retired') };
}
