/** Suite 4's section of docs/benchmarks.md, and its tables for stdout. */
import { SEARCH } from '../plan.mjs';
import { formatMs, formatRatio } from '../lib/stats.mjs';

const HEADING = '## 4. Content search: `sessref search`, the `@` menu and the Remote `search` method';

function table(headers, rows) {
  return [`| ${headers.join(' | ')} |`, `| ${headers.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

const label = (entry) => `${entry.count.toLocaleString('en-US')} x ${entry.messages} msg`;
const warmCell = (series) => (series ? `${formatMs(series.wallMs)} (CPU ${formatMs(series.cpuMs)})` : '–');

/** The target: warm p50 in the long-lived server at 1,000 sessions, at both limits; fresh phrases shown beside. */
function targetTable(search) {
  const first = search[0];
  const rows = [8, 50].map((limit) => {
    const { repeated, fresh } = first.build.warm[limit];
    const status = repeated.wallMs < SEARCH.warmTargetMs ? 'met' : '**not met**';
    const freshStatus = fresh.wallMs < SEARCH.warmTargetMs ? 'met' : '**not met**';
    return [
      `warm content query p50 < ${SEARCH.warmTargetMs} ms, ${first.count.toLocaleString('en-US')} sessions, limit ${limit}`,
      `repeated query ${formatMs(repeated.wallMs)}: ${status}; fresh phrase ${formatMs(fresh.wallMs)}: ${freshStatus}`,
    ];
  });
  return table(['Target', 'Measured'], rows);
}

export function searchTables(search) {
  return [
    table(
      ['sessions', 'index build, every log read through the host', 'index size', 'first search, fresh process, persisted index', 'baseline: official plugin, read and scan every surface'],
      search.map((entry) => [
        label(entry),
        formatMs(entry.build.buildMs),
        `${(entry.build.indexBytes / 1e6).toFixed(1)} MB`,
        `${formatMs(entry.reuse.firstMs)} (${entry.reuse.firstHits} hits)`,
        `~${formatMs(entry.baseline.scanMs)} (listing ${formatMs(entry.baseline.listingMs)} + ${entry.baseline.sessions} x ${formatMs(entry.baseline.readMs)})`,
      ]),
    ),
    table(
      ['sessions', 'limit', 'warm, repeated query', 'warm, fresh phrase', 'speed-up, repeated vs baseline'],
      search.flatMap((entry) =>
        [8, 50].map((limit) => [
          label(entry),
          String(limit),
          warmCell(entry.build.warm[limit]?.repeated),
          warmCell(entry.build.warm[limit]?.fresh),
          formatRatio(entry.baseline.scanMs / entry.build.warm[limit].repeated.wallMs),
        ]),
      ),
    ),
  ].join('\n\n');
}

export function searchSection(search, machine) {
  const [small, large] = search;
  const growth = (pick) => (large ? formatRatio(pick(large) / pick(small)) : '–');
  return `${HEADING}

Command (only this suite; it splices this section into docs/benchmarks.md and leaves the others as they are):

\`\`\`sh
npm run bench -- --only search
\`\`\`

Corpora: the discovery corpora of 40 alternating ~200-char messages per session (\`suites/corpus.mjs\`, JSONL/zstd, written through the real host), ${search.map(label).join(' and ')}.
**sessref** end to end, as \`sessref serve\` runs it (\`bootHost\` from \`@sessref/host\`: the real dsh host over the JSONL root, the title index, \`@sessref/dsh\` with \`contentSearch\` on over sessref's own index, file-system events followed),
searched through the plugin's service as the CLI and the inspector search. Section 5 measures the index alone over generated sources; this section adds reading real logs through the host.
The first query, "${'deploy snapshot'}", is two corpus words in a row (about one session in five has them, so limit 50 fills); the fresh phrases are three-word phrases, each new to the process (a few sessions each).

- **index build**: no index on disk; \`refreshContentIndex()\` reads every log through the host, projects it as a snapshot would and indexes it (wall time, one process).
- **first search, fresh process, persisted index**: a new process (as a one-shot \`sessref search\`, no file-system watching) over the index the build left: open, catch up (stamps compared, nothing changed), search, read the hits' titles.
- **warm**: the long-lived host that built the index, median wall time of ${small.runs} calls (mean main-thread CPU in brackets) at the \`@\` menu's limit (8, \`POST /api/search\`) and the plugin's (50, Remote \`search\`, \`sessref search\`). Every hit is carried text by construction: the index holds only what the snapshot's projection keeps.
- **baseline**: the official plugin has no content search; the nearest thing a user can do is list the sessions through \`ctx.sessionQuery\` and read and scan every session's surface (user and assistant text, case-insensitive substring).
  On dsh's JSONL backend every such read lists the whole root again, so the full scan is extrapolated: listing + N x the median of ${small.baseline.sampled} (1,000) / ${large?.baseline.sampled ?? '–'} (10,000) timed reads of sessions spread over the corpus.

${targetTable(search)}

${searchTables(search)}

Growth from ${label(small)} to ${large ? label(large) : '–'} (10x the sessions): index build ${growth((entry) => entry.build.buildMs)}, first search of a fresh process ${growth((entry) => entry.reuse.firstMs)},
warm repeated query at limit 8 ${growth((entry) => entry.build.warm[8].repeated.wallMs)}, fresh phrase at limit 8 ${growth((entry) => entry.build.warm[8].fresh.wallMs)}; the baseline grows with the square of the corpus (N reads, each listing N logs).

Machine for this section: ${machine.cpu}, load average ${machine.loadAverage.map((value) => value.toFixed(2)).join(' / ')} at start (above 2 means other processes competed for the cores); run ${new Date(machine.startedAt).toISOString()}.
`;
}

/** Replace (or append) this section in an existing docs/benchmarks.md. */
export function spliceSearchSection(markdown, section) {
  return spliceSection(markdown, HEADING, section);
}

/** `markdown` with the section under `heading` replaced by `section` (up to the next `## ` heading), or `section` appended. */
export function spliceSection(markdown, heading, section) {
  const start = markdown.indexOf(heading);
  if (start < 0) return `${markdown.trimEnd()}\n\n${section}`;
  const next = markdown.indexOf('\n## ', start + heading.length);
  return `${markdown.slice(0, start)}${section}${next < 0 ? '' : markdown.slice(next + 1)}`;
}
