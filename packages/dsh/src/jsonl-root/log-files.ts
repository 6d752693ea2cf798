import { statSync, watch, type FSWatcher } from 'node:fs';
import { childPath, PROCESS_LISTINGS, deliverPendingEvents, fileToken, readRevision, type FileRevision } from '@sessref/platform';
import { listSubdirectories, sessionLogAt, sessionLogsOf, type Compression } from './format.js';

/** What a walk knows of one session directory. */
interface LogFile {
  sessionId: string;
  path: string;
  revision: FileRevision;
}

/**
 * The revision of every session's current log under a root (see format.ts).
 *
 * Without watching, every {@link revisions} call walks the root and stats
 * each log. With watching, the first call walks and puts a file-system watch
 * on the root, each project directory and each session directory; later
 * calls first let the event loop deliver pending events (the kernel queues
 * them when the write happens, so a write finished before the call is seen),
 * then re-stat only what the events named. A watch that fails, or one that
 * cannot be set up (the system's watch limit), falls back to full walks.
 */
export class LogFileTracker {
  /** project directory → session directory → log. */
  private readonly projects = new Map<string, Map<string, LogFile>>();
  /** Each watched directory's watcher, and the directory (device and inode) it watches. */
  private readonly watchers = new Map<string, { watcher: FSWatcher; directory: string }>();
  private readonly dirtyProjects = new Set<string>();
  private readonly dirtySessions = new Map<string, Set<string>>();
  private fullWalk = true;
  /** The map {@link revisions} last returned, until a walk or an event changes what it holds. */
  private current: ReadonlyMap<string, FileRevision> | undefined;
  /** The hold of the process's listings the last full walk was made under: within it, the walk answers again. */
  private walkedUnder: number | undefined;

  constructor(
    private readonly root: string,
    private readonly compression: Compression,
    private watching: boolean,
  ) {}

  /** Whether {@link revisions} answers from file-system events rather than a walk: watching, with no walk owed. */
  get following(): boolean {
    return this.watching && !this.fullWalk;
  }

  /**
   * Session id → revision of its current log: any append, rewrite or newer
   * generation changes it. While nothing changed (no walk, no event) the
   * same map is returned again, so callers can tell "nothing moved" by its
   * identity; it is never changed after it is returned.
   */
  async revisions(): Promise<ReadonlyMap<string, FileRevision>> {
    // Under one hold of the listings every look is the first one, so a second walk would find what the first did.
    const held = PROCESS_LISTINGS.heldEpoch;
    if (!this.watching && this.current !== undefined && held !== undefined && held === this.walkedUnder) return this.current;
    if (!this.watching || this.fullWalk) this.walkRoot();
    else {
      await deliverPendingEvents();
      if (this.fullWalk) this.walkRoot();
      else this.walkDirty();
    }
    if (this.current !== undefined) return this.current;
    const revisions = new Map<string, FileRevision>();
    for (const sessions of this.projects.values()) for (const log of sessions.values()) revisions.set(log.sessionId, log.revision);
    return (this.current = revisions);
  }

  /**
   * The revision now at the log of each of `sessionIds` the last walk found
   * (`undefined`: gone), by a stat of that log alone: whether what was learnt
   * of those sessions still holds, without a walk or waiting for events.
   */
  restat(sessionIds: readonly string[]): Map<string, FileRevision | undefined> {
    const wanted = new Set(sessionIds);
    const revisions = new Map<string, FileRevision | undefined>();
    for (const sessions of this.projects.values()) {
      for (const log of sessions.values()) if (wanted.has(log.sessionId)) revisions.set(log.sessionId, logRevision(log.path));
    }
    return revisions;
  }

  /**
   * The revision of `sessionId`'s current log as a walk would find it,
   * without one: from this hold's walk when one was made, else from a look
   * at the directories that may hold that session alone (the listings the
   * process shares, then a stat of its log). `undefined` when no log is
   * found, or when more than one project holds the id (the walk decides
   * which one wins).
   */
  revisionOf(sessionId: string): FileRevision | undefined {
    const held = PROCESS_LISTINGS.heldEpoch;
    if (!this.watching && this.current !== undefined && held !== undefined && held === this.walkedUnder) return this.current.get(sessionId);
    const logs = sessionLogsOf(this.root, sessionId, this.compression);
    return logs.length === 1 ? logRevision(logs[0]!.path) : undefined;
  }

  /** Stop watching. */
  close(): void {
    for (const { watcher } of this.watchers.values()) watcher.close();
    this.watchers.clear();
    this.watching = false;
  }

  private walkRoot(): void {
    this.current = undefined;
    this.walkedUnder = PROCESS_LISTINGS.heldEpoch;
    // Cleared first: an event during the walk marks its path dirty again.
    this.fullWalk = false;
    this.dirtyProjects.clear();
    this.dirtySessions.clear();
    this.watchDirectory(this.root, (name) => (name === undefined ? this.rewalk() : this.dirtyProjects.add(name)));
    const present = new Set(listSubdirectories(this.root));
    for (const project of present) this.walkProject(project);
    for (const project of this.projects.keys()) if (!present.has(project)) this.dropProject(project);
  }

  private walkDirty(): void {
    if (this.dirtyProjects.size === 0 && this.dirtySessions.size === 0) return;
    this.current = undefined;
    const projects = [...this.dirtyProjects];
    const sessions = [...this.dirtySessions];
    this.dirtyProjects.clear();
    this.dirtySessions.clear();
    for (const project of projects) this.walkProject(project);
    for (const [project, names] of sessions) {
      if (projects.includes(project)) continue;
      for (const name of names) this.statSession(project, name);
    }
  }

  private walkProject(project: string): void {
    const path = childPath(this.root, project);
    if (!isDirectory(path)) return this.dropProject(project);
    // Watch before listing, so a session created meanwhile is an event, not a miss.
    this.watchDirectory(path, (name) => (name === undefined ? this.dirtyProjects.add(project) : this.markSession(project, name)));
    const present = new Set(listSubdirectories(path));
    for (const name of present) this.statSession(project, name, true);
    for (const name of this.projects.get(project)?.keys() ?? []) if (!present.has(name)) this.dropSession(project, name);
  }

  private statSession(project: string, name: string, listed = false): void {
    const directory = childPath(childPath(this.root, project), name);
    if (!listed && !isDirectory(directory)) return this.dropSession(project, name);
    // A directory whose log is not published yet stays watched: the publication is an event.
    this.watchDirectory(directory, () => this.markSession(project, name));
    const log = sessionLogAt(this.root, project, name, this.compression);
    const revision = log && logRevision(log.path);
    if (log === undefined || revision === undefined) {
      this.projects.get(project)?.delete(name);
      return;
    }
    let sessions = this.projects.get(project);
    if (sessions === undefined) this.projects.set(project, (sessions = new Map()));
    sessions.set(name, { sessionId: log.sessionId, path: log.path, revision });
  }

  private markSession(project: string, name: string): void {
    let names = this.dirtySessions.get(project);
    if (names === undefined) this.dirtySessions.set(project, (names = new Set()));
    names.add(name);
  }

  private dropProject(project: string): void {
    for (const name of [...(this.projects.get(project)?.keys() ?? [])]) this.dropSession(project, name);
    this.projects.delete(project);
    this.unwatch(childPath(this.root, project));
  }

  private dropSession(project: string, name: string): void {
    this.projects.get(project)?.delete(name);
    this.unwatch(childPath(childPath(this.root, project), name));
  }

  private watchDirectory(path: string, onEvent: (name: string | undefined) => void): void {
    if (!this.watching) return;
    // A watch follows the directory, not its name: a directory swapped in at the path (a session
    // directory restored from a copy) is watched anew, or its changes would go unseen.
    const directory = directoryToken(path);
    if (this.watchers.get(path)?.directory === directory) return;
    this.unwatch(path);
    try {
      const watcher = watch(path, { persistent: false }, (_event, name) => onEvent(name ?? undefined));
      watcher.on('error', () => {
        this.unwatch(path);
        this.rewalk();
      });
      this.watchers.set(path, { watcher, directory });
    } catch {
      // Out of watches (or the directory just went away): stay correct with full walks.
      this.close();
      this.rewalk();
    }
  }

  private unwatch(path: string): void {
    this.watchers.get(path)?.watcher.close();
    this.watchers.delete(path);
  }

  private rewalk(): void {
    this.fullWalk = true;
  }
}

/**
 * The revision of the regular file at `path`; none when there is none, or
 * when none can be reached there (a symbolic-link loop, a directory on the
 * way this user cannot search): that one session's log is the listing's to
 * name (its probe says why), never a walk of the whole root's to fail on.
 * Looked at once per hold (see `DirectoryListings`).
 */
function logRevision(path: string): FileRevision | undefined {
  return PROCESS_LISTINGS.revision(path, true);
}

/** The device and inode of the directory at `path`, or a token no directory has when there is none. */
function directoryToken(path: string): string {
  const revision = readRevision(path);
  return revision === undefined ? 'none' : fileToken(revision);
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
