/** The report: markdown tables (also printed to stdout) and docs/benchmarks.md around them. */
import { DISCOVERY, PREPARE, SCALING, TARGETS } from '../plan.mjs';
import { formatMB, formatMs, formatRatio } from '../lib/stats.mjs';
import { analyze, discoveryFigures, officialGrowth, prepareRows } from './analysis.mjs';

function table(headers, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

const orDash = (value, format) => (value === undefined ? '–' : format(value));

function targetsTable(analysis) {
  return table(['Target', 'Measured', 'Status'], analysis.targets.map((row) => [row.target, row.measured, row.status]));
}

/** `CPU (wall)` for one measured operation. */
const cpuAndWall = (timing) => `${formatMs(timing.cpuMs)} (${formatMs(timing.wallMs)})`;

function prepareTable(prepare) {
  const growth = officialGrowth(prepare);
  const rows = prepareRows(prepare).map((row) => [
    String(row.n),
    formatMB(row.textBytes),
    row.official === undefined ? `not run (~${formatMs(growth.predict(row.n))} extrapolated)` : cpuAndWall(row.official),
    cpuAndWall(row.sessref),
    orDash(row.speedup, formatRatio),
    orDash(row.readSurface, cpuAndWall),
    orDash(row.overReadSurface, formatRatio),
  ]);
  return table(['N', 'source text', 'official CPU (wall)', 'sessref CPU (wall)', 'speed-up', 'host readSurface() CPU (wall)', 'sessref / readSurface'], rows);
}

const queryLabel = (query) => (query === '' ? '(empty)' : `"${query}"`);

function discoveryTable(discovery) {
  const rows = [];
  for (const entry of discovery) {
    for (const query of DISCOVERY.queries) {
      const { sessref, official, reuseSpeedup, warmSpeedup } = discoveryFigures(entry, query);
      const notRun = 'not run';
      rows.push([
        `${entry.count} x ${entry.messages} msg`,
        queryLabel(query),
        official ? `${official.results} / ${sessref.results}` : `– / ${sessref.results}`,
        official ? formatMs(official.coldMs) : notRun,
        formatMs(sessref.buildMs),
        formatMs(sessref.reuseMs),
        official ? formatRatio(reuseSpeedup) : '–',
        official ? formatMs(official.warmMs) : notRun,
        `${formatMs(sessref.warmMs)} (CPU ${formatMs(sessref.warmCpuMs)})`,
        official ? formatRatio(warmSpeedup) : '–',
      ]);
    }
  }
  return table(
    [
      'sessions x messages',
      'query',
      'results (official / sessref)',
      'official cold',
      'sessref (a) index build',
      'sessref (b) fresh process, persisted index',
      'speed-up (b) vs official cold',
      'official warm',
      'sessref (c) warm',
      'speed-up warm',
    ],
    rows,
  );
}

/** The host's own reads a non-empty query needs without an index, per corpus where they ran. */
function hostReadsTable(discovery) {
  const rows = discovery
    .filter((entry) => entry.hostReads)
    .map((entry) => [`${entry.count} x ${entry.messages} msg`, formatMs(entry.rows.host.coldMs), formatMs(entry.rows.host.warmMs)]);
  return table(['sessions x messages', 'first call in a fresh process', 'warm'], rows);
}

/** One line per corpus: the persisted index file's size. */
function indexSizes(discovery) {
  const size = (bytes) => (bytes < 1e6 ? `${(bytes / 1e3).toFixed(0)} KB` : formatMB(bytes));
  return discovery.map((entry) => `${entry.count} sessions: ${size(discoveryFigures(entry, DISCOVERY.queries[0]).sessref.indexBytes)}`).join(', ');
}

function parseTable(parse) {
  const rows = ['sessref', 'official'].map((impl) => {
    const figures = parse.prose[impl];
    return [impl, cpuAndWall(figures), `${figures.mbPerSecond.toFixed(1)} MB/s (${figures.wallMBPerSecond.toFixed(1)} MB/s)`, String(figures.references)];
  });
  return table(['parser', `${parse.proseBytes / 1e6} MB prose CPU (wall)`, 'throughput CPU (wall)', 'mentions found'], rows);
}

function adversarialTable(analysis) {
  const cell = (figure) =>
    figure.measured
      ? `${formatMs(figure.ms)} (${formatRatio(figure.overProse)})`
      : `not run: ~${formatMs(figure.ms)} extrapolated from ${figure.lastMeasured.size / 1024} KiB = ${formatMs(figure.lastMeasured.ms)} (${formatRatio(figure.overProse)})`;
  const exponent = (figure) => orDash(figure.exponent, (value) => value.toFixed(2));
  const rows = analysis.adversarial.map((row) => [
    row.baseline ? `${row.name} (baseline)` : row.name,
    cell(row.sessref),
    exponent(row.sessref),
    cell(row.official),
    exponent(row.official),
  ]);
  return table(['1 MiB input', 'sessref (x prose)', 'sessref exponent', 'official (x prose)', 'official exponent'], rows);
}

/** The tables alone, for the console. */
export function renderTables(results) {
  const analysis = analyze(results);
  return [
    '\nTargets',
    targetsTable(analysis),
    '\n1. prepare(): main-thread CPU per call (median wall time)',
    prepareTable(results.prepare),
    '\n2. discovery: listCandidates(), wall time',
    discoveryTable(results.discovery),
    '',
    hostReadsTable(results.discovery),
    '\n3. parseSessionReferenceText()',
    parseTable(results.parse),
    '',
    adversarialTable(analysis),
    '',
  ].join('\n');
}

function machineSection({ machine, startedAt, durationMs, loadAverageAfter }) {
  const load = (values) => values.map((value) => value.toFixed(2)).join(' / ');
  return [
    `- CPU: ${machine.cpu}, ${machine.cores} cores`,
    `- Memory: ${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB`,
    `- OS: ${machine.os}`,
    `- Node: ${machine.node}`,
    `- Revision: ${machine.revision}`,
    `- Run: ${startedAt}, ${(durationMs / 60000).toFixed(1)} min in total`,
    `- Load average (1/5/15 min) at start: ${load(machine.loadAverage)}; at end: ${load(loadAverageAfter)}`,
  ].join('\n');
}

/** The discovery section: setup, the title index, (a)/(b)/(c), the tables and what they show. */
function discoverySection(discovery, analysis) {
  const [nonEmpty, empty] = DISCOVERY.queries;
  const compared = discovery.filter((entry) => !entry.sessrefOnly);
  const largest = compared.at(-1);
  const atLargest = discoveryFigures(largest, nonEmpty);
  const sizes = discovery.map((entry) => `${entry.count} sessions x ${entry.messages} messages`).join(', ');
  const officialRuns = compared.map((entry) => `${entry.runs} (${entry.count} sessions)`).join(', ');
  const oursOnly = discovery.filter((entry) => entry.sessrefOnly);
  const written = discovery.filter((entry) => !entry.corpus.reused).map((entry) => `${entry.count} sessions in ${formatMs(entry.corpus.writeMs)}`);
  const lines = [];
  lines.push(
    `Sessions persisted by the real JSONL persistence (zstd), each with alternating ~200-char messages and one user title (\`session/title\`): ${sizes}.`,
    'Three working directories; titles rotate over five topics, so the query "migration" matches one session in five.',
    `Each corpus is written once through the host and cached under \`${'$'}TMPDIR/sessref-bench/\`${written.length > 0 ? ` (written in this run: ${written.join(', ')})` : ''}.`,
    'Default candidate limit (50). All figures are wall time, each measurement in a fresh child process over a warm OS page cache.',
    '',
    '**sessref runs with the title index, as the CLI deploys it** (`SessionTitleIndex`, the `@sessref/dsh/title-index` plugin, mounted as `ctx.sessionReferenceCatalog`',
    'between the query engine and the resolver, as packages/host/src/host.ts does). The resolver lists sessions and reads titles through it:',
    '',
    '- every query walks the root and stats each session\'s log (one readdir per directory, one stat per log; no log is opened) and compares size, mtime, ctime and inode with what it indexed;',
    '- only new or changed logs are re-read (through the host\'s `readTitleSnapshots()`), deleted ones drop out; live sessions of the process answer from the store;',
    `- the index persists to a JSON file between processes (here one per corpus under \`${'$'}TMPDIR/sessref-bench/title-index/\`: ${indexSizes(discovery)}).`,
    '',
    'The official plugin has no index: every query lists and reads the corpus through the host. The figures:',
    '',
    `- **official cold**: first call of a freshly booted host; **official warm**: median of the next ${officialRuns} calls on that host.`,
    '- **sessref (a) index build**: the index file is deleted first, so the first call reads every log\'s header and title and writes the file (either query pays it: listing needs the index).',
    '- **sessref (b) fresh process, persisted index**: a new process over the file (a) wrote; its first call loads the file and does the stat walk. This is what a new CLI invocation sees.',
    `- **sessref (c) warm**: median over the next ${[...new Set(discovery.map((entry) => entry.indexRuns))].join(' / ')} calls on each of the hosts of (a) and (b), with the mean main-thread CPU per call in brackets`,
    '  (a mean, so an occasional garbage collection can lift it above the median wall time).',
    '',
    'Speed-ups are the official time over ours: (b) against the official\'s cold call (both fresh processes), (c) against its warm call.',
  );
  const ten = analysis.atTenThousand;
  if (oursOnly.length > 0) {
    const counts = oursOnly.map((entry) => entry.count.toLocaleString('en-US')).join(', ');
    lines.push(
      `At ${counts} sessions only ours runs: the official re-reads every log on every query (${formatMs(atLargest.official.warmMs)} per warm "${nonEmpty}" query at ${largest.count} sessions),` +
        (ten === undefined ? ' so it would take far too long there.' : ` and a non-empty query needs at least what building our index takes there, (a): ${formatMs(ten[nonEmpty].buildMs)}.`),
      `That corpus keeps ${oursOnly.map((entry) => entry.messages).join(', ')} messages per session so that writing it stays within a few minutes.`,
    );
  }
  lines.push('', discoveryTable(discovery), '');
  lines.push(
    'The host\'s own reads that a non-empty query needs without an index (`sessionQuery.listSessions()` plus `readTitleSnapshots()` of every id);',
    `not timed where the official is not run: there they are what building the index, (a), already measures.`,
    '',
    hostReadsTable(discovery),
    '',
  );
  // At 100 sessions both are about a millisecond, below what these wall clocks separate.
  const walks = discovery
    .filter((entry) => entry.count >= 1000)
    .map((entry) => {
      const figures = discoveryFigures(entry, nonEmpty).sessref;
      return `${formatMs(figures.walkMs)} of ${formatMs(figures.warmMs)} at ${entry.count} sessions (bare stat() of every log: ${formatMs(figures.statFloorMs)})`;
    });
  lines.push(
    `- Warm non-empty query at ${largest.count} sessions: **${formatRatio(analysis.warmQuerySpeedup)}** faster than the official (target ${TARGETS.warmQuerySpeedup}x);`,
    `  a new process reusing the index answers its first query ${formatRatio(atLargest.reuseSpeedup)} faster than the official's first call.`,
    `- A warm query is the stat walk plus in-memory work (merging, sorting and filtering the headers). The full walk alone (\`LogFileTracker\` without watching, timed separately on the same hosts, median wall)`,
    `  against the whole warm "${nonEmpty}" query: ${walks.join('; ')}. The walk grows with the number of logs however few changed;`,
    '  the bare stat() figure (one `statSync` per log over path strings built beforehand, nothing else) is the floor any per-query stat of every log pays on this machine.',
  );
  if (ten !== undefined) {
    const perHost = (row) => `${formatMs(row.warmAfterBuildMs)} / ${formatMs(row.warmAfterReuseMs)}`;
    lines.push(
      `- 10,000 sessions: warm "${nonEmpty}" **${formatMs(ten[nonEmpty].warmMs)}**, empty query **${formatMs(ten[empty].warmMs)}** (target < ${TARGETS.tenThousandSessionsMs} ms;` +
        ` on the host that built the index / the one that loaded it: ${perHost(ten[nonEmpty])} and ${perHost(ten[empty])});`,
      `  first call of a fresh process with the persisted index ${formatMs(ten[nonEmpty].reuseMs)} / ${formatMs(ten[empty].reuseMs)}; building the index from nothing ${formatMs(ten[nonEmpty].buildMs)} / ${formatMs(ten[empty].buildMs)}.`,
    );
  }
  return lines.join('\n');
}

/** docs/benchmarks.md */
export function renderMarkdown(results) {
  const analysis = analyze(results);
  const { prepare, parse, parseRuns } = results;
  const throughputs = (impl) => parseRuns.map((run) => run.prose[impl].mbPerSecond.toFixed(1)).join(', ');
  const growth = officialGrowth(prepare);
  const { memory, scaling } = analysis;
  const runs = (impl) => PREPARE[impl].map((size) => `${size.n} x${size.runs}`).join(', ');
  const contextAt = (impl) => `${(prepare[impl][growth.maxN].contextChars / 1000).toFixed(1)} K`;
  return `# Benchmarks

@sessref/dsh against the official \`@deepseek-ai/dsh-session-reference\` (used as a black-box baseline only), measured in the same run on the real dsh host
(cordis \`Context\`, \`SessionStore\`, \`AgentRegistry\`, JSONL persistence where noted, and a \`SessionQueryEngine\` with full-text search disabled; see \`bench/host.mjs\`).
Each implementation is mounted in its own \`Context\`, and every measurement runs in a fresh child process.

Command (from the repository root):

\`\`\`sh
npm run bench    # = tsc -b && node bench/run.mjs
\`\`\`

Machine:

${machineSection(results)}

How time is measured: the machine is shared (a load average above the core count means other processes were
competing for the cores), which inflates and scatters wall time. The prepare() and parsing suites are
synchronous, in-memory work, so they report **main-thread CPU time** (\`process.threadCpuUsage()\`, the
mean over a batch of calls, because the kernel counts it in ~4 ms ticks) and compare implementations on it;
the median wall time is shown in brackets. Discovery reads files through the thread pool, so it reports wall
time and its figures carry the machine's noise; for sessref's warm queries, whose work is synchronous (a stat walk,
then in-memory filtering), the mean main-thread CPU time is shown beside it. Even CPU time moves between runs on a loaded machine
(shared caches, sibling hyperthreads): read a verdict within about 30% of its threshold as uncertain.

## Targets

${targetsTable(analysis)}

## 1. prepare()

One source session of N alternating user/assistant messages of ~1 KB of text each, referenced once under the default budget (65536 bytes).
Sessions are **in memory** (no JSONL persistence), written through the real \`Session.append\`.
Each size runs in a fresh process; CPU is the mean and wall the median over the runs (after a warm-up where there is more than one run): ours ${runs('sessref')}; official ${runs('official')}.
The host's \`readSurface()\` of the same source, which our \`prepare()\` reads the source through, is timed in the same process,
interleaved call by call with our \`prepare()\` (in alternating order), so that both meet the same heap and compiled code.
Both return a context of about the same size (at N = ${growth.maxN}: official ${contextAt('official')} chars, ours ${contextAt('sessref')} chars).

The official side is **not run above N = ${growth.maxN}**: its CPU time grows as N^${growth.exponent.toFixed(2)} (least-squares fit over N = ${growth.sizes.join(', ')}; 2 is quadratic),
so N = 20000 would take ~${formatMs(growth.predict(20000))} and N = 100000 ~${formatMs(growth.predict(100000))}.

${prepareTable(prepare)}

![prepare() time vs N, log-log](benchmarks-prepare.svg)

Speed-up is the official CPU time over ours (above 1: ours is faster).

- Speed-up at N = 4000: **${formatRatio(analysis.speedupAt4000)}**. The host's own readSurface() of that source already costs ${formatMs(prepare.sessref[4000].readSurface.cpuMs)},
  so a prepare() that read the source and did nothing else would be ${formatRatio(analysis.speedupBound)} faster than the official.
- Scaling: N = ${SCALING.small} -> ${SCALING.large} is ${scaling.sizeRatio}x more messages and costs **${formatRatio(scaling.timeRatio)}** the time
  (the host's readSurface() alone: ${formatRatio(scaling.readSurfaceTimeRatio)}).
- At N = ${SCALING.large} (${formatMB(memory.textBytes)} of text): prepare() takes **${formatRatio(analysis.overReadSurface)}** the host's own readSurface() of the same source.
- Peak memory at N = ${SCALING.large}: one prepare() raised the resident set by **${formatMB(memory.preparePeakBytes)}** (${formatRatio(memory.overText)} the source text);
  one bare host readSurface() of the same source raised it by ${formatMB(memory.readSurfacePeakBytes)} (${formatRatio(memory.readSurfaceOverText)}).
  Each figure is the first such call in a fresh process after a full GC, measured as the kernel's resident high-water mark (VmHWM, reset just before the call) minus the resident size at the reset,
  so it covers heap, not-yet-collected garbage and off-heap memory.

The host's read is a floor, not an overhead to optimize away: the contract has \`prepare()\` call
\`ctx.sessionQuery.readSurface()\` once per source, and the host's implementation structured-clones every raw event
of the source's log before folding its surface (\`npm run bench:profile-read\` profiles that call: most of its time goes to
\`structuredClone\` and the garbage collector). No \`prepare()\` that honours the contract can be faster or smaller than that
call, so a target the read alone misses is marked out of reach above.

## 2. Discovery: listCandidates()

${discoverySection(results.discovery, analysis)}

## 3. Mention parsing: parseSessionReferenceText()

${formatMB(parse.proseBytes)} of prose with a canonical mention every ~${parse.mentionEvery} chars (ASCII, so chars = bytes), parsed repeatedly; throughput from CPU time (wall in brackets).
The suite ran in ${parseRuns.length} fresh processes; the tables show the one with our median prose throughput
(ours per process: ${throughputs('sessref')} MB/s; the official's: ${throughputs('official')} MB/s).

${parseTable(parse)}

1 MiB adversarial inputs against 1 MiB of the same prose: CPU time, and in brackets the ratio to the same implementation's prose time.
Every input is run on a ladder of 16 KiB, 64 KiB, 256 KiB and 1 MiB; the exponent is k in time ∝ size^k between the last two measured sizes (1 = linear, 2 = quadratic).
A size whose predicted wall time exceeds 5 s is not run and its time is extrapolated.

${adversarialTable(analysis)}
`;
}
