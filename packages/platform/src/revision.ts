import { statSync } from 'node:fs';

/**
 * What identifies one state of one file (a dsh log, an agent's transcript):
 * the file (device and inode) and its content (size, modification and change times, to the nanosecond).
 * An append changes the size and times; a replacement changes the inode.
 * Compared field by field, and turned into a string only for stores that
 * need one ({@link revisionToken}); a string is never read back.
 */
export interface FileRevision {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
}

/** What is at a path: its revision, and whether it is a regular file. */
export interface Look {
  readonly revision: FileRevision;
  readonly regular: boolean;
}

/** What is at `path` (links followed), from one stat; `undefined` when nothing is there. */
export function lookAt(path: string): Look | undefined {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  return { revision: { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs, ctimeNs: stat.ctimeNs }, regular: stat.isFile() };
}

/**
 * The revision of what is at `path` (links followed); `undefined` when
 * nothing is there, or, with `regularOnly`, when it is not a regular file.
 */
export function readRevision(path: string, regularOnly = false): FileRevision | undefined {
  const look = lookAt(path);
  return look === undefined || (regularOnly && !look.regular) ? undefined : look.revision;
}

/** Whether two revisions are the same state of the same file. */
export function sameRevision(a: FileRevision | undefined, b: FileRevision | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return sameFile(a, b) && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** Whether two revisions are of the same file (it may have grown): what a header read from it stays valid for. */
export function sameFile(a: FileRevision, b: FileRevision): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * A string that is equal for equal revisions only: for dsh's string revisions and for saved indexes.
 * Spelled anew at each call (five numbers to decimal, about a microsecond): a cache by revision object
 * held one weak entry per log, and at 10,000 logs the collector's work on those entries cost a fresh
 * `list` more than the spellings it saved (docs/benchmarks.md, section 7's notes).
 */
export function revisionToken(revision: FileRevision): string {
  return `${revision.dev}:${revision.ino}:${revision.size}:${revision.mtimeNs}:${revision.ctimeNs}`;
}

/** A string that is equal for revisions of the same file only ({@link sameFile}). */
export function fileToken(revision: FileRevision): string {
  return `${revision.dev}:${revision.ino}`;
}
