/**
 * Tiers and agents (HDR-0039's tier table), configured in `.planning/herd/team.json`. The seed's
 * values are the defaults, so a tree without the file behaves exactly as the table says:
 *
 *   Leader      500 tokens  receives all     full team visibility
 *   Senior      300 tokens  receives all     structurally filtered (linked through the task graph)
 *   Execution   200 tokens  receives all     direct dependencies only
 *   Mechanical    0 tokens  directive only   report and receive orders
 *
 * File shape (every key optional; `version` required):
 *   {"version": "2.0.0",
 *    "default_tier": "Execution",
 *    "tiers": {"Senior": {"context_budget": 400}},           merged per tier over the defaults
 *    "agents": {"steve": "Leader", "mason.2@core": "Senior"}, replaces the default agent table
 *    "members": ["rook.1@core"]}                              known before their first check-in
 *
 * An agent's tier comes from its full address in `agents`, else its name, else `default_tier`; the
 * operator (Studio's `studio.operator@team`, see address.ts) defaults to Leader instead.
 * A hand-edited file that breaks these rules is refused with the field, what was expected and an
 * example; nothing ever rewrites it except `writeDefaultTeam` when it does not exist.
 */
import type { Ctx } from '../context.js';
import { HeimdallError } from '../errors.js';
import { atomicWrite, fileExists, readJsonFile, withLock } from '../planning/fsx.js';
import { dataMap, toDataMap } from '../planning/state.js';
import { PROTOCOL_VERSION, checkStateVersion } from '../planning/version.js';
import { type AgentAddress, OPERATOR_ADDRESS, isAgentAddress } from './address.js';

export const HERD_MESSAGE_TYPES = ['directive', 'inform', 'flag'] as const;
export type HerdMessageType = (typeof HERD_MESSAGE_TYPES)[number];

/** How far the context pane looks: the whole team, the task graph transitively, or direct links. */
export const VISIBILITIES = ['team', 'graph', 'direct'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface TierConfig {
  /** Context pane budget in tokens, counted with ctx.tokenizer; 0 means no pane. */
  context_budget: number;
  /** Message types this tier is sent (Mechanical: directive only). */
  receives: HerdMessageType[];
  /** Message types this tier may send. */
  sends: HerdMessageType[];
  visibility: Visibility;
}

export interface TeamConfig {
  version: string;
  default_tier: string;
  tiers: Record<string, TierConfig>;
  /** Agent name (`mason`) or full address (`mason.2@core`) -> tier name. */
  agents: Record<string, string>;
  /** Addresses known before they check in (recipients of @everyone and direct sends). */
  members: string[];
}

const ALL: HerdMessageType[] = ['directive', 'inform', 'flag'];

/** The seed's table. Directives come from leaders and the architect (a Senior); others inform and flag. */
export const DEFAULT_TEAM: TeamConfig = {
  version: PROTOCOL_VERSION,
  default_tier: 'Execution',
  tiers: {
    Leader: { context_budget: 500, receives: ALL, sends: ALL, visibility: 'team' },
    Senior: { context_budget: 300, receives: ALL, sends: ALL, visibility: 'graph' },
    Execution: { context_budget: 200, receives: ALL, sends: ['inform', 'flag'], visibility: 'direct' },
    Mechanical: { context_budget: 0, receives: ['directive'], sends: ['inform', 'flag'], visibility: 'direct' },
  },
  agents: {
    steve: 'Leader',
    leonardo: 'Leader',
    wardenstein: 'Senior',
    scribe: 'Senior',
    tufte: 'Senior',
    mason: 'Execution',
    fresco: 'Execution',
    rook: 'Mechanical',
    vigil: 'Mechanical',
  },
  members: [],
};

export const MAX_CONTEXT_BUDGET = 100_000;
const TIER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const TOP_KEYS = ['version', 'default_tier', 'tiers', 'agents', 'members'];
const TIER_KEYS = ['context_budget', 'receives', 'sends', 'visibility'];

export function herdDir(ctx: Ctx): string {
  return ctx.paths.herdDir;
}

export function teamFile(ctx: Ctx): string {
  return ctx.paths.herdTeam;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Validate a parsed team.json and merge it over the defaults. Pure; throws `environment` naming the
 * field. Exported for tests and for tools that check a file before writing it.
 */
export function mergeTeam(raw: unknown, file = 'team.json'): TeamConfig {
  const bad = (field: string, expected: string, got: unknown): never => {
    throw new HeimdallError('environment', `${file}: ${field} must be ${expected}, got ${JSON.stringify(got)}; the file was left untouched`);
  };
  if (!isObj(raw)) bad('the file', `a JSON object such as {"version": "${PROTOCOL_VERSION}", "agents": {"mason": "Execution"}}`, raw);
  const data = raw as Record<string, unknown>;
  checkStateVersion(file, data.version);
  for (const k of Object.keys(data)) {
    if (!TOP_KEYS.includes(k)) bad(`key "${k}"`, `one of ${TOP_KEYS.join(', ')} (unknown keys are refused so a typo is not silently ignored)`, k);
  }

  // Keyed by data: an agent or tier named "constructor" is looked up like any other name.
  const tiers = dataMap<TierConfig>();
  for (const [n, t] of Object.entries(DEFAULT_TEAM.tiers)) tiers[n] = { ...t, receives: [...t.receives], sends: [...t.sends] };
  if (data.tiers !== undefined) {
    if (!isObj(data.tiers)) bad('"tiers"', 'an object of tier name -> {context_budget, receives, sends, visibility}', data.tiers);
    for (const [name, v] of Object.entries(data.tiers as Record<string, unknown>)) {
      if (!TIER_NAME.test(name)) bad(`tier name ${JSON.stringify(name)}`, 'letters, digits, "_" or "-", starting with a letter (e.g. Senior)', name);
      if (!isObj(v)) bad(`tiers.${name}`, 'an object such as {"context_budget": 300, "receives": ["directive", "inform", "flag"]}', v);
      const base = tiers[name];
      const tv = v as Record<string, unknown>;
      for (const k of Object.keys(tv)) if (!TIER_KEYS.includes(k)) bad(`tiers.${name}.${k}`, `one of ${TIER_KEYS.join(', ')}`, k);
      if (!base) {
        for (const k of TIER_KEYS) if (tv[k] === undefined) bad(`tiers.${name}.${k}`, 'given for a new tier (only the four default tiers may be partial)', undefined);
      }
      const tier: TierConfig = base ?? { context_budget: 0, receives: [], sends: [], visibility: 'direct' };
      if (tv.context_budget !== undefined) {
        const b = tv.context_budget;
        if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > MAX_CONTEXT_BUDGET) {
          bad(`tiers.${name}.context_budget`, `an integer number of tokens from 0 to ${MAX_CONTEXT_BUDGET} (e.g. 300)`, b);
        }
        tier.context_budget = b as number;
      }
      for (const k of ['receives', 'sends'] as const) {
        const l = tv[k];
        if (l === undefined) continue;
        if (!Array.isArray(l) || l.some((x) => !(HERD_MESSAGE_TYPES as readonly unknown[]).includes(x)) || new Set(l).size !== l.length) {
          bad(`tiers.${name}.${k}`, `a list of distinct message types from ${HERD_MESSAGE_TYPES.join(', ')} (e.g. ["directive"])`, l);
        }
        if (k === 'receives' && (l as unknown[]).length === 0) bad(`tiers.${name}.receives`, 'a non-empty list (every tier receives at least directives)', l);
        tier[k] = [...(l as HerdMessageType[])];
      }
      if (tv.visibility !== undefined) {
        if (!(VISIBILITIES as readonly unknown[]).includes(tv.visibility)) bad(`tiers.${name}.visibility`, `one of ${VISIBILITIES.join(', ')}`, tv.visibility);
        tier.visibility = tv.visibility as Visibility;
      }
      tiers[name] = tier;
    }
  }

  const default_tier = data.default_tier === undefined ? DEFAULT_TEAM.default_tier : data.default_tier;
  if (typeof default_tier !== 'string' || !tiers[default_tier]) bad('"default_tier"', `one of the tiers (${Object.keys(tiers).join(', ')})`, default_tier);

  let agents = toDataMap<string>(DEFAULT_TEAM.agents);
  if (data.agents !== undefined) {
    if (!isObj(data.agents)) bad('"agents"', 'an object of agent name or address -> tier, e.g. {"mason": "Execution", "mason.2@core": "Senior"}', data.agents);
    agents = dataMap<string>();
    for (const [key, tier] of Object.entries(data.agents as Record<string, unknown>)) {
      const k = key.toLowerCase();
      if (!AGENT_NAME.test(k) && !isAgentAddress(k)) bad(`agents key ${JSON.stringify(key)}`, 'an agent name (mason) or an address (mason.2@core)', key);
      if (typeof tier !== 'string' || !tiers[tier]) bad(`agents.${key}`, `one of the tiers (${Object.keys(tiers).join(', ')})`, tier);
      agents[k] = tier as string;
    }
  }

  let members: string[] = [];
  if (data.members !== undefined) {
    if (!Array.isArray(data.members)) bad('"members"', 'a list of addresses such as ["rook.1@core"]', data.members);
    members = (data.members as unknown[]).map((m, i) => {
      if (!isAgentAddress(m)) bad(`members[${i}]`, 'an address name.instance@team (e.g. rook.1@core)', m);
      return (m as string).trim().toLowerCase();
    });
    members = [...new Set(members)];
  }
  return { version: data.version as string, default_tier: default_tier as string, tiers, agents, members };
}

/** The effective team configuration: team.json merged over the defaults (defaults when absent). */
export function readTeam(ctx: Ctx): TeamConfig {
  const file = teamFile(ctx);
  const raw = readJsonFile(file);
  if (raw === undefined) return mergeTeam({ version: PROTOCOL_VERSION }, file);
  return mergeTeam(raw, file);
}

/** Write the defaults to team.json so they can be edited; refuses to overwrite an existing file. */
export function writeDefaultTeam(ctx: Ctx): string {
  const file = teamFile(ctx);
  withLock(file, () => {
    if (fileExists(file)) throw new HeimdallError('conflict', `${file} already exists; edit it by hand (it is never overwritten)`);
    const { version, default_tier, tiers, agents, members } = DEFAULT_TEAM;
    atomicWrite(file, `${JSON.stringify({ version, default_tier, tiers, agents, members }, null, 2)}\n`);
  });
  return file;
}

export interface ResolvedTier extends TierConfig {
  name: string;
}

/** An agent's tier: its address in `agents`, else its name, else the default tier. */
export function tierOf(team: TeamConfig, who: AgentAddress): ResolvedTier {
  // The operator leads unless the team file places it (by address or as "studio") elsewhere.
  const name = team.agents[who.text] ?? team.agents[who.name] ?? (who.text === OPERATOR_ADDRESS && team.tiers.Leader ? 'Leader' : team.default_tier);
  const t = team.tiers[name] as TierConfig;
  return { name, ...t };
}
