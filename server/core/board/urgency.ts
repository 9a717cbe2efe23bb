/**
 * Which agent a lead should look at first: the one that went silent. Liveness ranks first
 * (unresponsive, stale, deep work, active), then the time since the last check-in, longest first
 * (an agent that never checked in has been silent longest), then the address, so the order is total
 * and the same on every read.
 */
import type { HeartbeatStatus } from '../wire/liveness.js';

/** Liveness from most to least urgent. */
export const URGENCY: readonly HeartbeatStatus[] = ['unresponsive', 'stale', 'deep_work', 'active'];

export interface Urgent {
  address: string;
  heartbeat: HeartbeatStatus;
  /** Null: never checked in. */
  seconds_since_checkin: number | null;
}

/** 0 for unresponsive ... 3 for active. */
export function urgencyRank(h: HeartbeatStatus): number {
  return URGENCY.indexOf(h);
}

/** The board's order: a negative number when `a` needs a look before `b`. */
export function byUrgency(a: Urgent, b: Urgent): number {
  const rank = urgencyRank(a.heartbeat) - urgencyRank(b.heartbeat);
  if (rank !== 0) return rank;
  const sa = a.seconds_since_checkin;
  const sb = b.seconds_since_checkin;
  if (sa !== sb) {
    if (sa === null) return -1;
    if (sb === null) return 1;
    return sb - sa;
  }
  return a.address < b.address ? -1 : a.address > b.address ? 1 : 0;
}
