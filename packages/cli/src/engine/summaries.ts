/**
 * The listing as every face shows it: each session with its source, its
 * latest title and where it is now, the root's own first, then the other
 * agents'.
 */
import { OWN_SOURCE } from '@sessref/dsh/service';
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import type { EngineParts } from './parts.js';

/** A session as listings show it. */
export interface SessionSummary {
  sessionId: string;
  /** Where it is read from: `dsh` for the root's own sessions, else the agent's name (`claude-code`, …), `<host>/<agent>` for another machine's. */
  source: string;
  /** The remote the session was mirrored from (`sessref remote`); absent for this machine's sessions. */
  host?: string;
  title?: string;
  /** The directory the session is in now: where it moved to, when its log records a move (dsh 0.2.1+), else the one it started in. */
  cwd?: string;
  createdAt: number;
  /**
   * When the user last sent a message in it, for a session whose log is v4
   * (dsh 0.1.7 and 0.2): dsh 0.2 dates a session by that moment, and so do
   * sessref's listings; absent for older logs, dated by `createdAt`.
   */
  lastSentAt?: number;
  live: boolean;
  persisted: boolean;
  /** Why the session's log could not be read, when it could not (listing reads only headers). */
  readError?: unknown;
}

/** A listed session's `cwd`, the directory it is in now: the one it moved to (dsh 0.2.1+), else the one it started in; none without either. */
function currentDirectory(header: SessionHeaderLike): { cwd?: string } {
  const cwd = header.workingDirectory ?? header.cwd;
  return cwd === undefined ? {} : { cwd };
}

/**
 * Every session with its latest title, newest first; a failed title read
 * leaves the title out and records why. The root's sessions come from the
 * listing (kept headers and a stat walk, reading no unchanged log), then
 * each other agent's (`hostOf` names the remote one was mirrored from); the
 * title index names them.
 */
export async function sessionSummaries(parts: EngineParts, hostOf: (sessionId: string) => string | undefined, signal?: AbortSignal): Promise<SessionSummary[]> {
  const service = parts.service;
  const records = await parts.sessions(signal);
  // The root's sessions first, then each other agent's (read in place, never live here).
  const foreign = (await service.listSessions(signal)).filter((header) => service.sourceOf(header.id) !== OWN_SOURCE);
  const entries: (Pick<SessionSummary, 'source' | 'lastSentAt' | 'live' | 'persisted'> & { header: SessionHeaderLike })[] = [
    ...records.map((record) => ({ ...record, source: OWN_SOURCE })),
    ...foreign.map((header) => ({ header, source: service.sourceOf(header.id), live: false, persisted: true })),
  ];
  const titles = await latestTitles(
    parts,
    entries.map((entry) => entry.header.id),
    signal,
  );
  return entries.map(({ header, source, lastSentAt, live, persisted }, index) => {
    const result = titles[index];
    const title = result?.status === 'fulfilled' ? result.title : undefined;
    const host = hostOf(header.id);
    return {
      sessionId: header.id,
      source,
      ...(host === undefined ? {} : { host }),
      ...(title === undefined ? {} : { title }),
      ...currentDirectory(header),
      createdAt: header.createdAt,
      ...(lastSentAt === undefined ? {} : { lastSentAt }),
      live,
      persisted,
      ...(result?.status === 'rejected' ? { readError: result.reason } : {}),
    };
  });
}


/**
 * Latest titles of `sessionIds` through the title index, which first catches
 * up with the root (its listing: a stat walk, or only what file events
 * named). The index keeps only that a log is unreadable, so those few are
 * explained again: sessref's own refusal of the log when it has one, else
 * the host's.
 */
export async function latestTitles(parts: EngineParts, sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
  const indexed = await parts.service.titlesOf(sessionIds, signal);
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
