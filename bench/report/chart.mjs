/** docs/benchmarks-prepare.svg: suite 1 as time vs N on log-log axes. */
import { logLogChart } from './svg.mjs';
import { officialGrowth } from './analysis.mjs';

/** [N, main-thread CPU ms] of one operation across sizes. */
function points(byN, operation) {
  return Object.values(byN)
    .filter((result) => result[operation] !== undefined)
    .map((result) => [result.n, result[operation].cpuMs])
    .sort(([a], [b]) => a - b);
}

export function prepareChart(prepare) {
  const growth = officialGrowth(prepare);
  return logLogChart({
    title: 'prepare() of one source, default 64 KiB budget (log-log)',
    xLabel: 'messages in the source (N, ~1 KB each)',
    yLabel: 'main-thread CPU time per call',
    note: `official not run above N = ${growth.maxN}: it grows as N^${growth.exponent.toFixed(1)}`,
    series: [
      { label: '@deepseek-ai/dsh-session-reference (official)', color: '#d62728', marker: 'circle', points: points(prepare.official, 'prepare') },
      { label: '@sessref/dsh', color: '#1f5fbf', marker: 'square', points: points(prepare.sessref, 'prepare') },
      { label: "host's own sessionQuery.readSurface()", color: '#777777', marker: 'none', dashed: true, points: points(prepare.sessref, 'readSurface') },
    ],
  });
}
