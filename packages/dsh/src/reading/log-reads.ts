/**
 * One log read by sessref's own reader: its header alone (a listing of a v0
 * or v1 log) or whole (a load, and a listing of a v2+ log), checked to be in
 * its place, its refusals kept by revision. The reader itself
 * (generations/) is loaded with the first log read.
 */
import { realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session';
import { revisionToken, type FileRevision } from '@sessref/platform';
import { projectDirectoryName } from '../jsonl-root/index.js';
import type * as LogReader from './generations/read-session-log.js';
import type { LogFile } from './log-files.js';
import type { RefusalMemory } from './refusal-memory.js';
import { SessionLogError, fromReader } from './session-log-error.js';

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

/** A log read whole: what the backend would load, the tail a crash left incomplete, and what a listing shows beyond the header. */
export interface WholeLog {
  stored: StoredLog;
  torn: { after: number } | undefined;
  facts: ListedFacts;
}

type Reader = typeof LogReader;

/** The reads of single logs of one root. */
export class LogReads {
  private reader: Reader | undefined;

  constructor(
    private readonly root: string,
    /** The revision of what is at a path now (see `RootLogs.revision`). */
    private readonly revision: (path: string) => FileRevision | undefined,
    private readonly refusals: RefusalMemory,
  ) {}

  /**
   * A v0 or v1 log's header, as the backend's listing gives it, from its
   * first line alone: one damaged log among thousands costs those few
   * hundred bytes each, never a read of every log whole.
   */
  async header(file: LogFile, revision: FileRevision | undefined): Promise<ListedLog> {
    const { readSessionHeader } = await this.logReader();
    let header: SessionHeader;
    try {
      header = readSessionHeader(file.path, file.generation as 0 | 1);
    } catch (error) {
      throw fromReader(this.root, file, error);
    }
    this.assertPlaced(file, header);
    return { header, revision: revision === undefined ? 'gone' : revisionToken(revision) };
  }

  /**
   * A log of any generation, read whole by sessref's own reader into
   * the header and events the backend would have given (their seqs the
   * file's), with the tail a crash left incomplete, which is not part of it,
   * and what a listing shows of it beyond its header. A log refused at its
   * revision before is refused again without a read.
   */
  async whole(file: LogFile): Promise<WholeLog> {
    const revision = this.revision(file.path);
    const kept = this.refusals.at(file, revision);
    if (kept !== undefined) throw kept;
    const { readSessionLog } = await this.logReader();
    let read: ReturnType<Reader['readSessionLog']>;
    try {
      read = readSessionLog(file.path, file.generation);
    } catch (error) {
      const refusal = fromReader(this.root, file, error);
      this.refusals.keep(file, revision, refusal);
      throw refusal;
    }
    this.assertPlaced(file, read.header);
    // Where the committed part ends, as dsh's repair would cut it: the file as read, less its torn tail.
    const torn = read.torn && { after: Number(revision?.size ?? 0n) - read.torn.bytes };
    const token = revision === undefined ? 'gone' : revisionToken(revision);
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
    const name = relative(this.root, file.path);
    if (header.id !== file.sessionId) {
      throw new SessionLogError(file.sessionId, 'SESSION_LOG_CORRUPT', `log ${name} carries the header of another session ("${header.id}")`);
    }
    const project = dirname(dirname(file.path));
    const named = join(this.root, projectDirectoryName(header.cwd));
    if (project === named || sameDirectory(project, named)) return;
    const cwd = header.cwd === undefined ? 'no cwd' : `cwd ${JSON.stringify(header.cwd)}`;
    throw new SessionLogError(file.sessionId, 'SESSION_LOG_CORRUPT', `log ${name} is in another project directory than its header's ${cwd} (${relative(this.root, named)})`);
  }
}

/** Whether `a` and `b` are one directory under two spellings (a link, a case alias); not when either cannot be resolved. */
function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
