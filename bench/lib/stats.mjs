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
 * main-thread CPU ms per call, and the last call's result.
 */
export async function measureRuns(fn, runs) {
  return (await measureInterleaved({ fn }, runs)).fn;
}

/**
 * `runs` rounds that call every operation once, in reverse order every other
 * round, so that each operation meets the same heap and compiled code as the
 * others: per operation, median wall ms, mean main-thread CPU ms per call
 * (clock ticks fall on either side of a call boundary at random, so they
 * average out over the rounds) and the last result.
 * @param {Record<string, () => Promise<unknown>>} operations
 */
export async function measureInterleaved(operations, runs) {
  const names = Object.keys(operations);
  const tallies = Object.fromEntries(names.map((name) => [name, { wallSamples: [], cpuMs: 0, last: undefined }]));
  for (let round = 0; round < runs; round += 1) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const tally = tallies[name];
      const cpuStart = threadCpuMs();
      const call = await timed(operations[name]);
      tally.cpuMs += threadCpuMs() - cpuStart;
      tally.wallSamples.push(call.ms);
      tally.last = call.result;
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const { wallSamples, cpuMs, last } = tallies[name];
      return [name, { wallMs: median(wallSamples), cpuMs: cpuMs / runs, wallSamples, last }];
    }),
  );
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

/**
 * Least-squares fit of time ∝ size^k over measurements: the exponent k and
 * the prediction at any size. Sturdier than two points when one run was slow.
 */
export function fitPowerLaw(points) {
  const xs = points.map((point) => Math.log(point.size));
  const ys = points.map((point) => Math.log(point.ms));
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  for (let index = 0; index < xs.length; index += 1) {
    covariance += (xs[index] - meanX) * (ys[index] - meanY);
    variance += (xs[index] - meanX) ** 2;
  }
  const exponent = covariance / variance;
  return { exponent, predict: (size) => Math.exp(meanY + exponent * (Math.log(size) - meanX)) };
}

/** Empirical scaling exponent k in time ∝ size^k between two measurements. */
export function scalingExponent(small, large) {
  return Math.log(large.ms / small.ms) / Math.log(large.size / small.size);
}
