/**
 * Herd (HDR-0039): the check-in (heartbeat, mailbox drain, context pane, status in one call), the
 * write path `send`, addressing and tiers. State under `.planning/herd/`.
 */
/** Addresses: name.instance@team, @anyone, @everyone. */
export { parseAddress, parseAgentAddress, parseSessionName, isAgentAddress, ADDRESS_FORMS, DEFAULT_TEAM_NAME, OPERATOR_ADDRESS, type Address, type AgentAddress } from './address.js';
/** Tiers and agents from .planning/herd/team.json, with the seed's table as defaults. */
export { readTeam, writeDefaultTeam, mergeTeam, tierOf, teamFile, DEFAULT_TEAM, HERD_MESSAGE_TYPES, type TeamConfig, type TierConfig, type HerdMessageType, type Visibility } from './team.js';
/** Check in, send, peek at the inbox, list agents (the Studio agents page). */
export { checkin, send, peekInbox, listAgents, contextPane, knownAgents, agentAddress, type HerdDeps, type CheckinInput, type CheckinResult, type SendInput, type SendResult, type AgentView } from './checkin.js';
/** The durable mailbox's message shape. */
export { type HerdMessage, MAX_BODY_CHARS } from './mailbox.js';
/** The context pane, pure: links and rendering within a token budget. */
export { findLinks, renderPane, type PaneAgent, type Link, type LinkSources } from './pane.js';
