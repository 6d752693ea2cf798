/** The machine a run measured, for the report header. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

/** What the bench itself writes: a run that follows another (`--only` after the full run) finds them changed, and measured the same code. */
const BENCH_OUTPUTS = [':(exclude)docs/benchmarks.md', ':(exclude)docs/benchmarks-prepare.svg'];

function gitRevision() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', '.', ...BENCH_OUTPUTS], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} (with uncommitted changes)` : head;
  } catch {
    return 'unknown';
  }
}

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    node: process.version,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    // Other processes share the machine; the load average says how much.
    loadAverage: os.loadavg(),
    revision: gitRevision(),
  };
}
