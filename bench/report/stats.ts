/** Order statistics for benchmark samples: medians of rounds, percentiles of latencies. */

/** The value at quantile `q` (0..1) of `values`, nearest rank; NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** The p50, p95, p99 and maximum of latencies, rounded to `decimals`. */
export const latency = (values: readonly number[], decimals = 0) => ({
  p50: round(quantile(values, 0.5), decimals), p95: round(quantile(values, 0.95), decimals),
  p99: round(quantile(values, 0.99), decimals), max: round(Math.max(...values), decimals),
});

/** `ours / theirs` rounded to two decimals, NaN when either is missing. */
export function ratio(ours: number, theirs: number): number {
  if (!Number.isFinite(ours) || !Number.isFinite(theirs) || theirs === 0) return Number.NaN;
  return round(ours / theirs, 2);
}

export function round(value: number, decimals = 0): number {
  const scale = 10 ** decimals;
  return Math.round(value * scale) / scale;
}

/** Milliseconds elapsed since `start` (a `process.hrtime.bigint()` reading). */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}
