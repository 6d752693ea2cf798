import { raceCancellation, throwIfCancelled } from './cancellation.js';
import { isPositiveSafeInteger } from './config.js';
import { SessionReferenceError, isSessionReferenceError } from './errors.js';
import { labelOf } from './label.js';
import type { ReferenceTarget, SessionHeaderLike, SessionReferenceCandidate, SessionReferenceStorage } from './types.js';
import { readFailed } from './reads.js';

/**
 * Which contract's candidate a host's clients expect: rc.8's `{ sessionId,
 * label, cwd?, createdAt }`, or 0.1.7 / 0.2's `{ sessionId, label,
 * displayTitle, cwd?, sameWorkspace, createdAt }`, whose Web client drops a
 * whole answer that lacks `sameWorkspace`.
 */
export type CandidateShape = 'rc.8' | 'workspace';

export interface CandidateQuery {
  target: ReferenceTarget;
  query: string;
  limit: number;
  signal?: AbortSignal;
  /** Default `'rc.8'`. */
  shape?: CandidateShape;
}

/** The titles discovery read for one session. */
export interface CandidateTitles {
  title?: string;
  displayTitle?: string;
}

/** Validate a caller-supplied candidate limit. */
export function checkCandidateLimit(limit: unknown): number {
  if (!isPositiveSafeInteger(limit)) {
    throw new SessionReferenceError(`candidate limit must be a positive safe integer, got ${String(limit)}`, 'SESSION_REFERENCE_INVALID_REFERENCE');
  }
  return limit;
}

/**
 * The directory a session is in now: where it moved to when its log records
 * a change (dsh 0.2.1+), else the one it started in. Candidates rank, compare
 * and show this one; a log with no change answers exactly as before.
 */
function effectiveCwd(session: { readonly cwd?: string; readonly workingDirectory?: string }): string | undefined {
  return session.workingDirectory ?? session.cwd;
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
    const selected = rankByCwd(headers, effectiveCwd(target)).slice(0, limit);
    const titles = await readTitles(storage, selected, signal);
    return selected.map((header) => toCandidate(header, titles.get(header.id), target, request.shape));
  }
  const titles = await readTitles(storage, headers, signal);
  const needle = query.toLocaleLowerCase();
  const matching = headers.filter((header) => matches(header, titles.get(header.id), needle));
  return rankByCwd(matching, effectiveCwd(target))
    .slice(0, limit)
    .map((header) => toCandidate(header, titles.get(header.id), target, request.shape));
}

/** Stable three-group ranking by working-directory affinity, each session by the directory it is in now. */
export function rankByCwd<T extends { readonly cwd?: string; readonly workingDirectory?: string }>(sessions: readonly T[], cwd: string | undefined): T[] {
  const same: T[] = [];
  const none: T[] = [];
  const other: T[] = [];
  for (const session of sessions) {
    const current = effectiveCwd(session);
    if (current === undefined) none.push(session);
    else if (current === cwd) same.push(session);
    else other.push(session);
  }
  return [...same, ...none, ...other];
}

/**
 * Case-insensitive substring match in the host's locale (`toLocaleLowerCase`,
 * like the official resolver), so a Turkish host folds `I` the Turkish way.
 */
function matches(header: SessionHeaderLike, titles: CandidateTitles | undefined, needle: string): boolean {
  return [header.id, header.cwd, header.workingDirectory, titles?.title, titles?.displayTitle].some((field) => field?.toLocaleLowerCase().includes(needle) ?? false);
}

/**
 * One candidate, keys in the order of the contract's own plugin (hosts log
 * and send these as JSON): rc.8 `sessionId`, `label`, `cwd?`, `createdAt`;
 * workspace `sessionId`, `label`, `displayTitle`, `cwd?`, `sameWorkspace`,
 * `createdAt`. Labels fall back to the id, display titles to the label. The
 * `cwd` shown and compared is the one the session is in now ({@link effectiveCwd}).
 */
export function toCandidate(
  header: SessionHeaderLike,
  titles: CandidateTitles | undefined,
  target: ReferenceTarget,
  shape: CandidateShape = 'rc.8',
): SessionReferenceCandidate {
  const { id: sessionId, createdAt } = header;
  const cwd = effectiveCwd(header);
  const label = labelOf(sessionId, titles?.title);
  const located = cwd === undefined ? {} : { cwd };
  if (shape === 'rc.8') return { sessionId, label, ...located, createdAt };
  const displayTitle = titles?.displayTitle ?? label;
  return { sessionId, label, displayTitle, ...located, sameWorkspace: cwd !== undefined && cwd === effectiveCwd(target), createdAt };
}

/** Titles by id; an id whose read failed is simply absent, so its label falls back to the id. */
async function readTitles(
  storage: SessionReferenceStorage,
  headers: readonly SessionHeaderLike[],
  signal: AbortSignal | undefined,
): Promise<Map<string, CandidateTitles>> {
  const titles = new Map<string, CandidateTitles>();
  if (headers.length === 0) return titles;
  const ids = headers.map((header) => header.id);
  const results = await guardedRead(storage.readTitles(ids, signal), signal, 'read session titles');
  for (const result of results) {
    if (result.status !== 'fulfilled') continue;
    const title = nonEmpty(result.title);
    const displayTitle = nonEmpty(result.displayTitle);
    if (title !== undefined || displayTitle !== undefined) titles.set(result.sessionId, { ...(title && { title }), ...(displayTitle && { displayTitle }) });
  }
  return titles;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

async function guardedRead<T>(work: Promise<T>, signal: AbortSignal | undefined, what: string): Promise<T> {
  try {
    return await raceCancellation(work, signal);
  } catch (error) {
    throw isSessionReferenceError(error) ? error : readFailed(`could not ${what}`, error);
  }
}
