/**
 * Suite 2 child: listCandidates() over a persisted JSONL corpus, for one
 * implementation. Each child boots a fresh host over the root (the OS page
 * cache is warm, the process is not), times its first call, then the median
 * of `runs` more calls on the same host (warm).
 *
 * Ours runs with the CLI's title index (see ../host.mjs), in one of two
 * states of its persisted index file:
 *   --index build  the file is deleted first: the first call builds the index
 *                  (reads every log's header and title) and writes the file;
 *   --index reuse  the file written by a `build` child is kept: the first call
 *                  is what a new CLI invocation pays (load the file, stat walk).
 * Ours also times the index's stat walk alone (a full walk of `LogFileTracker`, without watching) and a bare
 * stat() of every log, `runs` times each.
 *
 * Args: --impl sessref|official|host --root DIR --runs R [--query TEXT] [--index build|reuse]
 *   impl `host` times the host's own reads that a non-empty query needs at
 *   least: sessionQuery.listSessions() plus readTitleSnapshots() of every id
 *   (no index involved).
 */
import { existsSync, rmSync, statSync } from 'node:fs';
import { SessionId } from '@deepseek-ai/dsh-session';
import { LogFileTracker, sessionLogs } from '@sessref/dsh/jsonl-root';
import { createSession } from '@sessref/host';
import { agentFor, bootHost } from '../host.mjs';
import { titleIndexFile } from '../lib/cache.mjs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { measureRuns, timed } from '../lib/stats.mjs';

const { impl, root, runs: runsArg, query, index } = parseArgs();
const runs = Number(runsArg);

/**
 * First call on a fresh host, then `runs` warm calls: median wall, mean
 * main-thread CPU. `extra` adds figures measured on the warm host.
 */
async function measure(bootOptions, call, extra = async () => ({})) {
  const host = await bootHost({ root, ...bootOptions });
  // The target is a live session that never gets an event, so nothing is
  // written into the cached corpus.
  const agent = agentFor(createSession(host, { id: 'bench-target', cwd: '/work/project-0' }));
  const cold = await timed(() => call(host, agent));
  const warm = runs > 0 ? await measureRuns(() => call(host, agent), runs) : undefined;
  const figures = await extra();
  await host.dispose();
  return {
    coldMs: cold.ms,
    warmMs: warm?.wallMs,
    warmCpuMs: warm?.cpuMs,
    warmSamples: warm?.wallSamples ?? [],
    results: cold.result,
    ...figures,
  };
}

/** Every session's log path under the root (the layout the catalog walks). */
function logPaths(directory) {
  return sessionLogs(directory).map((log) => log.path);
}

const calls = {
  candidates: (text) => async (host, agent) => (await host.resolver.listCandidates(agent, text)).length,
  hostReads: async (host) => {
    const records = await host.sessionQuery.listSessions();
    const titles = await host.sessionQuery.readTitleSnapshots(records.map((record) => SessionId(record.header.id)));
    return titles.length;
  },
};

const result = impl === 'host' ? { impl } : { impl, query };
if (impl === 'host') {
  progress(`host reads over ${root}: first call + ${runs} warm`);
  Object.assign(result, await measure({ impl: 'sessref', titleIndex: false }, calls.hostReads));
} else if (impl === 'sessref') {
  const indexFile = titleIndexFile(root);
  if (index === 'build') rmSync(indexFile, { force: true });
  else if (index !== 'reuse') throw new Error(`--index must be build or reuse, got ${index}`);
  else if (!existsSync(indexFile)) throw new Error(`no persisted title index at ${indexFile}: run --index build first`);
  progress(`sessref listCandidates(${JSON.stringify(query)}) over ${root}, title index ${index === 'build' ? 'built' : 'reused'}: first call + ${runs} warm`);
  // The part of every query that grows with the corpus however little changed: the catalog's stat walk
  // alone, and its floor: one bare statSync() per log over path strings built beforehand.
  const walk = async () => {
    const figures = ({ wallMs, cpuMs, wallSamples }) => ({ wallMs, cpuMs, wallSamples });
    const paths = logPaths(root);
    return {
      walk: figures(await measureRuns(async () => (await new LogFileTracker(root, 'zstd', false).revisions()).size, runs)),
      statFloor: figures(await measureRuns(() => paths.filter((path) => statSync(path, { throwIfNoEntry: false }) !== undefined).length, runs)),
    };
  };
  Object.assign(result, { index, indexFile }, await measure({ impl, indexFile }, calls.candidates(query), walk));
  result.indexBytes = statSync(indexFile).size;
} else {
  progress(`${impl} listCandidates(${JSON.stringify(query)}) over ${root}: first call + ${runs} warm`);
  Object.assign(result, await measure({ impl }, calls.candidates(query)));
}
emitResult(result);
