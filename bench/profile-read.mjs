/**
 * `npm run bench:profile-read [-- N]`: where the host's own
 * `ctx.sessionQuery.readSurface()` spends its time, the call every prepare()
 * must make once per source. Profiles repeated reads of one in-memory source
 * of N (default 4000) ~1 KB messages with the V8 sampling profiler and prints
 * self time per function, so the floor docs/benchmarks.md describes can be
 * checked on any machine.
 */
import { Session } from 'node:inspector/promises';
import { createSession } from '@sessref/host';
import { bootHost, writeConversation } from './host.mjs';
import { conversationText } from './lib/text.mjs';

const n = Number(process.argv[2] ?? 4000);
const READS = 20;
const SHOWN = 12;

const host = await bootHost({ impl: 'sessref' });
const source = createSession(host, { id: 'profiled-source' });
writeConversation(source, n, conversationText(n));
const read = () => host.sessionQuery.readSurface(source.id);
await read(); // compiled before profiling

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.start');
for (let index = 0; index < READS; index += 1) await read();
const { profile } = await inspector.post('Profiler.stop');
inspector.disconnect();
await host.dispose();

/** Self time per function (name and file), in ms, from the profile's samples. */
function selfTimes({ nodes, samples, timeDeltas }) {
  const nodeById = new Map(nodes.map((node) => [node.id, node]));
  const totals = new Map();
  samples.forEach((id, index) => {
    const { functionName, url, lineNumber } = nodeById.get(id).callFrame;
    const file = url === '' ? '' : ` ${url.split('/').slice(-3).join('/')}:${lineNumber + 1}`;
    const key = `${functionName || '(anonymous)'}${file}`;
    totals.set(key, (totals.get(key) ?? 0) + (timeDeltas[index] ?? 0) / 1000);
  });
  return [...totals].sort((a, b) => b[1] - a[1]);
}

const rows = selfTimes(profile);
const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
process.stdout.write(`readSurface() of ${n} messages, ${READS} reads, ${(total / READS).toFixed(1)} ms sampled per read\n\n`);
process.stdout.write('| self time | share | function |\n| ---: | ---: | --- |\n');
for (const [name, ms] of rows.slice(0, SHOWN)) {
  process.stdout.write(`| ${(ms / READS).toFixed(1)} ms | ${((100 * ms) / total).toFixed(1)}% | ${name} |\n`);
}
