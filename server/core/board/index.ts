/**
 * Boards for a lead (Studio's agents and claims pages): joins across the herd, identities, claims,
 * decisions and the wire, sorted the way a person acts on them.
 */
export {
  /** Liveness from most to least urgent: unresponsive, stale, deep work, active. */
  URGENCY,
  /** The board's order: liveness, then the longest silence, then the address. */
  byUrgency,
  /** A liveness's place in URGENCY: 0 (unresponsive) ... 3 (active). */
  urgencyRank,
  type Urgent,
} from './urgency.js';
export {
  /** Every agent with its claims, wire tasks and current task, most urgent first, and the operator Studio acts as. */
  agentBoard,
  /** The same join from wire tasks already read (or the reason they are missing). */
  joinAgentBoard,
  /** The read model's task runs, brought up to date with the wire log first. */
  readWireTasks,
  /** The operator Studio acts as: HAID, herd address, tier. */
  operatorView,
  type AgentBoard,
  type BoardAgent,
  type BoardClaim,
  type BoardWireTask,
  type OperatorView,
  type WireTasks,
} from './agents.js';
export {
  /** Claims under a filter (active, released, expired, all) with both names of the holder and the decision of a release. */
  claimBoard,
  /** A filter name (active, released, expired, all; default active), or `invalid` naming them. */
  checkClaimFilter,
  /** The claims page's filters: held now, released, expired, all. */
  CLAIM_FILTERS,
  type ClaimFilter,
  type ClaimBoard,
  type ClaimRow,
  type BoardDecision,
} from './claims.js';
