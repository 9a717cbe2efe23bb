import { describe, expect, it } from 'vitest';
import { TICK_INSET, timeAxis, timeTick } from './series';

const MIN = 60_000;
const at = (iso: string) => Date.parse(iso);

describe('timeAxis: the savings chart x axis', () => {
  // The browser suite's own runs (GSD at NOW-40 min, a review run at NOW+150 s) with NOW 09:57:40:
  // a round 10:30 lies 10 s inside the domain's end, where recharts moved its label 7.6 px left.
  const cases: Array<[string, number, number]> = [
    ['the browser suite at 09:57:40', at('2026-11-23T09:57:40Z') - 2400_000, at('2026-11-23T09:57:40Z') + 150_000],
    ['one run', at('2026-11-23T12:00:00Z'), at('2026-11-23T12:00:00Z')],
    ['runs a day apart', at('2026-11-22T23:59:50Z'), at('2026-11-23T23:59:50Z')],
    ['runs a month apart', at('2026-10-23T00:00:00Z'), at('2026-11-23T00:00:00Z')],
  ];
  // Every minute-offset of the first case's clock across two hours: the edge case is not one instant.
  for (let s = 0; s < 7200; s += 37) cases.push([`the browser suite at +${s}s`, at('2026-11-23T09:00:00Z') + s * 1000 - 2400_000, at('2026-11-23T09:00:00Z') + s * 1000 + 150_000]);

  it.each(cases)('%s: the runs inside, round evenly spaced ticks, none near either end', (_name, first, last) => {
    const { domain, ticks, span } = timeAxis(first, last);
    expect(domain[0]).toBeLessThan(first);
    expect(domain[1]).toBeGreaterThan(last);
    expect(span).toBe(domain[1] - domain[0]);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
    const edge = span * TICK_INSET;
    for (const t of ticks) {
      expect(t - domain[0]).toBeGreaterThanOrEqual(edge);
      expect(domain[1] - t).toBeGreaterThanOrEqual(edge);
      expect(t % MIN).toBe(0);
    }
    const gaps = ticks.slice(1).map((t, i) => t - (ticks[i] as number));
    expect(new Set(gaps).size).toBe(1);
    // Distinct labels: the format fits the step.
    const labels = ticks.map(timeTick(span));
    expect(new Set(labels).size).toBe(labels.length);
  });
});
