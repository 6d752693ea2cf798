/**
 * Peak-memory measurement. A prepare() over a large source is mostly
 * synchronous between a few awaits, so a timer-based heap sampler would
 * never run during it. Instead the kernel's resident-set high-water mark
 * (VmHWM) is reset just before the measured call and read right after:
 * the difference to the RSS at the reset is the peak extra memory the call
 * needed (heap, garbage not yet collected, and off-heap buffers alike).
 * Linux only; needs --expose-gc for a quiet baseline.
 */
import { readFileSync, writeFileSync } from 'node:fs';

function statusKiB(field) {
  const match = readFileSync('/proc/self/status', 'utf8').match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'));
  if (match === null) throw new Error(`/proc/self/status has no ${field}`);
  return Number(match[1]) * 1024;
}

/** Full collection; the child processes run with --expose-gc. */
function collectGarbage() {
  if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
  globalThis.gc();
  globalThis.gc();
}

/** Peak resident memory added while `fn` runs, in bytes, and its result. */
export async function measurePeak(fn) {
  collectGarbage();
  // Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
  writeFileSync('/proc/self/clear_refs', '5');
  const baseRss = statusKiB('VmRSS');
  const result = await fn();
  return { peakBytes: statusKiB('VmHWM') - baseRss, result };
}
