/**
 * Suite 7: `sessref` as its users run it, one whole process per command,
 * each paired with `node -e 0` on the same Node (A B A B …), so the ratio of
 * each pair holds while the machine's speed drifts. A process's CPU time and
 * peak memory come from the kernel's accounting of the finished child: its
 * CPU time through bash's `times` (to the millisecond; GNU time prints
 * hundredths, a sixth of Node's own start), its wall time and peak memory
 * through GNU time (`/usr/bin/time`, Debian's `time` package).
 *
 * Args: --cases FILE (JSON: [{ name, args, env?, script? }]: script, the sessref bin unless given) --runs N
 *       or --mcp ROOT --runs N (spawn to the first completion answered, wall time)
 *       or --first-search ROOT --cache DIR --runs N (`sessref search` over ROOT with DIR
 *          emptied before each run: the first search of a root, every derived file built)
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/sessref.js', import.meta.url));
const TIME = '/usr/bin/time';

const { cases: casesFile, mcp: mcpRoot, 'first-search': firstSearchRoot, cache: cacheDir, runs: runsArg = '5' } = parseArgs();
const runs = Number(runsArg);

/** Runs `argv` with its output dropped, then prints its exit status and the CPU times of the shell's children (`times`' second line). */
const RUN_AND_TIME = '"$0" "$@" >/dev/null; status=$?; times >&2; exit $status';

/** One whole process: user + system CPU seconds, wall seconds and peak resident KiB, as the kernel counted them. */
function measure(argv, env) {
  const result = spawnSync(TIME, ['-f', 'sessref-bench %e %M', 'bash', '-c', RUN_AND_TIME, ...argv], { env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const lines = result.stderr.split('\n');
  const timing = lines.findLast((text) => text.startsWith('sessref-bench '));
  const children = lines.findLast((text) => /^\d+m[\d.]+s \d+m[\d.]+s$/.test(text));
  if (timing === undefined || children === undefined) throw new Error(`${argv.join(' ')}: no timing (${result.error?.message ?? result.stderr.slice(-300)})`);
  const [wall, peakKiB] = timing.split(' ').slice(1).map(Number);
  const [user, system] = children.split(' ').map(seconds);
  return { cpu: user + system, wall, peakKiB, status: result.status };
}

/** `1m2.345s`, as bash's `times` prints a time, in seconds. */
function seconds(text) {
  const [, minutes, rest] = /^(\d+)m([\d.]+)s$/.exec(text);
  return Number(minutes) * 60 + Number(rest);
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function summary(samples) {
  return { samples, median: median(samples), min: Math.min(...samples), max: Math.max(...samples) };
}

/** `runs` pairs of the command and `node -e 0`, after one warm-up of each (it fills the compile cache and the page cache). */
function pairedCase({ name, args, env = {}, script = BIN }) {
  const childEnv = { ...process.env, ...env };
  const command = [process.execPath, script, ...args];
  const node = [process.execPath, '-e', '0'];
  const first = measure(command, childEnv);
  if (first.status !== 0) throw new Error(`${name}: ${script === BIN ? 'sessref' : script} ${args.join(' ')} exited with ${first.status}`);
  measure(node, childEnv);
  const pairs = [];
  for (let run = 0; run < runs; run += 1) pairs.push({ sessref: measure(command, childEnv), node: measure(node, childEnv) });
  progress(`  ${name}: ${median(pairs.map((pair) => pair.sessref.cpu)).toFixed(3)} s CPU, node ${median(pairs.map((pair) => pair.node.cpu)).toFixed(3)} s`);
  return {
    name,
    args,
    cpu: summary(pairs.map((pair) => pair.sessref.cpu)),
    wall: summary(pairs.map((pair) => pair.sessref.wall)),
    peakKiB: summary(pairs.map((pair) => pair.sessref.peakKiB)),
    nodeCpu: summary(pairs.map((pair) => pair.node.cpu)),
    nodeWall: summary(pairs.map((pair) => pair.node.wall)),
    cpuRatio: summary(pairs.map((pair) => pair.sessref.cpu / Math.max(pair.node.cpu, 0.001))),
  };
}

/** Wall seconds from spawning `sessref mcp` to the answer of its first `completion/complete`, as a client waits. */
function mcpOnce(root) {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', root], { stdio: ['pipe', 'pipe', 'ignore'] });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error('sessref mcp did not answer within 60 s'))), 60_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        if (message.id === 1) {
          send({ method: 'notifications/initialized' });
          send({ id: 2, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'ref' }, argument: { name: 'session', value: 'o' } } });
        } else if (message.id === 2) {
          clearTimeout(timer);
          const seconds = (performance.now() - started) / 1000;
          child.kill();
          resolve({ seconds, values: message.result?.completion?.values?.length ?? 0 });
        }
      }
    });
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'sessref-bench', version: '0' } } });
  });
}

function nodeWall() {
  const started = performance.now();
  spawnSync(process.execPath, ['-e', '0']);
  return (performance.now() - started) / 1000;
}

/** `runs` first searches of `root`, each with an empty cache directory: title index, kept headers and content index all built by the one command. */
function firstSearches(root, cache) {
  const samples = [];
  for (let run = 0; run < runs; run += 1) {
    rmSync(cache, { recursive: true, force: true });
    mkdirSync(cache, { recursive: true });
    const figures = measure([process.execPath, BIN, 'search', 'migration', '--root', root], { ...process.env, SESSREF_CACHE_DIR: cache });
    if (figures.status !== 0) throw new Error(`sessref search over ${root} exited with ${figures.status}`);
    samples.push(figures);
    progress(`  first search of ${root}: ${figures.wall.toFixed(1)} s wall, ${figures.cpu.toFixed(1)} s CPU`);
  }
  return { wall: summary(samples.map((sample) => sample.wall)), cpu: summary(samples.map((sample) => sample.cpu)), peakKiB: summary(samples.map((sample) => sample.peakKiB)) };
}

if (firstSearchRoot !== undefined) {
  emitResult(firstSearches(firstSearchRoot, cacheDir));
} else if (mcpRoot !== undefined) {
  await mcpOnce(mcpRoot);
  const pairs = [];
  for (let run = 0; run < runs; run += 1) pairs.push({ mcp: await mcpOnce(mcpRoot), node: nodeWall() });
  emitResult({
    wall: summary(pairs.map((pair) => pair.mcp.seconds)),
    nodeWall: summary(pairs.map((pair) => pair.node)),
    wallRatio: summary(pairs.map((pair) => pair.mcp.seconds / pair.node)),
    completions: pairs[0].mcp.values,
  });
} else {
  const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
  emitResult(cases.map(pairedCase));
}
