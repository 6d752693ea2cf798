/**
 * sessref's read side of one dsh root: every log generation listed and read
 * by sessref's own reader, strictly, without dsh's runtime. The strict
 * persistence (storage.ts) answers dsh's reads through it, and a process that
 * only reads (a `sessref list`) uses it without booting a dsh host; the log
 * reader itself (generations/) is loaded on the first log this has to read.
 *
 * Its parts, one file each: where the logs are (log-files.ts), one log read
 * (log-reads.ts), the refusals kept by revision (refusal-memory.ts), the
 * listing (log-listing.ts), the damage reports (log-damage.ts), and the
 * refusal's words (session-log-error.ts).
 */
import { relative } from 'node:path';
import { PROCESS_LISTINGS, revisionToken, type DirectoryListings, type FileRevision } from '@sessref/platform';
import type { Compression } from '../jsonl-root/index.js';
import { LogDamage } from './log-damage.js';
import { RootLogFiles, type LogFile } from './log-files.js';
import { LogListing } from './log-listing.js';
import { LogReads, type ListedLog, type StoredLog } from './log-reads.js';
import { RefusalMemory } from './refusal-memory.js';
import { assertSupportedSession } from './root-shape.js';
import { SessionLogError, duplicateRefusal, probeRefusal } from './session-log-error.js';

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
  /**
   * Why sessref's own reader refused each log it read whole, by path, kept while the log keeps the
   * revision it was read at (see {@link RefusalMemory}); the kept headers (kept-headers.ts) load and save them.
   */
  readonly refusals = new RefusalMemory();
  /**
   * Why a derived file over these logs (the listing's kept headers) was not used as found, or not saved, naming it
   * (never a failure, a re-read); and each project directory this user cannot open, whose sessions no listing can name.
   */
  readonly notices: string[] = [];
  private readonly files: RootLogFiles;
  private readonly reads: LogReads;
  private readonly listing: LogListing;
  private readonly damage: LogDamage;

  constructor(
    readonly root: string,
    readonly compression: Compression = 'zstd',
    /**
     * The root's directories as last listed, kept by their revisions: each read checks the
     * session's shape and finds its logs, and a listing of the root and of every project
     * directory per read would cost a long-lived process more than the read.
     */
    readonly listings: DirectoryListings = PROCESS_LISTINGS,
  ) {
    this.files = new RootLogFiles(root, compression, listings, this.notices);
    this.reads = new LogReads(root, (path) => this.revision(path), this.refusals);
    this.listing = new LogListing(root, listings, this.files, this.reads, this.refusals);
    this.damage = new LogDamage(root, this.files, this.listing, (id) => this.load(id));
  }

  /**
   * Every readable log's listing entry, log by log, after the root's shape
   * is checked: each log passes its probe and reads its header alone (a v2+
   * log is read whole, as its inherited cut is an event), again only when
   * it changed. The damaged ones are left out for {@link damagedLogs} to
   * name; a log whose id has a log in two project directories too.
   */
  list(signal?: AbortSignal): Promise<ListedLog[]> {
    return this.listing.list(signal);
  }

  /**
   * One session's listing entry read alone, with every check a whole
   * listing makes of it (one log across the project directories, its probe,
   * its header): `null` when the listing leaves it out. What a listing that
   * already knows every other log asks for a new or changed one.
   */
  listOne(id: string, signal?: AbortSignal): Promise<ListedLog | null> {
    return this.listing.listOne(id, signal);
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
    if (logs.length > 1) throw duplicateRefusal(this.root, id, logs);
    const log = logs[0];
    if (log === undefined) return undefined;
    const problem = this.listing.probe(log.path);
    if (problem !== undefined) throw probeRefusal(this.root, id, log.path, problem);
    const read = await this.reads.whole(log);
    if (read.torn !== undefined) {
      throw new SessionLogError(id, 'SESSION_LOG_TRUNCATED', `log ${relative(this.root, log.path)} ends in an incomplete write after byte ${read.torn.after}`);
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
    return log && { path: relative(this.root, log.path), generation: log.generation };
  }

  /** Why the log of `sessionId` cannot be read, when there is one that cannot: a listing leaves such a log out. */
  damageOf(sessionId: string): Promise<SessionLogError | undefined> {
    return this.damage.of(sessionId);
  }

  /** The logs under the root that no listing shows, with why: a header that is cut, damaged or unreadable. */
  damagedLogs(listed: ReadonlySet<string>): Promise<SessionLogError[]> {
    return this.damage.leftOut(listed);
  }

  /** Call `listener` each time a refusal of sessref's reader is kept (see {@link refusals}). */
  whenRefused(listener: () => void): void {
    this.refusals.whenKept(listener);
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

  /** The log of `id` in each project directory, where there is something at that path (the backend's lookup, without opening anything). */
  candidateLogs(id: string): LogFile[] {
    return this.files.of(id);
  }
}
