/**
 * Suite 6 child: listing other agents' sessions, with and without the
 * persisted listing cache of @sessref/sources (its README, "Listing cache").
 *
 *   --mode corpus --home DIR
 *       writes FOREIGN_LIST.count sessions under DIR (a HOME), spread over
 *       every agent sessref reads as FOREIGN_LIST.shares says, each a
 *       realistic session of a few kilobytes in the agent's own shape and
 *       place (../foreign/corpus.mjs). Kept between runs.
 *   --mode in-process --home DIR --cache DIR --runs R
 *       what `sessref list` asks of the sources (listSessions, then
 *       readTitles of every id), timed in this process, every agent at once:
 *         baseline  a fresh localSources() whose cache cannot be used (the
 *                   cache directory is under a regular file): every
 *                   transcript read and folded, as before the cache;
 *         cold      a fresh localSources() with an empty cache directory:
 *                   every transcript read, the cache written;
 *         warm      a fresh localSources() over the cache `cold` wrote: what
 *                   a new process does after importing the package;
 *         memory    the same sources listing again: a long-lived process,
 *                   its folders watched;
 *         growing   the same, one more transcript appended to before each
 *                   listing: a long-lived process while agents write;
 *         stats     a bare stat() of every file of the corpus, the floor of
 *                   any listing that notices a transcript that grew without
 *                   watching;
 *       then each agent alone, warm and in memory, so that a reader that
 *       cannot keep up is named with its own figure.
 *   --mode process --home DIR --cache DIR --root DIR --runs R --agent-runs A
 *       whole `sessref list --json --sources <every agent>` processes (wall
 *       time, Node start-up and module loading included), warm cache against
 *       an unusable one, beside `node -e ''` and the same command with
 *       `--sources dsh` (an empty root: the CLI's own floor); then
 *       `--sources <agent>` alone for each agent, warm.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { localSources } from '@sessref/sources';
import { AGENTS as AGENT_ROWS } from '@sessref/sources/agents';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { median, threadCpuMs } from '../lib/stats.mjs';
import { FOREIGN_LIST } from '../plan.mjs';

const options = parseArgs();
/** The agents of the corpus, in the table's order. */
const AGENTS = Object.keys(FOREIGN_LIST.shares);
const CLI = fileURLToPath(new URL('../../packages/cli/bundle/bin.js', import.meta.url));

/** What `sessref list` asks of the sources: every header, then every title. */
async function list(sources) {
  let sessions = 0;
  for (const { source } of sources) {
    const headers = await source.listSessions();
    const titles = await source.readTitles(headers.map((header) => header.id));
    sessions += titles.filter((title) => title.status === 'fulfilled').length;
  }
  return sessions;
}

const environment = (home, cache) => ({ home, env: { SESSREF_CACHE_DIR: cache } });

/** One timed call: wall and main-thread CPU ms. */
async function time(fn) {
  const cpu = threadCpuMs();
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, cpuMs: threadCpuMs() - cpu, result };
}

/** `runs` timed calls of `fn`, one after the other. */
async function timeRuns(fn, runs) {
  const samples = [];
  for (let run = 0; run < runs; run += 1) samples.push(await time(fn));
  return samples;
}

/** A cache directory no listing can use: its parent is a regular file. */
function unusableCache(cache) {
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'not-a-directory'), '');
  return join(cache, 'not-a-directory', 'sessref');
}

function summary(samples) {
  return { medianMs: median(samples.map((sample) => sample.ms)), medianCpuMs: median(samples.map((sample) => sample.cpuMs)), samplesMs: samples.map((sample) => sample.ms), sessions: samples[0]?.result };
}

/** One listing by fresh sources of `names` (what a new process has), timed; their watches closed after. */
async function freshListing(home, cacheDir, names) {
  const sources = localSources(environment(home, cacheDir), names);
  const sample = await time(() => list(sources));
  for (const { source } of sources) source.close();
  return sample;
}

/** Sources of `names` kept open and listed twice (their folders watched from then on), for a long-lived process's listings. */
async function keptSources(home, cacheDir, names) {
  const kept = localSources(environment(home, cacheDir), names);
  for (let settle = 0; settle < 2; settle += 1) await list(kept);
  return kept;
}

/** Every file of the corpus but its marker: what the stat floor looks at. */
function corpusFiles(home) {
  return readdirSync(home, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name !== '.complete')
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Listings while agents write: before each one, one more Claude Code transcript grows by a title record (and is cut back after, so the corpus stays as it was, bar the times). */
async function growingListings(kept, home, runs) {
  const claude = corpusFiles(home).filter((path) => path.includes('/.claude/projects/'));
  const growing = [];
  for (let run = 0; run < runs; run += 1) {
    const grown = claude[run % claude.length];
    const size = statSync(grown).size;
    appendFileSync(grown, `${JSON.stringify({ type: 'ai-title', aiTitle: `Grown ${run}`, sessionId: 'bench' })}\n`);
    growing.push(await time(() => list(kept)));
    truncateSync(grown, size);
  }
  return growing;
}

/** Every agent at once: baseline, cold, warm, in memory, growing, and the stat floor. */
async function allAgents(home, cache, runs) {
  const noCache = unusableCache(join(cache, 'unusable'));
  const warmCache = join(cache, 'warm');
  const baseline = [];
  for (let run = 0; run < Math.max(3, Math.ceil(runs / 5)); run += 1) baseline.push(await freshListing(home, noCache, AGENTS));
  rmSync(warmCache, { recursive: true, force: true });
  const cold = await freshListing(home, warmCache, AGENTS);
  const warm = [];
  for (let run = 0; run < runs; run += 1) warm.push(await freshListing(home, warmCache, AGENTS));
  const kept = await keptSources(home, warmCache, AGENTS);
  const memory = await timeRuns(() => list(kept), runs);
  const growing = await growingListings(kept, home, runs);
  for (const { source } of kept) source.close();
  // The floor of any listing that must notice appended transcripts without watching: one stat of every file, nothing else.
  const files = corpusFiles(home);
  const stats = await timeRuns(() => files.filter((path) => statSync(path, { bigint: true }).isFile()).length, runs);
  return { baseline: summary(baseline), cold: summary([cold]), warm: summary(warm), memory: summary(memory), growing: summary(growing), stats: summary(stats), warmCache };
}

/** Each agent alone over the warm cache: fresh sources (a new process's first listing) and kept sources (a long-lived process's). */
async function eachAgent(home, warmCache, runs) {
  const agents = {};
  for (const name of AGENTS) {
    const warm = [];
    for (let run = 0; run < runs; run += 1) warm.push(await freshListing(home, warmCache, [name]));
    const kept = await keptSources(home, warmCache, [name]);
    const memory = await timeRuns(() => list(kept), runs);
    for (const { source } of kept) source.close();
    agents[name] = { warm: summary(warm), memory: summary(memory) };
  }
  return agents;
}

async function inProcess(home, cache, runs) {
  const { warmCache, ...all } = await allAgents(home, cache, runs);
  return { ...all, agents: await eachAgent(home, warmCache, runs) };
}

/** Wall ms of one child process. */
function processMs(args, env) {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited with ${child.status}: ${child.stderr}`);
  return { ms, stdout: child.stdout };
}

/** This process's environment without any variable that moves an agent's folder, so every agent is read at its default place under `home`. */
function listingEnv(home, cacheDir) {
  const moved = new Set(Object.values(AGENT_ROWS).flatMap((row) => row.movedBy));
  const kept = Object.entries(process.env).filter(([name]) => !moved.has(name));
  return { ...Object.fromEntries(kept), NO_COLOR: '1', HOME: home, SESSREF_CACHE_DIR: cacheDir, XDG_CACHE_HOME: '', SESSREF_ROOT: '' };
}

function measure(fn, runs) {
  const samples = [];
  for (let run = 0; run < runs; run += 1) samples.push(fn());
  return { medianMs: median(samples), samplesMs: samples };
}

function wholeProcess(home, cache, root, runs, agentRuns) {
  const list = (sources) => [CLI, 'list', '--json', '--root', root, '--sources', sources];
  const everyAgent = list(AGENTS.join(','));
  const noCache = unusableCache(join(cache, 'process-unusable'));
  const warmCache = join(cache, 'process-warm');
  rmSync(warmCache, { recursive: true, force: true });
  const cold = processMs(everyAgent, listingEnv(home, warmCache));
  const agents = {};
  for (const name of AGENTS) {
    const rows = JSON.parse(processMs(list(name), listingEnv(home, warmCache)).stdout).length;
    agents[name] = { rows, warm: measure(() => processMs(list(name), listingEnv(home, warmCache)).ms, agentRuns) };
  }
  return {
    rows: JSON.parse(cold.stdout).length,
    coldMs: cold.ms,
    warm: measure(() => processMs(everyAgent, listingEnv(home, warmCache)).ms, runs),
    baseline: measure(() => processMs(everyAgent, listingEnv(home, noCache)).ms, Math.max(3, Math.ceil(runs / 5))),
    dshOnly: measure(() => processMs(list('dsh'), listingEnv(home, warmCache)).ms, runs),
    node: measure(() => processMs(['-e', ''], process.env).ms, runs),
    agents,
  };
}

const { mode, home } = options;
if (mode === 'corpus') {
  progress(`foreign corpus: ${FOREIGN_LIST.count} sessions of ${AGENTS.length} agents under ${home}`);
  const total = Object.values(FOREIGN_LIST.shares).reduce((sum, share) => sum + share, 0);
  if (total !== FOREIGN_LIST.count) throw new Error(`FOREIGN_LIST.shares add up to ${total}, not ${FOREIGN_LIST.count}`);
  // Loaded here only: the writers' node:sqlite and generators stay out of the processes that measure.
  const { writeCorpus } = await import('../foreign/corpus.mjs');
  emitResult(writeCorpus(home, FOREIGN_LIST.shares));
} else if (mode === 'in-process') {
  progress(`listing ${home} in one process: baseline, cold, warm (fresh sources) and in memory, every agent then each alone, ${options.runs} runs`);
  emitResult(await inProcess(home, options.cache, Number(options.runs)));
} else if (mode === 'process') {
  progress(`whole sessref list processes over ${home}, ${options.runs} runs, ${options['agent-runs']} per agent alone`);
  mkdirSync(options.root, { recursive: true });
  emitResult(wholeProcess(home, options.cache, options.root, Number(options.runs), Number(options['agent-runs'])));
} else {
  throw new Error(`--mode must be corpus, in-process or process, got ${mode}`);
}
