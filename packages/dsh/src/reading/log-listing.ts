/**
 * The log-by-log listing of a root: each log probed and read from its header
 * alone, what was learnt of it kept while it keeps its revision, so a
 * listing of a settled root reads no log again.
 */
import { sameRevision, type DirectoryListings, type FileRevision } from '@sessref/platform';
import { duplicateIds, type LogFile, type RootLogFiles } from './log-files.js';
import { probeLog, type LogProblem } from './log-probe.js';
import type { ListedLog, LogReads } from './log-reads.js';
import type { RefusalMemory } from './refusal-memory.js';
import { assertSupportedRoot } from './root-shape.js';
import { SessionLogError } from './session-log-error.js';

/** What the listing read of one log: its entry (`null`: it cannot be read), and why not when a read refused it. */
export interface ListedRead {
  revision: FileRevision | undefined;
  entry: ListedLog | null;
  damage?: SessionLogError;
  /** Set once a damage report replaced `damage` with the words of a whole read (see log-damage.ts). */
  explained?: true;
}

/** The listing of one root's logs (see `RootLogs.list`). */
export class LogListing {
  /** What the listing read of each log, valid while the log keeps its revision. */
  private readonly listed = new Map<string, ListedRead>();
  /** The last probe of each log, valid while the log keeps the file revision it was probed at. */
  private readonly probes = new Map<string, { revision: FileRevision | undefined; problem: LogProblem | undefined }>();

  constructor(
    private readonly root: string,
    private readonly listings: DirectoryListings,
    private readonly files: RootLogFiles,
    private readonly reads: LogReads,
    /** Forgotten with the rest of what was learnt of a deleted log. */
    private readonly refusals: RefusalMemory,
  ) {}

  /** Every readable log's listing entry (see `RootLogs.list`). */
  async list(signal?: AbortSignal): Promise<ListedLog[]> {
    signal?.throwIfAborted();
    assertSupportedRoot(this.root, this.listings.list);
    const files = this.files.all();
    const refused = duplicateIds(files);
    this.forgetBut(files);
    const entries: ListedLog[] = [];
    for (const file of files) {
      if (refused.has(file.sessionId) || this.probe(file.path) !== undefined) continue;
      const entry = await this.entry(file, signal);
      if (entry !== null) entries.push(entry);
    }
    return entries;
  }

  /** One session's listing entry read alone (see `RootLogs.listOne`). */
  async listOne(id: string, signal?: AbortSignal): Promise<ListedLog | null> {
    const logs = this.files.of(id);
    const file = logs[0];
    if (logs.length !== 1 || file === undefined || this.probe(file.path) !== undefined) return null;
    return this.entry(file, signal);
  }

  /**
   * One log as the listing sees it, read again only when its revision
   * changed: its header and revision, or `null` when it cannot be read. A
   * log that only lost its tail still lists, as it does in dsh.
   */
  async entry(file: LogFile, signal: AbortSignal | undefined): Promise<ListedLog | null> {
    const revision = this.listings.revision(file.path);
    const known = this.listed.get(file.path);
    if (known !== undefined && sameRevision(known.revision, revision)) return known.entry;
    let entry: ListedLog | null = null;
    let damage: SessionLogError | undefined;
    try {
      signal?.throwIfAborted();
      if (file.generation <= 1) entry = await this.reads.header(file, revision);
      else {
        const { stored, facts } = await this.reads.whole(file);
        entry = { header: stored.meta, revision: stored.revision, ...facts };
      }
    } catch (readError) {
      if (signal?.aborted || !isUnreadableLog(readError, file.path)) throw readError;
      if (readError instanceof SessionLogError) damage = readError;
    }
    this.listed.set(file.path, { revision, entry, ...(damage === undefined ? {} : { damage }) });
    return entry;
  }

  /** What the listing last read of the log at `path`, whatever its revision now. */
  known(path: string): ListedRead | undefined {
    return this.listed.get(path);
  }

  /** The log probe of `path` (see log-probe.ts), again only when the file changed since the last one. */
  probe(path: string): LogProblem | undefined {
    const revision = this.listings.revision(path);
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
}

/** Whether `error` is a refusal of the log at `path` itself, rather than of the root or a failure of the runtime. */
function isUnreadableLog(error: unknown, path: string): boolean {
  return error instanceof SessionLogError || probeLog(path) !== undefined;
}
