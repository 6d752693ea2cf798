/**
 * Where a root's session logs are: each session's log in each project
 * directory, found through the root's kept directory listings without
 * opening any log, and the session directories this user cannot open.
 */
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { errorCode } from '@sessref/core';
import { childPath, type DirectoryListings } from '@sessref/platform';
import { decodeSessionDirectory, listSubdirectories, logFileName, sessionLogAt, sessionLogsOf, type Compression, type SessionLog } from '../jsonl-root/index.js';

/** One session's log file: its session, its path and its generation. */
export type LogFile = Pick<SessionLog, 'sessionId' | 'path' | 'generation'>;

const NO_SESSIONS: ReadonlySet<string> = new Set();

/** The log files of one root. */
export class RootLogFiles {
  /** The closed project directories already in {@link notices}. */
  private readonly noted = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly compression: Compression,
    private readonly listings: DirectoryListings,
    /** Where each project directory this user cannot open is named, once: no listing can name its sessions. */
    private readonly notices: string[],
  ) {}

  /** The log of `id` in each project directory, where there is something at that path (the backend's lookup, without opening anything). */
  of(id: string): LogFile[] {
    return sessionLogsOf(this.root, id, this.compression, this.listings.list);
  }

  /** Every session's log under the root, in listing order (see {@link allBut}). */
  all(): LogFile[] {
    return this.allBut(NO_SESSIONS);
  }

  /**
   * The log of every session under the root but those in `listed`, in
   * listing order: what a damage check looks at after a listing, which skips
   * each listed session by its directory's name instead of finding its log
   * again. A session directory this user cannot list or search (mode 000,
   * another user's) holds a log no one here can name: it stands for that one
   * session, named by its directory, with the generation-0 log name in place
   * of whichever log it holds, so its probe refuses it (`EACCES`) and the
   * rest of the root lists as before; these come last. A project directory
   * this user cannot open hides even the names of its sessions: it is named
   * once in {@link notices}. Only the directories where no log was found are
   * checked, one `access()` each.
   */
  allBut(listed: ReadonlySet<string>): LogFile[] {
    const logs: LogFile[] = [];
    const closed: LogFile[] = [];
    for (const project of listSubdirectories(this.root, this.listings.list)) {
      const projectPath = childPath(this.root, project);
      const directories = listSubdirectories(projectPath, this.listings.list);
      if (directories.length === 0 && this.noteClosedProject(project)) continue;
      for (const directory of directories) {
        if (listed.size > 0 && listed.has(decodeSessionDirectory(directory))) continue;
        const log = sessionLogAt(this.root, project, directory, this.compression, this.listings.list);
        if (log !== undefined) logs.push(log);
        else if (!canOpenDirectory(childPath(projectPath, directory))) closed.push(this.closedDirectory(projectPath, directory));
      }
    }
    return [...logs, ...closed];
  }

  /** The session directory `directory` of the project at `projectPath`, closed to this user: it stands for its session with the generation-0 log name. */
  private closedDirectory(projectPath: string, directory: string): LogFile {
    return { sessionId: decodeSessionDirectory(directory), path: childPath(childPath(projectPath, directory), logFileName(this.compression)), generation: 0 };
  }

  /** Whether the project directory `project` is closed to this user; noted the first time it is. */
  private noteClosedProject(project: string): boolean {
    if (canOpenDirectory(join(this.root, project))) return false;
    if (!this.noted.has(project)) {
      this.noted.add(project);
      this.notices.push(`project directory ${project} of the root cannot be opened by this user: the sessions in it are left out`);
    }
    return true;
  }
}

/** The session ids that have a log in more than one project directory. */
export function duplicateIds(files: readonly LogFile[]): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { sessionId } of files) (seen.has(sessionId) ? duplicates : seen).add(sessionId);
  return duplicates;
}

/** Whether this user may list and search the directory at `path`; one that is gone meanwhile counts as open (it holds nothing). */
function canOpenDirectory(path: string): boolean {
  try {
    accessSync(path, constants.R_OK | constants.X_OK);
    return true;
  } catch (error) {
    return errorCode(error) === 'ENOENT';
  }
}
