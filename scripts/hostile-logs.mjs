/**
 * Measures what hostile logs cost `sessref` (docs/reliability.md, "Hostile
 * logs"): the built binary, a seeded demo root, and one log replaced by
 *
 * - a crafted zstd frame of N MiB (empty raw blocks, one header frame that
 *   never ends early): the time `sessref list` and `sessref show` take;
 * - a 1 GiB sparse file (no magic number): the peak RSS of `sessref show`;
 * - a 2.5 GiB sparse file: the error `sessref show` gives.
 *
 * For the crafted frame it also times dsh's own listing (`JsonlSessionPersistence.list()`,
 * what every sessref listing delegated to before the probe), in a child process
 * killed at the timeout.
 *
 * With `--probe-root DIR` it times the check itself over every log of a
 * healthy root (such as the benchmark's 10,000-session corpus), three times.
 *
 * Usage: npx tsc -b && node scripts/hostile-logs.mjs [--sizes 1,2,4] [--timeout 120] [--probe-root DIR]
 * Run it through `npx` or an npm script, so Node 22 runs the binary.
 */
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sessionLogs, sessionLogsOf } from '@sessref/dsh/jsonl-root';

const BIN = fileURLToPath(new URL('../packages/cli/bundle/bin.js', import.meta.url));
const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1,2,4' }, timeout: { type: 'string', default: '120' }, 'probe-root': { type: 'string' } },
});
const sizes = values.sizes.split(',').map(Number);
const timeoutMs = Number(values.timeout) * 1000;

/** One zstd frame of `bytes` bytes whose blocks are all empty raw blocks: structurally valid, and never complete before its end. */
export function craftedFrame(bytes) {
  const blocks = Math.max(1, Math.floor((bytes - 6) / 3));
  const frame = Buffer.alloc(6 + blocks * 3);
  frame.writeUInt32LE(0xfd2fb528, 0);
  frame[4] = 0x00; // no checksum, no content size, a window descriptor follows
  frame[5] = 0x00; // (the window descriptor; the first block header starts at byte 6)
  // Every block header is 0 (raw, size 0, not last) but the final one.
  frame.writeUIntLE(1, frame.length - 3, 3);
  return frame;
}

function run(args, env = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', SESSREF_CACHE_DIR: cache, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { seconds, code: result.status, signal: result.signal, stderr: result.stderr.split('\n').find((line) => line.startsWith('error')) ?? '' };
}

const CLI = fileURLToPath(new URL('../packages/cli/', import.meta.url));

/** dsh's own header listing of `root`, timed in a child process. */
function hostList(root) {
  const source = `
    import { Context } from '@deepseek-ai/cordis';
    import { SessionStore } from '@deepseek-ai/dsh-session';
    import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
    const ctx = new Context();
    await ctx.plugin(SessionStore);
    await ctx.plugin(JsonlSessionPersistence, { root: process.argv[1] });
    const started = performance.now();
    let outcome;
    try { outcome = (await ctx.sessionPersistence.list()).length + ' headers'; } catch (error) { outcome = error.message; }
    process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000, outcome }));
    await ctx.fiber.dispose();
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source, root], { cwd: CLI, encoding: 'utf8', timeout: timeoutMs });
  if (result.signal) return `killed after ${timeoutMs / 1000} s`;
  if (result.status !== 0) return `failed: ${result.stderr.trim().split('\n').at(-1)}`;
  const { seconds, outcome } = JSON.parse(result.stdout);
  return `${seconds.toFixed(2)} s (${outcome})`;
}

if (values['probe-root'] !== undefined) {
  const { probeLog } = await import('@sessref/host');
  const logs = sessionLogs(values['probe-root']).map((log) => log.path);
  for (let round = 0; round < 3; round++) {
    const counters = { bytesRead: 0 };
    const started = performance.now();
    const refused = logs.filter((log) => probeLog(log, counters) !== undefined).length;
    const ms = performance.now() - started;
    console.log(`probe of ${logs.length} logs: ${ms.toFixed(0)} ms (${((ms * 1000) / logs.length).toFixed(0)} µs each), ${Math.round(counters.bytesRead / logs.length)} B read each, ${refused} refused`);
  }
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'sessref-hostile-'));
const cache = join(dir, 'cache');
try {
  const root = join(dir, 'sessions');
  // sessref seeds a root it is pointed at only when that exists: it never creates one.
  mkdirSync(root);
  run(['seed', '--root', root]);
  const [log] = sessionLogsOf(root, 'flaky-ci').map((found) => found.path);
  console.log(`node ${process.version}, ${BIN}`);
  const fmt = (r) => (r.signal ? `killed after ${r.seconds.toFixed(1)} s` : `${r.seconds.toFixed(2)} s (exit ${r.code})`);
  const healthy = run(['list', '--root', root]);
  console.log(`healthy root: list ${fmt(healthy)}`);
  for (const mib of sizes) {
    writeFileSync(log, craftedFrame(mib * 1024 * 1024));
    rmSync(cache, { recursive: true, force: true });
    const list = run(['list', '--root', root]);
    const show = run(['show', 'flaky-ci', '--root', root]);
    console.log(`crafted frame ${mib} MiB: sessref list ${fmt(list)}, show ${fmt(show)}: ${show.stderr}`);
    console.log(`  dsh's own listing of the same root: ${hostList(root)}`);
  }
  for (const [label, size] of [['1 GiB', 2 ** 30], ['2.5 GiB', 2.5 * 2 ** 30]]) {
    writeFileSync(log, '');
    truncateSync(log, size);
    const rss = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, BIN, 'show', 'flaky-ci', '--root', root], {
      env: { ...process.env, NO_COLOR: '1', SESSREF_CACHE_DIR: cache },
      encoding: 'utf8',
      timeout: timeoutMs,
    });
    const lines = rss.stderr.trim().split('\n');
    const kib = Number(lines.at(-1));
    const error = lines.find((line) => line.startsWith('error')) ?? '';
    console.log(`sparse ${label}: show exit ${rss.status}, peak RSS ${(kib / 1024).toFixed(0)} MiB: ${error}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
