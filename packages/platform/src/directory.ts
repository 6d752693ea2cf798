import { accessSync, constants, lstatSync, opendirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { join, sep } from 'node:path';
import { errorCode } from '@sessref/core';

/**
 * Entries one folder of an agent's home may have that a walk looks at.
 * Real homes hold thousands; a folder past this is someone else's doing,
 * and the walk reads only this many of it rather than all of its names.
 */
const MAX_DIRECTORY_ENTRIES = 100_000;

/** One entry of an agent's folder: a regular file or a folder, symbolic links already resolved. */
export interface DirectoryEntry {
  name: string;
  path: string;
  kind: 'file' | 'directory';
}

/**
 * Names a walk may still read; a walk over many folders shares one, so the
 * whole walk is bounded. With a `trail`, the walk also records what it
 * looked at, so a watch can follow exactly that.
 */
export interface DirectoryBudget {
  entries: number;
  trail?: WalkTrail;
}

/**
 * What one discovery of an agent's sessions looked at: the folders it
 * listed (present or not) and the other files it read (a title index, a
 * project registry). Its result can change only when one of these does.
 */
export interface WalkTrail {
  readonly folders: Set<string>;
  readonly files: Set<string>;
}

/**
 * The regular files and folders directly in `dir`, in name order; none when
 * `dir` is missing or cannot be read. A symbolic link counts only when it
 * resolves inside `home` (the agent's own folder, itself possibly a link):
 * a link out of it would make sessref read what is not the agent's.
 * FIFOs, sockets and devices are never listed. Reads names one at a time
 * and at most as many as `budget` has left (by default 100,000 for this
 * folder alone), never a whole folder at once. A link that cannot be
 * resolved but for a missing target is named to `onBrokenLink`.
 */
export function listDirectory(dir: string, home: string, budget: DirectoryBudget = { entries: MAX_DIRECTORY_ENTRIES }, onBrokenLink?: BrokenLinkHandler): DirectoryEntry[] {
  budget.trail?.folders.add(dir);
  const found = readEntries(dir, budget);
  if (found.length === 0) return [];
  let realHome: string | undefined | null = null;
  const entries: DirectoryEntry[] = [];
  // What `join(dir, name)` puts before a name, normalized once: `join` normalizes each entry's whole path
  // character by character, and a name from a listing (one segment, never `.` or `..`) is kept as it is.
  const prefix = join(dir, 'x').slice(0, -1);
  found.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let at = 0; at < found.length; at++) {
    const entry = found[at]!;
    const path = prefix + entry.name;
    // The home is resolved once, and only for a folder that has a link in it.
    const kind = entryKind(entry, path, () => (realHome ??= realPath(home)), onBrokenLink);
    if (kind !== undefined) entries.push({ name: entry.name, path, kind });
  }
  return entries;
}

/**
 * A folder of sessions listed whole or not at all: one that cannot be
 * searched (its files could not be read), or a link loop in its place, is
 * named to `onSkipped` and gives nothing; a missing one gives nothing.
 */
export function listSessionFolder(folder: string, home: string, budget: DirectoryBudget, onSkipped: ((folder: string, error: unknown) => void) | undefined): DirectoryEntry[] {
  // Followed even when closed: a change of mode is a change to the walk.
  budget.trail?.folders.add(folder);
  try {
    accessSync(folder, constants.R_OK | constants.X_OK);
    return listDirectory(folder, home, budget);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT') onSkipped?.(folder, error);
    return [];
  }
}

/** One session of an agent that keeps a folder per session: the folder's name (the session id), the folder, and the file that makes it a session. */
export interface SessionFolder {
  name: string;
  folder: string;
  path: string;
}

/**
 * The sessions of an agent that keeps one folder per session (Copilot CLI,
 * Cline): each folder of `home` but dot folders, read to at most `entries`
 * names, whose `file(name)` is a regular file. A folder where that file
 * cannot be looked at is named to `onSkipped`; one without it yet is
 * recorded in the trail, so a watch asks for a discovery when it comes.
 */
export function sessionFolders(home: string, file: (name: string) => string, entries: number, trail: WalkTrail | undefined, onSkipped: ((folder: string, error: unknown) => void) | undefined): SessionFolder[] {
  const folders = listDirectory(home, home, { entries, trail }, onSkipped).filter((entry) => entry.kind === 'directory' && !entry.name.startsWith('.'));
  return folders.flatMap(({ name, path: folder }) => {
    const path = join(folder, file(name));
    try {
      if (lstatSync(path, { throwIfNoEntry: false })?.isFile() === true) return [{ name, folder, path }];
      trail?.files.add(path);
    } catch (error) {
      onSkipped?.(folder, error);
    }
    return [];
  });
}

/**
 * The regular files one level below `home`, for an agent that keeps a
 * folder of session files per working directory (pi, Factory Droid): each
 * folder of `home` listed whole or not at all (`listSessionFolder`), the
 * walk reading at most `entries` names in all. A folder that cannot be
 * searched, or a link loop in a folder's place, is named to `onSkipped`.
 */
export function filesInFolders(home: string, entries: number, trail: WalkTrail | undefined, onSkipped: ((folder: string, error: unknown) => void) | undefined): DirectoryEntry[] {
  const budget = { entries, trail };
  return listDirectory(home, home, budget, onSkipped)
    .filter((folder) => folder.kind === 'directory')
    .flatMap((folder) => listSessionFolder(folder.path, home, budget, onSkipped).filter((entry) => entry.kind === 'file'));
}

function readEntries(dir: string, budget: DirectoryBudget): Dirent[] {
  let handle;
  try {
    handle = opendirSync(dir);
  } catch (error) {
    if (isAbsent(error)) return [];
    throw error;
  }
  const entries: Dirent[] = [];
  try {
    while (budget.entries > 0) {
      const entry = handle.readSync();
      if (entry === null) break;
      budget.entries -= 1;
      entries.push(entry);
    }
  } finally {
    handle.closeSync();
  }
  return entries;
}

/**
 * What the entry is, links resolved; `undefined` for anything else. The type
 * the folder reports is used as is (no `lstat` per entry); a file system
 * that reports none is asked with `lstat`.
 */
function entryKind(entry: Dirent, path: string, realHome: () => string | undefined, onBrokenLink?: BrokenLinkHandler): DirectoryEntry['kind'] | undefined {
  const reported = entry.isFile() || entry.isDirectory() || entry.isSymbolicLink() || entry.isFIFO() || entry.isSocket() || entry.isCharacterDevice() || entry.isBlockDevice();
  const link = reported ? entry : lstatSync(path, { throwIfNoEntry: false });
  if (link === undefined) return undefined;
  let stats: Pick<Dirent, 'isFile' | 'isDirectory'> | undefined = link;
  if (link.isSymbolicLink()) {
    const target = realPath(path, onBrokenLink);
    const home = realHome();
    if (target === undefined || home === undefined || !(target === home || target.startsWith(home + sep))) return undefined;
    stats = statSync(path, { throwIfNoEntry: false });
  }
  if (stats?.isFile()) return 'file';
  if (stats?.isDirectory()) return 'directory';
  return undefined;
}

/**
 * Told of a link in the folder that cannot be resolved for another reason
 * than a missing target (a loop, a folder on its way closed to this user):
 * the entry is left out either way.
 */
export type BrokenLinkHandler = (path: string, error: unknown) => void;

function realPath(path: string, onBroken?: BrokenLinkHandler): string | undefined {
  try {
    return realpathSync(path);
  } catch (error) {
    if (onBroken !== undefined && errorCode(error) !== 'ENOENT') onBroken(path, error);
    return undefined;
  }
}

/** Missing, not a folder, or closed to this user: the agent keeps nothing sessref can read there. */
function isAbsent(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM';
}
