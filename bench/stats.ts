/** Statistics shared by the benchmarks (not itself a benchmark: bench-all runs *.bench.ts only). */

/** The median of a sample (the mean of the two middle values for an even count). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
