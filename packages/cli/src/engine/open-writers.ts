import { readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';

/** Another process that may be writing a file. */
export interface ForeignWriter {
  pid: number;
  /** The process's command name, when it can be read. */
  command?: string;
  how: 'open for writing' | 'locked';
}

/**
 * Processes other than this one that have one of `files` open for writing, or
 * hold a kernel lock (`flock`, `fcntl`) on one. dsh keeps no lock file of its
 * own, so this is how a dsh process caught writing a log is seen: its append
 * holds the log open for writing, and a dsh that locks its lock file next
 * to the log (jsonl-root's `lockFilesBeside`) holds that lock while the
 * session is live.
 *
 * Linux only, through `/proc`; elsewhere nothing is found. Processes of other
 * users are seen only when this process may read their `/proc` entries.
 */
export function findForeignWriters(files: readonly string[]): ForeignWriter[] {
  const targets = files.flatMap((path) => {
    const stat = statSync(path, { throwIfNoEntry: false, bigint: true });
    // A descriptor's link in /proc names the file by its real path.
    return stat === undefined ? [] : [{ path: realpathSync(path), dev: stat.dev, ino: stat.ino }];
  });
  if (targets.length === 0) return [];
  return [...lockHolders(targets), ...openWriters(targets)];
}

interface Target {
  path: string;
  dev: bigint;
  ino: bigint;
}

/** Holders of kernel locks on the targets, from `/proc/locks` (`N: FLOCK ADVISORY WRITE <pid> <major>:<minor>:<inode> …`). */
function lockHolders(targets: readonly Target[]): ForeignWriter[] {
  const keys = new Set(targets.map(({ dev, ino }) => `${deviceMajor(dev).toString(16)}:${deviceMinor(dev).toString(16)}:${ino}`));
  const holders: ForeignWriter[] = [];
  for (const line of readLines('/proc/locks')) {
    const match = /^\d+:\s+(?:->\s+)?\S+\s+\S+\s+\S+\s+(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (match === null) continue;
    const [, pid, major, minor, inode] = match;
    // /proc/locks pads device numbers to two hex digits.
    if (!keys.has(`${BigInt(`0x${major}`).toString(16)}:${BigInt(`0x${minor}`).toString(16)}:${inode}`)) continue;
    if (Number(pid) === process.pid) continue;
    holders.push({ pid: Number(pid), ...command(Number(pid)), how: 'locked' });
  }
  return holders;
}

/** Processes with a descriptor on a target opened for writing (`O_WRONLY` or `O_RDWR` in its `fdinfo` flags). */
function openWriters(targets: readonly Target[]): ForeignWriter[] {
  const paths = new Set(targets.map((target) => target.path));
  const writers: ForeignWriter[] = [];
  for (const entry of listDirectory('/proc')) {
    const pid = Number(entry);
    if (!/^\d+$/.test(entry) || pid === process.pid) continue;
    const writing = listDirectory(`/proc/${pid}/fd`).some((fd) => {
      const link = readLink(`/proc/${pid}/fd/${fd}`);
      return link !== undefined && paths.has(link) && isTarget(`/proc/${pid}/fd/${fd}`, targets) && isWriteMode(`/proc/${pid}/fdinfo/${fd}`);
    });
    if (writing) writers.push({ pid, ...command(pid), how: 'open for writing' });
  }
  return writers;
}

/** The same file, not merely the same path (the link text could be stale). */
function isTarget(descriptor: string, targets: readonly Target[]): boolean {
  const stat = statSync(descriptor, { throwIfNoEntry: false, bigint: true });
  return stat !== undefined && targets.some(({ dev, ino }) => stat.dev === dev && stat.ino === ino);
}

function isWriteMode(fdinfo: string): boolean {
  const flags = readLines(fdinfo).find((line) => line.startsWith('flags:'));
  if (flags === undefined) return false;
  const accessMode = Number.parseInt(flags.slice('flags:'.length).trim(), 8) & 0o3;
  return accessMode === 0o1 || accessMode === 0o2;
}

function command(pid: number): { command?: string } {
  const name = readLines(`/proc/${pid}/comm`)[0];
  return name === undefined || name === '' ? {} : { command: name };
}

/** Linux's `dev_t` split, as glibc's `major()`/`minor()` compute it. */
function deviceMajor(dev: bigint): bigint {
  return ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
}

function deviceMinor(dev: bigint): bigint {
  return (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
}

// Processes come and go during the scan, and other users' entries may be closed to us: a failed read is "nothing there".

function readLines(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n');
  } catch {
    return [];
  }
}

function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
