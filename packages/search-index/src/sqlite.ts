import { closeSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { SessionReferenceError, errorCode } from '@sessref/core';
import { directoryProblem, loadNodeSqlite, nodeCrypto, type NodeSqliteModule } from '@sessref/platform';

type Sqlite = NodeSqliteModule;

/**
 * `node:sqlite`, loaded at the first index opened, so that nothing else
 * pays for it and Node 20 (which lacks it) can still load this package.
 * @throws SESSION_REFERENCE_SEARCH_DISABLED when this Node has no `node:sqlite`.
 */
function loadSqlite(): Promise<Sqlite> {
  return loadNodeSqlite((requirement, cause) => new SessionReferenceError(`content search needs ${requirement}`, 'SESSION_REFERENCE_SEARCH_DISABLED', { cause }));
}

/** "srfx": marks a file as sessref's search index, so a foreign database is never mistaken for one. */
const APPLICATION_ID = 0x73726678;
/** Bumped whenever the schema or what is indexed changes: a file of another version is rebuilt (2: credentials redacted; 3: each session's cwd kept, so a hit is labelled without a listing). */
const SCHEMA_VERSION = 3;

/**
 * One row per session in `sessions`, keyed by `key`, which is also the
 * session's row id in the full-text table `body`: the session's `createdAt`
 * (ms) times 1024 plus a free slot, so that row-id order is recency order
 * and FTS5 can walk matches newest first and stop at the limit. `body` is
 * contentless, with rows deleted by row id: re-indexing a session never
 * scans a table. The carried text is kept once, deflated, in `messages`,
 * apart from `sessions` so that a refresh comparing every session's stamp
 * reads small rows only, from an index that covers it. `terms` holds every word ever indexed, reversed,
 * so the words ending with what a query starts with are a range of its key.
 */
const SCHEMA = `
  CREATE TABLE sessions (
    key INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    id TEXT NOT NULL,
    stamp TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    cwd TEXT,
    carried INTEGER NOT NULL,
    failure TEXT,
    UNIQUE (source, id)
  );
  CREATE INDEX sessions_stamps ON sessions (source, id, stamp);
  CREATE TABLE messages (key INTEGER PRIMARY KEY, blob BLOB NOT NULL);
  CREATE VIRTUAL TABLE body USING fts5(tokens, content='', contentless_delete=1, tokenize='ascii', detail=full);
  CREATE TABLE terms (reversed TEXT PRIMARY KEY) WITHOUT ROWID;
  PRAGMA application_id = ${APPLICATION_ID};
  PRAGMA user_version = ${SCHEMA_VERSION};
`;

/** Where an index lives. */
export type IndexLocation = { readonly file: string } | { readonly memory: true };

/** An open index database and how it came to be. */
export interface OpenedDatabase {
  db: DatabaseSync;
  /** The file's identity when opened, to notice another process replacing it; undefined in memory. */
  identity: string | undefined;
  /** Why the file was not used as it was (rebuilt, or memory used instead), if it was not. */
  notice: string | undefined;
}

/**
 * Open the index at `location`, never failing on what is there: a file that
 * is damaged, of another schema version, or not sessref's is replaced by a
 * new empty index (as it is when `damaged` says why the caller found it
 * damaged); a location that cannot hold an index safely (a directory others
 * can write, a directory at the file's path) leaves an in-memory index, with
 * the reason in `notice`.
 */
export async function openIndexDatabase(location: IndexLocation, busyTimeoutMs: number, damaged?: string): Promise<OpenedDatabase> {
  const { DatabaseSync } = await loadSqlite();
  if (!('file' in location)) return inMemory(DatabaseSync, undefined);
  const { file } = location;
  let problem = damaged;
  try {
    prepareDirectory(dirname(file));
    clearPlanted(file);
    if (problem === undefined) return { db: checked(new DatabaseSync(file), busyTimeoutMs), identity: identityOf(file), notice: undefined };
  } catch (error) {
    // Another process's lock is no damage: its file is left to it, this process indexes in memory.
    if (!isSqliteError(error) || isBusy(error)) return bypassed(DatabaseSync, file, error, busyTimeoutMs);
    problem = describe(error);
  }
  try {
    replaceWithEmpty(file, DatabaseSync);
    return { db: checked(new DatabaseSync(file), busyTimeoutMs), identity: identityOf(file), notice: `search index ${file} rebuilt: ${problem}` };
  } catch (failure) {
    return bypassed(DatabaseSync, file, failure, busyTimeoutMs);
  }
}

/** An index in memory, for this process only. */
function inMemory(Database: Sqlite['DatabaseSync'], notice: string | undefined): OpenedDatabase {
  return { db: initialized(new Database(':memory:')), identity: undefined, notice };
}

/** The index in memory instead of `file`, with why, naming the file (never a session's log) and, for a lock, the wait it outlasted. */
export function bypassed(Database: Sqlite['DatabaseSync'], file: string, reason: unknown, busyTimeoutMs: number): OpenedDatabase {
  const why = isBusy(reason) ? `it is locked by another process past the ${busyTimeoutMs} ms wait (${describe(reason)})` : describe(reason);
  return inMemory(Database, `search index ${file} not used, kept in memory for this process: ${why}`);
}

/** The DatabaseSync class, once `node:sqlite` is loaded (it is whenever an index is open). */
export async function databaseClass(): Promise<Sqlite['DatabaseSync']> {
  return (await loadSqlite()).DatabaseSync;
}

/** The identity of the file now at `file`, undefined when there is none. */
export function identityOf(file: string): string | undefined {
  try {
    const stats = statSync(file, { bigint: true });
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/** The companions SQLite keeps beside a database file. */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * The index's directory, created private; an existing one must be ours and
 * closed to others, or anyone could plant a link where SQLite will write.
 */
function prepareDirectory(directory: string): void {
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const problem = directoryProblem(directory);
  if (problem !== undefined) throw new Error(`${directory} ${problem}`);
}

/** Remove anything but a regular file at the index's path or its companions' (a link is removed, never followed). */
function clearPlanted(file: string): void {
  for (const path of [file, ...COMPANIONS.map((suffix) => `${file}${suffix}`)]) {
    let stats;
    try {
      stats = lstatSync(path);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') continue;
      throw error;
    }
    if (stats.isFile()) continue;
    if (stats.isDirectory()) throw new Error(`${path} is a directory`);
    rmSync(path);
  }
}

/**
 * Put a new empty index at `file`: written under a fresh name created
 * exclusively (so a planted link is never followed), then renamed over
 * whatever was there, with the old file's journal and WAL removed first so
 * SQLite never replays them into the new one.
 */
function replaceWithEmpty(file: string, Database: Sqlite['DatabaseSync']): void {
  const temporary = `${file}.${process.pid}.${nodeCrypto().randomUUID()}.tmp`;
  closeSync(openSync(temporary, 'wx', 0o600));
  try {
    const db = new Database(temporary);
    try {
      initialize(db);
    } finally {
      db.close();
    }
    for (const suffix of COMPANIONS) rmSync(`${file}${suffix}`, { force: true });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/** `db` with the schema created. */
function initialized(db: DatabaseSync): DatabaseSync {
  initialize(db);
  return db;
}

function initialize(db: DatabaseSync): void {
  db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`);
}

/**
 * `db` opened for use: busy waits bounded, WAL (readers never wait for a
 * writer), the schema created when the file is new (once, under the write
 * lock, whichever process gets there first), and every table probed.
 * @throws when the file is not a sessref index of this version, or is damaged; `db` is closed.
 */
function checked(db: DatabaseSync, busyTimeoutMs: number): DatabaseSync {
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;`);
    if (isBlank(db)) {
      db.exec('BEGIN IMMEDIATE');
      try {
        if (isBlank(db)) db.exec(SCHEMA);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    }
    const applicationId = pragma(db, 'application_id');
    const version = pragma(db, 'user_version');
    if (applicationId !== APPLICATION_ID) throw new IndexFileRefused('the file is not a sessref search index');
    if (version !== SCHEMA_VERSION) throw new IndexFileRefused(`the index is of schema version ${String(version)}, not ${SCHEMA_VERSION}`);
    db.prepare('SELECT key, source, id, stamp, created_at, cwd, carried, failure FROM sessions LIMIT 1').all();
    db.prepare('SELECT key, blob FROM messages LIMIT 1').all();
    db.prepare("SELECT rowid FROM body WHERE body MATCH '\"probe\"' LIMIT 1").all();
    db.prepare('SELECT reversed FROM terms LIMIT 1').all();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function isBlank(db: DatabaseSync): boolean {
  return pragma(db, 'application_id') === 0 && db.prepare('SELECT 1 FROM sqlite_schema LIMIT 1').get() === undefined;
}

function pragma(db: DatabaseSync, name: 'application_id' | 'user_version'): unknown {
  return db.prepare(`PRAGMA ${name}`).get()?.[name];
}

/** Whether `error` came from SQLite (or from {@link checked} refusing the file), not from the file system. */
function isSqliteError(error: unknown): boolean {
  return error instanceof IndexFileRefused || errorCode(error) === 'ERR_SQLITE_ERROR';
}

/** The file is readable but is not a sessref index of this version. */
class IndexFileRefused extends Error {}

/** SQLite's primary result codes for a damaged file: SQLITE_CORRUPT and SQLITE_NOTADB. */
const DAMAGE = new Set([11, 26]);

/** SQLite's primary result codes for a file another connection holds: SQLITE_BUSY and SQLITE_LOCKED. */
const BUSY = new Set([5, 6]);

/** Whether `error` says the database file is damaged (any extended code of the two). */
export function isDamage(error: unknown): boolean {
  return DAMAGE.has(primaryCode(error));
}

/**
 * Whether `error` is SQLite's (any result code): for work that writes the
 * disposable index, each one is the file's fault, whatever planted it.
 */
export function isWriteFailure(error: unknown): boolean {
  return isSqliteError(error);
}

/** Whether `error` says another connection holds the file past the busy timeout. */
export function isBusy(error: unknown): boolean {
  return BUSY.has(primaryCode(error));
}

function primaryCode(error: unknown): number {
  if (typeof error !== 'object' || error === null || !('errcode' in error) || typeof error.errcode !== 'number') return -1;
  return error.errcode & 0xff;
}

export function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
