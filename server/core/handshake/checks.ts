/**
 * Dispatch checks, run before any work starts (the RFC's phase 4). Each failed check is one reason;
 * any reason means an immediate TASK_RESULT with status "blocked", the reasons, and tokens_spent 0.
 * Pure.
 */
import { HANDSHAKE_VERSION, type TaskDispatch, type TaskResult, majorVersion } from './messages.js';
import type { PeerProfile } from './profile.js';
import { hasKey } from '../planning/state.js';

export type CheckKind = 'protocol' | 'deadline' | 'mcp' | 'capability' | 'dirty_tree';

export interface CheckFailure {
  check: CheckKind;
  reason: string;
}

/** Checks that do not depend on the executor: our protocol major, and the deadline. */
export function checkDispatchItself(d: TaskDispatch, nowMs: number): CheckFailure[] {
  const out: CheckFailure[] = [];
  if (majorVersion(d.protocol_version) !== majorVersion(HANDSHAKE_VERSION)) {
    out.push({ check: 'protocol', reason: `protocol_version ${d.protocol_version} has major ${majorVersion(d.protocol_version)}; this hub speaks ${HANDSHAKE_VERSION} (major versions must match)` });
  }
  if (d.deadline !== undefined) {
    const t = Date.parse(d.deadline);
    if (t <= nowMs) out.push({ check: 'deadline', reason: `deadline ${d.deadline} has already passed (now ${new Date(nowMs).toISOString()})` });
  }
  return out;
}

/** Checks against one executor's profile. */
export function checkAgainstPeer(d: TaskDispatch, p: PeerProfile): CheckFailure[] {
  const out: CheckFailure[] = [];
  if (majorVersion(p.protocol_version) !== majorVersion(d.protocol_version)) {
    out.push({ check: 'protocol', reason: `${p.agent_id} speaks protocol ${p.protocol_version}, the dispatch ${d.protocol_version} (major versions must match)` });
  }
  for (const s of d.requirements?.required_mcp ?? []) {
    const h = hasKey(p.mcp_health, s) ? p.mcp_health[s] : undefined;
    if (h === undefined) out.push({ check: 'mcp', reason: `required MCP server ${s} is not installed on ${p.agent_id}` });
    else if (h !== 'ok') out.push({ check: 'mcp', reason: `required MCP server ${s} is ${h} on ${p.agent_id} (needs "ok")` });
  }
  const missing = (d.requirements?.required_capabilities ?? []).filter((c) => !p.tools.includes(c));
  if (missing.length > 0) out.push({ check: 'capability', reason: `${p.agent_id} lacks capabilit${missing.length === 1 ? 'y' : 'ies'} ${missing.join(', ')}` });
  if ((d.task.mode ?? 'write') === 'write' && !p.repo_state.clean) {
    out.push({ check: 'dirty_tree', reason: `write task to a dirty working tree on ${p.agent_id}${p.repo_state.branch ? ` (branch ${p.repo_state.branch})` : ''}` });
  }
  return out;
}

/** Every check for one executor: the dispatch's own first, then the peer's. */
export function checkDispatch(d: TaskDispatch, p: PeerProfile, nowMs: number): CheckFailure[] {
  return [...checkDispatchItself(d, nowMs), ...checkAgainstPeer(d, p)];
}

/** The TASK_RESULT a failed check produces: blocked at once, nothing spent. */
export function blockedResult(d: TaskDispatch, reasons: string[], agentId?: string): TaskResult {
  return {
    type: 'TASK_RESULT',
    protocol_version: HANDSHAKE_VERSION,
    task_id: d.task.task_id,
    ...(agentId ? { agent_id: agentId } : {}),
    status: 'blocked',
    tokens_spent: 0,
    blocked_reason: reasons.join('; '),
    next_steps: [],
  };
}
