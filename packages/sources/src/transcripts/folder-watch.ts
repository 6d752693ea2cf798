import { statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { errorCode } from '@sessref/core';
import type { WalkTrail } from '@sessref/platform';
import { deliverPendingEvents } from '@sessref/platform';

/** What changed since the last discovery: anything that may alter it (discover again), or only these transcripts' contents. */
export type FolderChanges = { rediscover: true } | { rediscover: false; transcripts: ReadonlySet<string> };

/**
 * How long before a discovery began a folder or file must have last changed
 * for a watch set up after the discovery to be sure it missed nothing. Far
 * above the coarse clock file systems stamp times with.
 */
const SETTLE_MS = 2000;

/** Watches the system grants at most are shared by every process of the user: past this, sessref stops asking. */
const OUT_OF_WATCHES: ReadonlySet<string> = new Set(['ENOSPC', 'EMFILE', 'ENFILE']);

/** Why one folder is watched. */
interface Interest {
  /** The discovery listed it: any name that comes or goes in it may be a session. */
  listed: boolean;
  /** Names in it the discovery read or looked for (a title index, a folder that was missing). */
  names: Set<string>;
}

interface Watched extends Interest {
  watcher: FSWatcher;
  /** The folder's device and inode: a folder swapped in at the path is watched anew. */
  identity: string;
}

/**
 * Follows, with file-system watches, what one discovery of an agent's
 * sessions looked at (its {@link WalkTrail}), so that the next listing
 * re-reads only what changed: an event naming a known transcript marks that
 * transcript alone; one that may change the discovery itself (a name coming
 * or going in a listed folder, a title index rewritten, a missing folder
 * created, a watch lost) asks for a new discovery. Until a discovery has
 * been followed, and for good once the system runs out of watches, every
 * listing discovers, as without a watch. Like any watch, it sees what this
 * machine's kernel writes: a network file system written by another machine
 * is not followed (see the package README).
 */
export class FolderWatch {
  private readonly watched = new Map<string, Watched>();
  private transcripts: ReadonlySet<string> = new Set();
  private changed = new Set<string>();
  private stale = true;
  /** Out of watches, or closed: every listing discovers. */
  private disabled = false;

  /**
   * Watch what the discovery that began at `startedAt` (epoch ms) looked at,
   * and only that; `transcripts` are the paths it found. A folder watched for
   * the first time that changed since shortly before the discovery may have
   * changed unseen, so the next listing discovers again.
   */
  follow(trail: WalkTrail, transcripts: ReadonlySet<string>, startedAt: number): void {
    this.transcripts = transcripts;
    this.changed = new Set();
    this.stale = this.disabled;
    if (this.disabled) return;
    const wanted = interestsOf(trail);
    for (const [folder, { watcher }] of this.watched) {
      if (wanted.has(folder)) continue;
      watcher.close();
      this.watched.delete(folder);
    }
    for (const [folder, interest] of wanted) this.watch(folder, interest, startedAt);
  }

  /** A discovery was made without being followed: what is watched no longer covers it, so the next listing discovers again. */
  missed(): void {
    this.stale = true;
  }

  /** What changed since the last {@link follow}, after letting the event loop deliver what the kernel queued. */
  async changes(): Promise<FolderChanges> {
    if (this.stale) return { rediscover: true };
    await deliverPendingEvents();
    if (this.stale) return { rediscover: true };
    const transcripts = this.changed;
    this.changed = new Set();
    return { rediscover: false, transcripts };
  }

  /** Stop watching; every later listing discovers. */
  close(): void {
    for (const { watcher } of this.watched.values()) watcher.close();
    this.watched.clear();
    this.disabled = true;
    this.stale = true;
  }

  private watch(folder: string, interest: Interest, startedAt: number): void {
    const identity = folderIdentity(folder);
    const known = this.watched.get(folder);
    if (known !== undefined && known.identity === identity) {
      Object.assign(known, interest);
      return;
    }
    known?.watcher.close();
    this.watched.delete(folder);
    if (identity === undefined) {
      // Gone since the discovery looked: what is there now is for the next one to find.
      this.stale = true;
      return;
    }
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => this.onEvent(folder, name));
      watcher.on('error', () => {
        watcher.close();
        this.watched.delete(folder);
        this.stale = true;
      });
      this.watched.set(folder, { watcher, identity, ...interest });
    } catch (error) {
      if (OUT_OF_WATCHES.has(errorCode(error) ?? '')) return this.close();
      this.stale = true;
      return;
    }
    if (changedSince(folder, interest, startedAt - SETTLE_MS)) this.stale = true;
  }

  private onEvent(folder: string, name: string | null): void {
    const interest = this.watched.get(folder);
    if (name === null || interest === undefined) {
      this.stale = true;
      return;
    }
    const path = join(folder, name);
    if (this.transcripts.has(path)) this.changed.add(path);
    else if (interest.listed || interest.names.has(name)) this.stale = true;
  }
}

/** Each folder to watch and why: a listed folder itself, else the folder holding a missing folder or a file read. */
function interestsOf(trail: WalkTrail): Map<string, Interest> {
  const interests = new Map<string, Interest>();
  const at = (folder: string): Interest => {
    let interest = interests.get(folder);
    if (interest === undefined) interests.set(folder, (interest = { listed: false, names: new Set() }));
    return interest;
  };
  for (const folder of trail.folders) {
    if (folderIdentity(folder) !== undefined) at(folder).listed = true;
    else at(dirname(folder)).names.add(basename(folder));
  }
  for (const file of trail.files) at(dirname(file)).names.add(basename(file));
  return interests;
}

/** The device and inode of the folder at `path`; `undefined` when there is no folder there. */
function folderIdentity(path: string): string | undefined {
  const stat = statSync(path, { throwIfNoEntry: false });
  return stat?.isDirectory() === true ? `${stat.dev}:${stat.ino}` : undefined;
}

/** Whether the folder's entries, or one of the names it is watched for, changed after `since` (epoch ms). */
function changedSince(folder: string, interest: Interest, since: number): boolean {
  const paths = [folder, ...[...interest.names].map((name) => join(folder, name))];
  return paths.some((path) => (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? Number.NEGATIVE_INFINITY) >= since);
}
