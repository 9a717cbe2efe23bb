/**
 * Decisions, conflict PRs and completed-work capsules (heimdall-team-spec §T-4).
 */
export {
  /** Append a HAID-attributed, timestamped entry to decisions.md (append-only). */
  appendDecision,
  /** Parse decisions.md back into entries. */
  readDecisions,
  decisionsFile,
  type Decision,
  type DecisionInput,
} from './decisions.js';
export {
  /** Write conflicts/{date}-{id}.md, cross-link it from decisions.md, return its path. */
  raiseConflictPr,
  conflictsDir,
  type ConflictInput,
  type ConflictPr,
  type DisplacedParty,
} from './conflicts.js';
export {
  /** Capsules from ledger/completed/ and protocol/capsules/, one by id or all. */
  readLedgerCapsules,
  completedDir,
  type LedgerCapsule,
  type CapsuleSource,
} from './capsules.js';
