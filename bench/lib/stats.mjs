/**
 * Timing and formatting helpers shared by the suites and the report.
 *
 * Two clocks: wall time, which is what a user waits, and main-thread CPU
 * time, which is what the code costs. On a shared machine other processes
 * inflate wall time, so ratios between implementations use CPU time where
 * the work is synchronous and in memory. The kernel accounts thread CPU time
 * in scheduler ticks (~4 ms), so it is only precise as a total over a batch
 * of calls: CPU figures are batch means, wall figures medians.
 */

/** Median of a non-empty list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Main-thread CPU time so far (user + system), in ms. */
export function threadCpuMs() {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

/** Wall time of one (possibly async) call, in ms, and its result. */
export async function timed(fn) {
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, result };
}

/**
 * `runs` sequential calls of an async `fn`: median wall ms per call, mean
 * main-thread CPU ms per call over the batch, and the last call's result.
 */
export async function measureRuns(fn, runs) {
  const wallSamples = [];
  let last;
  const cpuStart = threadCpuMs();
  for (let index = 0; index < runs; index += 1) {
    const call = await timed(fn);
    wallSamples.push(call.ms);
    last = call.result;
  }
  return { wallMs: median(wallSamples), cpuMs: (threadCpuMs() - cpuStart) / runs, wallSamples, last };
}

/**
 * A fast synchronous call, repeated until both `minRuns` runs and `minMs` of
 * wall time are reached (a single sub-millisecond call is below either
 * clock's useful resolution): median wall ms and mean CPU ms per call.
 */
export function measureSync(fn, { minRuns = 5, minMs = 300, warmup = 1 } = {}) {
  for (let index = 0; index < warmup; index += 1) fn();
  const wallSamples = [];
  let total = 0;
  const cpuStart = threadCpuMs();
  while (wallSamples.length < minRuns || total < minMs) {
    const start = performance.now();
    fn();
    const ms = performance.now() - start;
    wallSamples.push(ms);
    total += ms;
  }
  return { wallMs: median(wallSamples), cpuMs: (threadCpuMs() - cpuStart) / wallSamples.length, runs: wallSamples.length };
}

/** Milliseconds, with precision that suits the magnitude. */
export function formatMs(ms) {
  if (ms >= 7_200_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  if (ms >= 120_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 1) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(3)} ms`;
}

/** A ratio such as a speed-up: `1234x`, `12.3x`, `1.23x`, `0.0028x`. */
export function formatRatio(ratio) {
  if (!Number.isFinite(ratio)) return 'n/a';
  if (ratio >= 100) return `${ratio.toFixed(0)}x`;
  if (ratio >= 10) return `${ratio.toFixed(1)}x`;
  if (ratio >= 0.1) return `${ratio.toFixed(2)}x`;
  return `${ratio.toPrecision(2)}x`;
}

/** Bytes as MB (10^6), the unit MB/s figures use. */
export function formatMB(bytes) {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/** Empirical scaling exponent k in time ∝ size^k between two measurements. */
export function scalingExponent(small, large) {
  return Math.log(large.ms / small.ms) / Math.log(large.size / small.size);
}
