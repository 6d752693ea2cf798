/**
 * Milliseconds on a clock that only moves forward, for spans within one
 * process (deadlines, throttles, progress). `performance.now()` reads the same
 * clock, but the first use of that global loads Node's perf_hooks, which a
 * fresh process pays about a millisecond for.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
