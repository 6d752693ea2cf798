/**
 * Section 5 of docs/benchmarks.md: sessref's own search index
 * (suites/search-index.mjs) beside dsh's SQLite FTS5 backend (suites/search.mjs).
 */
import { SEARCH_INDEX } from '../plan.mjs';
import { spliceSection } from './search.mjs';

const SEARCH_INDEX_HEADING = '## 5. sessref\'s search index: build, re-index, warm and first queries, size';

function seconds(ms) {
  if (ms >= 7_200_000) return `${(ms / 3_600_000).toFixed(0)} h`;
  return ms >= 60_000 ? `${(ms / 60_000).toFixed(1)} min` : `${(ms / 1000).toFixed(1)} s`;
}
const millis = (ms) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const megabytes = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;
const count = (n) => n.toLocaleString('en-US');
const verdict = (met) => (met ? 'met' : '**not met**');

/** Growth exponent k of t = a * n^k through two measured points. */
function exponent([n1, t1], [n2, t2]) {
  return Math.log(t2 / t1) / Math.log(n2 / n1);
}

/** `t` at `n`, extrapolated from the measured point `[n0, t0]` with exponent `k`. */
function extrapolate([n0, t0], k, n) {
  return t0 * (n / n0) ** k;
}

/** Build times at every planned size from `[sessions, ms]` points: measured where run, else extrapolated from the last two measured sizes. */
function builds(measured) {
  const k = exponent(measured.at(-2), measured.at(-1));
  return SEARCH_INDEX.buildSizes.map((n) => {
    const found = measured.find(([size]) => size === n);
    return found ? { n, ms: found[1], measured: true } : { n, ms: extrapolate(measured.at(-1), k, n), measured: false, k };
  });
}

const ourBuilds = (sizes) => builds(sizes.map(({ count: n, build }) => [n, build.buildMs]));
const dshBuilds = (dsh) => builds(dsh.map(({ count: n, build }) => [n, build.buildMs]));

const cell = ({ ms, measured, k }) => (measured ? seconds(ms) : `~${seconds(ms)} (extrapolated, n^${k.toFixed(2)})`);

function buildTable(results) {
  const ours = ourBuilds(results.sizes);
  const theirs = dshBuilds(results.dsh);
  const rows = ours.map((our, at) => {
    const size = results.sizes.find(({ count: n }) => n === our.n);
    const change = size ? `${millis(median(size.build.changeMs))} (max ${millis(Math.max(...size.build.changeMs))})` : 'n/a';
    const reads = size ? seconds(size.build.sourceReadMs) : 'n/a';
    const bytes = size ? `${megabytes(size.build.indexBytes)} / ${megabytes(size.build.carriedBytes)} (${(size.build.indexBytes / size.build.carriedBytes).toFixed(2)}x)` : 'n/a';
    return `| ${count(our.n)} x 40 msg | ${cell(our)} | ${reads} | ${cell(theirs[at])} | ${change} | ${bytes} |`;
  });
  return [
    '| sessions | sessref index build | reading the source alone (included in the build) | dsh backend build, same corpus shape | one changed session re-indexed (median of 9) | index size / carried text |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function warmTable(results) {
  const rows = [];
  for (const { count: n, build } of results.sizes) {
    for (const key of Object.keys(build.warm)) {
      const [language, limit] = key.split('-');
      const { repeated, fresh } = build.warm[key];
      const dsh = language === 'en' ? results.dsh.find(({ count: size }) => size === n)?.build.warm?.[limit] : undefined;
      const theirs = dsh ? `${millis(dsh.repeated.wallMs)} / ${millis(dsh.fresh.wallMs)}` : language === 'en' ? 'not run at this size' : 'does not apply (no CJK substrings)';
      rows.push(
        `| ${count(n)} | ${language === 'en' ? 'English' : 'Japanese'} | ${limit} | ${millis(repeated.p50)} / ${millis(repeated.p95)} | ${millis(fresh.p50)} / ${millis(fresh.p95)} (${fresh.meanHits.toFixed(1)} hits) | ${theirs} |`,
      );
    }
  }
  return [
    '| sessions | language | limit | repeated phrase p50 / p95 | fresh phrases p50 / p95 (mean hits) | dsh backend, repeated / fresh p50 (median of its runs) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function firstTable(results) {
  return [
    '| sessions | first query, total | load the package (node:sqlite) | open | catch-up refresh (nothing changed) | search | dsh backend, first search of a fresh process |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...results.sizes.map(({ count: n, first }) => {
      const dsh = results.dsh.find(({ count: size }) => size === n)?.reuse;
      return `| ${count(n)} | ${millis(first.totalMs)} | ${millis(first.loadMs)} | ${millis(first.openMs)} | ${millis(first.catchUpMs)} | ${millis(first.searchMs)} | ${dsh ? millis(dsh.firstMs) : 'not run at this size'} |`;
    }),
  ].join('\n');
}

function targetsTable(results) {
  const large = results.sizes.find(({ count: n }) => n === SEARCH_INDEX.targetSize);
  const hundredK = ourBuilds(results.sizes).find(({ n }) => n === 100_000);
  const warmP50s = Object.values(large.build.warm).flatMap(({ repeated, fresh }) => [repeated.p50, fresh.p50]);
  const worstWarm = Math.max(...warmP50s);
  const largest = results.sizes.find(({ count: n }) => n === SEARCH_INDEX.largeSize);
  const worstLargeWarm = largest && Math.max(...Object.values(largest.build.warm).flatMap(({ repeated, fresh }) => [repeated.p50, fresh.p50]));
  const worstChange = median(large.build.changeMs);
  const worstRatio = Math.max(...results.sizes.map(({ build }) => build.indexBytes / build.carriedBytes));
  return [
    '| Target | Measured |',
    '| --- | --- |',
    `| build 10,000 sessions <= 60 s | ${seconds(large.build.buildMs)}: ${verdict(large.build.buildMs <= 60_000)} |`,
    `| build 100,000 sessions <= 10 min | ${cell(hundredK)}: ${verdict(hundredK.ms <= 600_000)}${hundredK.measured ? '' : ' (extrapolated)'} |`,
    `| one changed session <= 50 ms | ${millis(worstChange)} median at 10,000: ${verdict(worstChange <= 50)} |`,
    `| warm p50 <= 15 ms at 10,000, limits 8 and 50, English and Japanese, repeated and fresh | worst of the 8 series ${millis(worstWarm)}: ${verdict(worstWarm <= 15)} |`,
    largest
      ? `| warm p50 <= 50 ms at 100,000, limits 8 and 50, English and Japanese, repeated and fresh | worst of the 8 series ${millis(worstLargeWarm)}: ${verdict(worstLargeWarm <= 50)} |`
      : '| warm p50 <= 50 ms at 100,000 | not run |',
    `| first query of a fresh process at 10,000 <= 300 ms | ${millis(large.first.totalMs)}: ${verdict(large.first.totalMs <= 300)} |`,
    `| index size <= carried text | worst ${worstRatio.toFixed(2)}x: ${verdict(worstRatio <= 1)} |`,
  ].join('\n');
}

/** The markdown section of one run. */
export function searchIndexSection(results, machine) {
  return `${SEARCH_INDEX_HEADING}

Command (only this suite; it splices this section into docs/benchmarks.md and leaves the others as they are):

\`\`\`sh
npm run bench -- --only search-index
\`\`\`

**sessref**: \`openSearchIndex\` from \`@sessref/search-index\` (packages/search-index/README.md) over a generated in-memory source
(\`suites/search-index.mjs\`): N sessions x 40 alternating ~200-char messages of the discovery corpus's vocabulary (\`lib/text.mjs\`), each session from its own seed,
plus one Japanese sentence appended to every fourth message so that CJK queries have text to find. Every figure is one child process; the index file is new for the build.
**dsh backend**: dsh's \`SqliteSessionQueryEngine\` (unicode61 FTS5) switched on and building its index over the discovery corpus (\`suites/corpus.mjs\`, the same shape, English only, JSONL on disk,
in the real host, \`suites/search.mjs --mode dsh\`), measured at ${SEARCH_INDEX.dshSizes.map(count).join(' and ')} sessions and extrapolated beyond
from its growth between them (stated as such; a direct build at 10,000 took 26.7 min on 2026-12-03). Its warm figures are its own \`searchSessions\` (limit 8 or 50), median of its runs; its hits are not checked against what a snapshot carries.

- **build**: a refresh from an empty index: every session read, projected (the core's \`projectMessage\`), tokenized and written, 64 sessions per transaction.
- **one changed session**: one session's stamp and text changed, then \`refresh()\`: stamps compared for every session, the changed one read and re-indexed alone (its rows deleted by key).
- **warm**: the process that built the index; repeated phrase = the same query every call ("deploy snapshot" / "検索の結果", a few percent of sessions),
  fresh phrases = a different three-word phrase each call (English: three corpus words; Japanese: \`AのBをC\`), each found in a few sessions or none.
- **first query**: a new process over the persisted file, as a one-shot \`sessref search\`: import the package (and \`node:sqlite\`), open, refresh (nothing changed), one search at limit 8.
- **size**: the index file after close (WAL folded in) against the UTF-8 bytes of the carried text it indexes.

${targetsTable(results)}

${buildTable(results)}

${warmTable(results)}

${firstTable(results)}

Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.node}, load average ${machine.loadAverage.map((value) => value.toFixed(2)).join(' / ')} at start
(above 2 means other processes competed for the cores); run ${machine.startedAt}, revision ${machine.revision}.
`;
}

/** Replace section 5 in `markdown` (or append it). */
export function spliceSearchIndexSection(markdown, section) {
  return spliceSection(markdown, SEARCH_INDEX_HEADING, section);
}
