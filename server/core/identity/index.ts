/**
 * HAIDs (heimdall-team-spec §T-1/T-4): the root HAID of a planning tree, spawn HAIDs
 * `{root}/{client}`, and the registry of active and retired HAIDs.
 */
export {
  /** Syntax check of a HAID. */
  checkHaid,
  /** A client name ("Cursor") as a role segment ("cursor"). */
  clientSlug,
  /** `{root}/{client}` without I/O. */
  deriveSpawnHaid,
  /** The HAID's last segment, its role. */
  roleSuffix,
  isInTree,
  HAID_RULE,
} from './haid.js';
export {
  /** The root HAID, generated once per planning tree and stored in haids.json. */
  rootHaid,
  /** `{root}/{client}` for this tree. */
  spawnHaid,
  /** Record a HAID active with its role (idempotent). */
  registerHaid,
  /** Mark a HAID retired: its claims stop blocking, it can no longer claim. */
  retireHaid,
  listHaids,
  readRegistry,
  haidStatus,
  /** Syntax check plus "belongs to this planning tree". */
  checkTreeHaid,
  /** The HAID a CLI call acts as: --haid, else $HEIMDALL_HAID, else `{root}/cli`. */
  actingHaid,
  /** Client name or HAID -> registered HAID record (what the MCP server does per client). */
  spawnAndRegister,
  haidsFile,
  HAID_ENV,
  CLI_CLIENT,
  type HaidRecord,
  type HaidRegistry,
  type HaidStatus,
  type RegisterResult,
} from './registry.js';
