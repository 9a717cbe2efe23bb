/**
 * Shared state files (GSD's STATE.md, ROADMAP.md): several plans write them, so a read-modify-write
 * by one agent must not interleave with another's. `withSharedFile` takes a short exclusive claim on
 * the file (task `shared:<path>`, through the same claims gate as every claim), runs the caller's
 * edit, and releases the claim however the edit ends. While another agent holds the file it waits,
 * polling the gate without writing, up to `waitMs` (0: refuse at once), then refuses naming the holder.
 *
 * The claim lives `ttlMinutes` (default 2) and is extended every third of that while the edit runs,
 * so a long edit keeps it and a holder killed outright (SIGKILL: no chance to release) blocks the
 * file for one TTL at most. Two edits by the same agent are not kept apart (an agent's own claims
 * never collide): the wrapper serialises agents, as claims do.
 */
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError, isHeimdallError } from '../errors.js';
import { type ClaimView, type Collision, checkCollisions, makeClaim, normalizeGlob, releaseClaim } from '../claims/index.js';
import { readTasksFile, tasksFilePath } from '../gsd/importer.js';
import { checkTreeHaid } from '../identity/registry.js';

export const SHARED_TTL_MINUTES = 2;
export const DEFAULT_SHARED_WAIT_MS = 60_000;

export interface SharedFileRequest {
  haid: string;
  /** The file, absolute (the transport resolves what the user typed against its working directory). */
  file: string;
  ttlMinutes?: number;
  /** How long to wait for another agent's claim to go; 0 refuses at once. */
  waitMs?: number;
}

export interface SharedPorts {
  /** Wait this long (the CLI: a timer). Waiting is counted by these sleeps, not by the clock port. */
  sleep(ms: number): Promise<void>;
  /** Told once per holder when the file is busy (the CLI prints who it waits for). */
  onWait?(collisions: Collision[]): void;
}

export interface SharedFileResult<T> {
  value: T;
  /** The claim held around the edit (as it was when taken). */
  claim: ClaimView;
  /** The surface claimed: the file relative to the project. */
  surface: string;
  waited_ms: number;
}

/** The project a shared file belongs to: the folder holding the imported GSD planning folder, else the one holding the planning tree. */
function projectRootOf(ctx: Ctx): string {
  const tasks = readTasksFile(tasksFilePath(ctx));
  return path.dirname(typeof tasks?.planning_dir === 'string' ? tasks.planning_dir : ctx.root);
}

/** The repository-relative surface of a shared file, or a `usage` error for a file outside the project. */
export function sharedSurface(ctx: Ctx, file: string): string {
  const root = projectRootOf(ctx);
  const rel = path.relative(root, path.resolve(root, file)).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) {
    throw new HeimdallError('usage', `${file} is not a file inside the project (${root}); name a shared file such as .planning/STATE.md`);
  }
  return normalizeGlob(rel);
}

function describe(cs: Collision[]): string {
  return cs.map((c) => `${c.holder} holds ${[...new Set(c.overlaps.map(([, h]) => h))].join(', ')} for task ${c.task} (claim ${c.id}, until ${c.expires_at})`).join('; ');
}

/**
 * Run `edit` while holding a short exclusive claim on `req.file` (see the module comment). The
 * claim is released when `edit` settles, whether it returns or throws.
 */
export async function withSharedFile<T>(ctx: Ctx, req: SharedFileRequest, edit: (claim: ClaimView) => Promise<T>, ports: SharedPorts): Promise<SharedFileResult<T>> {
  const haid = checkTreeHaid(ctx, req.haid, 'agent');
  const surface = sharedSurface(ctx, req.file);
  const task = `shared:${surface}`;
  const ttl = req.ttlMinutes ?? SHARED_TTL_MINUTES;
  const waitMs = req.waitMs ?? DEFAULT_SHARED_WAIT_MS;
  if (!Number.isInteger(waitMs) || waitMs < 0) throw new HeimdallError('usage', `the wait must be a whole number of milliseconds, 0 or more, got ${JSON.stringify(waitMs)}`);
  let waited = 0;
  let step = 25;
  const told = new Set<string>();
  let claim: ClaimView | undefined;
  while (!claim) {
    // The dry run writes nothing; only a free file is claimed (and a lost race there just waits on).
    let busy = checkCollisions(ctx, haid, [surface]);
    if (busy.length === 0) {
      try {
        claim = makeClaim(ctx, { haid, surfaces: [surface], task, ttlMinutes: ttl }).claim;
        break;
      } catch (e) {
        if (!isHeimdallError(e) || e.code !== 'conflict') throw e;
        busy = ((e.details as { collisions?: Collision[] } | undefined)?.collisions ?? []) as Collision[];
      }
    }
    const fresh = busy.filter((c) => !told.has(c.id));
    if (fresh.length) {
      for (const c of fresh) told.add(c.id);
      ports.onWait?.(fresh);
    }
    if (waited >= waitMs) {
      throw new HeimdallError('conflict', `${surface} is being edited: ${describe(busy)}${waitMs ? `; waited ${Math.round(waited / 1000)} s` : ''}. Try again once it is released (or wait longer with --wait-seconds).`, { collisions: busy });
    }
    const d = Math.min(step, waitMs - waited);
    await ports.sleep(d);
    waited += d;
    step = Math.min(step * 2, 250);
  }
  const held = claim;
  // Keep the claim while the edit runs: extended every third of its TTL.
  const keep = setInterval(
    () => {
      try {
        makeClaim(ctx, { haid, surfaces: [surface], task, ttlMinutes: ttl });
      } catch {
        /* the next tick tries again; the release below ends it either way */
      }
    },
    Math.max(1000, (ttl * 60_000) / 3),
  );
  keep.unref?.();
  try {
    const value = await edit(held);
    return { value, claim: held, surface, waited_ms: waited };
  } finally {
    clearInterval(keep);
    try {
      releaseClaim(ctx, { by: haid, id: held.id, reason: 'shared edit finished' });
    } catch (e) {
      // Already released for it (an operator) is fine; anything else is reported by the caller's error.
      if (!isHeimdallError(e) || e.code !== 'not_found') throw e;
    }
  }
}
