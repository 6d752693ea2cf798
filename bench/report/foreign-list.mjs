/**
 * Section 6 of docs/benchmarks.md: listing other agents' sessions with the
 * persisted listing cache against the same listing re-reading every
 * transcript (suites/foreign-list.mjs).
 */
import { AGENT_NAMES, AGENTS } from '@sessref/sources/agents';
import { formatMs as millis } from '../lib/stats.mjs';
import { FOREIGN_LIST } from '../plan.mjs';
import { spliceSection } from './search.mjs';

const FOREIGN_LIST_HEADING = "## 6. Listing other agents' sessions: warm `sessref list` over 10,000 foreign sessions";

const ratio = (slow, fast) => `${(slow / fast).toFixed(slow / fast >= 100 ? 0 : 1)}x`;
const count = (n) => n.toLocaleString('en-US');
const verdict = (met) => (met ? 'met' : '**not met**');
const percent = (part, whole) => `${((100 * part) / whole).toFixed(0)}%`;
/** The long-lived host's budget: a warm list of FOREIGN_LIST.count sessions within this. */
const TARGET_MS = 50;
/** What a listing in memory would take over FOREIGN_LIST.count sessions of one agent, at the rate measured over its share. */
const atFullCorpus = (ms, sessions) => (ms / sessions) * FOREIGN_LIST.count;

function inProcessTable({ baseline, cold, warm, memory, growing, stats }) {
  const row = (what, figures, vsBaseline) =>
    `| ${what} | ${millis(figures.medianMs)} | ${millis(figures.medianCpuMs)} | ${vsBaseline ? ratio(baseline.medianMs, figures.medianMs) : '1x'} |`;
  return [
    '| in one process (listSessions, then readTitles of every id, every agent) | wall, median | main-thread CPU, median | baseline / this (wall) |',
    '| --- | --- | --- | --- |',
    row(`baseline: no usable cache, every transcript read and folded (${baseline.samplesMs.length} runs)`, baseline, false),
    row('cold: empty cache directory, every transcript read, the cache written (1 run)', cold, true),
    row(`warm: new sources over the cache cold wrote, as a new process has after loading (${warm.samplesMs.length} runs)`, warm, true),
    row(`in memory: the same sources listing again, their folders watched, as a long-lived process (${memory.samplesMs.length} runs)`, memory, true),
    row(`growing: the same, one transcript appended to before each listing, as while an agent writes (${growing.samplesMs.length} runs)`, growing, true),
    row(`floor without watching: a bare \`stat\` of every file of the corpus, nothing else (${stats.samplesMs.length} runs)`, stats, true),
  ].join('\n');
}

function processTable(whole) {
  const row = (what, figures, compare = true) => `| ${what} | ${millis(figures.medianMs)} | ${compare ? ratio(whole.baseline.medianMs, figures.medianMs) : ''} |`;
  return [
    '| whole process (`node`, wall time from spawn to exit) | median | baseline / this |',
    '| --- | --- | --- |',
    row(`baseline: \`sessref list --json --sources ${Object.keys(FOREIGN_LIST.shares).join(',')}\`, cache directory unusable (${whole.baseline.samplesMs.length} runs)`, whole.baseline),
    `| cold: the same, empty cache directory (1 run) | ${millis(whole.coldMs)} | ${ratio(whole.baseline.medianMs, whole.coldMs)} |`,
    row(`warm: the same, cache written by the previous run (${whole.warm.samplesMs.length} runs)`, whole.warm),
    row(`floor: \`sessref list --json --sources dsh\` on the empty root, no foreign home read (${whole.dshOnly.samplesMs.length} runs)`, whole.dshOnly, false),
    row(`floor: \`node -e ''\` (${whole.node.samplesMs.length} runs)`, whole.node, false),
  ].join('\n');
}

/** The corpus, agent by agent: how many sessions, where under HOME, and their size on disk. */
function corpusTable(corpus) {
  return [
    '| agent | sessions | share | where under HOME | on disk, per session |',
    '| --- | --- | --- | --- | --- |',
    ...Object.entries(corpus.agents).map(([name, { sessions, bytes, place }]) =>
      `| ${AGENTS[name].displayName} | ${count(sessions)} | ${percent(sessions, corpus.total)} | \`${place}\` | ${(bytes / sessions / 1024).toFixed(1)} KiB |`),
  ].join('\n');
}

/**
 * Each reader alone over its share: in memory (a long-lived host), what that
 * rate would make of the whole corpus in one agent's sessions (a reader
 * that cannot keep up is one whose rate alone would break the target), a
 * fresh process's first listing and a whole `sessref list` process.
 */
function agentTable({ corpus, inProcess, whole }) {
  const row = ([name, { sessions }]) => {
    const { memory, warm } = inProcess.agents[name];
    const scaled = atFullCorpus(memory.medianMs, sessions);
    const rows = whole.agents[name].rows === sessions ? '' : ` (listed ${count(whole.agents[name].rows)})`;
    const keeps = scaled < TARGET_MS ? 'keeps up' : '**cannot keep up**';
    return `| ${AGENTS[name].displayName} | ${count(sessions)}${rows} | ${millis(memory.medianMs)} | ${((1000 * memory.medianMs) / sessions).toFixed(2)} µs | ${millis(scaled)}: ${keeps} | ${millis(warm.medianMs)} | ${millis(whole.agents[name].warm.medianMs)} |`;
  };
  return [
    `| agent, alone | sessions | in memory, folders watched (${inProcess.memory.samplesMs.length} runs) | per session | ${count(FOREIGN_LIST.count)} of its sessions at that rate (< ${TARGET_MS} ms) | fresh sources, warm cache (${inProcess.warm.samplesMs.length} runs) | whole \`sessref list --json --sources <agent>\`, warm (${whole.agents[Object.keys(whole.agents)[0]].warm.samplesMs.length} runs) |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...Object.entries(corpus.agents).map(row),
  ].join('\n');
}

/** The agents of the table the corpus leaves out (added to sessref after the bench's writers), named so that no figure seems to cover them. */
function missingAgents(corpus) {
  const missing = AGENT_NAMES.filter((name) => !Object.hasOwn(corpus.agents, name));
  return missing.length === 0 ? [] : [`Not in the corpus (no writer in \`bench/foreign/\` yet): ${missing.map((name) => AGENTS[name].displayName).join(', ')}.`, ''];
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
    `Corpus (\`suites/foreign-list.mjs --mode corpus\`, writers in \`bench/foreign/\`, kept in \`$TMPDIR/sessref-bench/foreign/\`): a temporary HOME holding ${count(corpus.total)} sessions of ${Object.keys(corpus.agents).length} agents, read in place by \`@sessref/sources\`,`,
    "each written in its agent's own shape and place (../shared/formats/): three turns of a prompt, reasoning where the agent records it, a tool call and its output, a reply, and the agent's own event, context and title records;",
    `${(corpus.bytes / corpus.total / 1024).toFixed(1)} KiB on disk per session on average, ${(corpus.bytes / 1e6).toFixed(0)} MB in all. Shares roughly in the order of the agents' monthly npm downloads (issue #33), at least 500 each:`,
    '',
    corpusTable(corpus),
    '',
    ...missingAgents(corpus),
    'The listing is what `sessref list` asks of the foreign sources: every header (`listSessions`), then every label (`readTitles`); the listing cache is the one `localSources()` keeps in the cache directory',
    '(packages/sources/README.md, "Listing cache"). **Baseline**: the same code with a cache directory it cannot use (under a regular file), so every transcript is read and folded, as before the cache existed.',
    '',
    '| Target | Measured |',
    '| --- | --- |',
    `| warm list over ${count(FOREIGN_LIST.count)} foreign sessions < ${TARGET_MS} ms in a long-lived host (\`sessref serve\`, the dsh plugin): listing again, folders watched | ${millis(inProcess.memory.medianMs)} wall, ${millis(inProcess.memory.medianCpuMs)} CPU: ${verdict(inProcess.memory.medianMs < TARGET_MS)} |`,
    `| the same while agents write (one transcript grown before each listing) | ${millis(inProcess.growing.medianMs)} wall, ${millis(inProcess.growing.medianCpuMs)} CPU: ${verdict(inProcess.growing.medianMs < TARGET_MS)} |`,
    `| the same in a fresh process, after it has loaded the package (the listing cache on disk; every transcript stat-ed once) | ${millis(warm)} wall, ${millis(inProcess.warm.medianCpuMs)} CPU: ${verdict(warm < TARGET_MS)} (a bare stat of every file of the corpus alone: ${millis(inProcess.stats.medianMs)}) |`,
    `| the same, whole \`sessref list\` process (Node start-up, CLI modules, the dsh host over an empty root, JSON output) | ${millis(whole.warm.medianMs)}: ${verdict(whole.warm.medianMs < TARGET_MS)} (the CLI's own floor with no foreign home is ${millis(whole.dshOnly.medianMs)}) |`,
    '',
    inProcessTable(inProcess),
    '',
    processTable(whole),
    '',
    'Each reader alone (`localSources(environment, [agent])` over the same warm cache, then `sessref list --sources <agent>`): a reader keeps up when its rate in memory, over the whole corpus in its sessions alone, stays within the target.',
    '',
    agentTable({ corpus, inProcess, whole }),
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
