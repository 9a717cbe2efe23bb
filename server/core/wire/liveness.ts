/**
 * Agent liveness from agent.heartbeat, in one place so the wire reducers, the check-in feature and
 * the Studio classify the same heartbeat the same way.
 */

export type HeartbeatStatus = 'active' | 'deep_work' | 'stale' | 'unresponsive';

export interface HeartbeatThresholds {
  /** Younger than this: active. Default 120 s. */
  activeMs: number;
  /** From activeMs up to this: deep work (a long tool call, a long think). Default 300 s. */
  deepWorkMs: number;
  /** Over deepWorkMs up to this: stale; over this: unresponsive. Default 600 s. */
  unresponsiveMs: number;
}

export const DEFAULT_HEARTBEAT_THRESHOLDS: Readonly<HeartbeatThresholds> = Object.freeze({
  activeMs: 120_000,
  deepWorkMs: 300_000,
  unresponsiveMs: 600_000,
});

/**
 * Classify an agent by the age of its last heartbeat:
 * active under 120 s, deep work from 120 s to 300 s, stale over 300 s, unresponsive over 600 s
 * (the thresholds are parameters). No heartbeat at all (null/undefined) is unresponsive. A heartbeat
 * stamped in the future (clock skew) counts as fresh.
 */
export function heartbeatStatus(
  lastHeartbeatMs: number | null | undefined,
  nowMs: number,
  thresholds: Partial<HeartbeatThresholds> = {},
): HeartbeatStatus {
  const t = { ...DEFAULT_HEARTBEAT_THRESHOLDS, ...thresholds };
  if (lastHeartbeatMs === null || lastHeartbeatMs === undefined || !Number.isFinite(lastHeartbeatMs)) return 'unresponsive';
  const age = nowMs - lastHeartbeatMs;
  if (age < t.activeMs) return 'active';
  if (age <= t.deepWorkMs) return 'deep_work';
  if (age <= t.unresponsiveMs) return 'stale';
  return 'unresponsive';
}

/**
 * Thresholds from the environment, in seconds: HEIMDALL_HEARTBEAT_ACTIVE_S,
 * HEIMDALL_HEARTBEAT_DEEP_WORK_S, HEIMDALL_HEARTBEAT_UNRESPONSIVE_S. Values that are not positive
 * numbers, or that would put the thresholds out of order, are ignored (the defaults stand).
 */
export function heartbeatThresholdsFromEnv(env: Record<string, string | undefined>): HeartbeatThresholds {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const s = Number(raw);
    return Number.isFinite(s) && s > 0 ? Math.round(s * 1000) : fallback;
  };
  const t: HeartbeatThresholds = {
    activeMs: read('HEIMDALL_HEARTBEAT_ACTIVE_S', DEFAULT_HEARTBEAT_THRESHOLDS.activeMs),
    deepWorkMs: read('HEIMDALL_HEARTBEAT_DEEP_WORK_S', DEFAULT_HEARTBEAT_THRESHOLDS.deepWorkMs),
    unresponsiveMs: read('HEIMDALL_HEARTBEAT_UNRESPONSIVE_S', DEFAULT_HEARTBEAT_THRESHOLDS.unresponsiveMs),
  };
  if (!(t.activeMs <= t.deepWorkMs && t.deepWorkMs <= t.unresponsiveMs)) return { ...DEFAULT_HEARTBEAT_THRESHOLDS };
  return t;
}
