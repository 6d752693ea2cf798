import { lstatSync, opendirSync, realpathSync, statSync } from 'node:fs';
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
 * The regular files and folders directly in `dir`, in name order; none when
 * `dir` is missing or cannot be read. A symbolic link counts only when it
 * resolves inside `home` (the agent's own folder, itself possibly a link):
 * a link out of it would make sessref read what is not the agent's.
 * FIFOs, sockets and devices are never listed. Reads at most `limit` names.
 */
export function listDirectory(dir: string, home: string, limit = MAX_DIRECTORY_ENTRIES): DirectoryEntry[] {
  const names = readNames(dir, limit);
  if (names.length === 0) return [];
  const realHome = realPath(home);
  const entries: DirectoryEntry[] = [];
  for (const name of names.sort()) {
    const path = join(dir, name);
    const kind = entryKind(path, realHome);
    if (kind !== undefined) entries.push({ name, path, kind });
  }
  return entries;
}

function readNames(dir: string, limit: number): string[] {
  let handle;
  try {
    handle = opendirSync(dir);
  } catch (error) {
    if (isAbsent(error)) return [];
    throw error;
  }
  const names: string[] = [];
  try {
    for (let entry = handle.readSync(); entry !== null && names.length < limit; entry = handle.readSync()) names.push(entry.name);
  } finally {
    handle.closeSync();
  }
  return names;
}

function entryKind(path: string, realHome: string | undefined): DirectoryEntry['kind'] | undefined {
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (link === undefined) return undefined;
  if (link.isSymbolicLink()) {
    const target = realPath(path);
    if (target === undefined || realHome === undefined || !(target === realHome || target.startsWith(realHome + sep))) return undefined;
  }
  const stats = link.isSymbolicLink() ? statSync(path, { throwIfNoEntry: false }) : link;
  if (stats?.isFile()) return 'file';
  if (stats?.isDirectory()) return 'directory';
  return undefined;
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Missing, not a folder, or closed to this user: the agent keeps nothing sessref can read there. */
function isAbsent(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM';
}
