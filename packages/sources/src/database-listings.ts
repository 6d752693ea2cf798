import { readRevision, sameFile, type FileRevision } from '@sessref/platform';
import { readsThroughWal } from './sqlite-database.js';
import { databaseReadCache, databaseReadsFile, type CacheIdentity, type DatabaseReadCache, type KeptDatabaseRead } from './transcripts/listing-cache.js';

const NS_PER_MS = 1_000_000n;

/**
 * What a read of an SQLite database in WAL mode can see, as its files say:
 * the database file's revision, its `-wal`'s, and whether the read goes
 * through the `-wal` (a live writer's `-wal` and `-shm` both there) or
 * reads the database file alone (`../sqlite-database.ts`).
 */
export interface DatabaseState {
  readonly database: FileRevision | undefined;
  readonly wal: FileRevision | undefined;
  readonly throughWal: boolean;
}

/** How the listings look at a database's files: its state, and the clock a read is timed by (epoch ms). Seams for tests. */
export interface DatabaseLooks {
  state(path: string): DatabaseState;
  now(): number;
}

const FILE_SYSTEM: DatabaseLooks = {
  state: (path) => ({ database: readRevision(path, true), wal: readRevision(`${path}-wal`, true), throughWal: readsThroughWal(path) }),
  now: () => Date.now(),
};

/**
 * Whether two revisions are the same content of the same file: the change
 * time is left out, since SQLite run as root gives a `-wal` it opens the
 * database's owner (`unixOpen`, `robustFchown`), which moves that time at
 * every read, this reader's too; every write moves the modification time.
 */
function sameContent(a: FileRevision | undefined, b: FileRevision | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameFile(a, b) && a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/** A string equal for revisions {@link sameContent} holds for only. */
function contentToken(revision: FileRevision): string {
  return `${revision.dev}:${revision.ino}:${revision.size}:${revision.mtimeNs}`;
}

/**
 * The database's part of its sessions' change stamps: its file's and its
 * `-wal`'s revisions without their change times (a read through the `-wal`
 * by SQLite run as root moves the `-wal`'s, see {@link sameContent}), so
 * that reading a session never re-stamps them all; none when the file is gone.
 */
export function databaseStamp(path: string): string | undefined {
  const database = readRevision(path, true);
  if (database === undefined) return undefined;
  const wal = readRevision(`${path}-wal`, true);
  return `db:${contentToken(database)}:${wal === undefined ? '-' : contentToken(wal)}`;
}

/** A string equal for states {@link sameState} holds for only: what a kept read records of its database's files. */
function stateToken({ database, wal, throughWal }: DatabaseState): string {
  return `${throughWal ? 'wal' : 'file'}/${database === undefined ? '-' : contentToken(database)}/${wal === undefined ? '-' : contentToken(wal)}`;
}

/** Whether two states are the same, file by file: a read at one answers for the other. */
function sameState(a: DatabaseState, b: DatabaseState): boolean {
  return a.throughWal === b.throughWal && sameContent(a.database, b.database) && sameContent(a.wal, b.wal);
}

/** The latest modification time of the state's files, in ns since the epoch (0 with none). */
function changedAtNs({ database, wal }: DatabaseState): bigint {
  let latest = 0n;
  for (const revision of [database, wal]) if (revision !== undefined && revision.mtimeNs > latest) latest = revision.mtimeNs;
  return latest;
}

/**
 * Reads kept between processes: where (`cache`), and how a read's value is
 * written for it and made again from what it holds (`decode` gives none for
 * anything but what `encode` writes; `encode` none for a read not to keep,
 * one that holds a refusal that may not last).
 */
export interface KeptReads<T> {
  cache: DatabaseReadCache;
  encode(value: T): unknown;
  decode(saved: unknown): T | undefined;
}

/**
 * Each of `items` through `one`, or none as soon as one gives none: a read is
 * kept whole or not at all, and read back whole or not at all.
 */
export function wholeOrNone<I, O>(items: readonly I[], one: (item: I) => O | undefined): O[] | undefined {
  const all: O[] = [];
  for (const item of items) {
    const done = one(item);
    if (done === undefined) return undefined;
    all.push(done);
  }
  return all;
}

/**
 * An agent's reads kept in the file beside its listing cache file (none
 * without one: nothing is kept), as the agent's source writes each read and
 * makes it again (`codec`).
 */
export function keptBeside<T>(listingCacheFile: string | undefined, identity: CacheIdentity, codec: Omit<KeptReads<T>, 'cache'>): KeptReads<T> | undefined {
  if (listingCacheFile === undefined) return undefined;
  return { cache: databaseReadCache(databaseReadsFile(listingCacheFile), identity), encode: codec.encode, decode: codec.decode };
}

/** A database's last read, the state its files had just before it, and whether that read answers while they keep it. */
interface Known<T> {
  state: DatabaseState;
  value: T;
  settled: boolean;
}

/**
 * What was last read from each SQLite database (an agent's store), read
 * again only when its files changed. Why the files' revisions (device,
 * inode, size and modification time; `DatabaseState`) are enough:
 * - In WAL mode every commit writes its pages to the `-wal` (appended, or,
 *   once a checkpoint has copied every frame back, written over the file
 *   from its start, which may keep its size but not its times); a
 *   checkpoint writes the database file and changes nothing a read sees;
 *   the last connection's close checkpoints and deletes the `-wal`; a
 *   database in another journal mode is written in place. Each is a write
 *   to the database file or the `-wal`, so its modification time moves.
 * - The `-shm` is SQLite's index of the `-wal`, written through shared
 *   memory, whose writes need not move its times (and a read writes its own
 *   read marks there): its revision says nothing, and is not compared. What
 *   it decides is whether the read goes through the `-wal` at all, so
 *   that is compared (`throughWal`).
 * - A write within the file system's timestamp step of a read can leave
 *   the time as it was (and a commit's frames reach the `-wal` just
 *   before the `-shm` makes them visible). As `DirectoryListings` does with
 *   a "racily clean" directory, a read is kept only when neither file had
 *   changed for `settledMs` before it began (far above any timestamp step,
 *   and any commit's two writes); one of a database written more recently is
 *   made again at each listing, until it settles. Any write after a kept
 *   read moves a time past the one it was kept at, so it is never missed.
 * The state is taken before the read: a write during it is a change next
 * time. Nothing is ever written to the database or beside it. With `kept`,
 * the reads the rule keeps are also kept between processes, each with its
 * state, and a new process's first look at a database whose files are in
 * that very state answers from it: the rule holds across processes as
 * within one, since any write after the read moves a time.
 */
export class DatabaseListings<T> {
  /** Databases read so far (an answer from memory reads none). */
  reads = 0;
  private readonly known = new Map<string, Known<T>>();
  /** What earlier processes kept, loaded at the first look that finds nothing known. */
  private earlier: Map<string, KeptDatabaseRead> | undefined;

  constructor(
    private readonly read: (path: string) => Promise<T>,
    private readonly settledMs = 2_000,
    private readonly looks: DatabaseLooks = FILE_SYSTEM,
    private readonly kept?: KeptReads<T>,
  ) {}

  /** What a read of the database at `path` gives now: the last read while its files keep the state it was settled at, else a new read (a failed read is not kept). */
  async get(path: string): Promise<T> {
    // Taken before the files are looked at: a read made now holds every write up to this instant.
    const readAtNs = BigInt(this.looks.now()) * NS_PER_MS;
    const state = this.looks.state(path);
    const known = this.known.get(path) ?? this.keptAt(path, state);
    if (known?.settled === true && sameState(known.state, state)) return known.value;
    this.known.delete(path);
    this.reads += 1;
    const value = await this.read(path);
    const settled = readAtNs - changedAtNs(state) >= BigInt(this.settledMs) * NS_PER_MS;
    this.known.set(path, { state, value, settled });
    if (settled) this.keepForLater();
    return value;
  }

  /** The read an earlier process kept of the database at `path` with its files in `state`, now this process's; none without one. */
  private keptAt(path: string, state: DatabaseState): Known<T> | undefined {
    if (this.kept === undefined) return undefined;
    const saved = (this.earlier ??= this.kept.cache.load()).get(path);
    const value = saved?.state === stateToken(state) ? this.kept.decode(saved.value) : undefined;
    if (value === undefined) return undefined;
    const known = { state, value, settled: true };
    this.known.set(path, known);
    return known;
  }

  /** Keep every settled read for the next process (a process's reads are few: one per database that changed). */
  private keepForLater(): void {
    const kept = this.kept;
    if (kept === undefined) return;
    const reads = new Map<string, KeptDatabaseRead>();
    this.known.forEach((known, path) => {
      const value = known.settled ? kept.encode(known.value) : undefined;
      if (value !== undefined) reads.set(path, { state: stateToken(known.state), value });
    });
    kept.cache.save(reads);
  }

  /** Whether the last read of the database at `path` still answers: one the rule keeps, its files unchanged since. */
  unchanged(path: string): boolean {
    const known = this.known.get(path);
    return known?.settled === true && sameState(known.state, this.looks.state(path));
  }

  /** Forget every database but those at `paths` (the ones a listing found). */
  keepOnly(paths: ReadonlySet<string>): void {
    for (const path of this.known.keys()) if (!paths.has(path)) this.known.delete(path);
  }
}
