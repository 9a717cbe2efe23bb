/**
 * CSP/1, the compact text protocol between agents (seed 004): parser, formatter, the VALIDATION
 * checklist, checkpoint/patch state under `.planning/csp/`, and conversion to and from the typed
 * JSON messages. See README.md in this folder for the grammar and the mapping tables.
 */
export * from './types.js';
export { parseCsp, BODY_EXAMPLES, INTERNAL_ERROR_MARK } from './parse.js';
export { formatCsp, formatUnknown, chooseFence, sameData, type FormatResult } from './format.js';
export { checkDocumentShape } from './shape.js';
export { validateCsp, CHECKLIST, type ChecklistItem, type CspValidation, type CspCheckedError } from './validate.js';
export { applyPatch, initialCheckpoint, checkpointToContext, type Checkpoint, type PatchSummary, type ApplyOutcome } from './state.js';
export {
  cspPaths,
  readIndex,
  initState,
  applyPatchText,
  rebuildCheckpoint,
  readCheckpoint,
  stateReport,
  verifyState,
  type CspIndex,
  type ChainEntry,
  type ApplyResult,
  type InitResult,
  type StateReport,
  type VerifyReport,
} from './store.js';
export {
  cspToJson,
  jsonToCsp,
  JSON_TARGETS,
  TARGETS_BY_INTENT,
  PRIORITY_TO_DISPATCH,
  STATUS_TO_HANDSHAKE,
  STATUS_TO_TASK_RESULT_SCHEMA,
  HANDSHAKE_PROTOCOL_VERSION,
  type JsonTarget,
  type MappingNote,
  type ToJsonResult,
  type FromJsonResult,
  type ToJsonOptions,
  type FromJsonOptions,
} from './convert.js';
