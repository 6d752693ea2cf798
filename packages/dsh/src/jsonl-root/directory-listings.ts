import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { readRevision, sameRevision, type FileRevision } from '@sessref/sources';

const NS_PER_MS = 1_000_000n;

/**
 * The entries of a root's directories, listed again only when a directory
 * changed. Adding, removing or renaming an entry changes its directory's
 * modification and change times, so a listing answers while the directory
 * keeps the revision (device, inode, size and both times) it was taken at,
 * and one read of a session costs a stat per directory instead of listing
 * the root and every project directory again.
 *
 * A change within the file system's timestamp granularity of a listing can
 * leave a directory's times as they were, so, as Git does with its "racily
 * clean" entries, a listing is kept only when the directory had not changed
 * for `settledMs` before it was taken (longer than any local file system's
 * timestamp step); one that changed more recently is listed again each time,
 * until it settles. A directory that is gone, or left its parent, is
 * forgotten with everything under it.
 */
export class DirectoryListings {
  /** Directories listed from the file system so far (a cache hit lists none). */
  reads = 0;
  /** The last listing of each directory; only a `settled` one answers, the others are kept to tell which entries left. */
  private readonly known = new Map<string, { revision: FileRevision; entries: readonly Dirent[]; settled: boolean }>();

  constructor(private readonly settledMs = 2_000) {}

  /** The entries of `path` (a `ListDirectory` for `@sessref/dsh/jsonl-root`'s lookups); none when it cannot be listed. */
  readonly list = (path: string): readonly Dirent[] => {
    const revision = revisionOrNone(path);
    const known = this.known.get(path);
    if (known?.settled && sameRevision(known.revision, revision)) return known.entries;
    if (revision === undefined) {
      this.forget(path);
      return [];
    }
    // Taken before the directory is read: the listing holds every change up to this instant.
    const listedAtNs = BigInt(Date.now()) * NS_PER_MS;
    let entries: Dirent[];
    try {
      this.reads += 1;
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      this.forget(path);
      return [];
    }
    if (known !== undefined) {
      const present = new Set(entries.map((entry) => entry.name));
      for (const entry of known.entries) if (!present.has(entry.name)) this.forget(join(path, entry.name));
    }
    const changedAtNs = revision.mtimeNs > revision.ctimeNs ? revision.mtimeNs : revision.ctimeNs;
    this.known.set(path, { revision, entries, settled: listedAtNs - changedAtNs >= BigInt(this.settledMs) * NS_PER_MS });
    return entries;
  };

  /** Drop what is known of `path` and of every directory under it: it is gone. */
  private forget(path: string): void {
    if (!this.known.delete(path)) return;
    const under = join(path, '/');
    for (const known of this.known.keys()) if (known.startsWith(under)) this.known.delete(known);
  }
}

/** The revision of `path`; none when it cannot be reached (missing, or below a directory this user cannot search): it cannot be listed either. */
function revisionOrNone(path: string): FileRevision | undefined {
  try {
    return readRevision(path);
  } catch {
    return undefined;
  }
}

/**
 * The listings every lookup of a root's layout in this process shares (the
 * default {@link ListDirectory} of format.ts): a command that walks the
 * root several times (the title index's tracker, the host's listing, its
 * damage check, the shape checks) reads each directory once, and a stat
 * per directory after that.
 */
export const PROCESS_LISTINGS = new DirectoryListings();
