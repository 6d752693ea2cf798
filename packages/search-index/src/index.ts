/**
 * sessref's own search index: one derived SQLite FTS5 database over every
 * session of every source, built from the core's projection (only text a
 * snapshot carries is ever indexed), refreshed by the sources' change
 * stamps, disposable (anything wrong with the file means a rebuild, never
 * a failure). See the package README, "Search index".
 */
import type { SessionSource } from '@sessref/core';
import { refreshIndex, type RefreshProgress, type RefreshReport } from './refresh.js';
import { searchIndex, type SearchRequest, type SearchResult } from './search.js';
import { bypassed, databaseClass, describe, identityOf, isBusy, isDamage, isWriteFailure, openIndexDatabase, type IndexLocation, type OpenedDatabase } from './sqlite.js';
import { IndexTables } from './tables.js';

export type { IndexLocation } from './sqlite.js';
export type { MatchKind } from './query.js';
export type { Snippet } from './documents.js';
export type { RefreshProgress, RefreshReport, SkippedSession } from './refresh.js';
export type { SearchHit, SearchRequest, SearchResult } from './search.js';

export interface SearchIndexOptions {
  /**
   * `{ file }`: the index persists there, in a directory of the caller's
   * that only this user can write (sessref's cache directory; never a
   * session store); `{ memory: true }`: this process only.
   */
  location: IndexLocation;
  /** Every source whose sessions are searched; their names must differ. */
  sources: readonly SessionSource[];
  /**
   * The one deadline for another process's lock on the file; default 10 s.
   * Opening the file, or a refresh's write, waits at most this long for it;
   * past it, the file is left to its holder and this process indexes in
   * memory, which never waits, for as long as it runs: a process waits on
   * the file once at most. The notice says so, with this wait.
   */
  busyTimeoutMs?: number;
}

export interface SearchIndex {
  /**
   * Bring the index up to date: what the sources no longer list is dropped,
   * what is new or whose stamp changed is read and indexed, each session
   * alone. A caller joins a refresh that is running (its signal and
   * progress callback are the first caller's).
   * @throws SESSION_REFERENCE_CANCELLED when `signal` aborts.
   */
  refresh(signal?: AbortSignal, onProgress?: (progress: RefreshProgress) => void): Promise<RefreshReport>;
  /** Sessions whose carried text contains the query, from the index alone (see {@link SearchResult}). */
  search(request: SearchRequest): Promise<SearchResult>;
  /** Sessions held and the UTF-8 bytes of carried text they index. */
  stats(): Promise<{ sessions: number; carriedBytes: number }>;
  /** Why the index file was not used as found (rebuilt, or kept in memory), oldest first. */
  readonly notices: readonly string[];
  close(): void;
}

const DEFAULT_BUSY_TIMEOUT_MS = 10_000;

/**
 * Open (or create) the search index at `options.location`. Never fails on
 * the file: see {@link openIndexDatabase}.
 * @throws SESSION_REFERENCE_SEARCH_DISABLED when this Node has no `node:sqlite`.
 */
export async function openSearchIndex(options: SearchIndexOptions): Promise<SearchIndex> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const notices: string[] = [];
  let opened!: OpenedDatabase;
  let tables!: IndexTables;
  let closed = false;
  let refreshing: Promise<RefreshReport> | undefined;

  const adopt = (next: OpenedDatabase): void => {
    // Statements first: a file whose statements cannot be prepared is not taken.
    const nextTables = new IndexTables(next.db);
    if (next.notice !== undefined) notices.push(next.notice);
    opened = next;
    tables = nextTables;
  };

  /**
   * Open the index at the location and prepare its statements. A file whose
   * statements cannot be prepared (a view planted in a table's place) is
   * damage: it is rebuilt, and if even the new file fails, the index is
   * kept in memory.
   */
  const openTables = async (damaged?: string): Promise<void> => {
    const next = await openIndexDatabase(options.location, busyTimeoutMs, damaged);
    try {
      adopt(next);
    } catch (error) {
      next.db.close();
      // In memory, or not SQLite's refusal: nothing on disk to blame.
      if (next.identity === undefined || !('file' in options.location) || !isWriteFailure(error)) throw error;
      if (damaged === undefined) return openTables(`damaged: ${describe(error)}`);
      adopt(bypassed(await databaseClass(), options.location.file, error, busyTimeoutMs));
    }
  };
  await openTables();

  /** The tables of the file now at the location: another process may have replaced a damaged one since. */
  const current = async (): Promise<IndexTables> => {
    if (closed) throw new Error('the search index is closed');
    // An index kept in memory instead of the file (identity undefined) stays there for this process.
    if ('file' in options.location && opened.identity !== undefined && identityOf(options.location.file) !== opened.identity) {
      opened.db.close();
      await openTables();
    }
    return tables;
  };

  /**
   * Run `work`; a damaged file is replaced by an empty index, a file another
   * process holds past the busy timeout is left to it for an index in memory,
   * and `work` runs once more on that. For `work` that writes, any failure
   * of SQLite's but a lock counts as damage (a trigger or view planted in the
   * file, a full disk): the file is rebuilt, and if `work` fails on the new
   * file too, the index is kept in memory for this process.
   */
  const guarded = async <T>(work: (tables: IndexTables) => T | Promise<T>, writes = false): Promise<T> => {
    let attempt = await current();
    for (let rebuilt = false; ; ) {
      try {
        return await work(attempt);
      } catch (error) {
        const busy = isBusy(error);
        const damaged = !busy && (isDamage(error) || (writes && isWriteFailure(error)));
        // Nothing left to try: not the file's fault, or the index is in memory already.
        if ((!damaged && !busy) || !('file' in options.location) || opened.identity === undefined) throw error;
        opened.db.close();
        if (busy || rebuilt) adopt(bypassed(await databaseClass(), options.location.file, error, busyTimeoutMs));
        else await openTables(`damaged: ${describe(error)}`);
        rebuilt = true;
        attempt = tables;
      }
    }
  };

  return {
    notices,
    refresh(signal, onProgress) {
      refreshing ??= guarded((live) => refreshIndex(live, options.sources, signal, onProgress), true).finally(() => {
        refreshing = undefined;
      });
      return refreshing;
    },
    search: (request) => guarded((live) => searchIndex(live, request)),
    stats: () => guarded((live) => live.totals()),
    close() {
      if (closed) return;
      closed = true;
      opened.db.close();
    },
  };
}
