import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, lstatSync, readdirSync, readlinkSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileTooLargeError, NotRegularFileError, describeFileType, monotonicMs, readRegularFile } from '@sessref/platform';
import { errorCode } from '@sessref/core';

/** Who holds a lock: enough to tell, on the same host, whether that process still runs. */
export interface LockOwner {
  pid: number;
  host: string;
  /** When the process started (Linux: clock ticks since boot), so a reused pid is not taken for the owner; `''` where unknown. */
  start: string;
  /** Unique per acquisition: names this generation of the lock. */
  nonce: string;
}

/** The lock could not be taken in time; `owner` is who holds it, when its file says so. */
export class LockBusyError extends Error {
  constructor(
    readonly path: string,
    readonly owner: LockOwner | undefined,
  ) {
    super(owner === undefined ? `${path} is held` : `${path} is held by process ${owner.pid} on ${owner.host}`);
    this.name = 'LockBusyError';
  }
}

/**
 * Something sessref never puts at the lock's path stands there: a symbolic
 * link (even a dangling one), a directory, a FIFO… It is refused at once: no
 * holder will ever release it, and a dangling link cannot even be read.
 */
export class LockInvalidError extends Error {
  constructor(
    readonly path: string,
    /** What stands there, as an error message says it (a link with where it points). */
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a lock file`);
    this.name = 'LockInvalidError';
  }
}

export interface LockOptions {
  /** How long to wait for a holder to finish; 0 tries once. */
  waitMs: number;
  signal?: AbortSignal;
}

/**
 * An exclusive lock file that a crashed holder cannot keep forever.
 *
 * The owner record is written to a private file first and published with
 * `link()`, which fails when the lock exists: the lock is never seen empty or
 * half-written. A lock whose owner process has died (same host, same pid and
 * start time) is stale and is taken over; see {@link removeStale}. An owner on
 * another host cannot be checked from here, so its lock is only ever waited for.
 * Anything but a regular file at the lock's path is refused
 * ({@link LockInvalidError}). Tries are slept apart, and the wait ends at
 * its deadline, whatever stands at the path.
 */
export class FileLock {
  private constructor(
    readonly path: string,
    readonly owner: LockOwner,
  ) {}

  static async acquire(path: string, options: LockOptions): Promise<FileLock> {
    const me = currentOwner();
    const candidate = `${path}.${me.nonce}.new`;
    try {
      writeFileSync(candidate, JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      // A monotonic clock: a wall clock set back meanwhile would stretch the wait.
      const deadline = monotonicMs() + options.waitMs;
      for (let attempt = 0; ; attempt++) {
        const held = tryTake(path, candidate);
        if (held === 'taken') {
          removeOrphans(path, candidate);
          return new FileLock(path, me);
        }
        const left = deadline - monotonicMs();
        if (left <= 0) throw new LockBusyError(path, held.owner);
        await sleep(pause(attempt, left), undefined, { signal: options.signal });
      }
    } finally {
      unlinkIfPresent(candidate);
    }
  }

  /** Remove the lock, unless it is no longer this generation (it then is not ours to remove). */
  release(): void {
    if (parseOwner(readIfPresent(this.path))?.nonce === this.owner.nonce) unlinkIfPresent(this.path);
  }
}

/** The pause after try `attempt`: backing off to about 100 ms, jittered so contenders spread out, never past the deadline. */
function pause(attempt: number, left: number): number {
  return Math.min(Math.min(5 * 2 ** attempt, 100) * (0.5 + Math.random()), left);
}

/** Who keeps the lock after a try: the owner its file names, if it names one. */
interface Held {
  owner: LockOwner | undefined;
}

/**
 * One try at the lock: link the candidate in. A lock that is gone by the time
 * it is read (released meanwhile), or whose owner has died (taken over, see
 * {@link removeStale}), is tried once more at once, and only once: any
 * further try waits its turn in {@link FileLock.acquire}, under its deadline.
 */
function tryTake(path: string, candidate: string, mayFree = true): Held | 'taken' {
  if (tryLink(candidate, path)) return 'taken';
  const content = readLock(path);
  const owner = parseOwner(content);
  const freed = mayFree && (content === undefined || (owner !== undefined && !isRunning(owner) && removeStale(path, owner, candidate)));
  return freed ? tryTake(path, candidate, false) : { owner };
}

/**
 * The text of the lock file, `undefined` when there is none. sessref only
 * ever links a regular file there, so anything else is refused instead of
 * waited on: above all a symbolic link, which `link()` finds taken even when
 * it dangles, while a read through it finds nothing.
 */
function readLock(path: string): string | undefined {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  if (!stats.isFile()) throw new LockInvalidError(path, describeEntry(path, stats));
  return readIfPresent(path);
}

/** What stands at `path`, as an error message says it; a symbolic link with where it points. */
function describeEntry(path: string, stats: Stats): string {
  if (!stats.isSymbolicLink()) return describeFileType(stats);
  try {
    return `a symbolic link (→ ${readlinkSync(path)})`;
  } catch {
    return 'a symbolic link'; // removed meanwhile: it was one all the same
  }
}

/**
 * Delete the lock file at `path` if it still holds the dead `owner`'s
 * generation. Every contender that saw the same dead owner races to create
 * one claim file named after that generation's nonce; only the one that
 * creates it may delete the lock, and it re-reads the lock first, so a lock
 * that a faster contender has already taken over again is never deleted. A
 * claimant that dies mid-way leaves a claim owned by a dead process: that
 * claim is taken over the same way. Returns whether that generation is gone.
 */
function removeStale(path: string, owner: LockOwner, candidate: string): boolean {
  const claim = `${path}.${owner.nonce}.claim`;
  if (tryLink(candidate, claim)) {
    try {
      if (parseOwner(readIfPresent(path))?.nonce === owner.nonce) unlinkIfPresent(path);
    } finally {
      unlinkIfPresent(claim);
    }
    return true;
  }
  // Another contender is removing it, or died doing so: then its claim goes the same way, and this one is tried again.
  const claimant = parseOwner(readIfPresent(claim));
  return claimant !== undefined && !isRunning(claimant) && removeStale(claim, claimant, candidate) && removeStale(path, owner, candidate);
}

/** Owner files that dead processes left next to the lock (a crash inside `acquire`): never part of the lock any more. */
function removeOrphans(path: string, candidate: string): void {
  const prefix = `${basename(path)}.`;
  for (const name of readdirSync(dirname(path))) {
    const file = join(dirname(path), name);
    if (!name.startsWith(prefix) || file === candidate) continue;
    const owner = parseOwner(readIfPresent(file));
    if (owner === undefined || isRunning(owner)) continue;
    if (name.endsWith('.claim')) removeStale(file, owner, candidate);
    else if (name.endsWith('.new')) unlinkIfPresent(file);
  }
}

/** Linux exposes a process's start time; elsewhere only whether its pid exists. */
const HAS_PROC = existsSync('/proc/self/stat');

function currentOwner(): LockOwner {
  return { pid: process.pid, host: hostname(), start: processStart(process.pid) ?? '', nonce: randomUUID() };
}

function isRunning(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true; // a process on another machine cannot be checked from here
  const start = processStart(owner.pid);
  return start !== undefined && (start === '' || owner.start === '' || start === owner.start);
}

/** The start time of a running process, `''` when it runs but the time is unknown, `undefined` when it does not run. */
function processStart(pid: number): string | undefined {
  if (HAS_PROC) {
    const stat = procStat(pid);
    if (stat === undefined) return undefined;
    // Fields after the parenthesised command name: state is the 1st, start time the 20th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : (fields[19] ?? '');
  }
  try {
    process.kill(pid, 0);
    return '';
  } catch (error) {
    return errorCode(error) === 'EPERM' ? '' : undefined;
  }
}

function isLockOwner(value: unknown): value is LockOwner {
  if (typeof value !== 'object' || value === null) return false;
  const owner: Partial<Record<keyof LockOwner, unknown>> = value;
  return Number.isSafeInteger(owner.pid) && typeof owner.host === 'string' && typeof owner.start === 'string' && typeof owner.nonce === 'string';
}

function parseOwner(content: string | undefined): LockOwner | undefined {
  try {
    const value: unknown = JSON.parse(content ?? '');
    return isLockOwner(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function tryLink(existing: string, target: string): boolean {
  try {
    linkSync(existing, target);
    return true;
  } catch (error) {
    if (errorCode(error) === 'EEXIST') return false;
    throw error;
  }
}

/** Owner records and /proc entries are small: anything larger is not one. */
const MAX_RECORD_BYTES = 64 * 1024;

/** The `/proc` stat line of `pid`, `undefined` when it does not run: one that exits between the open and the read of that file fails the read with ESRCH. */
function procStat(pid: number): string | undefined {
  try {
    return readIfPresent(`/proc/${pid}/stat`);
  } catch (error) {
    if (errorCode(error) === 'ESRCH') return undefined;
    throw error;
  }
}

/**
 * The text of a small regular file, `undefined` when there is none. A FIFO,
 * socket or device at the name, or a file too large to be an owner record,
 * reads as unparseable text (an unknown holder) instead of blocking.
 */
function readIfPresent(path: string): string | undefined {
  try {
    return readRegularFile(path, MAX_RECORD_BYTES)?.toString('utf8');
  } catch (error) {
    if (error instanceof NotRegularFileError || error instanceof FileTooLargeError) return '';
    throw error;
  }
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') throw error;
  }
}
