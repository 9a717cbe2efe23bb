/**
 * Claims with a collision gate (team ledger, heimdall-team-spec §T-4). Transports (CLI
 * `heimdall-claim`, MCP `make_claim` / `read_claims` / `release_claim`, the Studio) call these.
 */
export {
  /** Claim surfaces for an agent's task (a new claim per task, extended when the task is claimed again); throws `conflict` naming the holders. */
  makeClaim,
  /** Release one claim by id, or all of an agent's claims; another agent's only once they stopped blocking. Kept as history. */
  releaseClaim,
  /** Claims with their status (active, expired, retired; `history` adds released); `activeOnly` for the blocking ones. */
  listClaims,
  /** The active claims of one agent. */
  activeClaimsOf,
  /** The raw, checked contents of claims.json keyed by claim id. */
  readClaims,
  /** A claim's status now (released, retired, expired, active). */
  statusOf,
  /** Dry run of the gate: the collisions a claim would hit now. */
  checkCollisions,
  /** Pure gate over a claims map (for callers that already hold the data). */
  findCollisions,
  /** Check and normalise a surface list. */
  checkSurfaces,
  /** `{haid}:{task}`. */
  weaveTaskRef,
  claimsFile,
  DEFAULT_TTL_MINUTES,
  MAX_TTL_MINUTES,
  MAX_SURFACES,
  MAX_FINISHED,
  CLAIM_ID,
  type Claim,
  type StoredClaimStatus,
  type ReleasedClaim,
  type ClaimView,
  type ClaimStatus,
  type ClaimRequest,
  type ClaimResult,
  type ClaimList,
  type Collision,
  type ReleaseRequest,
} from './claims.js';
export {
  /** Could some path be covered by both globs? Conservative: when in doubt, yes. */
  globsOverlap,
  /** The overlapping (requested, held) glob pairs. */
  overlappingPairs,
  /** Does a glob cover this file (it, or a folder above it)? */
  globCoversPath,
  /** Check a glob and return its canonical text (`./src/a/` -> `src/a/**`). */
  normalizeGlob,
  compileGlob,
  /** Split `a,b,{c,d}` on the commas outside braces. */
  splitSurfaceList,
  type CompiledGlob,
} from './glob.js';
export {
  /** May this agent write these files now? Per file, the blocking active claims of other agents (read-only; the edit hooks). */
  checkWrite,
  /** A path as the repository names it (`./x` = `x`, absolute inside made relative), or null outside it. */
  repositoryPath,
  /** The planning tree's parent folder: what claim surfaces are relative to. */
  repositoryRoot,
  /** One line naming a block's holder, task, claim and time left. */
  describeBlock,
  /** `45 s`, `12 min`, `2 h 5 min`. */
  formatRemaining,
  type WriteCheck,
  type PathCheck,
  type WriteBlock,
} from './check.js';
