/**
 * Suite 1 child: prepare() of one in-memory source of N alternating ~1 KB
 * user/assistant messages under the default budget, for one implementation.
 *
 * Args: --impl sessref|official --n N --runs R [--warmup W]
 *       [--host 1]       also time the host's own sessionQuery.readSurface()
 *       [--redact 1]     mount sessref with redactSecrets on (#34): every
 *                        message is scanned for credentials before budgeting
 *       [--memory OP]    first measure the peak memory of one OP
 *                        (prepare | readSurface) in this fresh process; the
 *                        first large call grows the heap and later ones reuse
 *                        it, so only one OP per process is measured
 */
import { createSession } from '@sessref/host';
import { agentFor, bootHost, writeConversation } from '../host.mjs';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { measurePeak } from '../lib/memory.mjs';
import { measureInterleaved } from '../lib/stats.mjs';
import { conversationText } from '../lib/text.mjs';

const args = parseArgs();
const impl = args.impl;
const n = Number(args.n);
const runs = Number(args.runs);
const warmup = Number(args.warmup ?? 0);
const withHost = args.host === '1';
const redact = args.redact === '1';

progress(`${impl} N=${n}: writing the source session`);
const host = await bootHost({ impl, resolver: redact ? { redactSecrets: true } : {} });
const target = createSession(host, { id: 'bench-target' });
const source = createSession(host, { id: 'bench-source' });
const textBytes = writeConversation(source, n, conversationText(n));
const agent = agentFor(target);

const operations = {
  // The message citing the source, as a host hands it over after parsing.
  prepare: () =>
    host.resolver.prepare(agent, [{ type: 'text', text: 'Compare with @source' }], [{ sessionId: source.id, label: 'source' }]),
  readSurface: () => host.sessionQuery.readSurface(source.id),
};

const result = { impl, n, textBytes, redact };

if (args.memory !== undefined) {
  progress(`${impl} N=${n}: peak memory of one ${args.memory}()`);
  result[`${args.memory}PeakBytes`] = (await measurePeak(operations[args.memory])).peakBytes;
}

/** The operations timed: prepare(), and with --host the host's own read beside it. */
const timedOperations = withHost ? operations : { prepare: operations.prepare };

if (runs > 0) {
  progress(`${impl} N=${n}: ${Object.keys(timedOperations).join('() and ')}() x${runs}${warmup > 0 ? ` after ${warmup} warm-up` : ''}`);
  for (let index = 0; index < warmup; index += 1) {
    for (const operation of Object.values(timedOperations)) await operation();
  }
  // Interleaved, so prepare() and the read it builds on are timed in the same heap and JIT state.
  const timings = await measureInterleaved(timedOperations, runs);
  for (const [name, { last: _last, ...timing }] of Object.entries(timings)) result[name] = timing;
  // Output size is reported so a reader can see both sides did the same work.
  result.contextChars = timings.prepare.last.additionalContext?.content[0]?.text.length ?? 0;
}

await host.dispose();
emitResult(result);
