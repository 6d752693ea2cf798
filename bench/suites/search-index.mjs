/**
 * Suite 5 child: sessref's own search index (`openSearchIndex` from
 * @sessref/search-index, issue 23) over a generated source of `--count` sessions x
 * 40 messages, one measurement per process.
 *
 *   --mode build  a new index file: the full build (refresh from nothing), then
 *                 one changed session re-indexed (several times, a different
 *                 session each), warm queries, and the file's size against the
 *                 carried text it indexes (after close, once SQLite has folded
 *                 its WAL into the file).
 *   --mode first  a fresh process over the file (build) left, as a one-shot
 *                 `sessref search` runs: load the package, open the index,
 *                 refresh (nothing changed), search once.
 *
 * The source is in memory and generates each session's text when it is read
 * (so 10,000 sessions never sit in memory at once): the discovery corpus's
 * vocabulary and sizes (bench/lib/text.mjs, 40 alternating ~200-char
 * messages), each session from its own seed, plus one Japanese sentence
 * appended to every fourth message, so CJK queries have text to find. Reading
 * it costs almost nothing, so the build figures are the index's own.
 *
 * Warm figures: p50/p95 of `--runs` calls at limits 8 (the `@` menu) and 50
 * (the plugin), for a repeated phrase (the same query every call) and fresh
 * phrases (a different phrase each call), in English and in Japanese.
 *
 * Args: --mode build|first --count N --index FILE [--runs R]
 */
import { rmSync, statSync } from 'node:fs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { median, timed } from '../lib/stats.mjs';
import { phrasesOf, prose, random } from '../lib/text.mjs';

const { mode, count: countArg, index: file, runs: runsArg = '40' } = parseArgs();
const count = Number(countArg);
const runs = Number(runsArg);
const MESSAGES = 40;
const LIMITS = [8, 50];
/** Sessions changed one at a time for the re-index figure. */
const CHANGES = 9;

const CJK_WORDS = ['結果', '安定', '検索', '索引', '速度', '確認', '設定', '文書', '会話', '要約', '記録', '処理'];
const CJK_JOINERS = ['は', 'を', 'が', 'の', 'に', 'で', 'と'];
const CJK_ENDINGS = ['しています。', 'しました。', 'です。', 'でした。'];

/** A Japanese sentence of 3-6 words joined by particles, unspaced. */
function cjkSentence(next) {
  const pick = (list) => list[Math.floor(next() * list.length)];
  const words = Array.from({ length: 3 + Math.floor(next() * 4) }, () => pick(CJK_WORDS));
  return `${words.map((word, at) => (at + 1 < words.length ? `${word}${pick(CJK_JOINERS)}` : word)).join('')}${pick(CJK_ENDINGS)}`;
}

/** Session `at`'s messages at `version`: its own seed, so any session is generated alone. */
function messagesOf(at, version) {
  const next = random(at * 7919 + version * 1_000_003 + 1);
  return Array.from({ length: MESSAGES }, (_, message) => {
    const english = prose(next, 200, `message ${message}:`);
    const text = message % 4 === 1 ? `${english} ${cjkSentence(next)}` : english;
    return { role: message % 2 === 0 ? 'user' : 'assistant', origin: 'direct-user', content: [{ type: 'text', text }] };
  });
}

const idOf = (at) => `bench-${String(at).padStart(6, '0')}`;
const atOf = (id) => Number(id.slice('bench-'.length));

/** The generated source; `versions` holds the sessions changed since version 0. */
function benchSource(versions) {
  return {
    name: 'bench',
    owns: (id) => id.startsWith('bench-'),
    changeStamps: async () => new Map(Array.from({ length: count }, (_, at) => [idOf(at), `v${versions.get(at) ?? 0}`])),
    listSessions: async () => Array.from({ length: count }, (_, at) => ({ id: idOf(at), createdAt: 1_700_000_000_000 + at * 1000 })),
    readTitles: async (ids) => ids.map((sessionId) => ({ sessionId, status: 'fulfilled', title: undefined })),
    readSurface: async (id) => {
      const at = atOf(id);
      return { session: { id, createdAt: 1_700_000_000_000 + at * 1000 }, capturedThroughSeq: null, messages: messagesOf(at, versions.get(at) ?? 0) };
    },
  };
}

const REPEATED = { en: 'deploy snapshot', cjk: '検索の結果' };
/** Fresh phrases: three corpus words (English), or three words joined by particles (Japanese); none repeats. */
function freshQueries(language, total) {
  if (language === 'en') return phrasesOf(['parser', 'cache', 'deploy', 'review', 'migration', 'index', 'title', 'query', 'prepare', 'retention', 'surface', 'budget'], total);
  return phrasesOf(CJK_WORDS, total, ([a, b, c]) => `${a}の${b}を${c}`);
}

/** p50 and p95 of `samples` ms. */
function percentiles(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: median(sorted), p95: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)], samples: sorted.length };
}

async function series(index, queries, limit) {
  const samples = [];
  let hits = 0;
  for (const query of queries) {
    const { ms, result } = await timed(() => index.search({ query, limit }));
    samples.push(ms);
    hits += result.hits.length;
  }
  return { ...percentiles(samples), meanHits: hits / queries.length };
}

async function build() {
  const { openSearchIndex } = await import('@sessref/search-index');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const versions = new Map();
  const index = await openSearchIndex({ location: { file }, sources: [benchSource(versions)] });
  // What the source alone costs to read every session, so the build can be told apart from it.
  const source = benchSource(versions);
  const reads = await timed(async () => {
    for (let at = 0; at < count; at += 1) await source.readSurface(idOf(at));
  });
  progress(`  reading the generated source alone: ${(reads.ms / 1000).toFixed(1)} s`);
  const full = await timed(() =>
    index.refresh(undefined, ({ indexed, total }) => {
      if (indexed % 2048 === 0) progress(`  ${indexed}/${total} sessions indexed`);
    }),
  );
  progress(`  build: ${(full.ms / 1000).toFixed(1)} s (${full.result.indexed} sessions)`);
  const changes = [];
  for (let change = 0; change < CHANGES; change += 1) {
    const at = Math.floor(((change + 0.5) / CHANGES) * count);
    versions.set(at, (versions.get(at) ?? 0) + 1);
    const { ms, result } = await timed(() => index.refresh());
    if (result.indexed !== 1) throw new Error(`a changed session re-indexed ${result.indexed} sessions`);
    changes.push(ms);
  }
  progress(`  one changed session: median ${median(changes).toFixed(1)} ms`);
  const warm = {};
  for (const language of ['en', 'cjk']) {
    const fresh = freshQueries(language, runs * LIMITS.length);
    for (const [slot, limit] of LIMITS.entries()) {
      await index.search({ query: REPEATED[language], limit });
      const repeated = await series(index, Array(runs).fill(REPEATED[language]), limit);
      const phrases = await series(index, fresh.slice(slot * runs, (slot + 1) * runs), limit);
      warm[`${language}-${limit}`] = { repeated, fresh: phrases };
      progress(`  warm ${language}, limit ${limit}: repeated p50 ${repeated.p50.toFixed(2)} ms, fresh p50 ${phrases.p50.toFixed(2)} ms (${phrases.meanHits.toFixed(1)} hits)`);
    }
  }
  const stats = await index.stats();
  index.close();
  const indexBytes = statSync(file).size;
  progress(`  index ${(indexBytes / 1e6).toFixed(1)} MB for ${(stats.carriedBytes / 1e6).toFixed(1)} MB of carried text`);
  return { buildMs: full.ms, sourceReadMs: reads.ms, indexed: full.result.indexed, changeMs: changes, warm, indexBytes, carriedBytes: stats.carriedBytes };
}

/** A fresh process's first query: package load, open, catch-up refresh (nothing changed), one search. */
async function first() {
  const load = await timed(() => import('@sessref/search-index'));
  const open = await timed(() => load.result.openSearchIndex({ location: { file }, sources: [benchSource(new Map())] }));
  const index = open.result;
  const catchUp = await timed(() => index.refresh());
  const search = await timed(() => index.search({ query: REPEATED.en, limit: 8 }));
  index.close();
  const totalMs = load.ms + open.ms + catchUp.ms + search.ms;
  progress(`  first query: ${totalMs.toFixed(0)} ms (load ${load.ms.toFixed(0)}, open ${open.ms.toFixed(0)}, catch-up ${catchUp.ms.toFixed(0)}, search ${search.ms.toFixed(1)}), ${search.result.hits.length} hits`);
  return { loadMs: load.ms, openMs: open.ms, catchUpMs: catchUp.ms, searchMs: search.ms, totalMs, sinceProcessStartMs: performance.now(), reindexed: catchUp.result.indexed };
}

progress(`search index (${mode}) over ${count} generated sessions x ${MESSAGES} messages`);
emitResult({ mode, count, messages: MESSAGES, runs, ...(mode === 'build' ? await build() : await first()) });
