/**
 * Claims with a collision gate (team ledger, heimdall-team-spec §T-4). Transports (CLI
 * `heimdall-claim`, MCP `make_claim` / `read_claims` / `release_claim`, the Studio) call these.
 */
export {
  /** Claim surfaces for a HAID, or extend its claim; throws `conflict` naming the holders. */
  makeClaim,
  /** Release a HAID's claim; another HAID's claim only once it stopped blocking. */
  releaseClaim,
  /** Every claim with its status (active, expired, retired); `activeOnly` for the blocking ones. */
  listClaims,
  /** The raw, checked contents of claims.json keyed by HAID. */
  readClaims,
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
  type Claim,
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
  /** Check a glob and return its canonical text (`./src/a/` -> `src/a/**`). */
  normalizeGlob,
  compileGlob,
  /** Split `a,b,{c,d}` on the commas outside braces. */
  splitSurfaceList,
  type CompiledGlob,
} from './glob.js';
