import { Service, type Context } from '@deepseek-ai/cordis';
import z from '@deepseek-ai/schemastery';
import { SessionId } from '@deepseek-ai/dsh-session';
import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from '../catalog.js';
import { defaultIndexFile, defaultSearchIndexFile, loadIndex, saveIndex, type IndexEntry } from './index-file.js';
import type { Compression } from '../jsonl-root/format.js';
import { LogFileTracker } from '../jsonl-root/log-files.js';
import { revisionToken, type FileRevision } from '@sessref/sources';

export interface TitleIndexConfig {
  /** The JSONL session root dsh persists to (`$DSH_HOME/sessions`). */
  root: string;
  /** How dsh stores the root's logs: its `compression` setting (`'none'` for uncompressed logs). */
  compression?: Compression;
  /** Where the index persists between processes; defaults to a per-root file in sessref's cache directory. */
  indexFile?: string;
  /** Keep the index in memory only (and sessref's content index too, unless `searchIndexFile` is set). */
  persist?: boolean;
  /** Where sessref's content index over the root persists (see the resolver's `contentSearch`); defaults to a per-root file in sessref's cache directory. */
  searchIndexFile?: string;
  /** How long the content index waits, once, for another process's lock on its file; default 10 s. */
  searchIndexWaitMs?: number;
  /**
   * Follow file-system events instead of re-statting every log per query:
   * for long-lived processes such as `dsh web`, where a query over 10,000
   * sessions stays in milliseconds. One-shot commands walk once anyway.
   */
  watch?: boolean;
}

export const TitleIndexConfig: z<TitleIndexConfig> = z.object({
  root: z.string().required().description('The JSONL session root dsh persists to.'),
  compression: z.union(['zstd', 'none']).default('zstd').description("How dsh stores the root's logs (its compression setting)."),
  indexFile: z.string().description('Where the index persists; defaults to sessref\'s per-root cache file.'),
  searchIndexFile: z.string().description('Where sessref\'s content index persists; defaults to sessref\'s per-root cache file.'),
  searchIndexWaitMs: z.number().description('How long the content index waits, once, for another process\'s lock on its file; defaults to 10 s.'),
  persist: z.boolean().default(true).description('Save the index between processes.'),
  watch: z.boolean().default(true).description('Follow file-system events (long-lived processes).'),
});

/**
 * A title index over a JSONL session root, registered as
 * `ctx.sessionReferenceCatalog` so discovery never re-reads unchanged logs.
 *
 * Every query first brings the log revisions up to date (a stat walk, or
 * only what file-system events named; no file is opened): a new session, a
 * deleted one, or a log appended to or rewritten by another process changes
 * its revision, and only those logs are read again, through
 * `ctx.sessionQuery`. Live sessions of this process answer from the store.
 * The index survives the process in a small JSON file, so a fresh process
 * reads only what changed since the last one.
 */
export class SessionTitleIndex extends Service implements SessionReferenceCatalog {
  static inject = ['sessions', 'sessionQuery'];
  static Config = TitleIndexConfig;

  private entries: Map<string, IndexEntry> | undefined;
  private readonly logs: LogFileTracker;
  private readonly indexFile: string | undefined;
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
    ctx: Context,
    private readonly config: TitleIndexConfig,
  ) {
    super(ctx, 'sessionReferenceCatalog');
    this.indexFile = config.persist === false ? undefined : (config.indexFile ?? defaultIndexFile(config.root));
    this.searchIndexFile = config.searchIndexFile ?? (config.persist === false ? undefined : defaultSearchIndexFile(config.root));
    this.searchIndexWaitMs = config.searchIndexWaitMs;
    this.logs = new LogFileTracker(config.root, config.compression ?? 'zstd', config.watch ?? true);
    ctx.effect(() => () => this.logs.close(), 'close the log watchers');
  }

  async listSessions(signal?: AbortSignal): Promise<SessionHeaderLike[]> {
    const entries = await this.refresh(signal);
    const live = this.ctx.sessions.list();
    if (live.length === 0 && this.settled?.headers !== undefined) return [...this.settled.headers];
    const byId = new Map<string, SessionHeaderLike>();
    for (const [id, entry] of entries) byId.set(id, entry.header);
    for (const session of live) byId.set(session.id, session.header);
    // The order of ctx.sessionQuery.listSessions(): newest first, then by id.
    const headers = [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (live.length === 0 && this.settled !== undefined) this.settled.headers = headers;
    return [...headers];
  }

  async readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    const entries = await this.currentEntries(sessionIds, signal);
    const live = new Set(this.ctx.sessions.list().map((session) => session.id as string));
    const unindexed = sessionIds.filter((id) => live.has(id) || !entries.has(id));
    const read = new Map((await this.readFromHost(unindexed, signal)).map((result) => [result.sessionId, result]));
    return sessionIds.map((sessionId) => read.get(sessionId) ?? indexedTitle(sessionId, entries.get(sessionId)));
  }

  /**
   * Each session's log revision, from the same walk (or file-system events)
   * as the listing, no log opened; a live session's surface is this
   * process's, ahead of its log, so its seq is part of its stamp.
   */
  async changeStamps(): Promise<Map<string, string>> {
    const revisions = await this.logs.revisions();
    if (this.logStamps?.revisions !== revisions) this.logStamps = { revisions, stamps: new Map([...revisions].map(([id, revision]) => [id, tokenOf(revision)])) };
    const stamps = new Map(this.logStamps.stamps);
    for (const session of this.ctx.sessions.list()) stamps.set(session.id, `${stamps.get(session.id) ?? 'unsaved'}@${session.seq}`);
    return stamps;
  }

  /**
   * The entries, with the titles of `sessionIds` as good as the revisions
   * they were read at: a log replaced since the last listing (another
   * session of the same id and creation time copied over it, say) is indexed
   * again first. Revisions come from file-system events when the index
   * follows them (no stat at all), else from a stat of those logs alone.
   */
  private async currentEntries(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<Map<string, IndexEntry>> {
    if (this.entries === undefined || this.logs.following) return this.refresh(signal);
    const entries = this.entries;
    const now = this.logs.restat(sessionIds.filter((id) => entries.has(id)));
    const replaced = [...now].some(([id, revision]) => revision === undefined || entries.get(id)?.revision !== tokenOf(revision));
    return replaced ? this.refresh(signal) : entries;
  }

  /** Bring the index up to date with the files under the root; read only changed logs. */
  private async refresh(signal: AbortSignal | undefined): Promise<Map<string, IndexEntry>> {
    const entries = (this.entries ??= this.indexFile === undefined ? new Map() : loadIndex(this.indexFile, this.config.root, this.notices));
    const files = await this.logs.revisions();
    // The very map the last settled refresh saw: no log moved since, every entry is current.
    if (this.settled?.revisions === files) return entries;
    let changed = false;
    for (const id of entries.keys()) {
      if (files.has(id)) continue;
      entries.delete(id);
      changed = true;
    }
    const stale = [...files].map(([id, revision]) => [id, tokenOf(revision)] as const).filter(([id, token]) => entries.get(id)?.revision !== token);
    // Settled only when nothing was left to read: a log whose read failed is tried again by the next refresh.
    this.settled = stale.length === 0 ? { revisions: files } : undefined;
    if (stale.length > 0) {
      await this.reindex(entries, new Map(stale), signal);
      changed = true;
    }
    if (changed && this.indexFile !== undefined && !saveIndex(this.indexFile, this.config.root, entries) && !this.unsaved) {
      this.unsaved = true;
      this.notices.push(`title index ${this.indexFile} could not be saved (something other than a file at its path, or a directory that is not this user's alone): the next process reads the logs again`);
    }
    return entries;
  }

  /** Re-read header and title of the logs whose revision changed. */
  private async reindex(entries: Map<string, IndexEntry>, stale: Map<string, string>, signal: AbortSignal | undefined): Promise<void> {
    const snapshots = await this.ctx.sessionQuery.readTitleSnapshots(
      [...stale.keys()].map((id) => SessionId(id)),
      signal,
    );
    const unreadable: string[] = [];
    for (const result of snapshots) {
      const revision = stale.get(result.sessionId)!;
      if (result.status === 'fulfilled') {
        const title = result.value.title?.title;
        entries.set(result.sessionId, { revision, header: result.value.session, ...(title === undefined ? {} : { title }) });
      } else if (!isNotFound(result.reason)) {
        unreadable.push(result.sessionId);
      }
      // Not found: gone between the walk and the read, and the next walk will not see it either.
    }
    if (unreadable.length === 0) return;
    // A log whose title cannot be read still lists, under the header the host lists it with.
    const listed = new Map((await this.ctx.sessionQuery.listSessions(signal)).map((record) => [record.header.id as string, record.header]));
    for (const id of unreadable) {
      const header = listed.get(id);
      if (header) entries.set(id, { revision: stale.get(id)!, header, unreadable: true });
    }
  }

  private async readFromHost(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<TitleReadResult[]> {
    if (sessionIds.length === 0) return [];
    const results = await this.ctx.sessionQuery.readTitleSnapshots(sessionIds.map(SessionId), signal);
    return results.map((result) =>
      result.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: result.value.title?.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
    );
  }
}

function indexedTitle(sessionId: string, entry: IndexEntry | undefined): TitleReadResult {
  if (entry?.unreadable) return { sessionId, status: 'rejected', reason: new Error(`the log of "${sessionId}" cannot be read`) };
  return { sessionId, status: 'fulfilled', title: entry?.title };
}

function isNotFound(reason: unknown): boolean {
  return reason instanceof SessionQueryError && reason.code === 'SESSION_QUERY_SESSION_NOT_FOUND';
}

/** Tokens of the revisions the log tracker hands out: it keeps one object per log while the log is unchanged, so each is spelled once. */
const tokens = new WeakMap<FileRevision, string>();

function tokenOf(revision: FileRevision): string {
  let token = tokens.get(revision);
  if (token === undefined) tokens.set(revision, (token = revisionToken(revision)));
  return token;
}
