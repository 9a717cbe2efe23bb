/**
 * Savings over time, for the chart: one point per run that has a baseline, at the time the run was
 * measured, with each role's saving exactly as the core computed it for that run (each run against
 * its own baseline). Presentation only: nothing is summed or divided here.
 */
import type { RunSummary } from './types';

export interface TimePoint {
  /** When the run was measured, ms since the epoch (the x axis). */
  t: number;
  run: string;
  label: string;
  /** Per role: the saving in percent (positive is a saving). */
  saved: Record<string, number>;
}

export function savingsOverTime(runs: RunSummary[]): { points: TimePoint[]; roles: string[] } {
  const points: TimePoint[] = [];
  const roles = new Set<string>();
  for (const r of runs) {
    const t = Date.parse(r.at);
    if (Number.isNaN(t) || Object.keys(r.saved).length === 0) continue;
    for (const role of Object.keys(r.saved)) roles.add(role);
    points.push({ t, run: r.run, label: r.label, saved: r.saved });
  }
  points.sort((a, b) => a.t - b.t || a.run.localeCompare(b.run));
  return { points, roles: [...roles].sort() };
}

const MINUTE = 60_000;
const STEPS = [1, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 2880, 10080, 20160, 43200, 129600, 525600].map((m) => m * MINUTE);

/** Evenly spaced round times (every 5 min, hour, day, ...) across [from, to], at most `max` of them. */
export function timeTicks(from: number, to: number, max = 6): number[] {
  const step = STEPS.find((s) => (to - from) / s <= max) ?? (STEPS.at(-1) as number);
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** The share of the axis kept free of ticks at each end, so no label has to be moved to fit. */
export const TICK_INSET = 0.07;

/**
 * The x axis of the chart: a domain around the runs and round-time ticks inside it. A single run, or
 * runs seconds apart, still get a readable stretch of axis. No tick lies within TICK_INSET of either
 * end: a label there would overflow the chart, and the charting library would then draw it away from
 * its time (the last label moved left), which breaks the even spacing a time axis promises.
 */
export function timeAxis(first: number, last: number): { domain: [number, number]; ticks: number[]; span: number } {
  const span = last - first;
  const pad = Math.max(span * 0.08, 30 * MINUTE);
  const domain: [number, number] = [first - pad, last + pad];
  const inset = (domain[1] - domain[0]) * TICK_INSET;
  return { domain, ticks: timeTicks(domain[0] + inset, domain[1] - inset), span: domain[1] - domain[0] };
}

/** Axis ticks: the time of day when every run falls within two days, else the date (UTC). */
export function timeTick(span: number): (t: number) => string {
  return (t: number) => {
    const iso = new Date(t).toISOString();
    return span <= 2 * 86_400_000 ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
  };
}
