/**
 * Herd addressing (HDR-0038, kept by HDR-0039): `agentName.Instance@Team` names one agent instance,
 * `@anyone` names exactly one recipient (the first eligible agent to check in) and `@everyone` names
 * every known agent. Addresses are case-insensitive and stored lowercased, so `Mason.1@Core` and
 * `mason.1@core` are the same mailbox.
 *
 * Pure: syntax only. Whether an address is *known* is decided by the registry (checkin.ts).
 */
import { HeimdallError } from '../errors.js';

export const ADDRESS_FORMS =
  'name.instance@team (e.g. mason.1@core), @anyone (exactly one recipient: the first agent to check in), @everyone (one copy to every known agent)';

const NAME = '[a-z][a-z0-9_-]{0,31}';
const INSTANCE = '[a-z0-9][a-z0-9_-]{0,15}';
const AGENT_RE = new RegExp(`^(${NAME})\\.(${INSTANCE})@(${NAME})$`);
const SESSION_RE = new RegExp(`^(${NAME})\\.(${INSTANCE})$`);
/** An agent name on its own (`mason`, `claude-code`): what tiers are keyed by. */
export const AGENT_NAME_RE = new RegExp(`^${NAME}$`);

/**
 * The team an agent belongs to when it is named without one: `HEIMDALL_AGENT=claude-code.2` is
 * the herd address `claude-code.2@team`. Its HAID needs no team segment (see identity/agent.ts).
 */
export const DEFAULT_TEAM_NAME = 'team';

/**
 * The operator's herd address: a person acting for the team through Studio, whose HAID is
 * `{root}/studio` (identity/agent.ts maps one to the other). It is a Leader unless team.json says
 * otherwise (team.ts), so a lead can send directives from the dashboard.
 */
export const OPERATOR_ADDRESS = `studio.operator@${DEFAULT_TEAM_NAME}`;

export interface AgentAddress {
  kind: 'agent';
  /** The agent's name (`mason`): tiers are configured per name. */
  name: string;
  instance: string;
  team: string;
  /** Canonical text, lowercased: `mason.1@core`. */
  text: string;
}

export type Address = AgentAddress | { kind: 'anyone'; text: '@anyone' } | { kind: 'everyone'; text: '@everyone' };

function shown(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return JSON.stringify(s !== undefined && s.length > 80 ? `${s.slice(0, 77)}...` : s);
}

/** Parse a recipient: any of the three forms. Throws `invalid` showing the accepted forms. */
export function parseAddress(input: unknown, role = 'address'): Address {
  if (typeof input === 'string') {
    const t = input.trim().toLowerCase();
    if (t === '@anyone') return { kind: 'anyone', text: '@anyone' };
    if (t === '@everyone') return { kind: 'everyone', text: '@everyone' };
    const m = AGENT_RE.exec(t);
    if (m) return { kind: 'agent', name: m[1] as string, instance: m[2] as string, team: m[3] as string, text: t };
  }
  throw new HeimdallError('invalid', `malformed ${role} ${shown(input)}: accepted forms are ${ADDRESS_FORMS}`);
}

/** Parse an address that must name one agent (a caller, a sender, a team member). */
export function parseAgentAddress(input: unknown, role = 'agent address'): AgentAddress {
  const a = parseAddress(input, role);
  if (a.kind !== 'agent') {
    throw new HeimdallError('invalid', `${role} must name one agent as name.instance@team (e.g. mason.1@core), not ${a.text}`);
  }
  return a;
}

/**
 * An agent session named without a team, `name.instance` (`claude-code.2`), as the agent address
 * `name.instance@team` (DEFAULT_TEAM_NAME); undefined for anything else.
 */
export function parseSessionName(input: unknown): AgentAddress | undefined {
  if (typeof input !== 'string') return undefined;
  const t = input.trim().toLowerCase();
  const m = SESSION_RE.exec(t);
  if (!m) return undefined;
  return { kind: 'agent', name: m[1] as string, instance: m[2] as string, team: DEFAULT_TEAM_NAME, text: `${t}@${DEFAULT_TEAM_NAME}` };
}

/** True when `text` is a syntactically valid single-agent address. */
export function isAgentAddress(text: unknown): text is string {
  return typeof text === 'string' && AGENT_RE.test(text.trim().toLowerCase());
}
