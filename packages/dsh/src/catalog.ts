import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';

/**
 * An optional host service that answers discovery (the session listing and
 * latest titles) from an index instead of a full corpus read. When a host
 * registers one as `ctx.sessionReferenceCatalog`, the resolver lists and
 * labels candidates through it; snapshots are always read from
 * `ctx.sessionQuery`. A catalog must answer exactly as `ctx.sessionQuery`
 * would: same sessions, same order, same latest titles.
 */
export interface SessionReferenceCatalog {
  /** Every session header, in `ctx.sessionQuery.listSessions()` order. */
  listSessions(signal?: AbortSignal): Promise<readonly SessionHeaderLike[]>;
  /** Latest titles of unique ids in input order, failures isolated per id. */
  readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleReadResult[]>;
  /**
   * Optional: a cheap stamp per listed session that changes whenever its
   * surface may have (its log's revision; a live session's seq), read
   * without opening a log. sessref's content index re-reads only the
   * sessions whose stamp changed; without it, every search reads them all.
   */
  changeStamps?(signal?: AbortSignal): Promise<ReadonlyMap<string, string>>;
  /** Optional: why the catalog's own saved file was not used as found, or not saved, naming it (never a failure). */
  readonly notices?: readonly string[];
  /** Optional: how long sessref's content index waits, once, for another process's lock on its file (default 10 s). */
  readonly searchIndexWaitMs?: number | undefined;
  /** Optional: where sessref's content index over the same sessions persists (in sessref's cache directory); unset keeps it in memory. */
  readonly searchIndexFile?: string | undefined;
}
