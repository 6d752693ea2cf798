/**
 * Suite 2 child: listCandidates() over a persisted JSONL corpus, for one
 * implementation. Each query gets its own freshly booted host over the root
 * (so its first call is cold: nothing read yet, although the OS page cache
 * is warm), then `runs` more calls on the same host (warm).
 *
 * Args: --impl sessref|official|host --root DIR --runs R [--query TEXT]
 *   impl `host` times the host's own reads that a non-empty query needs at
 *   least: sessionQuery.listSessions() plus readTitleSnapshots() of every id.
 */
import { SessionId } from '@deepseek-ai/dsh-session';
import { agentFor, bootHost, createSession } from '../host.mjs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { median, timed } from '../lib/stats.mjs';

const { impl, root, runs: runsArg, query } = parseArgs();
const runs = Number(runsArg);

/** Cold first call on a fresh host, then the median of `runs` warm calls. */
async function measure(bootImpl, call) {
  const host = await bootHost({ impl: bootImpl, root });
  // The target is a live session that never gets an event, so nothing is
  // written into the cached corpus.
  const agent = agentFor(createSession(host, { id: 'bench-target', cwd: '/work/project-0' }));
  const cold = await timed(() => call(host, agent));
  const warm = [];
  for (let index = 0; index < runs; index += 1) warm.push((await timed(() => call(host, agent))).ms);
  await host.dispose();
  return { coldMs: cold.ms, warmMs: median(warm), warmSamples: warm, results: cold.result };
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
  progress(`host reads over ${root}: cold + ${runs} warm`);
  Object.assign(result, await measure('sessref', calls.hostReads));
} else {
  progress(`${impl} listCandidates(${JSON.stringify(query)}) over ${root}: cold + ${runs} warm`);
  Object.assign(result, await measure(impl, calls.candidates(query)));
}
emitResult(result);
