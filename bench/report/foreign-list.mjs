/**
 * Section 6 of docs/benchmarks.md: listing other agents' sessions with the
 * persisted listing cache against the same listing re-reading every
 * transcript (suites/foreign-list.mjs).
 */
import { FOREIGN_LIST } from '../plan.mjs';
import { spliceSection } from './search.mjs';

const FOREIGN_LIST_HEADING = "## 6. Listing other agents' sessions: warm `sessref list` over 10,000 foreign sessions";

const millis = (ms) => (ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const ratio = (slow, fast) => `${(slow / fast).toFixed(slow / fast >= 100 ? 0 : 1)}x`;
const count = (n) => n.toLocaleString('en-US');
const verdict = (met) => (met ? 'met' : '**not met**');

function inProcessTable({ baseline, cold, warm, memory, growing, stats }) {
  const row = (what, figures, vsBaseline) =>
    `| ${what} | ${millis(figures.medianMs)} | ${millis(figures.medianCpuMs)} | ${vsBaseline ? ratio(baseline.medianMs, figures.medianMs) : '1x'} |`;
  return [
    '| in one process (listSessions, then readTitles of every id, all three agents) | wall, median | main-thread CPU, median | baseline / this (wall) |',
    '| --- | --- | --- | --- |',
    row(`baseline: no usable cache, every transcript read and folded (${baseline.samplesMs.length} runs)`, baseline, false),
    row('cold: empty cache directory, every transcript read, the cache written (1 run)', cold, true),
    row(`warm: new sources over the cache cold wrote, as a new process has after loading (${warm.samplesMs.length} runs)`, warm, true),
    row(`in memory: the same sources listing again, their folders watched, as a long-lived process (${memory.samplesMs.length} runs)`, memory, true),
    row(`growing: the same, one transcript appended to before each listing, as while an agent writes (${growing.samplesMs.length} runs)`, growing, true),
    row(`floor without watching: a bare \`stat\` of every transcript, nothing else (${stats.samplesMs.length} runs)`, stats, true),
  ].join('\n');
}

function processTable(whole) {
  const row = (what, figures, compare = true) => `| ${what} | ${millis(figures.medianMs)} | ${compare ? ratio(whole.baseline.medianMs, figures.medianMs) : ''} |`;
  return [
    '| whole process (`node`, wall time from spawn to exit) | median | baseline / this |',
    '| --- | --- | --- |',
    row(`baseline: \`sessref list --json --sources claude-code,codex,gemini-cli\`, cache directory unusable (${whole.baseline.samplesMs.length} runs)`, whole.baseline),
    `| cold: the same, empty cache directory (1 run) | ${millis(whole.coldMs)} | ${ratio(whole.baseline.medianMs, whole.coldMs)} |`,
    row(`warm: the same, cache written by the previous run (${whole.warm.samplesMs.length} runs)`, whole.warm),
    row(`floor: \`sessref list --json --sources dsh\` on the empty root, no foreign home read (${whole.dshOnly.samplesMs.length} runs)`, whole.dshOnly, false),
    row(`floor: \`node -e ''\` (${whole.node.samplesMs.length} runs)`, whole.node, false),
  ].join('\n');
}

/** The section's markdown. */
export function foreignListSection({ corpus, inProcess, whole }, machine) {
  const warm = inProcess.warm.medianMs;
  const lines = [
    FOREIGN_LIST_HEADING,
    '',
    'Command (only this suite; it splices this section into docs/benchmarks.md and leaves the others as they are):',
    '',
    '```sh',
    'npm run bench -- --only foreign-list',
    '```',
    '',
    `Corpus (\`suites/foreign-list.mjs --mode corpus\`, kept in \`$TMPDIR/sessref-bench/foreign/\`): a temporary HOME holding ${count(FOREIGN_LIST.count)} sessions read in place by \`@sessref/sources\`:`,
    `${count(corpus.claude)} Claude Code transcripts in 50 projects, ${count(corpus.codex)} Codex rollouts over 120 dated folders (a quarter archived as \`.jsonl.zst\`), ${count(corpus.gemini)} Gemini CLI JSONL chats in 10 projects;`,
    `each of three turns (prompt, reasoning, a tool call and its output, a reply, the agents' own event and context records), ${(corpus.bytes / corpus.total / 1024).toFixed(1)} KiB on disk on average, ${(corpus.bytes / 1e6).toFixed(0)} MB in all.`,
    'The listing is what `sessref list` asks of the foreign sources: every header (`listSessions`), then every label (`readTitles`); the listing cache is the one `localSources()` keeps in the cache directory',
    '(packages/sources/README.md, "Listing cache"). **Baseline**: the same code with a cache directory it cannot use (under a regular file), so every transcript is read and folded, as before the cache existed.',
    '',
    '| Target | Measured |',
    '| --- | --- |',
    `| warm list over ${count(FOREIGN_LIST.count)} foreign sessions < 50 ms in a long-lived host (\`sessref serve\`, the dsh plugin): listing again, folders watched | ${millis(inProcess.memory.medianMs)} wall, ${millis(inProcess.memory.medianCpuMs)} CPU: ${verdict(inProcess.memory.medianMs < 50)} |`,
    `| the same while agents write (one transcript grown before each listing) | ${millis(inProcess.growing.medianMs)} wall, ${millis(inProcess.growing.medianCpuMs)} CPU: ${verdict(inProcess.growing.medianMs < 50)} |`,
    `| the same in a fresh process, after it has loaded the package (the listing cache on disk; every transcript stat-ed once) | ${millis(warm)} wall, ${millis(inProcess.warm.medianCpuMs)} CPU: ${verdict(warm < 50)} (a bare stat of every transcript alone: ${millis(inProcess.stats.medianMs)}) |`,
    `| the same, whole \`sessref list\` process (Node start-up, CLI modules, the dsh host over an empty root, JSON output) | ${millis(whole.warm.medianMs)}: ${verdict(whole.warm.medianMs < 50)} (the CLI's own floor with no foreign home is ${millis(whole.dshOnly.medianMs)}) |`,
    '',
    inProcessTable(inProcess),
    '',
    processTable(whole),
    '',
    `Rows listed by each \`sessref list\`: ${count(whole.rows)} (the empty root has none of its own).`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.node}, load average ${machine.loadAverage.map((load) => load.toFixed(2)).join(' / ')} at start`,
    `(above ${machine.cores} means other processes competed for the cores); run ${machine.startedAt}, revision ${machine.revision}.`,
    '',
  ];
  return lines.join('\n');
}

export function spliceForeignListSection(markdown, section) {
  return spliceSection(markdown, FOREIGN_LIST_HEADING, section);
}
