/**
 * One agent, two names: the HAID (`h-3fa9c2e1/claude-code.2`, what claims, decisions and
 * protocol.log record) and the herd address (`claude-code.2@team`, what check-ins and messages
 * use). The mapping is a bijection computed from the root, so either name finds the other without a
 * lookup, and the registry stores it too (haids.json `address`) so Studio shows them side by side:
 *
 *   name.instance@team   <->  {root}/name.instance          (the default team, DEFAULT_TEAM_NAME)
 *   name.instance@core   <->  {root}/core/name.instance     (any other team is a segment)
 *
 * HAIDs of another shape (`{root}/cli`, `{root}/cursor/w2`) name a client or a process rather than an
 * agent session and have no herd address. One client is a person: Studio's operator, `{root}/studio`,
 * is `studio.operator@team` (OPERATOR_ADDRESS), so the messages a lead sends from the dashboard carry
 * a sender an agent can name; `{root}/studio.operator` is reserved (it has no address) so the mapping
 * stays one to one.
 *
 * Pure but for `rootOf` (which reads haids.json without ever writing it).
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { type AgentAddress, DEFAULT_TEAM_NAME, OPERATOR_ADDRESS, isAgentAddress, parseAgentAddress, parseSessionName } from '../herd/address.js';
import { HAID_SEGMENT, checkHaid, clientSlug, haidSegments, isInTree, roleOf } from './haid.js';

export interface AgentIdentity {
  haid: string;
  /** The herd address, or null for a HAID that names a client or process, not an agent session. */
  address: string | null;
  /** The client or agent name (`claude-code` for `{root}/claude-code.2`). */
  role: string;
}

const SESSION_SEGMENT = /^[a-z][a-z0-9_-]{0,31}\.[a-z0-9][a-z0-9_-]{0,15}$/;

/** The client segment of the operator's HAID, `{root}/studio`: the person acting through Studio. */
export const OPERATOR_CLIENT = 'studio';
/** The session segment the operator's address would otherwise map to; reserved, so no agent takes it. */
const OPERATOR_SESSION = OPERATOR_ADDRESS.slice(0, OPERATOR_ADDRESS.indexOf('@'));

/** The operator's HAID in the tree whose root is `root`. */
export function operatorHaid(root: string): string {
  return `${root}/${OPERATOR_CLIENT}`;
}
const TEAM_SEGMENT = /^[a-z][a-z0-9_-]{0,31}$/;

/** `mason.1@core` -> `{root}/core/mason.1`; `claude-code.2@team` -> `{root}/claude-code.2`. */
export function haidOfAddress(root: string, address: AgentAddress): string {
  if (address.text === OPERATOR_ADDRESS) return operatorHaid(root);
  const session = `${address.name}.${address.instance}`;
  return address.team === DEFAULT_TEAM_NAME ? `${root}/${session}` : `${root}/${address.team}/${session}`;
}

/** The herd address of a HAID of this root, or null when it names no agent session. */
export function addressOfHaid(root: string, haid: string): string | null {
  if (!haid.startsWith(`${root}/`)) return null;
  if (haid === operatorHaid(root)) return OPERATOR_ADDRESS;
  const rest = haidSegments(haid).slice(1);
  if (rest.length === 1 && rest[0] === OPERATOR_SESSION) return null;
  if (rest.length === 1 && SESSION_SEGMENT.test(rest[0] as string)) return `${rest[0]}@${DEFAULT_TEAM_NAME}`;
  // `{root}/team/x.1` is not canonical (`x.1@team` is `{root}/x.1`), so it has no address.
  if (rest.length === 2 && TEAM_SEGMENT.test(rest[0] as string) && rest[0] !== DEFAULT_TEAM_NAME && SESSION_SEGMENT.test(rest[1] as string)) {
    return `${rest[1]}@${rest[0]}`;
  }
  return null;
}

/** Both names of a HAID of this root. */
export function identityOfHaid(root: string, haid: string): AgentIdentity {
  return { haid, address: addressOfHaid(root, haid), role: roleOf(haid) };
}

/**
 * What MCP hosts send as `clientInfo.name`, mapped to the client names `heimdall setup` uses, so a
 * session of Cursor is `cursor.s1` rather than `cursor-vscode.s1`. Observed names (the hosts send no
 * session id in `initialize`): Claude Code `claude-code`, Cursor `cursor-vscode`, VS Code (Copilot
 * agent mode) `Visual Studio Code`, Codex `codex-mcp-client`, Copilot CLI `github-copilot-developer`.
 */
const CLIENT_ALIASES: ReadonlyMap<string, string> = new Map([
  ['cursor-vscode', 'cursor'],
  ['visual-studio-code', 'vscode'],
  ['codex-mcp-client', 'codex'],
  ['github-copilot-developer', 'copilot'],
]);

/** A client name ("Claude Code", "cursor-vscode") as an agent name (`claude-code`, `cursor`). */
export function clientAgentName(client: unknown): string {
  const slug = clientSlug(client);
  const alias = CLIENT_ALIASES.get(slug);
  if (alias) return alias;
  // Agent names are what herd addresses and tiers use: a letter first, no dots, at most 32.
  let name = slug.replace(/\./g, '-');
  if (!/^[a-z]/.test(name)) name = `c-${name}`;
  return name.slice(0, 32).replace(/[-_]+$/, '');
}

const ROOT_LIKE = /^h-[a-z0-9]{8}$/;

/**
 * Any way an agent is named, as its identity in the tree whose root is `root`:
 * - a HAID of this tree (`h-3fa9c2e1/claude-code.2`, `h-3fa9c2e1/cursor`);
 * - a herd address (`mason.1@core`);
 * - an agent session without a team (`claude-code.2`, meaning `claude-code.2@team`);
 * - with `clients`, a bare client name (`cursor`, "Claude Code") for its spawn HAID `{root}/cursor`
 *   (what MCP's client_identity and HEIMDALL_AGENT have always accepted). Without it a bare word is
 *   refused with a suggestion, since it is more likely a mistyped HAID than a new agent.
 * Throws `invalid` naming `kind` (the argument or variable it came from) and the accepted forms.
 */
export function parseAgentRef(root: string, ref: unknown, kind: string, opts: { clients?: boolean } = {}): AgentIdentity {
  if (typeof ref !== 'string' || ref.trim() === '') {
    throw new HeimdallError('invalid', `${kind} must name an agent: a HAID (${root}/claude-code.2), a herd address (mason.1@core) or an agent session (claude-code.2), got ${JSON.stringify(ref)}`);
  }
  const text = ref.trim();
  if (text.includes('@')) {
    const a = parseAgentAddress(text, kind);
    return { haid: haidOfAddress(root, a), address: a.text, role: a.name };
  }
  if (text.includes('/')) {
    const haid = checkHaid(text, kind);
    if (!isInTree(haid, root)) throw new HeimdallError('invalid', `${kind} ${haid} is not part of this planning tree, whose root HAID is ${root}`);
    return identityOfHaid(root, haid);
  }
  const session = parseSessionName(text);
  if (session) return { haid: haidOfAddress(root, session), address: session.text, role: session.name };
  if (text === root) return { haid: root, address: null, role: root };
  if (!opts.clients) checkHaid(text, kind); // "invalid HAID ..." with the rule, for what is no name at all
  if (opts.clients && !ROOT_LIKE.test(text)) {
    const slug = clientSlug(text);
    return { haid: `${root}/${slug}`, address: null, role: slug };
  }
  const hint = HAID_SEGMENT.test(text) ? ` (did you mean ${root}/${text}? see heimdall-haid spawn ${text})` : '';
  throw new HeimdallError(
    'invalid',
    `${kind} ${text} is not part of this planning tree, whose root HAID is ${root}${hint}; name an agent by HAID (${root}/claude-code.2), herd address (mason.1@core) or session (claude-code.2)`,
  );
}

/** True when `ref` names an agent by herd address or team-less session (not a HAID, not a client name). */
export function isAddressLike(ref: unknown): boolean {
  return isAgentAddress(ref) || parseSessionName(ref) !== undefined;
}
