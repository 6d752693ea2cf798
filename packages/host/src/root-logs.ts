/**
 * sessref's read side of one dsh root: every log generation listed and read
 * by sessref's own reader, strictly, without dsh's runtime. The strict
 * persistence (storage.ts) answers dsh's reads through it, and a process that
 * only reads (a `sessref list`) uses it without booting a dsh host; the log
 * reader itself (generations/) is loaded on the first log this has to read.
 */
import { accessSync, constants, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session';
import { errorCode } from '@sessref/core';
import { PROCESS_LISTINGS, childPath, type DirectoryListings, revisionToken, sameRevision, type FileRevision } from '@sessref/platform';
import { decodeSessionDirectory, listSubdirectories, logFileName, projectDirectoryName, sessionLogs, sessionLogsOf, type Compression, type SessionLog } from '@sessref/dsh/jsonl-root';
import { SessionLogReadError, type SessionLogReadCode } from './generations/errors.js';
import type * as LogReader from './generations/read-session-log.js';
import { probeLog, type LogProbeCode, type LogProblem } from './log-probe.js';
import { assertSupportedRoot, assertSupportedSession } from './root-shape.js';

/** A session log that cannot be read as a whole, named by its session. */
export class SessionLogError extends Error {
  constructor(
    readonly sessionId: string,
    readonly code: LogProbeCode | 'SESSION_LOG_TRUNCATED' | 'SESSION_LOG_UNSUPPORTED' | 'SESSION_LOG_DUPLICATE',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SessionLogError';
  }
}

/** A refusal of sessref's reader, for the log's revision token it was read at (see {@link RootLogs.refusals}). */
export interface KeptRefusal {
  sessionId: string;
  revision: string;
  code: SessionLogError['code'];
  message: string;
}

/** A log as dsh's backend loads it: header, events (their seqs the file's) and the revision token it was read at. */
export interface StoredLog {
  meta: SessionHeader;
  events: SessionEvent[];
  revision: string;
}

/** A log as a listing gives it: its header and the revision token it was read at. */
export interface ListedLog {
  header: SessionHeader;
  revision: string;
  /**
   * The directory the session last moved to, when its log records a move
   * (a v4 `working-directory/change`, dsh 0.2.1+); absent: it is still in
   * `header.cwd`. A listing places the session by this one.
   */
  workingDirectory?: string;
  /** When the user last sent a message, in a v4 log (see `SessionLogRead.lastSentAt`): a listing dates the session by it. */
  lastSentAt?: number;
}

/** What a listing shows of a v4 log beyond its header, read from its events (dsh 0.2's facts). */
export type ListedFacts = Pick<ListedLog, 'workingDirectory' | 'lastSentAt'>;

/** The facts `from` holds, with no key for one it does not. */
export function listedFacts({ workingDirectory, lastSentAt }: ListedFacts): ListedFacts {
  return { ...(workingDirectory === undefined ? {} : { workingDirectory }), ...(lastSentAt === undefined ? {} : { lastSentAt }) };
}

type LogFile = Pick<SessionLog, 'sessionId' | 'path' | 'generation'>;

type Reader = typeof LogReader;

/**
 * The logs of one root, read as dsh 0.1.0-rc.8's JSONL backend would give
 * them, only stricter: the root's shape is checked first (root-shape.ts); no
 * log is read before it passes the bounded probe of log-probe.ts; a log that
 * is cut, damaged, duplicated across project directories or placed in
 * another project's directory is refused for its session alone, naming it;
 * every generation is read by sessref's reader, the same header and events
 * the backend gives (test/v0-differential.test.ts holds the two to it for
 * v0). What was learnt of each log is kept while it keeps its revision.
 */
export class RootLogs {
  /** What the log-by-log listing read of each log (`null`: it cannot be read), valid while the log keeps its revision. */
  private listed = new Map<string, { revision: FileRevision | undefined; entry: ListedLog | null; damage?: SessionLogError; explained?: true }>();
  /** The last probe of each log, valid while the log keeps the file revision it was probed at. */
  private probes = new Map<string, { revision: FileRevision | undefined; problem: LogProblem | undefined }>();
  /**
   * Why sessref's own reader refused each log it read whole, by path, kept while the log keeps the
   * revision it was read at: a refused log is not decoded again, so a log whose frames stand for more
   * plaintext than its budget (a decompression bomb) costs that budget once, not once per read. The
   * kept headers (kept-headers.ts) keep them between processes.
   */
  readonly refusals = new Map<string, KeptRefusal>();
  /**
   * Why a derived file over these logs (the listing's kept headers) was not used as found, or not saved, naming it
   * (never a failure, a re-read); and each project directory this user cannot open, whose sessions no listing can name.
   */
  readonly notices: string[] = [];
  /** The closed project directories already in {@link notices}. */
  private readonly noted = new Set<string>();
  /** Told of each refusal kept in {@link refusals} (the kept headers save them). */
  private readonly refusalListeners = new Set<() => void>();
  private reader: Reader | undefined;

  constructor(
    readonly root: string,
    readonly compression: Compression = 'zstd',
    /**
     * The root's directories as last listed, kept by their revisions: each read checks the
     * session's shape and finds its logs, and a listing of the root and of every project
     * directory per read would cost a long-lived process more than the read.
     */
    readonly listings: DirectoryListings = PROCESS_LISTINGS,
  ) {}

  /**
   * Every readable log's listing entry, log by log, after the root's shape
   * is checked: each log passes its probe and reads its header alone (a v2+
   * log is read whole, as its inherited cut is an event), again only when
   * it changed. The damaged ones are left out for {@link damagedLogs} to
   * name; a log whose id has a log in two project directories too.
   */
  async list(signal?: AbortSignal): Promise<ListedLog[]> {
    signal?.throwIfAborted();
    assertSupportedRoot(this.root, this.listings.list);
    const files = this.logFiles();
    const refused = duplicateIds(files);
    this.forgetBut(files);
    const entries: ListedLog[] = [];
    for (const file of files) {
      if (refused.has(file.sessionId) || this.probe(file.path) !== undefined) continue;
      const entry = await this.listedEntry(file, signal);
      if (entry !== null) entries.push(entry);
    }
    return entries;
  }

  /**
   * One session's listing entry read alone, with every check a whole
   * listing makes of it (one log across the project directories, its probe,
   * its header): `null` when the listing leaves it out. What a listing that
   * already knows every other log asks for a new or changed one.
   */
  async listOne(id: string, signal?: AbortSignal): Promise<ListedLog | null> {
    const logs = this.candidateLogs(id);
    const file = logs[0];
    if (logs.length !== 1 || file === undefined || this.probe(file.path) !== undefined) return null;
    return this.listedEntry(file, signal);
  }

  /**
   * The session's log, read whole by sessref's own reader within fixed
   * budgets, and without the backend's walk of every session directory of
   * the root, so a directory this user cannot open costs only its own
   * session; `undefined` when the session has no log. A log whose last write
   * is incomplete is refused (`SESSION_LOG_TRUNCATED`), never repaired.
   */
  async load(id: string, signal?: AbortSignal): Promise<StoredLog | undefined> {
    this.assertSupported(id);
    signal?.throwIfAborted();
    // Every file the backend would open for this id (one per project directory it looks in).
    const logs = this.candidateLogs(id);
    if (logs.length > 1) throw this.duplicated(id, logs);
    const log = logs[0];
    if (log === undefined) return undefined;
    const problem = this.probe(log.path);
    if (problem !== undefined) throw this.refused(id, log.path, problem);
    const read = await this.readGeneration(log);
    if (read.torn !== undefined) {
      throw new SessionLogError(id, 'SESSION_LOG_TRUNCATED', `log ${this.relative(log.path)} ends in an incomplete write after byte ${read.torn.after}`);
    }
    return read.stored;
  }

  /** The revision token a read of the session's log would carry now (dsh's coordinator compares the two); none without a log. */
  revisionOf(id: string): string | undefined {
    this.assertSupported(id);
    const log = this.candidateLogs(id)[0];
    const revision = log && this.revision(log.path);
    return revision && revisionToken(revision);
  }

  /** The log of a newer generation than 0 that is the current log of `id`, when there is one, relative to the root. */
  newerGeneration(id: string): { path: string; generation: number } | undefined {
    const log = this.candidateLogs(id).find((candidate) => candidate.generation > 0);
    return log && { path: this.relative(log.path), generation: log.generation };
  }

  /** Why the log of `sessionId` cannot be read, when there is one that cannot: a listing leaves such a log out. */
  async damageOf(sessionId: string): Promise<SessionLogError | undefined> {
    const file = this.logFiles().find((candidate) => candidate.sessionId === sessionId);
    return file === undefined ? undefined : this.inspectFile(file);
  }

  /** The logs under the root that no listing shows, with why: a header that is cut, damaged or unreadable. */
  async damagedLogs(listed: ReadonlySet<string>): Promise<SessionLogError[]> {
    const damaged = new Map<string, SessionLogError>();
    for (const file of this.logFiles()) {
      // One refusal per session: the copies of a duplicated id share theirs.
      if (listed.has(file.sessionId) || damaged.has(file.sessionId)) continue;
      const damage = await this.headerDamage(file);
      if (damage !== undefined) damaged.set(file.sessionId, damage);
    }
    return [...damaged.values()];
  }

  /** Call `listener` each time a refusal of sessref's reader is kept (see {@link refusals}). */
  whenRefused(listener: () => void): void {
    this.refusalListeners.add(listener);
  }

  /** Refuse a session whose directory holds a shape sessref does not read (see root-shape.ts). */
  assertSupported(id: string): void {
    assertSupportedSession(this.root, id, this.listings.list);
  }

  /**
   * The revision of what is at `path`; none when nothing can be reached there
   * (missing, a symbolic-link loop, a directory on the way this user cannot
   * search): the log's probe then names why it cannot be read, as that
   * session's refusal. Looked at once per hold of the listings.
   */
  revision(path: string): FileRevision | undefined {
    return this.listings.revision(path);
  }

  /**
   * One log as the log-by-log listing sees it, read again only when its
   * revision changed: its header and revision, or `null` when it cannot be
   * read. A log that only lost its tail still lists, as it does in dsh.
   */
  private async listedEntry(file: LogFile, signal: AbortSignal | undefined): Promise<ListedLog | null> {
    const revision = this.revision(file.path);
    const known = this.listed.get(file.path);
    if (known !== undefined && sameRevision(known.revision, revision)) return known.entry;
    let entry: ListedLog | null = null;
    let damage: SessionLogError | undefined;
    try {
      signal?.throwIfAborted();
      if (file.generation <= 1) entry = await this.readListedHeader(file, revision);
      else {
        const { stored, facts } = await this.readGeneration(file);
        entry = { header: stored.meta, revision: stored.revision, ...facts };
      }
    } catch (readError) {
      if (signal?.aborted || !isUnreadableLog(readError, file.path)) throw readError;
      if (readError instanceof SessionLogError) damage = readError;
    }
    this.listed.set(file.path, { revision, entry, ...(damage === undefined ? {} : { damage }) });
    return entry;
  }

  /**
   * A v0 or v1 log's header, as the backend's listing gives it, from its
   * first line alone: one damaged log among thousands costs those few
   * hundred bytes each, never a read of every log whole.
   */
  private async readListedHeader(file: LogFile, revision: FileRevision | undefined): Promise<ListedLog> {
    const { readSessionHeader } = await this.logReader();
    let header: SessionHeader;
    try {
      header = readSessionHeader(file.path, file.generation as 0 | 1);
    } catch (error) {
      throw this.fromReader(file, error);
    }
    this.assertPlaced(file, header);
    return { header, revision: revision === undefined ? 'gone' : revisionToken(revision) };
  }

  /**
   * A log of any generation, read whole by sessref's own reader into
   * the header and events the backend would have given (their seqs the
   * file's), with the tail a crash left incomplete, which is not part of it,
   * and what a listing shows of it beyond its header.
   */
  private async readGeneration(file: LogFile): Promise<{ stored: StoredLog; torn: { after: number } | undefined; facts: ListedFacts }> {
    const revision = this.revision(file.path);
    const token = revision === undefined ? 'gone' : revisionToken(revision);
    const kept = this.refusals.get(file.path);
    if (kept !== undefined && revision !== undefined && kept.revision === token) throw new SessionLogError(file.sessionId, kept.code, kept.message);
    const { readSessionLog } = await this.logReader();
    let read: ReturnType<Reader['readSessionLog']>;
    try {
      read = readSessionLog(file.path, file.generation);
    } catch (error) {
      const refusal = this.fromReader(file, error);
      // Kept at the revision taken before the read: a log changed meanwhile has another one next time, and is read again.
      if (revision !== undefined) {
        this.refusals.set(file.path, { sessionId: file.sessionId, revision: token, code: refusal.code, message: refusal.message });
        for (const listener of this.refusalListeners) listener();
      }
      throw refusal;
    }
    this.assertPlaced(file, read.header);
    // Where the committed part ends, as dsh's repair would cut it: the file as read, less its torn tail.
    const torn = read.torn && { after: Number(revision?.size ?? 0n) - read.torn.bytes };
    return { stored: { meta: read.header, events: read.events, revision: token }, torn, facts: listedFacts(read) };
  }

  /** The log reader, loaded with the first log read: a listing of unchanged logs never needs it. */
  private async logReader(): Promise<Reader> {
    return (this.reader ??= await import('./generations/read-session-log.js'));
  }

  /**
   * Refuse a log whose header names another session, or a cwd whose project
   * directory is not the one the log is in (a session directory copied under
   * another project, say): dsh refuses both, as a log it would never write
   * there. A directory that is the named one through a link is the same.
   */
  private assertPlaced(file: LogFile, header: SessionHeader): void {
    if (header.id !== file.sessionId) {
      throw new SessionLogError(file.sessionId, 'SESSION_LOG_CORRUPT', `log ${this.relative(file.path)} carries the header of another session ("${header.id}")`);
    }
    const project = dirname(dirname(file.path));
    const named = join(this.root, projectDirectoryName(header.cwd));
    if (project === named || sameDirectory(project, named)) return;
    const cwd = header.cwd === undefined ? 'no cwd' : `cwd ${JSON.stringify(header.cwd)}`;
    throw new SessionLogError(file.sessionId, 'SESSION_LOG_CORRUPT', `log ${this.relative(file.path)} is in another project directory than its header's ${cwd} (${this.relative(named)})`);
  }

  /** The generation reader's refusal as the session's, in the codes every other log refusal uses. */
  private fromReader(file: LogFile, error: unknown): SessionLogError {
    if (!(error instanceof SessionLogReadError)) throw error;
    const detail = error.cause instanceof SessionLogReadError ? error.cause.message : error.message;
    return new SessionLogError(file.sessionId, READER_CODES[error.code], `log ${this.relative(file.path)}: ${detail}`, { cause: error });
  }

  /**
   * Why a listing leaves the log of `file` out: what its probe or its
   * header says, in the words a read of that session gives (the one read
   * of the damaged log, not of the root), kept while the log keeps its
   * revision.
   */
  private async headerDamage(file: LogFile): Promise<SessionLogError | undefined> {
    const problem = this.probe(file.path);
    if (problem !== undefined) return this.refused(file.sessionId, file.path, problem);
    const logs = this.candidateLogs(file.sessionId);
    if (logs.length > 1) return this.duplicated(file.sessionId, logs);
    await this.listedEntry(file, undefined);
    const known = this.listed.get(file.path);
    if (known?.damage === undefined || known.explained === true) return known?.damage;
    known.damage = (await this.inspectFile(file)) ?? known.damage;
    known.explained = true;
    return known.damage;
  }

  private async inspectFile(file: LogFile): Promise<SessionLogError | undefined> {
    const problem = this.probe(file.path);
    if (problem !== undefined) return this.refused(file.sessionId, file.path, problem);
    try {
      await this.load(file.sessionId);
      return undefined;
    } catch (error) {
      return error instanceof SessionLogError ? error : undefined;
    }
  }

  /** The log probe of `path` (see log-probe.ts), again only when the file changed since the last one. */
  private probe(path: string): LogProblem | undefined {
    const revision = this.revision(path);
    const known = this.probes.get(path);
    if (known !== undefined && sameRevision(known.revision, revision)) return known.problem;
    const problem = probeLog(path);
    this.probes.set(path, { revision, problem });
    return problem;
  }

  /** Keep what was learnt of the logs in `files` only: a long-lived process forgets deleted logs. */
  private forgetBut(files: readonly LogFile[]): void {
    if (this.probes.size <= files.length && this.listed.size <= files.length && this.refusals.size <= files.length) return;
    const present = new Set(files.map((file) => file.path));
    for (const known of [this.probes, this.listed, this.refusals]) for (const path of known.keys()) if (!present.has(path)) known.delete(path);
  }

  /**
   * dsh's rule for one id in two project directories (a backup copy of a
   * session directory under another project, say) is to fail the whole
   * listing; sessref refuses only that session, naming every copy, and lists
   * the rest. Neither copy is read: which one dsh would resume is undefined.
   */
  private duplicated(id: string, logs: readonly LogFile[]): SessionLogError {
    const copies = logs.map((log) => this.relative(log.path)).join(', ');
    return new SessionLogError(id, 'SESSION_LOG_DUPLICATE', `session "${id}" has a log in ${logs.length} project directories (${copies}); dsh refuses such a root`);
  }

  private refused(id: string, path: string, problem: LogProblem): SessionLogError {
    // The file system's own words name the file by its absolute path: named relative to the root, as the log is.
    return new SessionLogError(id, problem.code, `log ${this.relative(path)} ${problem.reason.replaceAll(`'${this.root}/`, "'")}`);
  }

  /** The log of `id` in each project directory, where there is something at that path (the backend's lookup, without opening anything). */
  candidateLogs(id: string): LogFile[] {
    return sessionLogsOf(this.root, id, this.compression, this.listings.list);
  }

  /** Every session's log under the root, in listing order. */
  private logFiles(): LogFile[] {
    const logs = sessionLogs(this.root, this.compression, this.listings.list);
    return [...logs, ...this.closedDirectories(logs)];
  }

  /**
   * A session directory this user cannot list or search (mode 000, another
   * user's) holds a log no one here can name: it stands for that one
   * session, named by its directory, with the generation-0 log name in place
   * of whichever log it holds, so its probe refuses it (`EACCES`) and the
   * rest of the root lists as before. A project directory this user cannot
   * open hides even the names of its sessions: it is named once in
   * {@link notices}. Only the directories where no log was found are
   * checked, one `access()` each.
   */
  private closedDirectories(found: readonly LogFile[]): LogFile[] {
    const seen = new Set(found.map((log) => dirname(log.path)));
    const projects = new Set(found.map((log) => dirname(dirname(log.path))));
    const closed: LogFile[] = [];
    for (const project of listSubdirectories(this.root, this.listings.list)) {
      const projectPath = childPath(this.root, project);
      if (!projects.has(projectPath) && this.noteClosedProject(project)) continue;
      for (const directory of listSubdirectories(projectPath, this.listings.list)) {
        const path = childPath(projectPath, directory);
        if (!seen.has(path) && !canOpenDirectory(path)) closed.push({ sessionId: decodeSessionDirectory(directory), path: childPath(path, logFileName(this.compression)), generation: 0 });
      }
    }
    return closed;
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

  private relative(path: string): string {
    return relative(this.root, path);
  }
}

/** The session ids that have a log in more than one project directory. */
function duplicateIds(files: readonly LogFile[]): Set<string> {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const { sessionId } of files) (seen.has(sessionId) ? duplicates : seen).add(sessionId);
  return duplicates;
}

/** The codes of the generation reader's refusals, as every other log refusal spells them. */
const READER_CODES: Record<SessionLogReadCode, SessionLogError['code']> = {
  SESSION_LOG_UNREADABLE: 'SESSION_LOG_UNREADABLE',
  SESSION_LOG_TOO_LARGE: 'SESSION_LOG_TOO_LARGE',
  SESSION_LOG_LINE_TOO_LONG: 'SESSION_LOG_TOO_LARGE',
  SESSION_LOG_TOO_DEEP: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_CORRUPT: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_NO_HEADER: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_HEADER_INVALID: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_VERSION_MISMATCH: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_VERSION_UNKNOWN: 'SESSION_LOG_UNSUPPORTED',
  SESSION_LOG_UNSUPPORTED: 'SESSION_LOG_UNSUPPORTED',
};

/** Whether `a` and `b` are one directory under two spellings (a link, a case alias); not when either cannot be resolved. */
function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
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

/** Whether `code` is one a refusal of sessref's reader carries (see {@link KeptRefusal}). */
export function isReaderRefusalCode(code: unknown): code is SessionLogError['code'] {
  return Object.values(READER_CODES).some((known) => known === code);
}

/** Whether `error` is a refusal of the log at `path` itself, rather than of the root or a failure of the runtime. */
function isUnreadableLog(error: unknown, path: string): boolean {
  return error instanceof SessionLogError || probeLog(path) !== undefined;
}
