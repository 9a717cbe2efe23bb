/**
 * Identities (heimdall-team-spec §T-1/T-4): the root HAID of a planning tree, one identity per
 * agent session with two names (its HAID and its herd address), the registry of active and retired
 * identities, and the one rule that says who a caller is.
 */
export {
  /** Syntax check of a HAID. */
  checkHaid,
  /** A client name ("Cursor") as a role segment ("cursor"). */
  clientSlug,
  /** `{root}/{client}` without I/O. */
  deriveSpawnHaid,
  /** The HAID's last segment. */
  roleSuffix,
  /** The client or agent name of a HAID (`claude-code` for `{root}/claude-code.2`). */
  roleOf,
  isInTree,
  HAID_RULE,
} from './haid.js';
export {
  /** `mason.1@core` -> `{root}/core/mason.1`; `x.1@team` -> `{root}/x.1`. */
  haidOfAddress,
  /** The inverse: a HAID's herd address, or null when it names no agent session. */
  addressOfHaid,
  identityOfHaid,
  /** Any way an agent is named (HAID, herd address, `name.instance`, client name) -> both names. */
  parseAgentRef,
  /** A clientInfo.name ("cursor-vscode", "Visual Studio Code") as an agent name (`cursor`, `vscode`). */
  clientAgentName,
  isAddressLike,
  /** The operator's HAID, `{root}/studio`: the person acting through Studio (herd address OPERATOR_ADDRESS). */
  operatorHaid,
  OPERATOR_CLIENT,
  type AgentIdentity,
} from './agent.js';
export {
  /** The root HAID, generated once per planning tree and stored in haids.json. */
  rootHaid,
  /** `{root}/{client}`, or the HAID of any other agent name, for this tree (not registered). */
  spawnHaid,
  /** Record a HAID active with its role and herd address (idempotent). */
  registerHaid,
  /** Register an agent that acts, unless it is known (a retired one stays retired). */
  ensureRegistered,
  /** The identity of a client session: the bound one on a reconnect, else a new `{agent}.s{n}`. */
  sessionIdentity,
  /** Mark a HAID retired: its claims stop blocking, it can no longer claim. */
  retireHaid,
  listHaids,
  readRegistry,
  haidStatus,
  /** A HAID of this tree from a HAID, a herd address or `name.instance`. */
  checkTreeHaid,
  /** Both names of an agent named any accepted way. */
  resolveAgent,
  haidsFile,
  HAID_ENV,
  CLI_CLIENT,
  type HaidRecord,
  type HaidRegistry,
  type HaidStatus,
  type RegisterResult,
} from './registry.js';
export {
  /** Who is calling, by one rule for every transport (see session.ts). */
  identifyCaller,
  /** Who the environment names (rules 2-4 of identifyCaller), read-only: registers and binds nothing. */
  lookupCaller,
  /** The client session id an MCP host put in the environment, as a registry key. */
  sessionFromEnv,
  /** Does the environment name the caller (HEIMDALL_AGENT, HEIMDALL_HAID, a client session id)? */
  envNamesCaller,
  AGENT_ENV,
  SESSION_ENV,
  type CallerIdentity,
  type CallerInput,
  type CallerSource,
  type CallerLookup,
} from './session.js';
export {
  /** A client session id the environment gave, if it is a plain token (anything else is ignored, never a key). */
  usableSessionId,
} from './env.js';
