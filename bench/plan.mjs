/**
 * What `npm run bench` measures, in one place. Run counts keep the whole
 * bench within 6-10 minutes on a 2-core machine: the official prepare() is
 * quadratic (about 40 s at N = 4000), so its large sizes run once and sizes
 * above 4000 not at all (N = 20000 would take over ten minutes).
 */

/** Suite 1: prepare() sizes per implementation, with run counts. */
export const PREPARE = {
  sessref: [
    // Enough runs that each batch spans well over the CPU clock's ~4 ms ticks.
    { n: 200, runs: 40, warmup: 3 },
    { n: 1000, runs: 15, warmup: 2 },
    { n: 2000, runs: 8, warmup: 1 },
    // 4000 and 5000 anchor targets (speed-up, scaling): more runs against noise.
    { n: 4000, runs: 12, warmup: 1 },
    { n: 5000, runs: 12, warmup: 1 },
    { n: 20000, runs: 3, warmup: 1 },
    // ~100 MB of text; also the memory measurement (first call in a fresh process).
    { n: 100000, runs: 3, warmup: 0, memory: 'prepare' },
  ],
  official: [
    { n: 200, runs: 5, warmup: 1 },
    { n: 1000, runs: 3, warmup: 1 },
    { n: 2000, runs: 1, warmup: 0 },
    { n: 4000, runs: 1, warmup: 0 },
  ],
};

/** Largest N the official side runs; the report says why it stops there. */
export const OFFICIAL_MAX_N = 4000;

/** Sizes compared by the scaling target: 20x more messages. */
export const SCALING = { small: 5000, large: 100000 };

/** Suite 2: corpus sizes and warm repeats per freshly booted host. */
export const DISCOVERY = {
  counts: [
    { count: 100, runs: 3 },
    { count: 1000, runs: 2 },
  ],
  // A title substring matching one session in five (see suites/corpus.mjs).
  queries: ['migration', ''],
  cacheVersion: 'v1',
};

/** Targets from the issue, checked by the report. */
export const TARGETS = {
  speedupAt4000: 1000,
  scalingTimeRatio: 25,
  prepareOverReadSurface: 2,
  peakMemoryOverText: 3,
  warmQuerySpeedup: 300,
  tenThousandSessionsMs: 50,
  parseMBps: 100,
  // "Same order" as 1 MB of prose: less than 10x its time.
  adversarialOverProse: 10,
};
