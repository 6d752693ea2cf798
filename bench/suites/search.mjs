/**
 * Suite 4 child: content search over a persisted JSONL corpus (the discovery
 * corpus, suites/corpus.mjs), one measurement per process.
 *
 *   --mode build     sessref, as `sessref serve` runs it (`bootHost` from @sessref/host:
 *                    the real dsh host, the title index, @sessref/dsh with contentSearch on
 *                    over sessref's own index), with no index on disk: the build is timed,
 *                    then the same long-lived host answers warm queries. With --watch 1 the
 *                    host follows file-system events and builds from boot, as serve does.
 *   --mode reuse     the same, in a fresh process over the index (build) left: what a new
 *                    `sessref search` pays, then warm queries.
 *   --mode dsh       dsh's own SQLite FTS5 query backend (`SqliteSessionQueryEngine` with
 *                    search on, over --index; the official plugin mounted, which never
 *                    searches): with --build 1 no index on disk, so the first
 *                    `searchSessions` indexes every log (timed), then warm queries straight
 *                    from the backend (hits not checked against the surfaces); with --build 0
 *                    a fresh process over that index, its first search timed.
 *   --mode baseline  the nearest thing to do with the official plugin, which has no content
 *                    search: on a host with it (search off, as dsh web ships), list every
 *                    session through ctx.sessionQuery, read each one's current surface and
 *                    scan its user and assistant text for the phrase (case-insensitive).
 *                    Every such read lists the whole root again (dsh's JSONL backend
 *                    decompresses every log header per read), so a full scan takes ~20 min
 *                    at 1,000 sessions: `--sample K` times the listing and K reads, and the
 *                    report extrapolates the scan as listing + N x the median read.
 *
 * Warm figures, on the host that answered the first search:
 *   - repeated: one query asked again (what the next keystroke costs when nothing moved);
 *   - fresh phrases: a different phrase each call, none seen before in this process;
 *   each at the menu's limit (8, POST /api/search) and the plugin's (50, Remote `search`).
 *
 * Args: --mode build|reuse|dsh|baseline --root DIR --index FILE --runs R [--watch 0|1] [--build 0|1] [--sample K]
 *   --watch 1 follows file-system events as `sessref serve` does (build); a one-shot
 *   `sessref search` does not (reuse).
 */
import { rmSync, statSync } from 'node:fs';
import { SessionId } from '@deepseek-ai/dsh-session';
import { ServeHost as Engine, bootHost } from '../host.mjs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { median, threadCpuMs, timed } from '../lib/stats.mjs';
import { phrasesOf } from '../lib/text.mjs';

const { mode, root, index, runs: runsArg, watch = '0', build: buildArg = '1', sample = '20' } = parseArgs();
const runs = Number(runsArg);
const watchLogs = watch === '1';

/** The phrase of the first call and of the repeated warm calls: two corpus words in a row (about one session in five has them). */
export const REPEATED_QUERY = 'deploy snapshot';
/** Limits: the inspector's `@` menu, the plugin's default candidate limit. */
const LIMITS = [8, 50];

/** Words of the corpus vocabulary (bench/lib/text.mjs) the fresh phrases are made of: each three-word phrase matches a few sessions in a thousand. */
const FRESH_WORDS = ['parser', 'cache', 'deploy', 'review', 'migration', 'index', 'title', 'query', 'prepare', 'retention', 'surface', 'budget'];
const freshPhrases = (count) => phrasesOf(FRESH_WORDS, count);

/** `runs` sequential calls: median wall ms, mean main-thread CPU ms, mean hit count. */
async function series(call, count) {
  const samples = [];
  let hits = 0;
  const cpuStart = threadCpuMs();
  for (let run = 0; run < count; run += 1) {
    const { ms, result } = await timed(() => call(run));
    samples.push(ms);
    hits += result;
  }
  return { wallMs: median(samples), cpuMs: (threadCpuMs() - cpuStart) / count, meanHits: hits / count, wallSamples: samples };
}

/** Warm series at each limit: the repeated query asked again, then phrases new to the process. */
async function warmSeries(search) {
  const warm = {};
  let offset = 0;
  for (const limit of LIMITS) {
    await search(REPEATED_QUERY, limit);
    const repeated = await series(() => search(REPEATED_QUERY, limit), runs);
    const phrases = freshPhrases(offset + runs).slice(offset);
    offset += runs;
    const fresh = await series((run) => search(phrases[run], limit), runs);
    warm[limit] = { repeated, fresh };
    progress(`  warm, limit ${limit}: repeated ${repeated.wallMs.toFixed(1)} ms, fresh phrases ${fresh.wallMs.toFixed(1)} ms`);
  }
  return warm;
}

function removeIndex() {
  for (const file of [index, `${index}-wal`, `${index}-shm`]) rmSync(file, { force: true });
}

async function dshBackend() {
  const building = buildArg === '1';
  if (building) removeIndex();
  const host = await bootHost({ impl: 'official', root, queryIndex: index });
  try {
    const search = async (query, limit) => (await host.sessionQuery.searchSessions({ query, limit })).items.length;
    // With no index on disk, the first search indexes every log; over a kept one it catches up and answers.
    const first = await timed(() => search('no such phrase anywhere', 8));
    progress(`  ${building ? 'index build' : 'first search, fresh process'}: ${(first.ms / 1000).toFixed(1)} s`);
    const warm = building ? await warmSeries(search) : undefined;
    return building ? { buildMs: first.ms, warm } : { firstMs: first.ms };
  } finally {
    await host.dispose();
  }
}

async function sessref() {
  if (mode === 'build') removeIndex();
  const open = await timed(() => Engine.open({ root, indexFile: `${index}.titles.json`, searchIndexFile: index, watchLogs }));
  const engine = open.result;
  try {
    // The title index (labels) is not what is measured here: make sure it is loaded or built first.
    await engine.ctx.get('sessionReferenceCatalog').listSessions();
    let build;
    if (mode === 'build') {
      // No content index on disk: this builds it over every session (a long-lived host joins its background build).
      build = await timed(async () => (await engine.ctx.sessionReferenceResolver.service.refreshContentIndex()).indexed);
      progress(`  index build: ${(build.ms / 1000).toFixed(1)} s`);
    }
    const first = await timed(async () => (await engine.search(REPEATED_QUERY, { limit: 50 })).length);
    progress(`  first search: ${first.ms.toFixed(0)} ms, ${first.result} hits`);
    const warm = await warmSeries(async (query, limit) => (await engine.search(query, { limit })).length);
    return { watchLogs, openMs: open.ms, buildMs: build?.ms, firstMs: first.ms, firstHits: first.result, warm, indexBytes: statSync(index).size };
  } finally {
    await engine.close();
  }
}

/** One session's projected user and assistant text, scanned for the phrase: what the official plugin leaves a user to do, per session. */
async function scanOne(host, sessionId, query) {
  const needle = query.toLowerCase();
  const surface = await host.sessionQuery.readSurface(SessionId(sessionId));
  return surface.events.some((event) => {
    if (event.type !== 'user/message' && event.type !== 'assistant/message') return false;
    if (event.type === 'user/message' && event.data.source.kind !== 'user') return false;
    const content = event.type === 'user/message' ? event.data.content : event.data.message.content;
    return content.some((block) => block.type === 'text' && block.text.toLowerCase().includes(needle));
  });
}

async function baseline() {
  const host = await bootHost({ impl: 'official', root });
  try {
    const count = Number(sample);
    const listing = await timed(() => host.sessionQuery.listSessions());
    const records = listing.result;
    // Sessions spread over the corpus, each read and scanned once.
    const step = Math.max(1, Math.floor(records.length / count));
    const picked = records.filter((_, index) => index % step === 0).slice(0, count);
    const reads = [];
    let hits = 0;
    for (const record of picked) {
      const read = await timed(() => scanOne(host, record.header.id, REPEATED_QUERY));
      reads.push(read.ms);
      if (read.result) hits += 1;
    }
    const readMs = median(reads);
    const scanMs = listing.ms + records.length * readMs;
    progress(`  baseline: listing ${listing.ms.toFixed(0)} ms, read+scan median ${readMs.toFixed(0)} ms over ${picked.length} sessions -> full scan ~${(scanMs / 1000).toFixed(0)} s`);
    return { sessions: records.length, listingMs: listing.ms, sampled: picked.length, readMs, readSamples: reads, sampleHits: hits, scanMs };
  } finally {
    await host.dispose();
  }
}

progress(`content search (${mode}) over ${root}`);
const measure = { baseline, dsh: dshBackend }[mode] ?? sessref;
const result = { mode, root, runs, ...(await measure()) };
emitResult(result);
