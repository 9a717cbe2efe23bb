/**
 * The three-message handshake (SESSION_ANNOUNCE, TASK_DISPATCH, TASK_RESULT; protocol 2.0): schemas,
 * peer profiles, dispatch checks, routing, reply_schema enforcement and the token cross-check.
 */
/** Schemas (draft-07) and validators that return {valid, errors}. */
export {
  HANDSHAKE_VERSION,
  SESSION_ANNOUNCE_SCHEMA,
  TASK_DISPATCH_SCHEMA,
  TASK_RESULT_SCHEMA,
  validateAnnounce,
  validateDispatch,
  validateResult,
  parseHandshake,
  type SessionAnnounce,
  type TaskDispatch,
  type TaskResult,
} from './messages.js';
/** Peer profiles and where they are kept. */
export { buildProfile, filePeerStore, type PeerProfile, type PeerStore } from './profile.js';
/** Checks before work starts, and the blocked TASK_RESULT they produce. */
export { checkDispatch, checkAgainstPeer, checkDispatchItself, blockedResult, type CheckFailure } from './checks.js';
/** Routing among live profiles. */
export { route, DEFAULT_PRIORITY_TIERS, type RouteDecision, type Candidate } from './route.js';
/** reply_schema enforcement. */
export { checkReply } from './reply.js';
/** The hub: announce, dispatch, result, peers (the Studio peers page), tasks. */
export {
  announce,
  dispatch,
  routeOnly,
  submitResult,
  listPeers,
  listTasks,
  tokenCheck,
  readTasks,
  ROUTER_ADDRESS,
  type HandshakeDeps,
  type AnnounceOutcome,
  type DispatchOutcome,
  type ResultOutcome,
  type PeerView,
  type TaskRecord,
  type TokenCheck,
} from './handshake.js';
