/**
 * Other processes for the write tests: one that holds a file open or locked
 * until stopped, a pid no process has any more, and the facts the session
 * lock records about a process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** Whether this machine exposes processes through /proc (Linux), which the writer checks need. */
export const HAS_PROC = (() => {
  try {
    return readFileSync('/proc/self/stat', 'utf8') !== '';
  } catch {
    return false;
  }
})();

/** Whether util-linux `flock(1)` is installed, to take a kernel lock the way dsh's newer releases do. */
export const HAS_FLOCK = spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

export interface Holder {
  pid: number;
  stop(): Promise<void>;
}

async function started(child: ChildProcess): Promise<Holder> {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before it was ready`)));
  });
  return {
    pid: child.pid!,
    // The holder runs in a group of its own: stopping it stops whatever it started (and the locks they inherited).
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}

/** A process that keeps `path` open with `flags` (`'a'` to write, `'r'` to read) until stopped. */
export function holdOpen(path: string, flags: 'a' | 'r'): Promise<Holder> {
  const script = "require('fs').openSync(process.argv[1], process.argv[2]); console.log('ready'); setInterval(() => {}, 1e6);";
  return started(spawn(process.execPath, ['-e', script, path, flags], { stdio: ['ignore', 'pipe', 'inherit'], detached: true }));
}

/** A process holding an exclusive `flock` on `path` (created if missing) until stopped. */
export function holdFlock(path: string): Promise<Holder> {
  return started(spawn('flock', ['--exclusive', path, 'sh', '-c', 'echo ready; exec sleep 600'], { stdio: ['ignore', 'pipe', 'inherit'], detached: true }));
}

/** A process that does nothing until stopped. */
export function idleProcess(): Promise<Holder> {
  return started(spawn(process.execPath, ['-e', "console.log('ready'); setInterval(() => {}, 1e6);"], { stdio: ['ignore', 'pipe', 'inherit'], detached: true }));
}

/** A pid that no process has any more. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** The start time the session lock records for a process, read the way it reads it. */
export function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** The owner record of a session lock file taken by process `pid` (of this host unless `host` says otherwise). */
export function lockRecord(pid: number, start: string, host = hostname()): string {
  return JSON.stringify({ pid, host, start, nonce: randomUUID() });
}
