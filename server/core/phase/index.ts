/**
 * Running a GSD phase through Heimdall (issue 13): a ready queue over the imported task list, a
 * wave conflict check, `start` / `done` that join a plan's claim, its wire stream, its measured
 * brief and its typed result, a short exclusive claim around edits of shared files, and the board
 * Studio shows. Transports (CLI `heimdall gsd`, MCP gsd_ready / gsd_start / gsd_done, tRPC `phase`) call these.
 */
export {
  /** Every plan's state from tasks.json, claims and the wire task runs (pure). */
  derivePlans,
  /** One line per reason a plan waits. */
  describeReason,
  /** What `start` claims for a plan: its write set and its SUMMARY, as repository-relative globs. */
  planSurfaces,
  /** The SUMMARY a plan's executor writes, relative to the project. */
  summaryPath,
  /** Phases in roadmap order, quick tasks last. */
  comparePhases,
  PLAN_STATUSES,
  type PlanStatus,
  type PlanState,
  type PlanHolder,
  type WaitReason,
  type ResultRecord,
  type PhaseInputs,
} from './model.js';
export {
  /** `heimdall gsd ready`: the plans `start` would take now, wave by wave, with every other plan's reasons. */
  gsdReady,
  /** `heimdall gsd check-wave N`: the pairs of a wave's plans whose write sets overlap. */
  checkWave,
  /** `heimdall gsd start PLAN`: claim the write set (all or nothing), open the attempt on the wire, log and return the brief. */
  gsdStart,
  /** `heimdall gsd done PLAN --status`: close the attempt, record the typed task_result and capsule, log both, release the claim. */
  gsdDone,
  /** Bring the read model up to date, starting again when another process committed first. */
  catchUpWire,
  /** Every plan's state now, for an agent or an observer (the read model must be caught up). */
  derivePhase,
  /** The recorded task results of a set of plans. */
  readResults,
  /** protocol/tasks.json or an error saying to import first. */
  requireTasks,
  /** A plan of the import by id or PLAN file path. */
  findTask,
  GSD_RESULT_STATUSES,
  type GsdResultStatus,
  type WirePorts,
  type ReadyReport,
  type WaveCheck,
  type WaveOverlap,
  type StartRequest,
  type StartResult,
  type DoneRequest,
  type DoneResult,
} from './run.js';
export {
  /** Run an edit of a shared file (STATE.md, ROADMAP.md) under a short exclusive claim, released however it ends. */
  withSharedFile,
  /** The repository-relative surface of a shared file. */
  sharedSurface,
  SHARED_TTL_MINUTES,
  DEFAULT_SHARED_WAIT_MS,
  type SharedFileRequest,
  type SharedFileResult,
  type SharedPorts,
} from './shared.js';
export {
  /** Studio's board of one phase: plans by status, holders, lease left, measured brief tokens. */
  phaseBoard,
  /** A per-process cache of brief token counts for the board. */
  createBriefTokenCache,
  type PhaseBoard,
  type BoardPlan,
  type BoardPhase,
  type BriefTokenCache,
} from './board.js';
