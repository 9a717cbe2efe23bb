/**
 * May this agent write these files now? The read-only check behind the edit hooks (Claude Code's
 * PreToolUse hook and the git pre-commit hook, `heimdall hook ...`): for each file, the active
 * claims of OTHER agents whose surfaces cover it, with everything a refusal has to say (holder HAID
 * and herd address, claim id, task, expiry and time left).
 *
 * Same semantics as the collision gate (claims.ts, glob.ts): a claim blocks while it is active (not
 * released, not expired, its holder not retired), an agent's own claims never block it, and a
 * surface covers the files it matches and everything beneath a folder it matches
 * (`globCoversPath`). An unknown agent (`agent` null: nobody named the caller) owns no claim, so
 * every active claim covering the file blocks it.
 *
 * Paths are the repository's: relative to the repository root, which is the planning tree's parent
 * folder. A relative path is taken from `cwd` (default: the repository root), so `./x`, `x` and
 * `/repo/x` are one file; `a/../b` is `b`. A path outside the repository (`/tmp/x`, `../other/x`)
 * is never blocked: no claim of this tree can cover it. A repository reached through a symbolic link
 * is recognised by its real path.
 *
 * Nothing is written and no lock is taken: this runs before every edit, and a check that waited for
 * a writer (or wrote) would slow every edit of every agent. A claim made a moment after the check is
 * not seen; the hook is a guard at the edit, the gate in `makeClaim` stays the arbiter.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { isoSeconds } from '../ports.js';
import { addressOfHaid, parseAgentRef } from '../identity/agent.js';
import { type HaidRegistry, readRegistry } from '../identity/registry.js';
import { readClaims, statusOf } from './claims.js';
import { coverageOf } from './glob.js';

/** One claim that stands in the way of writing one file. */
export interface WriteBlock {
  /** The claim id (`release_claim` takes it). */
  claim: string;
  /** The holder's HAID. */
  holder: string;
  /** The holder's herd address (`herd_send` takes it), or null when its HAID names no agent session. */
  address: string | null;
  task: string;
  task_ref: string;
  /** The claim's surfaces that cover this file. */
  surfaces: string[];
  created_at: string;
  expires_at: string;
  /** Milliseconds until the claim expires (positive: it is active). */
  remaining_ms: number;
}

export interface PathCheck {
  /** The path as given. */
  input: string;
  /** Repository-relative, `/`-separated (`src/a.ts`); null when the path is outside the repository. */
  path: string | null;
  /** Active claims of other agents covering it, oldest first; empty when the write may go ahead. */
  blocks: WriteBlock[];
}

export interface WriteCheck {
  /** The repository root the paths were taken against (the planning tree's parent). */
  repository: string;
  /** The writing agent's HAID, or null for an unknown agent (every active claim blocks it). */
  agent: string | null;
  /** When the check was made (the context's clock). */
  at: string;
  paths: PathCheck[];
  /** True when any path has a block. */
  blocked: boolean;
}

/** The repository a planning tree belongs to: its parent folder. */
export function repositoryRoot(ctx: Ctx): string {
  return path.dirname(ctx.root);
}

/** The real path of `p`, through its nearest existing ancestor (the file itself may not exist yet). */
function realish(p: string): string {
  const rest: string[] = [];
  for (let d = p; ; d = path.dirname(d)) {
    try {
      return path.join(fs.realpathSync(d), ...rest.reverse());
    } catch {
      if (path.dirname(d) === d) return p;
      rest.push(path.basename(d));
    }
  }
}

function relativeInside(repo: string, abs: string): string | null {
  const rel = path.relative(repo, abs);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return null;
  return rel.split(path.sep).join('/');
}

/**
 * A file path as the repository names it (`src/a.ts`), or null when it lies outside the repository
 * (or is the repository folder itself, which is no file). Relative paths are taken from `cwd`.
 */
export function repositoryPath(repo: string, file: string, cwd: string = repo): string | null {
  if (typeof file !== 'string' || file === '' || file.includes('\0')) {
    throw new HeimdallError('invalid', `a path to check must be a non-empty string without NUL characters, got ${JSON.stringify(file)}`);
  }
  const abs = path.resolve(cwd, file);
  const direct = relativeInside(repo, abs);
  if (direct !== null) return direct;
  // The same folder under another name: /tmp vs /private/tmp, a symlinked checkout.
  return relativeInside(realish(repo), realish(abs));
}

/**
 * Check writes to `paths` for `agent` (a HAID, herd address or session name of this tree; null for
 * an unknown agent) against the active claims of every other agent. Read-only. Throws `invalid` for
 * a path that is not a string or an agent that names nobody, and `environment` for a claims.json or
 * haids.json broken by hand. `opts.registry`: haids.json as the caller already read it.
 */
export function checkWrite(ctx: Ctx, paths: readonly string[], agent: string | null = null, opts: { cwd?: string; registry?: HaidRegistry } = {}): WriteCheck {
  if (!Array.isArray(paths)) throw new HeimdallError('invalid', `paths must be a list of file paths, got ${JSON.stringify(paths)}`);
  const repo = repositoryRoot(ctx);
  const cwd = opts.cwd ?? repo;
  const rels = paths.map((p) => repositoryPath(repo, p, cwd));
  const reg = opts.registry ?? readRegistry(ctx);
  const root = reg.root;
  const haid = agent === null ? null : root ? parseAgentRef(root, agent, 'agent', { clients: true }).haid : agent;
  const retired = new Set(Object.values(reg.haids).filter((r) => r.status === 'retired').map((r) => r.haid));
  const now = ctx.clock.now();
  const others = [...readClaims(ctx).values()]
    .filter((c) => c.haid !== haid && statusOf(c, now, retired) === 'active')
    .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const addresses = new Map<string, string | null>();
  const addressOf = (h: string): string | null => {
    let a = addresses.get(h);
    if (a === undefined) {
      a = root ? addressOfHaid(root, h) : null;
      addresses.set(h, a);
    }
    return a;
  };
  const checked: PathCheck[] = paths.map((input, i) => {
    const rel = rels[i] as string | null;
    if (rel === null) return { input, path: null, blocks: [] };
    const blocks: WriteBlock[] = [];
    const covers = coverageOf(rel);
    for (const c of others) {
      const covering = c.surfaces.filter(covers);
      if (covering.length === 0) continue;
      blocks.push({
        claim: c.id,
        holder: c.haid,
        address: addressOf(c.haid),
        task: c.task,
        task_ref: c.task_ref,
        surfaces: covering,
        created_at: c.created_at,
        expires_at: c.expires_at,
        remaining_ms: Date.parse(c.expires_at) - now,
      });
    }
    return { input, path: rel, blocks };
  });
  return { repository: repo, agent: haid, at: isoSeconds(now), paths: checked, blocked: checked.some((p) => p.blocks.length > 0) };
}

/** A duration for people: `45 s`, `12 min`, `2 h 5 min`, `3 d 4 h`. */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

/** One line per block: who holds the file, for which task, under which claim, until when. */
export function describeBlock(b: WriteBlock): string {
  const who = b.address ? `${b.holder} (${b.address})` : b.holder;
  return `held by ${who} for task ${b.task} (claim ${b.claim}, surfaces ${b.surfaces.join(', ')}), until ${b.expires_at}: ${formatRemaining(b.remaining_ms)} left`;
}
