/**
 * `npm run bench`: measures @sessref/dsh against the official
 * @deepseek-ai/dsh-session-reference in the same run, prints the tables and
 * writes docs/benchmarks.md plus docs/benchmarks-prepare.svg.
 *
 * Every measurement runs in its own child process (see lib/child.mjs);
 * this process only schedules them and writes the report.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CACHE_DIR as CACHE } from './lib/cache.mjs';
import { machineInfo } from './lib/machine.mjs';
import { progress, runSuite } from './lib/child.mjs';
import { DISCOVERY, FOREIGN_LIST, PREPARE, SCALING, SEARCH, SEARCH_INDEX } from './plan.mjs';
import { renderMarkdown, renderTables } from './report/markdown.mjs';
import { prepareChart } from './report/chart.mjs';
import { searchSection, searchTables, spliceSearchSection } from './report/search.mjs';
import { searchIndexSection, spliceSearchIndexSection } from './report/search-index.mjs';
import { foreignListSection, spliceForeignListSection } from './report/foreign-list.mjs';
import { freshSection, spliceFreshSection } from './report/fresh.mjs';
import { runFresh } from './fresh.mjs';

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

async function runPrepare() {
  const results = { sessref: {}, official: {} };
  for (const [impl, sizes] of Object.entries(PREPARE)) {
    for (const { n, runs, warmup, memory } of sizes) {
      // Our side also times the host's readSurface() at every N, as the floor prepare() builds on.
      const args = ['--impl', impl, '--n', n, '--runs', runs, '--warmup', warmup, '--host', impl === 'sessref' ? 1 : 0];
      results[impl][n] = await runSuite('prepare', memory === undefined ? args : [...args, '--memory', memory]);
    }
  }
  // The host's own peak for one readSurface(), measured first in a fresh process like ours.
  const n = SCALING.large;
  results.readSurfaceMemory = await runSuite('prepare', ['--impl', 'sessref', '--n', n, '--runs', 0, '--memory', 'readSurface']);
  return results;
}

/** Cached corpus root of one size (see DISCOVERY.cacheVersion). */
function corpusRoot({ count, messages }) {
  const suffix = messages === DISCOVERY.defaultMessages ? '' : `-${messages}msg`;
  return join(CACHE, `discovery-${DISCOVERY.cacheVersion}-${count}${suffix}`);
}

async function runDiscovery() {
  const results = [];
  mkdirSync(CACHE, { recursive: true });
  for (const size of DISCOVERY.counts) {
    const { count, messages, runs, indexRuns, sessrefOnly = false, hostReads = true } = size;
    const root = corpusRoot(size);
    const corpus = await runSuite('corpus', ['--root', root, '--count', count, '--messages', messages]);
    const rows = { sessref: {}, official: {} };
    if (hostReads) rows.host = await runSuite('discovery', ['--impl', 'host', '--root', root, '--runs', runs]);
    for (const query of DISCOVERY.queries) {
      const args = ['--impl', 'sessref', '--root', root, '--runs', indexRuns, '--query', query];
      // (a) no persisted index: the first call builds it; (b) a new process reusing the file (a) wrote.
      const build = await runSuite('discovery', [...args, '--index', 'build']);
      const reuse = await runSuite('discovery', [...args, '--index', 'reuse']);
      rows.sessref[query] = { build, reuse };
    }
    if (!sessrefOnly) {
      for (const query of DISCOVERY.queries) {
        rows.official[query] = await runSuite('discovery', ['--impl', 'official', '--root', root, '--runs', runs, '--query', query]);
      }
    }
    results.push({ ...size, sessrefOnly, hostReads, corpus, rows });
  }
  return results;
}

/**
 * Suite 4: per corpus size, (a) a server-like process builds the derived index and answers
 * warm queries, (b) a fresh one-shot process reuses it, (c) the official baseline, sampled.
 */
async function runSearch() {
  const results = [];
  mkdirSync(join(CACHE, 'search-index'), { recursive: true });
  for (const size of SEARCH.sizes) {
    const { count, messages, runs, sample } = size;
    const root = corpusRoot({ count, messages });
    const corpus = await runSuite('corpus', ['--root', root, '--count', count, '--messages', messages]);
    const index = join(CACHE, 'search-index', `${root.split('/').pop()}.sqlite`);
    const args = ['--root', root, '--index', index, '--runs', runs];
    const build = await runSuite('search', ['--mode', 'build', '--watch', 1, ...args]);
    const reuse = await runSuite('search', ['--mode', 'reuse', '--watch', 0, ...args.slice(0, -2), '--runs', 1]);
    const baseline = await runSuite('search', ['--mode', 'baseline', '--sample', sample, ...args]);
    results.push({ ...size, corpus, build, reuse, baseline });
  }
  return results;
}

/**
 * Suite 5: sessref's own search index over generated sources (build, re-index, warm, size; then a
 * fresh process's first query), beside dsh's backend building the discovery corpus at smaller sizes.
 */
async function runSearchIndex() {
  const directory = join(CACHE, 'search-index');
  mkdirSync(directory, { recursive: true });
  const sizes = [];
  for (const { count, runs } of SEARCH_INDEX.sizes) {
    const index = join(directory, `generated-${count}.sqlite`);
    const build = await runSuite('search-index', ['--mode', 'build', '--count', count, '--index', index, '--runs', runs]);
    const first = await runSuite('search-index', ['--mode', 'first', '--count', count, '--index', index]);
    sizes.push({ count, build, first });
  }
  const dsh = [];
  for (const count of SEARCH_INDEX.dshSizes) {
    const root = corpusRoot({ count, messages: DISCOVERY.defaultMessages });
    await runSuite('corpus', ['--root', root, '--count', count, '--messages', DISCOVERY.defaultMessages]);
    const index = join(directory, `dsh-${count}.sqlite`);
    const args = ['--root', root, '--index', index];
    const build = await runSuite('search', ['--mode', 'dsh', '--build', 1, ...args, '--runs', SEARCH_INDEX.dshRuns]);
    const reuse = await runSuite('search', ['--mode', 'dsh', '--build', 0, ...args, '--runs', 1]);
    dsh.push({ count, build, reuse });
  }
  return { sizes, dsh };
}

/**
 * Suite 6: other agents' sessions listed in one process (baseline without a usable listing cache,
 * cold, warm, in memory; then each agent alone), then as whole `sessref list` processes, over one
 * generated HOME holding sessions of every agent.
 */
async function runForeignList() {
  const directory = join(CACHE, 'foreign');
  const home = join(directory, `home-${FOREIGN_LIST.cacheVersion}-${FOREIGN_LIST.count}`);
  const corpus = await runSuite('foreign-list', ['--mode', 'corpus', '--home', home]);
  const inProcess = await runSuite('foreign-list', ['--mode', 'in-process', '--home', home, '--cache', join(directory, 'cache'), '--runs', FOREIGN_LIST.runs]);
  const processArgs = ['--root', join(directory, 'empty-root'), '--runs', FOREIGN_LIST.runs, '--agent-runs', FOREIGN_LIST.agentProcessRuns];
  const whole = await runSuite('foreign-list', ['--mode', 'process', '--home', home, '--cache', join(directory, 'cache'), ...processArgs]);
  return { corpus, inProcess, whole };
}

/**
 * The suites `--only <name>` runs alone, splicing its section into the existing docs/benchmarks.md:
 * `number` is the section's, `key` names the results in the raw file `results` (under the cache),
 * `tables` what stdout gets when it is not the section itself.
 */
const ONLY_SUITES = {
  search: {
    number: 4, title: 'content search', run: runSearch, section: searchSection, splice: spliceSearchSection,
    key: 'search', results: 'last-search-results.json', tables: searchTables,
  },
  'search-index': {
    number: 5, title: 'search index', run: runSearchIndex, section: searchIndexSection, splice: spliceSearchIndexSection,
    key: 'searchIndex', results: 'last-search-index-results.json',
  },
  'foreign-list': {
    number: 6, title: "listing other agents' sessions", run: runForeignList, section: foreignListSection, splice: spliceForeignListSection,
    key: 'foreignList', results: 'last-foreign-list-results.json',
  },
  fresh: {
    number: 7, title: 'a fresh sessref process', run: () => runFresh(corpusRoot), section: freshSection, splice: spliceFreshSection,
    key: 'fresh', results: 'last-fresh-results.json',
  },
};

if (process.argv.includes('--only')) {
  const only = process.argv[process.argv.indexOf('--only') + 1];
  const suite = Object.hasOwn(ONLY_SUITES, only) ? ONLY_SUITES[only] : undefined;
  if (suite === undefined) {
    const names = Object.keys(ONLY_SUITES).map((name) => `"${name}"`);
    throw new Error(`--only accepts ${names.slice(0, -1).join(', ')} or ${names.at(-1)}, got ${only}`);
  }
  const started = Date.now();
  const machine = { ...machineInfo(), startedAt: new Date(started).toISOString() };
  const file = join(DOCS, 'benchmarks.md');
  const raw = join(CACHE, suite.results);
  progress(`suite ${suite.number} only: ${suite.title}`);
  const results = await suite.run();
  writeFileSync(raw, `${JSON.stringify({ machine, [suite.key]: results, durationMs: Date.now() - started }, null, 2)}\n`);
  const section = suite.section(results, machine);
  writeFileSync(file, suite.splice(readFileSync(file, 'utf8'), section));
  process.stdout.write(`${suite.tables === undefined ? section : suite.tables(results)}\n`);
  progress(`spliced section ${suite.number} into docs/benchmarks.md (raw results: ${raw}), ${((Date.now() - started) / 60000).toFixed(1)} min`);
  process.exit(0);
}

/**
 * The parse suite runs in this many fresh processes: the machine's speed drifts by a
 * quarter from one minute to the next, and a whole process can land in a slow spell.
 */
const PARSE_PROCESSES = 3;

/** The run whose prose throughput (ours) is the median, reported as the suite's result. */
function medianParseRun(runs) {
  const byThroughput = [...runs].sort((a, b) => a.prose.sessref.mbPerSecond - b.prose.sessref.mbPerSecond);
  return byThroughput[Math.floor(byThroughput.length / 2)];
}

const started = Date.now();
const results = { machine: machineInfo(), startedAt: new Date(started).toISOString() };
progress('suite 1/4: prepare()');
results.prepare = await runPrepare();
progress('suite 2/4: discovery');
results.discovery = await runDiscovery();
progress('suite 3/4: mention parsing');
results.parseRuns = [];
for (let run = 0; run < PARSE_PROCESSES; run += 1) results.parseRuns.push(await runSuite('parse'));
results.parse = medianParseRun(results.parseRuns);
progress('suite 4/4: content search');
results.search = await runSearch();
results.durationMs = Date.now() - started;
results.loadAverageAfter = machineInfo().loadAverage;

// Raw samples first, for anyone checking the medians (and kept even if rendering fails).
writeFileSync(join(CACHE, 'last-results.json'), `${JSON.stringify(results, null, 2)}\n`);
mkdirSync(DOCS, { recursive: true });
writeFileSync(join(DOCS, 'benchmarks.md'), spliceSearchSection(renderMarkdown(results), searchSection(results.search, { ...results.machine, startedAt: results.startedAt })));
writeFileSync(join(DOCS, 'benchmarks-prepare.svg'), prepareChart(results.prepare));
process.stdout.write(`${renderTables(results)}\n${searchTables(results.search)}\n`);
progress(`wrote docs/benchmarks.md and docs/benchmarks-prepare.svg (raw results: ${join(CACHE, 'last-results.json')})`);
progress(`total ${(results.durationMs / 60000).toFixed(1)} min`);
