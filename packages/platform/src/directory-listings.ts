import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { lookAt, sameRevision, type FileRevision, type Look } from './revision.js';
import { childPath } from './child-path.js';

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
 *
 * A run that only reads (a `sessref list`, `show` or `search`) may hold its
 * first look ({@link holdFirstLook}): until it lets go, each directory is
 * listed and each path stat'ed once, however many walks of the root the run
 * makes (the title index's tracker, the host's listing, its shape and damage
 * checks), so every answer is the root as it was at some instant after the
 * hold began (after the first of overlapping holds); a directory first
 * listed under a hold is not even stat'ed, as nothing of the hold needs its
 * times (it is listed again once the hold ends). Without a hold, every
 * lookup stats again.
 */
/** A directory's last listing, and the revision it was taken at (none for one taken under a hold without a stat). */
interface Listing {
  revision: FileRevision | undefined;
  entries: readonly Dirent[];
  /** The directory had not changed for `settledMs` when listed: the listing answers while the revision holds. */
  settled: boolean;
  epoch: number;
}

export class DirectoryListings {
  /** Directories listed from the file system so far (a cache hit lists none). */
  reads = 0;
  /** The last listing of each directory; only a `settled` one answers, the others are kept to tell which entries left. */
  private readonly known = new Map<string, Listing>();
  /** What each path held at its first look since the latest hold began (`null`: nothing reachable there). */
  private readonly looks = new Map<string, { look: Look | null; epoch: number }>();
  /** Holds not let go yet; the epoch counts the times a first hold was taken, so a look answers only the holds of its own epoch. */
  private holds = 0;
  private epoch = 0;

  constructor(private readonly settledMs = 2_000) {}

  /**
   * Answer every lookup from the first look at each path until the returned
   * function is called; holds may nest or overlap, and share their looks
   * until the last is let go. Only for a run that writes nothing.
   */
  holdFirstLook(): () => void {
    if (this.holds === 0) this.epoch += 1;
    this.holds += 1;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holds -= 1;
      if (this.holds === 0) this.looks.clear();
    };
  }

  /**
   * The revision of what is at `path`, links followed (with `regularOnly`,
   * of a regular file only); none when nothing can be reached there
   * (missing, a link loop, below a directory this user cannot search).
   */
  revision(path: string, regularOnly = false): FileRevision | undefined {
    const look = this.look(path);
    return look === null || (regularOnly && !look.regular) ? undefined : look.revision;
  }

  /** The entries of `path` (a `ListDirectory` for `@sessref/dsh/jsonl-root`'s lookups); none when it cannot be listed. */
  readonly list = (path: string): readonly Dirent[] => {
    const known = this.known.get(path);
    // Under a hold, a listing taken during it answers, and a directory first met is listed without a stat: nothing of the hold needs its times.
    if (known !== undefined && this.heldSince(known.epoch)) return known.entries;
    if (known === undefined && this.holds > 0) return this.read(path, undefined, undefined);
    const revision = this.revision(path);
    if (known?.settled === true && sameRevision(known.revision, revision)) return known.entries;
    if (revision === undefined) {
      this.forget(path);
      return [];
    }
    return this.read(path, revision, known);
  };

  /** List `path` from the file system and keep the listing, taken at `revision` (none: good for the current hold only). */
  private read(path: string, revision: FileRevision | undefined, known: Listing | undefined): readonly Dirent[] {
    // Taken before the directory is read: the listing holds every change up to this instant.
    const listedAtNs = BigInt(Date.now()) * NS_PER_MS;
    let entries: Dirent[];
    try {
      this.reads += 1;
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      this.forget(path);
      // Under a hold, nothing there is the first look too: a lookup of a path that is not there fails once.
      if (this.holds > 0) this.known.set(path, { revision: undefined, entries: [], settled: false, epoch: this.epoch });
      return [];
    }
    if (known !== undefined) {
      const present = new Set(entries.map((entry) => entry.name));
      for (const entry of known.entries) if (!present.has(entry.name)) this.forget(childPath(path, entry.name));
    }
    const changedAtNs = revision === undefined ? listedAtNs : revision.mtimeNs > revision.ctimeNs ? revision.mtimeNs : revision.ctimeNs;
    this.known.set(path, { revision, entries, settled: revision !== undefined && listedAtNs - changedAtNs >= BigInt(this.settledMs) * NS_PER_MS, epoch: this.epoch });
    return entries;
  }

  /** The epoch of the holds that are on (see {@link holdFirstLook}), or `undefined` when none is: what a walk made under them is good for. */
  get heldEpoch(): number | undefined {
    return this.holds > 0 ? this.epoch : undefined;
  }

  /** Whether something looked at in `epoch` answers now: it was looked at under the holds that are on. */
  private heldSince(epoch: number): boolean {
    return this.holds > 0 && epoch === this.epoch;
  }

  private look(path: string): Look | null {
    const held = this.looks.get(path);
    if (held !== undefined && this.heldSince(held.epoch)) return held.look;
    let look: Look | null;
    try {
      look = lookAt(path) ?? null;
    } catch {
      look = null;
    }
    if (this.holds > 0) this.looks.set(path, { look, epoch: this.epoch });
    return look;
  }

  /** Drop what is known of `path` and of every directory under it: it is gone. */
  private forget(path: string): void {
    if (!this.known.delete(path)) return;
    const under = join(path, '/');
    for (const known of this.known.keys()) if (known.startsWith(under)) this.known.delete(known);
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
