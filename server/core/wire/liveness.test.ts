import { describe, expect, it } from 'vitest';
import { DEFAULT_HEARTBEAT_THRESHOLDS, heartbeatStatus, heartbeatThresholdsFromEnv } from './liveness.js';

const NOW = Date.parse('2026-05-01T16:00:00Z');
const ago = (s: number) => NOW - s * 1000;

describe('heartbeatStatus', () => {
  it('classifies by age: active < 120 s, deep work 120-300 s, stale > 300 s, unresponsive > 600 s', () => {
    expect(heartbeatStatus(ago(0), NOW)).toBe('active');
    expect(heartbeatStatus(ago(119.999), NOW)).toBe('active');
    expect(heartbeatStatus(ago(120), NOW)).toBe('deep_work');
    expect(heartbeatStatus(ago(300), NOW)).toBe('deep_work');
    expect(heartbeatStatus(ago(300.001), NOW)).toBe('stale');
    expect(heartbeatStatus(ago(600), NOW)).toBe('stale');
    expect(heartbeatStatus(ago(600.001), NOW)).toBe('unresponsive');
    expect(heartbeatStatus(ago(86_400), NOW)).toBe('unresponsive');
  });

  it('treats a missing heartbeat as unresponsive and a future one (clock skew) as active', () => {
    expect(heartbeatStatus(null, NOW)).toBe('unresponsive');
    expect(heartbeatStatus(undefined, NOW)).toBe('unresponsive');
    expect(heartbeatStatus(NOW + 5000, NOW)).toBe('active');
  });

  it('takes configurable thresholds, partially', () => {
    expect(heartbeatStatus(ago(30), NOW, { activeMs: 10_000 })).toBe('deep_work');
    expect(heartbeatStatus(ago(30), NOW, { activeMs: 10_000, deepWorkMs: 20_000 })).toBe('stale');
    expect(heartbeatStatus(ago(30), NOW, { activeMs: 10_000, deepWorkMs: 20_000, unresponsiveMs: 25_000 })).toBe('unresponsive');
  });

  it('reads thresholds in seconds from the environment and ignores nonsense', () => {
    expect(heartbeatThresholdsFromEnv({})).toEqual(DEFAULT_HEARTBEAT_THRESHOLDS);
    expect(heartbeatThresholdsFromEnv({ HEIMDALL_HEARTBEAT_ACTIVE_S: '60', HEIMDALL_HEARTBEAT_DEEP_WORK_S: '90', HEIMDALL_HEARTBEAT_UNRESPONSIVE_S: '100' })).toEqual({
      activeMs: 60_000,
      deepWorkMs: 90_000,
      unresponsiveMs: 100_000,
    });
    expect(heartbeatThresholdsFromEnv({ HEIMDALL_HEARTBEAT_ACTIVE_S: 'soon' })).toEqual(DEFAULT_HEARTBEAT_THRESHOLDS);
    // Out of order: active later than deep work.
    expect(heartbeatThresholdsFromEnv({ HEIMDALL_HEARTBEAT_ACTIVE_S: '400' })).toEqual(DEFAULT_HEARTBEAT_THRESHOLDS);
  });
});
