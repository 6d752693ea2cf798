import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type { Engine, SessionSummary } from './engine.js';
import { OWN_SOURCE } from '@sessref/dsh';
import { assertSupportedRoot } from '@sessref/host';

/** A listed session; one whose log header cannot be read has only its id (from its directory) and why. */
export type ListedSession = Omit<SessionSummary, 'createdAt'> & { createdAt?: number };

/**
 * Every session in the root for `list` and the inspector: the readable ones
 * newest first (a failed title read marks one with `readError`), then one
 * entry per log whose header cannot be read, named by its directory and
 * carrying the reason. A damaged log never hides the healthy ones.
 */
export async function listSessions(engine: Engine, signal?: AbortSignal): Promise<ListedSession[]> {
  // Listings may come from kept headers; the root's shape is checked on every listing all the same.
  assertSupportedRoot(engine.root);
  const sessions: ListedSession[] = await engine.sessions(signal);
  const damaged = await engine.damagedLogs(new Set(sessions.map((session) => session.sessionId)));
  damaged.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  const foreign = engine.foreignProblems().map((problem) => ({ sessionId: problem.sessionId, source: problem.source, live: false, persisted: true, readError: problem.error }));
  return [...sessions, ...damaged.map((error) => ({ sessionId: error.sessionId, source: OWN_SOURCE, live: false, persisted: true, readError: error })), ...foreign];
}

/**
 * A session whose log header cannot be read is left out of every listing, so
 * the host answers a read of it with "not found". When its log is there, the
 * answer is that log's damage instead: `error` otherwise.
 */
export async function explainMissing(engine: Engine, error: unknown): Promise<unknown> {
  const sessionId = missingSessionId(error);
  if (sessionId === undefined) return error;
  return (await engine.damageOf(sessionId)) ?? error;
}

/** The id in a host "session not found", as thrown or as the cause of a failed reference read. */
function missingSessionId(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (current instanceof SessionQueryError && current.code === 'SESSION_QUERY_SESSION_NOT_FOUND') {
      return /^session "(.*)" not found$/s.exec(current.message)?.[1];
    }
  }
  return undefined;
}
