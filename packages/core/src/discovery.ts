import { raceCancellation, throwIfCancelled } from './cancellation.js';
import { isPositiveSafeInteger } from './config.js';
import { SessionReferenceError, isSessionReferenceError } from './errors.js';
import type { ReferenceTarget, SessionHeaderLike, SessionReferenceCandidate, SessionReferenceStorage } from './types.js';
import { readFailed } from './reads.js';

export interface CandidateQuery {
  target: ReferenceTarget;
  query: string;
  limit: number;
  signal?: AbortSignal;
}

/** Validate a caller-supplied candidate limit. */
export function checkCandidateLimit(limit: unknown): number {
  if (!isPositiveSafeInteger(limit)) {
    throw new SessionReferenceError(`candidate limit must be a positive safe integer, got ${String(limit)}`, 'SESSION_REFERENCE_INVALID_REFERENCE');
  }
  return limit;
}

/**
 * Sessions other than the target, ranked same cwd, no cwd, other cwd (storage
 * order inside a group). An empty query cuts before reading any title; a
 * non-empty one reads every title, filters on id, cwd or title
 * (case-insensitive substring, see {@link matches}), then ranks and cuts.
 */
export async function listCandidates(storage: SessionReferenceStorage, request: CandidateQuery): Promise<SessionReferenceCandidate[]> {
  const { target, query, limit, signal } = request;
  throwIfCancelled(signal);
  const headers = (await guardedRead(storage.listSessions(signal), signal, 'list sessions')).filter((header) => header.id !== target.id);
  if (query.length === 0) {
    const selected = rankByCwd(headers, target.cwd).slice(0, limit);
    const titles = await readTitles(storage, selected, signal);
    return selected.map((header) => toCandidate(header, titles.get(header.id)));
  }
  const titles = await readTitles(storage, headers, signal);
  const needle = query.toLocaleLowerCase();
  const matching = headers.filter((header) => matches(header, titles.get(header.id), needle));
  return rankByCwd(matching, target.cwd)
    .slice(0, limit)
    .map((header) => toCandidate(header, titles.get(header.id)));
}

/** Stable three-group ranking by working-directory affinity. */
export function rankByCwd<T extends { readonly cwd?: string }>(sessions: readonly T[], cwd: string | undefined): T[] {
  const same: T[] = [];
  const none: T[] = [];
  const other: T[] = [];
  for (const session of sessions) {
    if (session.cwd === undefined) none.push(session);
    else if (session.cwd === cwd) same.push(session);
    else other.push(session);
  }
  return [...same, ...none, ...other];
}

/**
 * Case-insensitive substring match in the host's locale (`toLocaleLowerCase`,
 * like the official resolver), so a Turkish host folds `I` the Turkish way.
 */
function matches(header: SessionHeaderLike, title: string | undefined, needle: string): boolean {
  return (
    header.id.toLocaleLowerCase().includes(needle) ||
    (header.cwd?.toLocaleLowerCase().includes(needle) ?? false) ||
    (title?.toLocaleLowerCase().includes(needle) ?? false)
  );
}

/** Keys in the official plugin's order (`sessionId`, `label`, `cwd`, `createdAt`): hosts log and send these as JSON. */
function toCandidate(header: SessionHeaderLike, title: string | undefined): SessionReferenceCandidate {
  const label = title ?? header.id;
  return header.cwd === undefined
    ? { sessionId: header.id, label, createdAt: header.createdAt }
    : { sessionId: header.id, label, cwd: header.cwd, createdAt: header.createdAt };
}

/** Titles by id; an id whose read failed is simply absent, so its label falls back to the id. */
async function readTitles(
  storage: SessionReferenceStorage,
  headers: readonly SessionHeaderLike[],
  signal: AbortSignal | undefined,
): Promise<Map<string, string>> {
  const titles = new Map<string, string>();
  if (headers.length === 0) return titles;
  const ids = headers.map((header) => header.id);
  const results = await guardedRead(storage.readTitles(ids, signal), signal, 'read session titles');
  for (const result of results) {
    if (result.status === 'fulfilled' && typeof result.title === 'string' && result.title.length > 0) {
      titles.set(result.sessionId, result.title);
    }
  }
  return titles;
}

async function guardedRead<T>(work: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  try {
    return await raceCancellation(work, signal);
  } catch (error) {
    throw isSessionReferenceError(error) ? error : readFailed(`could not ${what}`, error);
  }
}
