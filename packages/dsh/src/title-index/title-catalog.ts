/**
 * @sessref/dsh/title-catalog: the title index of a JSONL session root over
 * whatever reads the host does (see `@sessref/dsh/title-index` for it as a
 * dsh service), and where its files live by default. No dsh runtime.
 * @module @sessref/dsh/title-catalog
 */
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from '../catalog.js';
import { loadIndex, lookupIndex, saveIndex, type IndexEntry } from './index-file.js';

export { defaultIndexFile, defaultSearchIndexFile } from './index-file.js';
export type { SessionReferenceCatalog } from '../catalog.js';
import type { Compression } from '../jsonl-root/format.js';
import { LogFileTracker } from '../jsonl-root/log-files.js';
import { revisionToken, type FileRevision } from '@sessref/platform';

/** A session this process holds live: it answers ahead of its log. */
export interface LiveSession {
  readonly id: string;
  readonly header: SessionHeaderLike;
  readonly seq: number;
}

/** One session's header and latest title as the host reads them, or why not (`missing`: the host has no such session). */
export type TitleRead =
  | { sessionId: string; status: 'fulfilled'; header: SessionHeaderLike; title?: string | undefined }
  | { sessionId: string; status: 'rejected'; reason: unknown; missing: boolean };

/** How a title catalog reads what its index does not hold: the host's own reads, whatever the host is. */
export interface TitleReads {
  /** The sessions live in this process (a dsh host's store); none in a process that only reads logs. */
  live(): readonly LiveSession[];
  /** Header and latest title of each of `sessionIds` as the host reads them, in input order, failures per id. */
  read(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleRead[]>;
  /** Every session's header as the host lists it: what an entry keeps when its title cannot be read. */
  listHeaders(signal?: AbortSignal): Promise<readonly SessionHeaderLike[]>;
}

export interface TitleCatalogOptions {
  /** The JSONL session root. */
  root: string;
  compression?: Compression;
  /** Where the index persists between processes; `undefined` keeps it in memory. */
  indexFile?: string | undefined;
  /** Where sessref's content index over the same sessions persists; `undefined` keeps it in memory. */
  searchIndexFile?: string | undefined;
  /** How long the content index waits, once, for another process's lock on its file. */
  searchIndexWaitMs?: number | undefined;
  /** Follow file-system events instead of re-statting every log per query (long-lived processes). */
  watch?: boolean;
  /** The root's log tracker, when another reader of the root (its listing) already keeps one: one walk answers both. */
  tracker?: LogFileTracker;
}

/**
 * A title index over a JSONL session root, answering discovery (the listing
 * and latest titles) as the host's reads would, so discovery never re-reads
 * an unchanged log.
 *
 * Every query first brings the log revisions up to date (a stat walk, or
 * only what file-system events named; no file is opened): a new session, a
 * deleted one, or a log appended to or rewritten by another process changes
 * its revision, and only those logs are read again, through {@link TitleReads}.
 * Live sessions answer from the host. The index survives the process in a
 * small JSON file, so a fresh process reads only what changed since the last.
 */
export class TitleCatalog implements SessionReferenceCatalog {
  private entries: Map<string, IndexEntry> | undefined;
  private readonly logs: LogFileTracker;
  readonly searchIndexFile: string | undefined;
  readonly searchIndexWaitMs: number | undefined;
  /** Why the saved index file was not used as found, or could not be saved, naming it: never a failure, a re-read. */
  readonly notices: string[] = [];
  private unsaved = false;
  /** The revisions a refresh found every log indexed at, and the listing's headers (newest first) while they hold. */
  private settled: { revisions: ReadonlyMap<string, FileRevision>; headers?: SessionHeaderLike[] } | undefined;
  /** Each log's change stamp, for the revisions map they were spelled from. */
  private logStamps: { revisions: ReadonlyMap<string, FileRevision>; stamps: ReadonlyMap<string, string> } | undefined;

  constructor(
    private readonly options: TitleCatalogOptions,
    private readonly reads: TitleReads,
  ) {
    this.searchIndexFile = options.searchIndexFile;
    this.searchIndexWaitMs = options.searchIndexWaitMs;
    this.logs = options.tracker ?? new LogFileTracker(options.root, options.compression ?? 'zstd', options.watch ?? true);
  }

  async listSessions(signal?: AbortSignal): Promise<SessionHeaderLike[]> {
    const entries = await this.refresh(signal);
    const live = this.reads.live();
    if (live.length === 0 && this.settled?.headers !== undefined) return [...this.settled.headers];
    const byId = new Map<string, SessionHeaderLike>();
    entries.forEach((entry, id) => byId.set(id, entry.header));
    for (const session of live) byId.set(session.id, session.header);
    // The order of ctx.sessionQuery.listSessions(): newest first, then by id.
    const headers = [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (live.length === 0 && this.settled !== undefined) this.settled.headers = headers;
    return [...headers];
  }

  async readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    const entries = await this.currentEntries(sessionIds, signal);
    const live = new Set(this.reads.live().map((session) => session.id));
    const unindexed = sessionIds.filter((id) => live.has(id) || !entries.has(id));
    const read = new Map((await this.readFromHost(unindexed, signal)).map((result) => [result.sessionId, result]));
    return sessionIds.map((sessionId) => read.get(sessionId) ?? indexedTitle(sessionId, entries.get(sessionId)));
  }

  /**
   * Each session's log revision, from the same walk (or file-system events)
   * as the listing, no log opened; a live session's surface is this
   * process's, ahead of its log, so its seq is part of its stamp.
   */
  async changeStamps(): Promise<ReadonlyMap<string, string>> {
    const revisions = await this.logs.revisions();
    if (this.logStamps?.revisions !== revisions) this.logStamps = { revisions, stamps: tokensOf(revisions) };
    const live = this.reads.live();
    // The kept map itself while no session is live: nobody changes a stamp map they are given.
    if (live.length === 0) return this.logStamps.stamps;
    const stamps = new Map(this.logStamps.stamps);
    for (const session of live) stamps.set(session.id, `${stamps.get(session.id) ?? 'unsaved'}@${session.seq}`);
    return stamps;
  }

  /** Stop following file-system events. */
  close(): void {
    this.logs.close();
  }

  /**
   * The entries, with the titles of `sessionIds` as good as the revisions
   * they were read at: a log replaced since the last listing (another
   * session of the same id and creation time copied over it, say) is indexed
   * again first. Revisions come from file-system events when the index
   * follows them (no stat at all), else from a stat of those logs alone.
   */
  private async currentEntries(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, IndexEntry>> {
    if (this.logs.following) return this.refresh(signal);
    if (this.entries === undefined) return this.savedFor(sessionIds, signal);
    const entries = this.entries;
    const indexed = sessionIds.filter((id) => entries.has(id));
    const now = this.logs.restat(indexed);
    // A log the tracker no longer knows is gone: its entry is as stale as a replaced one.
    const replaced = indexed.some((id) => {
      const revision = now.get(id);
      return revision === undefined || entries.get(id)?.revision !== revisionToken(revision);
    });
    return replaced ? this.refresh(signal) : entries;
  }

  /**
   * The saved entries for a process's first titles (a search labelling its
   * hits, a `show`): good as they are when each of `sessionIds` has an entry
   * at its log's revision (`LogFileTracker.revisionOf`), with no other entry
   * compared; else the index is refreshed, as a listing would.
   */
  private async savedFor(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, IndexEntry>> {
    const { indexFile, root } = this.options;
    // A `show` of one session of 10,000 walked them all to compare one entry, and parsed them all to find it: their entries alone are read.
    const entries = (indexFile === undefined ? undefined : lookupIndex(indexFile, root, sessionIds)) ?? this.saved();
    const current = sessionIds.every((id) => {
      const revision = this.logs.revisionOf(id);
      return revision !== undefined && entries.get(id)?.revision === revisionToken(revision);
    });
    return current ? entries : this.refresh(signal);
  }

  /** The entries as the index file holds them, read once; none without a file. */
  private saved(): Map<string, IndexEntry> {
    if (this.entries !== undefined) return this.entries;
    const { indexFile, root } = this.options;
    if (indexFile === undefined) return (this.entries = new Map());
    const { entries, laidOut } = loadIndex(indexFile, root, this.notices);
    // Saved on one line by an earlier build: laid out now, each entry as it was (and still checked against its log when used), so the next process finds its lines.
    if (!laidOut && entries.size > 0) saveIndex(indexFile, root, entries);
    return (this.entries = entries);
  }

  /** Bring the index up to date with the files under the root; read only changed logs. */
  private async refresh(signal: AbortSignal | undefined): Promise<Map<string, IndexEntry>> {
    const { indexFile, root } = this.options;
    const entries = this.saved();
    const files = await this.logs.revisions();
    // The very map the last settled refresh saw: no log moved since, every entry is current.
    if (this.settled?.revisions === files) return entries;
    let changed = false;
    entries.forEach((_entry, id) => {
      if (files.has(id)) return;
      entries.delete(id);
      changed = true;
    });
    const stale = new Map<string, string>();
    files.forEach((revision, id) => {
      const token = revisionToken(revision);
      if (entries.get(id)?.revision !== token) stale.set(id, token);
    });
    // Settled only when nothing was left to read: a log whose read failed is tried again by the next refresh.
    this.settled = stale.size === 0 ? { revisions: files } : undefined;
    // A log still unreadable at the revision it was refused at changes no entry: nothing to save again.
    if (stale.size > 0 && (await this.reindex(entries, stale, signal))) changed = true;
    if (changed && indexFile !== undefined && !saveIndex(indexFile, root, entries) && !this.unsaved) {
      this.unsaved = true;
      this.notices.push(`title index ${indexFile} could not be saved (something other than a file at its path, or a directory that is not this user's alone): the next process reads the logs again`);
    }
    return entries;
  }

  /** Re-read header and title of the logs whose revision changed; whether any entry changed. */
  private async reindex(entries: Map<string, IndexEntry>, stale: Map<string, string>, signal: AbortSignal | undefined): Promise<boolean> {
    let changed = false;
    const unreadable: string[] = [];
    for (const result of await this.reads.read([...stale.keys()], signal)) {
      const revision = stale.get(result.sessionId)!;
      if (result.status === 'fulfilled') {
        entries.set(result.sessionId, { revision, header: result.header, ...(result.title === undefined ? {} : { title: result.title }) });
        changed = true;
      } else if (!result.missing) {
        unreadable.push(result.sessionId);
      }
      // Missing: gone between the walk and the read, and the next walk will not see it either.
    }
    if (unreadable.length === 0) return changed;
    // A log whose title cannot be read still lists, under the header the host lists it with.
    const listed = new Map((await this.reads.listHeaders(signal)).map((header) => [header.id, header]));
    for (const id of unreadable) {
      const header = listed.get(id);
      if (header) entries.set(id, { revision: stale.get(id)!, header, unreadable: true });
      changed ||= header !== undefined;
    }
    return changed;
  }

  private async readFromHost(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<TitleReadResult[]> {
    if (sessionIds.length === 0) return [];
    return (await this.reads.read(sessionIds, signal)).map((result) =>
      result.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: result.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
    );
  }
}

function indexedTitle(sessionId: string, entry: IndexEntry | undefined): TitleReadResult {
  if (entry?.unreadable) return { sessionId, status: 'rejected', reason: new Error(`the log of "${sessionId}" cannot be read`) };
  return { sessionId, status: 'fulfilled', title: entry?.title };
}

/** Each log's revision token, by session id (a `forEach`: a fresh process runs this cold, where iterating entries costs ten times more). */
function tokensOf(revisions: ReadonlyMap<string, FileRevision>): Map<string, string> {
  const stamps = new Map<string, string>();
  revisions.forEach((revision, id) => stamps.set(id, revisionToken(revision)));
  return stamps;
}
