/**
 * The Heimdall core: the protocol, implemented once. Transports (CLI, MCP, tRPC) import from here.
 * Each concept lives in its own folder; this file lists the public surface explicitly.
 */

/** One error type with a code; each transport maps codes once (exit code, MCP isError, TRPCError). */
export { HeimdallError, EXIT_CODES, isHeimdallError, type ErrorCode } from './errors.js';
/** Ports for time, ids and token counting, so tests are deterministic. */
export { type Clock, type Ids, type Tokenizer, systemClock, fixedClock, randomIds, sequentialIds, isoSeconds } from './ports.js';
/** The context every core call takes: planning root, paths and ports. */
export { type Ctx, makeCtx } from './context.js';
/** The default tokenizer (o200k_base), loaded on first use. */
export { o200kTokenizer, DEFAULT_TOKENIZER_NAME } from './tokens/tokenizer.js';

/** The .planning layout, version stamps, init, and the storage guarantees (locks, atomic writes). */
export { planningPaths, locatePlanningTree, noTreeMessage, type PlanningPaths, type PlanningLocation } from './planning/paths.js';
export { PROTOCOL_VERSION, checkStateVersion } from './planning/version.js';
export { initPlanning, planningHoldsState, type InitResult } from './planning/init.js';
export { withLock, atomicWrite, appendLine, readLines, readJsonFile } from './planning/fsx.js';
/** Servers run core calls through withoutBlocking, so a busy lock never blocks their event loop; sweepPlanning cleans up after crashed writers. */
export { withoutBlocking, findLockBusy, sweepPlanning, type SweepResult } from './planning/fsx.js';
/** Bounded reads of input files (HEIMDALL_MAX_READ_BYTES, regular files only) and depth-checked JSON parsing. */
export { readTextFile, readRequiredText, parseJsonText, checkJsonDepth } from './planning/fsx.js';
/** For storage adapters (the file wire log): whole writes, and work done outside a `withoutBlocking` request. */
export { writeAll, outsideScope } from './planning/fsx.js';
/** The error for a write that did not happen (disk full, quota, permission), naming what was left. */
export { writeError } from './planning/ioerror.js';
/** The read, JSON-depth and lock-wait limits (HEIMDALL_MAX_READ_BYTES, HEIMDALL_MAX_JSON_DEPTH, HEIMDALL_LOCK_TIMEOUT_MS). */
export { storageLimits, setStorageLimits, storageLimitsFromEnv, DEFAULT_LIMITS, LIMIT_ENV, tooLarge, type StorageLimits } from './planning/limits.js';
export { checkName, checkValue, NAME_PATTERN } from './planning/ids.js';
export { escapeField, unescapeField } from './planning/escape.js';

/** protocol.log: one tab-separated line per action. */
export { logAction, tailLog, parseLogLine, formatLogLine, type LogEntry, type LogTail } from './log/protocolLog.js';
/** Pages of protocol.log, newest first, filtered (Studio's log page), and the facets its filter menus list. */
export { queryLog, logFacets, type LogQuery, type LogPage, type LogFacets } from './log/query.js';
/** "Did you mean": the closest known name to a mistyped one. */
export { closest } from './suggest.js';

/** Mechanism 1: typed messages (one draft-07 schema, ajv, on-receipt retry/escalate). */
export { MESSAGE_SCHEMA, MESSAGE_TYPES, validateMessage, validateMessageText, validateAndLog, onReceipt, type ReceiptOutcome } from './messages/validate.js';
export { compileValidator, getAjv, type AjvError, type AjvFn, type ValidationResult, type ValidationError, type Validator } from './messages/ajv.js';
/** Mechanism 2: the symbol table. */
export { readSymbols, setSymbol, setSymbols, getSymbol, reverseSymbol, deleteSymbol } from './symbols/symbols.js';
/** Mechanism 3: context capsules (10-line cap, dependency-only hydration). */
export { writeCapsule, readCapsule, hydrate, closure, listCapsuleIds, renderCapsule, parseCapsule, MAX_CAPSULE_LINES, type Capsule, type CapsuleInput } from './capsules/capsules.js';
/** A capsule with its `where:` items resolved against the symbol table. */
export { readCapsuleResolved } from './capsules/where.js';
/** Mechanism 4: delta briefs. */
export { buildBrief, renderBrief, type Brief, type BriefInput } from './briefs/briefs.js';
/** Mechanism 5: the blackboard. */
export { readFacts, setFact, getFact, deleteFact } from './blackboard/blackboard.js';
/** Mechanism 6: the token ledger. */
export { logTokens, logTokensBatch, readLedger, readBaselines, setBaseline, type LedgerEntry, type LogInput } from './ledger/ledger.js';
/**
 * Savings: the one computation behind every savings figure (Studio's card, charts, tables and PNG,
 * `heimdall-ledger report` and `delta`): per scope (a run against its own v1 lines, or the lines
 * without a run against baselines.json), a role without lines absent, one rounding rule.
 */
export {
  savings,
  report,
  computeDelta,
  scopeLines,
  roundPct,
  changePct,
  formatPct,
  NO_RUN,
  type Savings,
  type LedgerReport,
  type RoleSaving,
  type RunSummary,
  type BaselineSource,
  type ArmFigures,
  type GsdView,
  type GsdPlanRow,
  type GsdPhaseRow,
  type GsdAblationRow,
  type Delta,
} from './ledger/savings.js';
/** Measured runs: a run's record (what, when, which workspace and tokenizer, what each arm is) beside its ledger lines. */
export { ARMS, isArm, armOf, recordRun, readRun, listRuns, type Arm, type RunRecord, type RunInput } from './ledger/runs.js';
/** The gate adapter: report.json -> reference-only gate_report. */
export { gateToMessage, type GateMessage } from './gate/gate.js';
/** The measured demo. */
export { runDemo, loadWave, defaultFixtureDir, demoRefusal, type DemoResult } from './demo/demo.js';
/** GSD adoption: import a GSD .planning tree and measure v1 vs v2 briefs on it. */
export * from './gsd/index.js';
/** Running a GSD phase: the ready queue, the wave check, start / done (claim, wire attempt, brief, typed result), shared-file edits, Studio's board. */
export * from './phase/index.js';
/** Addressable units: pieces of planning documents (decisions, requirements, sections) with stable ids and exact text, resolvable both ways. */
export { readUnitsFile, writeUnits, renderUnitsFile, resolveUnit, reverseUnit, listUnits, unitText, unitsFilePath, type Unit, type UnitKind, type UnitsFile } from './units/units.js';
/** CSP/1: the compact line-based text protocol, patches and checkpoints, conversion to typed messages. */
export * from './csp/index.js';
/** Team ledger: claims with a collision gate, HAID identities, decisions and conflict PRs. */
export * from './claims/index.js';
export * from './identity/index.js';
export * from './decisions/index.js';
/** The wire stream: envelope 1.1, the log port, pure reducers, projector, listener and replay, liveness. */
export * from './wire/index.js';
/** Agents in the loop: the check-in (heartbeat, mailbox, context pane, status) and the three-message handshake. */
export * from './herd/index.js';
export * from './handshake/index.js';
// Both the wire and the herd have an agent view; the wire's keeps the plain name.
export type { AgentView } from './wire/index.js';
export type { AgentView as HerdAgentView } from './herd/index.js';
/** Whole-picture reads for dashboards (Studio): the capsule graph, a release recorded as a decision, the wire overview. */
export { readCapsuleGraph, type CapsuleNode } from './capsules/graph.js';
export { releaseClaimAsDecision } from './decisions/release.js';
export { wireOverview, readStreamEvents, MAX_STREAM_EVENTS, type WireOverview, type StreamRow } from './wire/overview.js';
/** Boards a lead acts on: agents by urgency with their claims and tasks; claims with their history and decisions. */
export * from './board/index.js';
/** `heimdall setup <client>`: the MCP server registered in each agent client's own config, plus the AGENTS.md / CLAUDE.md section. */
export * from './setup/index.js';
