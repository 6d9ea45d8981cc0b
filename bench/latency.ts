/**
 * Latency sampling for the search benchmarks: a measured call and its baseline are run alternately
 * (A, B, A, B, ...) after an untimed warm-up, so a slow spell of this shared machine lands on both
 * sides instead of skewing one; each side reports its median and p95 (nearest rank), and figures
 * are compared as ratios.
 */

export interface LatencyStats {
  samples: number;
  medianMs: number;
  p95Ms: number;
}

export function latencyStats(samplesMs: readonly number[]): LatencyStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
  const mid = sorted.length / 2;
  const median =
    sorted.length === 0
      ? Number.NaN
      : sorted.length % 2 === 1
        ? (sorted[Math.floor(mid)] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { samples: sorted.length, medianMs: median, p95Ms: at(0.95) };
}

/** Time one call. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

/**
 * Run every function `warmup` times untimed, then `rounds` times each, interleaved in order.
 * Returns the stats per function, in the order given.
 */
export async function sampleInterleaved(
  fns: readonly (() => Promise<unknown>)[],
  options: { rounds: number; warmup?: number },
): Promise<LatencyStats[]> {
  const warmup = options.warmup ?? 2;
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn();
  const samples = fns.map(() => [] as number[]);
  for (let r = 0; r < options.rounds; r++) {
    // Alternate the order each round, so neither side always runs right after the other.
    const order = r % 2 === 0 ? fns.map((_, i) => i) : fns.map((_, i) => fns.length - 1 - i);
    for (const i of order) {
      const t = performance.now();
      await (fns[i] as () => Promise<unknown>)();
      (samples[i] as number[]).push(performance.now() - t);
    }
  }
  return samples.map(latencyStats);
}

export const ms = (n: number): string =>
  Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)) : '-';
export const ratio = (a: number, b: number): string =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : '-';
/** "median / p95" of a stats pair, in ms. */
export const medP95 = (s: LatencyStats): string => `${ms(s.medianMs)} / ${ms(s.p95Ms)}`;
