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
}
