import { SessionId } from '@deepseek-ai/dsh-session';
import type { SessionQueryEngine } from '@deepseek-ai/dsh-session-query';
import type { CandidateTitles, SessionHeaderLike, SessionReferenceStorage, SurfaceSnapshot, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from './catalog.js';
import { toSurfaceMessage } from './surface-message.js';

/** Titles a host answers without reading a log, `undefined` when it has none for that session (see `projectedTitles`). */
export type ProjectedTitles = (header: SessionHeaderLike) => CandidateTitles | undefined;

/**
 * The core's read-only storage port over `ctx.sessionQuery`: the host owns the
 * log format, folding and corpus observation; this only renames fields.
 * Discovery goes through the host's catalog when it registered one, and takes
 * titles from `projected` first where that answers (0.1.7 hosts).
 */
export function sessionQueryStorage(
  query: () => SessionQueryEngine,
  catalog: () => SessionReferenceCatalog | undefined = () => undefined,
  projected?: ProjectedTitles,
): SessionReferenceStorage {
  // The headers of the last listing: discovery reads titles of listed sessions, and a cold projection needs the header.
  let listed = new Map<string, SessionHeaderLike>();
  const storage: SessionReferenceStorage = {
    async listSessions(signal) {
      const headers = await listHeaders(query, catalog, signal);
      if (projected) listed = new Map(headers.map((header) => [header.id, header]));
      return headers;
    },
    readTitles: (sessionIds, signal) => readTitles(query, catalog, sessionIds, signal),
    readSurface: (sessionId) => surfaceThrough(query(), sessionId),
  };
  if (projected) storage.readTitles = (sessionIds, signal) => readProjectedTitles(projected, listed, sessionIds, (rest) => readTitles(query, catalog, rest, signal));
  return storage;
}

/** A session's current surface as the core reads it, through the host's exact read (`ctx.sessionQuery.readSurface`). */
export async function surfaceThrough(query: SessionQueryEngine, sessionId: string): Promise<SurfaceSnapshot> {
  const snapshot = await query.readSurface(SessionId(sessionId));
  return { session: snapshot.session, capturedThroughSeq: snapshot.capturedThroughSeq, messages: snapshot.events.map(toSurfaceMessage) };
}

async function listHeaders(
  query: () => SessionQueryEngine,
  catalog: () => SessionReferenceCatalog | undefined,
  signal: AbortSignal | undefined,
): Promise<readonly SessionHeaderLike[]> {
  const indexed = catalog();
  if (indexed) return indexed.listSessions(signal);
  const records = await query().listSessions(signal);
  return records.map((record) => record.header);
}

/**
 * Titles from the projections for the sessions they answer for, the rest
 * read as rc.8 reads them, all in input order. A projection that throws
 * counts as no answer.
 */
async function readProjectedTitles(
  projected: ProjectedTitles,
  listed: ReadonlyMap<string, SessionHeaderLike>,
  sessionIds: readonly string[],
  readRest: (sessionIds: readonly string[]) => Promise<readonly TitleReadResult[]>,
): Promise<readonly TitleReadResult[]> {
  const answers = new Map<string, TitleReadResult>();
  for (const sessionId of sessionIds) {
    const titles = projectedOf(projected, listed.get(sessionId) ?? { id: sessionId, createdAt: 0 });
    if (titles) answers.set(sessionId, { sessionId, status: 'fulfilled', title: titles.title, ...(titles.displayTitle !== undefined && { displayTitle: titles.displayTitle }) });
  }
  const rest = sessionIds.filter((sessionId) => !answers.has(sessionId));
  for (const result of rest.length === 0 ? [] : await readRest(rest)) answers.set(result.sessionId, result);
  return sessionIds.flatMap((sessionId) => answers.get(sessionId) ?? []);
}

function projectedOf(projected: ProjectedTitles, header: SessionHeaderLike): CandidateTitles | undefined {
  try {
    return projected(header);
  } catch {
    return undefined;
  }
}

async function readTitles(
  query: () => SessionQueryEngine,
  catalog: () => SessionReferenceCatalog | undefined,
  sessionIds: readonly string[],
  signal: AbortSignal | undefined,
): Promise<readonly TitleReadResult[]> {
  const indexed = catalog();
  if (indexed) return indexed.readTitles(sessionIds, signal);
  const results = await query().readTitleSnapshots(sessionIds.map(SessionId), signal);
  return results.map(
    (result): TitleReadResult =>
      result.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: result.value.title?.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
  );
}
