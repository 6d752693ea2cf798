import { lstatSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { DatabaseSync } from 'node:sqlite';
import { loadNodeSqlite } from '@sessref/platform';
import { SourceReadError } from './errors.js';

/**
 * Reading an agent's SQLite store (opencode's, Kilo's, OpenClaw's) without
 * ever writing to it, in one consistent state, through only its real
 * tables. `agent` names the store's agent in refusals.
 */

function isRegularFile(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * Whether a read of the database at `path` goes through its `-wal` (a live
 * writer's `-wal` and `-shm` are both there) rather than the database file
 * alone (`immutable=1`): what the read sees depends on it.
 */
export function readsThroughWal(path: string): boolean {
  return isRegularFile(`${path}-wal`) && isRegularFile(`${path}-shm`);
}

/**
 * Open the database without writing anything: read-only, and, unless a live
 * writer's `-wal` and `-shm` are both there to read through, `immutable=1`,
 * because SQLite would otherwise create both files beside a WAL-mode
 * database even for a read-only connection. `node:sqlite` is loaded here, at
 * the first read: without it the database is refused with a coded error.
 */
async function openReadOnly(path: string, agent: string): Promise<DatabaseSync> {
  const { DatabaseSync } = await loadNodeSqlite((requirement, cause) => new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${agent}'s SQLite store needs ${requirement}`, { cause }));
  const url = pathToFileURL(path);
  if (!readsThroughWal(path)) url.searchParams.set('immutable', '1');
  try {
    return new DatabaseSync(url, { readOnly: true });
  } catch (error) {
    throw new SourceReadError('SOURCE_SESSION_UNREADABLE', `cannot open the database: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** Run `read` on the database in one read transaction (one consistent state), then close it; an SQL failure refuses the database as not the agent's. */
export async function withReadOnlyDatabase<T>(path: string, agent: string, read: (database: DatabaseSync) => T): Promise<T> {
  const database = await openReadOnly(path, agent);
  try {
    database.exec('BEGIN');
    return read(database);
  } catch (error) {
    if (error instanceof SourceReadError) throw error;
    throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `not an ${agent} database sessref can read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  } finally {
    database.close();
  }
}

type SchemaKind = 'table' | 'virtual table' | 'view' | 'index' | 'trigger';

/**
 * What each of `names` is in the database's schema (names compare without
 * case, as SQLite's do); a name absent there is left out.
 */
export function schemaKinds(database: DatabaseSync, names: readonly string[]): Map<string, SchemaKind> {
  const rows = database.prepare(`SELECT lower(name) AS name, type, sql FROM sqlite_master WHERE lower(name) IN (${names.map(() => '?').join(', ')})`).all(...names);
  const kinds = new Map<string, SchemaKind>();
  for (const row of rows) {
    const virtual = typeof row['sql'] === 'string' && /^\s*create\s+virtual\b/i.test(row['sql']);
    kinds.set(String(row['name']), virtual ? 'virtual table' : (String(row['type']) as SchemaKind));
  }
  return kinds;
}

/**
 * Refuse the database unless each of `names` is a real table. A view (a
 * recursive one never ends) or a virtual table can compute rows without
 * end, and `node:sqlite` runs synchronously: one would stop the process.
 * A real table's rows are in the file, so every read of them is bounded.
 */
export function requireTables(database: DatabaseSync, names: readonly string[], agent: string): void {
  const kinds = schemaKinds(database, names);
  for (const name of names) {
    const kind = kinds.get(name);
    if (kind === 'table') continue;
    throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `\`${name}\` is ${kind === undefined ? 'missing' : `a ${kind}`}, not a table: sessref reads only ${agent}'s own tables`);
  }
}
