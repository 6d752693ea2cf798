import type { Dirent } from 'node:fs';
import { dirname, join } from 'node:path';
import { childPath, PROCESS_LISTINGS } from '@sessref/platform';

/**
 * The on-disk layout of a dsh JSONL session root, and the only module that
 * spells it:
 *
 *     <root>/<project directory>/<encoded session id>/<log file>
 *
 * A session directory may hold one log per generation: dsh 0.1.0-rc.8 and
 * earlier write `session.jsonl.zstd` (generation 0); later releases write
 * `session.v<N>.jsonl.zstd` beside it and keep the older file. Which file is
 * the session's log, the lock files writers take beside it, and the flat
 * pre-release layout are all answered here; everything else asks.
 */

/** How a root's logs are stored: dsh's `compression` setting. */
export type Compression = 'zstd' | 'none';

/** The lock file a dsh from 0.1.7 holds (`flock(2)`) while it writes a session; never deleted. */
export const DSH_LOCK_FILE_NAME = 'session.lock';

/** The lock file sessref holds while it appends to a session. */
export const SESSREF_LOCK_FILE_NAME = 'sessref.lock';

const JSONL = '.jsonl';
const ZSTD = '.zstd';

/** The log file name of `generation` in a root stored with `compression`. */
export function logFileName(compression: Compression = 'zstd', generation = 0): string {
  const stem = generation === 0 ? 'session' : `session.v${generation}`;
  return `${stem}${JSONL}${compression === 'zstd' ? ZSTD : ''}`;
}

/** dsh 0.1.0-rc.8's log file name: generation 0, zstd. */
export const DEFAULT_LOG_FILE_NAME = logFileName();

/**
 * dsh's canonical generation names: `session.jsonl` is generation 0 and
 * `session.v<N>.jsonl` generation N (no leading zero, never `v0`).
 */
const GENERATION_NAME = /^session(?:\.v([1-9][0-9]*))?\.jsonl(\.zstd)?$/;

/** A log file name found in a session directory: its generation and its compression. */
export interface LogFileName {
  generation: number;
  compression: Compression;
}

/** The generation and compression `name` spells, or `undefined` when it is no canonical log name. */
export function parseLogFileName(name: string): LogFileName | undefined {
  const match = GENERATION_NAME.exec(name);
  if (match === null) return undefined;
  return { generation: match[1] === undefined ? 0 : Number(match[1]), compression: match[2] === undefined ? 'none' : 'zstd' };
}

/** The file that is a session's log: the highest canonical generation present for the root's compression. */
export interface CurrentLog {
  fileName: string;
  generation: number;
}

/**
 * dsh's choice among the entry names of one session directory: the
 * numerically highest canonical generation stored with `compression`. Lower
 * generations are superseded and never read instead, whatever their dates.
 */
export function currentLogOf(names: Iterable<string>, compression: Compression = 'zstd'): CurrentLog | undefined {
  let current: CurrentLog | undefined;
  for (const fileName of names) {
    const parsed = parseLogFileName(fileName);
    if (parsed?.compression !== compression) continue;
    if (current === undefined || parsed.generation > current.generation) current = { fileName, generation: parsed.generation };
  }
  return current;
}

/** A log stored with the other compression than the root's: dsh refuses such a root whole. */
export function isOtherCompressionLog(name: string, compression: Compression): boolean {
  const parsed = parseLogFileName(name);
  return parsed !== undefined && parsed.compression !== compression;
}

const FLAT_LOG = /\.jsonl(?:\.zstd)?$/;

/** The session id of a flat pre-release log, `<project>/<encoded id>.jsonl[.zstd]`; `undefined` for any other name. */
export function flatLogSessionId(name: string): string | undefined {
  return FLAT_LOG.test(name) ? decodeSessionDirectory(name.replace(FLAT_LOG, '')) : undefined;
}

/**
 * How the lookups below list a directory: its entries, none when it cannot
 * be listed. By default through the listings the process shares
 * ({@link readEntries}); a reader may pass its own `DirectoryListings`.
 */
export type ListDirectory = (path: string) => readonly Dirent[];

/** {@link ListDirectory} through the listings this process shares, kept by each directory's revision; none when it cannot be listed. */
export function readEntries(path: string): readonly Dirent[] {
  return PROCESS_LISTINGS.list(path);
}

/** Names of the subdirectories of `path` (symbolic links excluded); none when it cannot be listed. */
export function listSubdirectories(path: string, list: ListDirectory = readEntries): string[] {
  return list(path)
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

/** Names of the entries of `path`; none when it cannot be listed. */
export function listNames(path: string, list: ListDirectory = readEntries): string[] {
  return list(path).map((entry) => entry.name);
}

/** One session directory of a root and its current log. */
export interface SessionLog extends CurrentLog {
  /** The session id its directory name encodes. */
  sessionId: string;
  /** The project directory's name. */
  project: string;
  /** The session directory's name. */
  directory: string;
  /** The log's path. */
  path: string;
}

/** The session directory `<root>/<project>/<directory>` and its current log; `undefined` when it holds none. */
export function sessionLogAt(root: string, project: string, directory: string, compression: Compression = 'zstd', list: ListDirectory = readEntries): SessionLog | undefined {
  const path = childPath(childPath(root, project), directory);
  const current = currentLogOf(listNames(path, list), compression);
  return current && { ...current, sessionId: decodeSessionDirectory(directory), project, directory, path: childPath(path, current.fileName) };
}

/** Every session directory under `root` that holds a log, in listing order. */
export function sessionLogs(root: string, compression: Compression = 'zstd', list: ListDirectory = readEntries): SessionLog[] {
  const logs: SessionLog[] = [];
  for (const project of listSubdirectories(root, list)) {
    for (const directory of listSubdirectories(childPath(root, project), list)) {
      const log = sessionLogAt(root, project, directory, compression, list);
      if (log !== undefined) logs.push(log);
    }
  }
  return logs;
}

/**
 * The logs of session `sessionId`, one per project directory that has its
 * directory. Only a project whose listing names that directory is looked
 * into (or one that lists nothing, as one this user may search but not
 * list): a root of many projects costs a lookup one listing per project,
 * kept while the project is unchanged, not a failed listing of every
 * project's path for the id.
 */
export function sessionLogsOf(root: string, sessionId: string, compression: Compression = 'zstd', list: ListDirectory = readEntries): SessionLog[] {
  const directory = encodeSessionDirectory(sessionId);
  if (directory === undefined) return [];
  return listSubdirectories(root, list).flatMap((project) =>
    mayHold(list(childPath(root, project)), directory) ? (sessionLogAt(root, project, directory, compression, list) ?? []) : [],
  );
}

/** The names in each listing, built once per listing (a kept listing is the same array while its directory is unchanged). */
const listedNames = new WeakMap<readonly Dirent[], ReadonlySet<string>>();

/** Whether a directory listed as `entries` may hold an entry `name`: it names it, or it lists nothing. */
function mayHold(entries: readonly Dirent[], name: string): boolean {
  if (entries.length === 0) return true;
  let names = listedNames.get(entries);
  if (names === undefined) listedNames.set(entries, (names = new Set(entries.map((entry) => entry.name))));
  return names.has(name);
}

/** The lock files beside a session's log: the one dsh holds and the one sessref holds. */
export function lockFilesBeside(logPath: string): { dsh: string; sessref: string } {
  const directory = dirname(logPath);
  return { dsh: join(directory, DSH_LOCK_FILE_NAME), sessref: join(directory, SESSREF_LOCK_FILE_NAME) };
}

/**
 * The JSONL backend's session directory name for `sessionId`: safe characters
 * (`A-Z a-z 0-9 . _ -`) are literal and every other UTF-16 code unit is
 * `~XXXX`; `.` and `..` are escaped whole. `undefined` for the empty id, which
 * names no directory.
 */
export function encodeSessionDirectory(sessionId: string): string | undefined {
  if (sessionId.length === 0) return undefined;
  if (sessionId === '.') return '~002E';
  if (sessionId === '..') return '~002E~002E';
  let encoded = '';
  for (let index = 0; index < sessionId.length; index++) {
    encoded += encodedUnit(sessionId, index);
  }
  return encoded;
}

/** The project directory of a session whose header names no cwd. */
const NO_CWD_PROJECT = '_no-cwd';

/**
 * The JSONL backend's project directory name for a session's `cwd`:
 * separators (`/`, `\\`, `:`) run together as one `-`, safe characters
 * stay, every other UTF-16 code unit is `~XXXX`; leading separators are
 * dropped, the whole is cut to 251 characters and framed as `--…--`. A
 * session without a cwd lives in `_no-cwd`. The directory a log is in must
 * be the one its header names: dsh refuses a log found anywhere else.
 */
export function projectDirectoryName(cwd: string | undefined): string {
  if (cwd === undefined) return NO_CWD_PROJECT;
  let readable = '';
  for (let index = 0; index < cwd.length; index++) {
    if (isSeparator(cwd[index])) readable += isSeparator(cwd[index - 1]) ? '' : '-';
    else readable += encodedUnit(cwd, index);
  }
  return `--${(readable.replace(/^-+/, '') || 'root').slice(0, 251)}--`;
}

function isSeparator(char: string | undefined): boolean {
  return char === '/' || char === '\\' || char === ':';
}

/** The code unit at `index` of `text` as dsh's directory names spell it: a safe character as it is, any other as `~XXXX`. */
function encodedUnit(text: string, index: number): string {
  const char = text[index]!;
  return /^[A-Za-z0-9._-]$/.test(char) ? char : `~${text.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Invert the JSONL backend's session directory name: safe characters are
 * literal and every other UTF-16 code unit is `~XXXX`. A name that is not
 * such an encoding is returned as it is.
 */
export function decodeSessionDirectory(segment: string): string {
  // Without a `~` there is nothing to decode, either way: most ids, and every walk of a root decodes each.
  if (!segment.includes('~') || !/^(?:[A-Za-z0-9._-]|~[0-9A-F]{4})+$/.test(segment)) return segment;
  return segment.replace(/~([0-9A-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
