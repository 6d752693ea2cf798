/**
 * The listing as every face shows it: each session with its source, its
 * latest title and where it is now, the root's own first, then the other
 * agents'.
 */
import { OWN_SOURCE } from '@sessref/dsh/service';
import type { TitleReadResult } from '@sessref/core';
import type { Listing, SessionSummary } from './listed.js';
import type { EngineParts, SessionRecord } from './parts.js';


/**
 * Every session with its latest title, newest first; a failed title read
 * leaves the title out and records why. The root's sessions come first
 * ({@link ownListing}), then each other agent's (`hostOf` names the remote
 * one was mirrored from), listed and titled by their sources alone.
 */
export async function sessionSummaries(parts: EngineParts, hostOf: (sessionId: string) => string | undefined, signal?: AbortSignal): Promise<SessionSummary[]> {
  return (await listingSummaries(parts, hostOf, signal)).sessions;
}

/** The sessions of {@link sessionSummaries}, and the logs of the root whose header cannot be read (see `RootLogs.damagedLogs`). */
export async function listingSummaries(parts: EngineParts, hostOf: (sessionId: string) => string | undefined, signal?: AbortSignal): Promise<Listing> {
  const own = await ownListing(parts, signal);
  const service = parts.service;
  const foreign = await service.foreignSessions(new Set(own.sessions.map((session) => session.sessionId)), signal);
  const others = foreign.map(({ header, title }) => summaryOf({ header, live: false, persisted: true }, service.sourceOf(header.id), hostOf(header.id), title));
  return { sessions: [...own.sessions, ...others], damaged: own.damaged };
}

/**
 * The root's own sessions and damaged logs: from the listing kept between
 * processes while the root is as it was kept (see listing-memo.ts), else
 * from the listing (kept headers and a stat walk, reading no unchanged log),
 * titled by the title index, and the damage check of the logs it left out.
 */
function ownListing(parts: EngineParts, signal?: AbortSignal): Promise<Listing> {
  const list = async (): Promise<Listing> => {
    const records = await parts.sessions(signal);
    const ids = records.map((record) => record.header.id);
    const titles = await latestTitles(parts, ids, signal);
    const sessions = records.map((record, index) => summaryOf(record, OWN_SOURCE, undefined, titles[index]));
    return { sessions, damaged: (await parts.logs?.damagedLogs(new Set(ids))) ?? [] };
  };
  const memo = parts.listingMemo();
  return memo === undefined ? list() : memo.listing(list);
}

/** A listed session as every face shows it, from its record, its source and remote, and its title read. */
function summaryOf(record: SessionRecord, source: string, host: string | undefined, title: TitleReadResult | undefined): SessionSummary {
  const { header, lastSentAt, live, persisted } = record;
  const latest = title?.status === 'fulfilled' ? title.title : undefined;
  // Where the session is now: the directory it moved to (dsh 0.2.1+), else the one it started in.
  const cwd = header.workingDirectory ?? header.cwd;
  // Written key by key in the order every face shows them (`--json` keeps it), not spread: a listing makes one per session, cold.
  const summary: Partial<SessionSummary> = { sessionId: header.id, source };
  if (host !== undefined) summary.host = host;
  if (latest !== undefined) summary.title = latest;
  if (cwd !== undefined) summary.cwd = cwd;
  summary.createdAt = header.createdAt;
  if (lastSentAt !== undefined) summary.lastSentAt = lastSentAt;
  summary.live = live;
  summary.persisted = persisted;
  if (title?.status === 'rejected') summary.readError = title.reason;
  return summary as SessionSummary;
}

/**
 * Latest titles of `sessionIds` through the title index, which first catches
 * up with the root (its listing: a stat walk, or only what file events
 * named). The index keeps only that a log is unreadable, so those few are
 * explained again: sessref's own refusal of the log when it has one, else
 * the host's.
 */
async function latestTitles(parts: EngineParts, sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
  return explainedTitles(parts, await parts.service.titlesOf(sessionIds, signal), signal);
}

/** Titles read through the title index, each refusal of the root's explained as {@link latestTitles} explains them. */
export async function explainedTitles(parts: EngineParts, indexed: readonly TitleReadResult[], signal?: AbortSignal): Promise<TitleReadResult[]> {
  const failed = indexed.filter((result) => result.status === 'rejected').map((result) => result.sessionId);
  if (failed.length === 0) return [...indexed];
  const explained = new Map<string, TitleReadResult>();
  for (const sessionId of failed) {
    const damage = await parts.logs?.damageOf(sessionId);
    if (damage !== undefined) explained.set(sessionId, { sessionId, status: 'rejected', reason: damage });
  }
  const unexplained = failed.filter((sessionId) => !explained.has(sessionId));
  if (unexplained.length > 0) for (const result of await (await parts.host()).titles(unexplained, signal)) explained.set(result.sessionId, result);
  return indexed.map((result) => explained.get(result.sessionId) ?? result);
}
