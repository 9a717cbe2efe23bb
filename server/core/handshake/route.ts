/**
 * Routing: given a dispatch and the live profiles, choose an executor. A peer qualifies when every
 * dispatch check passes against it (healthy required MCP servers, capabilities, clean tree for a
 * write task, same protocol major) and its model tier matches the priority. Among qualifying peers
 * the one with the fewest active tasks wins; ties go to the tier listed first for the priority,
 * then to the agent id. Pure.
 */
import { type CheckFailure, checkAgainstPeer } from './checks.js';
import type { Priority, TaskDispatch } from './messages.js';
import type { PeerProfile } from './profile.js';

/** Model tiers acceptable per priority, preferred first. Overridable in .planning/handshake/routing.json. */
export const DEFAULT_PRIORITY_TIERS: Record<Priority, string[]> = {
  urgent: ['opus', 'sonnet'],
  high: ['opus', 'sonnet'],
  normal: ['sonnet', 'opus', 'haiku'],
  low: ['haiku', 'sonnet'],
};

export interface Candidate {
  agent_id: string;
  model_tier: string;
  /** Active tasks: the announced count plus tasks routed to it since that announce. */
  load: number;
  qualifies: boolean;
  reasons: string[];
}

export interface RouteDecision {
  executor: string | null;
  /** Every peer considered, best first among the qualifying ones. */
  candidates: Candidate[];
  /** One line: why this executor, or why nobody. */
  reason: string;
}

export interface RouteOptions {
  load: (peer: PeerProfile) => number;
  /** Peers that already blocked this task. */
  exclude?: ReadonlySet<string>;
  priorityTiers?: Record<Priority, string[]>;
}

export function route(d: TaskDispatch, peers: PeerProfile[], opts: RouteOptions): RouteDecision {
  const tiers = (opts.priorityTiers ?? DEFAULT_PRIORITY_TIERS)[d.task.priority];
  const candidates: Candidate[] = peers.map((p) => {
    const reasons: string[] = [];
    if (opts.exclude?.has(p.agent_id)) reasons.push(`${p.agent_id} already blocked this task`);
    if (!tiers.includes(p.model_tier)) reasons.push(`model tier ${p.model_tier} does not match priority ${d.task.priority} (accepted: ${tiers.join(', ')})`);
    reasons.push(...checkAgainstPeer(d, p).map((f: CheckFailure) => f.reason));
    return { agent_id: p.agent_id, model_tier: p.model_tier, load: opts.load(p), qualifies: reasons.length === 0, reasons };
  });
  const rank = (c: Candidate) => tiers.indexOf(c.model_tier);
  candidates.sort((a, b) => Number(b.qualifies) - Number(a.qualifies) || a.load - b.load || rank(a) - rank(b) || a.agent_id.localeCompare(b.agent_id));
  const best = candidates[0];
  if (best?.qualifies) {
    const others = candidates.filter((c) => c.qualifies).length - 1;
    return {
      executor: best.agent_id,
      candidates,
      reason: `${best.agent_id} (${best.model_tier}, ${best.load} active task${best.load === 1 ? '' : 's'}) qualifies${others > 0 ? ` with the fewest active tasks of ${others + 1} qualifying peers` : ''}`,
    };
  }
  return {
    executor: null,
    candidates,
    reason: peers.length === 0 ? 'no peer has announced itself (SESSION_ANNOUNCE)' : `no peer qualifies: ${candidates.map((c) => `${c.agent_id}: ${c.reasons.join(', ')}`).join('; ')}`,
  };
}
