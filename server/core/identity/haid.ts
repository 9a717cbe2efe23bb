/**
 * HAIDs (Heimdall agent ids): `{root}/{client}[/{more}]`, lowercase segments joined by `/`. The root
 * is generated once per planning tree (`h-` and 8 characters); `{root}/cursor`, `{root}/copilot` and
 * `{root}/claude-code` are the spawn HAIDs of three clients. The last segment is the role suffix that
 * tells clients apart in both the HAID and the registry.
 *
 * This file is pure (no I/O): syntax, slugs and derivation only.
 */
import { HeimdallError } from '../errors.js';

export const HAID_SEGMENT = /^[a-z0-9][a-z0-9._-]{0,63}$/;
export const MAX_HAID_SEGMENTS = 8;
const SEG = '[a-z0-9][a-z0-9._-]{0,63}';
const HAID_PATTERN = new RegExp(`^${SEG}(?:/${SEG}){0,${MAX_HAID_SEGMENTS - 1}}$`);
export const HAID_RULE = `1-${MAX_HAID_SEGMENTS} "/"-separated segments of lowercase letters, digits, ".", "_" and "-" (not first), each at most 64 characters`;

/** Check a HAID's syntax; throws `invalid` with the rule and an example. */
export function checkHaid(value: unknown, kind = 'HAID'): string {
  const ok = typeof value === 'string' && HAID_PATTERN.test(value);
  if (!ok) {
    throw new HeimdallError('invalid', `invalid ${kind} ${JSON.stringify(value)}: expected ${HAID_RULE} (e.g. h-3fa9c2e1/cursor)`);
  }
  return value as string;
}

export function haidSegments(haid: string): string[] {
  return haid.split('/');
}

/** The role suffix: the HAID's last segment (`cursor` in `h-3fa9c2e1/cursor`). */
export function roleSuffix(haid: string): string {
  const segs = haidSegments(haid);
  return segs[segs.length - 1] as string;
}

/**
 * The role of a HAID: the client or agent name. An agent session's last segment is
 * `name.instance` (`claude-code.2`, `mason.1`), whose role is `name`: two sessions of one client
 * share their role and differ by instance. Any other last segment is the role itself
 * (`cursor` in `h-3fa9c2e1/cursor`).
 */
export function roleOf(haid: string): string {
  const last = roleSuffix(haid);
  const m = /^([a-z][a-z0-9_-]{0,31})\.[a-z0-9][a-z0-9_-]{0,15}$/.exec(last);
  return m ? (m[1] as string) : last;
}

/** Is `haid` the root itself or a HAID beneath it? */
export function isInTree(haid: string, root: string): boolean {
  return haid === root || haid.startsWith(`${root}/`);
}

/**
 * A client name as MCP hosts send it ("Cursor", "claude-code", "GitHub Copilot") turned into a
 * role segment: lowercased, runs of other characters replaced by "-", trimmed. Nothing is guessed
 * beyond that, so "GitHub Copilot" becomes "github-copilot".
 */
export function clientSlug(name: unknown): string {
  if (typeof name !== 'string') throw new HeimdallError('invalid', `a client name must be a string such as "cursor", got ${JSON.stringify(name)}`);
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/-+$/, '')
    .slice(0, 64)
    .replace(/[-._]+$/, '');
  if (!HAID_SEGMENT.test(slug)) {
    throw new HeimdallError('invalid', `client name ${JSON.stringify(name)} has no letters or digits to build a HAID from; use a name such as "cursor" or "claude-code"`);
  }
  return slug;
}

/** `{root}/{client}`: the spawn HAID of a client. */
export function deriveSpawnHaid(root: string, client: string): string {
  return `${root}/${clientSlug(client)}`;
}
