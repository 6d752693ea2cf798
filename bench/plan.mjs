/**
 * What `npm run bench` measures, in one place. Run counts keep the whole
 * bench within 5-8 minutes on a 2-core machine (plus ~2 minutes once to
 * write the 10,000-session discovery corpus): the official prepare() is
 * quadratic (about 40 s at N = 4000), so its large sizes run once and sizes
 * above 4000 not at all (N = 20000 would take over ten minutes).
 */

/** Suite 1: prepare() sizes per implementation, with run counts. */
export const PREPARE = {
  sessref: [
    // Enough runs that each batch spans well over the CPU clock's ~4 ms ticks, and that
    // the ratio to the host's read, a few milliseconds apart, stands out of the noise.
    { n: 200, runs: 40, warmup: 3 },
    { n: 1000, runs: 40, warmup: 2 },
    { n: 2000, runs: 30, warmup: 1 },
    // 4000 and 5000 anchor targets (speed-up, scaling).
    { n: 4000, runs: 20, warmup: 1 },
    { n: 5000, runs: 20, warmup: 1 },
    { n: 20000, runs: 3, warmup: 1 },
    // ~100 MB of text; also the memory measurement (first call in a fresh process).
    { n: 100000, runs: 3, warmup: 0, memory: 'prepare' },
  ],
  official: [
    { n: 200, runs: 5, warmup: 1 },
    { n: 1000, runs: 3, warmup: 1 },
    { n: 2000, runs: 2, warmup: 0 },
    { n: 4000, runs: 1, warmup: 0 },
  ],
};

/** Largest N the official side runs; the report says why it stops there. */
export const OFFICIAL_MAX_N = 4000;

/** Sizes compared by the scaling target: 20x more messages. */
export const SCALING = { small: 5000, large: 100000 };

/**
 * Suite 2: corpus sizes. `messages` per session (whole exchanges) besides the
 * title; `runs` warm calls per fresh host for the official side and the
 * host's own reads, `indexRuns` for ours (a warm call through the title index
 * takes milliseconds, so more runs cost nothing and steady the median).
 * 10,000 sessions run ours only: the official re-reads every log on every
 * query (about 5 s per query at 1000 sessions, growing with the corpus), and
 * its corpus keeps 4 messages per session so writing it stays within a few
 * minutes (once; it is cached). The host's own reads of every title are not
 * timed there either: they are what building the index costs, (a) below.
 */
export const DISCOVERY = {
  counts: [
    { count: 100, messages: 40, runs: 3, indexRuns: 20 },
    { count: 1000, messages: 40, runs: 2, indexRuns: 20 },
    { count: 10000, messages: 4, indexRuns: 20, sessrefOnly: true, hostReads: false },
  ],
  // A title substring matching one session in five (see suites/corpus.mjs).
  queries: ['migration', ''],
  // Roots are `discovery-<cacheVersion>-<count>`, plus `-<messages>msg` when
  // not the original 40; bump the version when the corpus format changes.
  cacheVersion: 'v1',
  defaultMessages: 40,
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

/**
 * Suite 4: content search (suites/search.mjs) over the discovery corpora of 40 messages
 * per session. `runs` warm calls per series; `sample` sessions read by the baseline, whose
 * full scan is extrapolated (every read lists the whole root, so scanning 1,000 sessions
 * takes ~20 min on this machine, 10,000 would take days).
 */
export const SEARCH = {
  sizes: [
    { count: 1000, messages: 40, runs: 10, sample: 20 },
    { count: 10000, messages: 40, runs: 10, sample: 5 },
  ],
  // The warm figure the target is checked on: the menu's limit, the same query asked again.
  warmTargetMs: 50,
};

/**
 * Suite 5: sessref's own search index (suites/search-index.mjs) over generated sources of
 * `sizes` sessions x 40 messages (`runs` calls per warm series), beside dsh's backend building
 * the discovery corpus at `dshSizes` (its build grows with the square of the corpus: 10,000
 * takes ~27 min, so larger sizes are extrapolated from the growth between these two).
 * `buildSizes` are the sizes the build table reports (sessref's are all measured; dsh's beyond
 * `dshSizes` are extrapolated).
 */
export const SEARCH_INDEX = {
  sizes: [
    { count: 1000, runs: 40 },
    { count: 10000, runs: 40 },
    { count: 100000, runs: 20 },
  ],
  dshSizes: [1000, 2000],
  dshRuns: 5,
  buildSizes: [1000, 10000, 100000],
  // The sizes the targets are checked at.
  targetSize: 10000,
  largeSize: 100000,
};

/**
 * Suite 6 (`--only foreign-list`): listing other agents' sessions with and without the persisted
 * listing cache. `runs` per warm figure; the baselines re-read every transcript and run a fifth as often.
 * `shares` spreads `count` sessions over every agent sessref reads, about as their users' numbers
 * rank them, with at least 500 each so every reader's own figure stands out of the noise;
 * `agentProcessRuns` whole `sessref list --sources <agent>` processes time each reader alone.
 * The corpus is `home-<cacheVersion>-<count>`: bump the version when what it holds changes.
 */
export const FOREIGN_LIST = {
  count: 10_000,
  runs: 15,
  agentProcessRuns: 5,
  cacheVersion: 'v3',
  shares: {
    'claude-code': 1800,
    codex: 1500,
    'gemini-cli': 800,
    opencode: 800,
    kilo: 500,
    pi: 1000,
    'qwen-code': 500,
    copilot: 700,
    cline: 600,
    'factory-droid': 600,
    continue: 500,
    openclaw: 700,
  },
};

/**
 * Suite 7 (`--only fresh`): whole `sessref` processes beside `node -e 0`, `runs` pairs each; the
 * targets are ratios of median CPU time to Node's own start (and peak memory), per corpus.
 */
export const FRESH = {
  runs: 21,
  // Real-shaped dsh roots: the discovery corpus of 40 messages per session at these sizes.
  counts: [2000, 10000],
  // The first search of a root, every derived file built by it (an empty cache directory), `runs`
  // processes each, beside what it is compared with in the same run: dsh's FTS5 backend building
  // its index over the same root, or sessref's index built from generated sessions fed directly.
  firstSearch: [
    { count: 2000, runs: 2, beside: 'dsh' },
    { count: 10000, runs: 1, beside: 'direct' },
  ],
  targets: {
    demoLight: 2.0, // --version, mention, list on the demo root
    demoHeavy: 3.0, // show, a warm search, prepare on the demo root
    twoThousand: 4.0, // list and search over 2,000 sessions, derived files warm
    damagedOverClean: 1.3, // list over the same 2,000 plus one corrupt and one v5 log, against the clean root
    tenThousand: 5.0, // list and search over 10,000 sessions, derived files warm
    mcp: 3.0, // sessref mcp: spawn to the first completion answered, wall time against node's
    firstSearchOverDsh: 0.25, // the first search of 2,000 sessions, wall time against dsh's FTS5 build of them
    firstSearchOverDirect: 3.0, // the first search of 10,000 sessions against sessref's index fed the documents directly
    peakMiB: 150,
  },
};
