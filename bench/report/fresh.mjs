/**
 * Section 7 of docs/benchmarks.md: `sessref` as a user runs it, one fresh
 * process per command beside `node -e 0` (suites/fresh.mjs, plan in
 * bench/fresh.mjs).
 */
import { FRESH } from '../plan.mjs';
import { spliceSection } from './search.mjs';

const HEADING = '## 7. A fresh `sessref` process, as a user runs it';

const seconds = (value) => `${(value * 1000).toFixed(0)} ms`;
const times = (value) => `${value.toFixed(2)}x`;
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;
const verdict = (met) => (met ? 'met' : '**not met**');

function row(figures, target) {
  const ratio = figures.cpuRatio.median;
  const peak = figures.peakKiB.median;
  const met = ratio <= target && peak <= FRESH.targets.peakMiB * 1024;
  return `| \`sessref ${figures.args.map((arg) => (arg.startsWith('/') ? '…' : arg.length > 40 ? `${arg.slice(0, 37)}…` : arg)).join(' ')}\` | ${seconds(figures.cpu.median)} | ${seconds(figures.nodeCpu.median)} | ${times(ratio)} (${times(figures.cpuRatio.min)}-${times(figures.cpuRatio.max)}) | ${seconds(figures.wall.median)} | ${mib(peak)} | <= ${target}x: ${verdict(met)} |`;
}

const HEADER = [
  '| command | CPU, median | `node -e 0` CPU, same pairs | ratio, median (min-max) | wall, median | peak RSS | target (and <= 150 MiB) |',
  '| --- | --- | --- | --- | --- | --- | --- |',
];

const DEMO_TARGETS = { '--version': 'demoLight', mention: 'demoLight', list: 'demoLight', show: 'demoHeavy', 'search (warm)': 'demoHeavy', prepare: 'demoHeavy' };

/** What each first search is set beside, as the table says it. */
const BESIDE = {
  dsh: "dsh's FTS5 backend building its index over the same root (`suites/search.mjs --mode dsh`)",
  direct: "sessref's index built from as many generated sessions of the same shape, fed directly, no log read (`suites/search-index.mjs --mode build`)",
};

function firstSearchLines(firstSearch) {
  const rows = firstSearch.map(({ count, beside, cli, baselineMs }) => {
    const ratio = (cli.wall.median * 1000) / baselineMs;
    const target = beside === 'dsh' ? FRESH.targets.firstSearchOverDsh : FRESH.targets.firstSearchOverDirect;
    const runs = cli.wall.samples.length;
    return `| ${count.toLocaleString('en-US')} | ${(cli.wall.median).toFixed(1)} s (${runs === 1 ? '1 run' : `median of ${runs}`}), ${(cli.cpu.median).toFixed(1)} s CPU, ${mib(cli.peakKiB.median)} | ${BESIDE[beside]}: ${(baselineMs / 1000).toFixed(1)} s | ${times(ratio)} | <= ${target}x: ${verdict(ratio <= target)} |`;
  });
  return [
    '### The first search of a root: an empty cache directory',
    '',
    "`sessref search migration --root <root>` with its cache directory emptied before each run, so the one command builds every derived file (title index, kept headers, content index) over the discovery corpus, wall time;",
    'beside, in the same run, what building a content index costs otherwise:',
    '',
    '| sessions | `sessref search`, wall (CPU, peak RSS) | beside it | ratio, wall | target |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ];
}

export function freshSection({ demo, corpora, mcp, firstSearch }, machine) {
  const lines = [
    HEADING,
    '',
    'Command (only this suite; it splices this section into docs/benchmarks.md and leaves the others as they are):',
    '',
    '```sh',
    'npm run bench -- --only fresh',
    '```',
    '',
    `Each command runs as a whole process (\`node packages/cli/bin/sessref.js …\`, the \`sessref\` bin itself, which imports the bundle), ${FRESH.runs} times, each run paired with \`node -e 0\` on the same Node`,
    "(A B A B …, after one warm-up of each, which also fills Node's compile cache and the derived files);",
    "CPU time (user + system) and peak resident memory are the kernel's figures for the finished child: CPU time through bash's `times`, to the millisecond, wall time and peak memory through GNU time. The ratio is the command's CPU time over Node's own start in the same pair.",
    'HOME holds no other agent, so every figure is the dsh root alone; each root has its own warm cache directory (title index, kept headers, kept listing, content index), and each root is left two seconds after it was written before its warm-up (a kept listing is trusted only for files that old).',
    '',
    '### The demo root (`sessref seed`: 8 sessions, one of 4,000 messages)',
    '',
    ...HEADER,
    ...demo.map((figures) => row(figures, FRESH.targets[DEMO_TARGETS[figures.name]])),
    '',
  ];
  for (const { count, messages, cases } of corpora) {
    const target = count === FRESH.counts[0] ? FRESH.targets.twoThousand : FRESH.targets.tenThousand;
    lines.push(`### ${count.toLocaleString('en-US')} dsh sessions of ${messages} messages (the discovery corpus), derived files warm`, '', ...HEADER);
    const clean = cases.find((figures) => figures.name === 'list');
    for (const figures of cases) {
      if (figures.name === 'bare walk') {
        lines.push(
          `| the floor, not sessref: a bare walk of the root (\`bench/lib/bare-walk.mjs\`: list each session directory, stat its log) | ${seconds(figures.cpu.median)} | ${seconds(figures.nodeCpu.median)} | ${times(figures.cpuRatio.median)} (${times(figures.cpuRatio.min)}-${times(figures.cpuRatio.max)}) | ${seconds(figures.wall.median)} | ${mib(figures.peakKiB.median)} | what every run of \`list\` costs at least |`,
        );
      } else if (figures.name.startsWith('list, ')) {
        // Each root's ratio over Node's start in its own pairs: the machine's speed drifts between the two roots' runs.
        const over = figures.cpuRatio.median / clean.cpuRatio.median;
        lines.push(
          `| \`sessref list\` over the same root plus one corrupt log and one \`session.v5\` log | ${seconds(figures.cpu.median)} | ${seconds(figures.nodeCpu.median)} | ${times(figures.cpuRatio.median)} | ${seconds(figures.wall.median)} | ${mib(figures.peakKiB.median)} | <= ${FRESH.targets.damagedOverClean}x the clean root's (ratio over ratio): ${times(over)}, ${verdict(over <= FRESH.targets.damagedOverClean)} |`,
        );
      } else lines.push(row(figures, target));
    }
    lines.push('');
  }
  if (firstSearch !== undefined) lines.push(...firstSearchLines(firstSearch));
  const mcpMet = mcp.wallRatio.median <= FRESH.targets.mcp;
  lines.push(
    '### `sessref mcp`: from spawn to the first completion answered',
    '',
    `A client's \`initialize\`, \`notifications/initialized\` and \`completion/complete\` (the \`ref\` prompt's \`session\` argument) over the demo root, wall time, ${FRESH.runs} runs each paired with a \`node -e 0\` spawn:`,
    `${seconds(mcp.wall.median)} (median; \`node -e 0\`: ${seconds(mcp.nodeWall.median)}), ${times(mcp.wallRatio.median)} Node's start; target <= ${FRESH.targets.mcp}x: ${verdict(mcpMet)} (${mcp.completions} completions answered).`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.node}, load average ${machine.loadAverage.map((load) => load.toFixed(2)).join(' / ')} at start`,
    `(above ${machine.cores} means other processes competed for the cores); run ${machine.startedAt}, revision ${machine.revision}.`,
    '',
  );
  return lines.join('\n');
}

export function spliceFreshSection(markdown, section) {
  return spliceSection(markdown, HEADING, section);
}
