/**
 * A dsh root as a source of sessions read through sessref's own reads alone
 * (the strict log reader, then dsh's own title and surface folds): no dsh
 * host, so it reads a root no host owns, a mirror of another machine's
 * (`mirroredDshRoots`). Never written.
 */
import type { SessionHeaderLike } from '@sessref/core';
import { SourceReadError, sessionLabel, type SourceProblem, type SourceReadCode, type TranscriptSource } from '@sessref/sources';
import type { ListedLog } from './log-reads.js';
import type { RootLogs } from './root-logs.js';
import type { SessionLogError } from './session-log-error.js';

/**
 * The sessions of one dsh root, ids `<name>:<id>`, labels `<name> · <title>`,
 * read only through sessref's own reads of its logs. A log its listing leaves
 * out as damaged is one of the source's problems, named by its session.
 */
export function rootSource(logs: RootLogs, name: string): TranscriptSource {
  const prefix = `${name}:`;
  const native = (sessionId: string): string => sessionId.slice(prefix.length);
  let damaged: SourceProblem[] = [];
  const stored = async (sessionId: string, signal?: AbortSignal) => {
    const log = await logs.load(native(sessionId), signal);
    if (log === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no dsh session has the id "${native(sessionId)}"`);
    return log;
  };
  const listedHeader = ({ header }: ListedLog): SessionHeaderLike => {
    const id = prefix + header.id;
    return header.cwd === undefined ? { id, createdAt: header.createdAt } : { id, createdAt: header.createdAt, cwd: header.cwd };
  };
  return {
    name,
    owns: (sessionId) => sessionId.startsWith(prefix),
    listSessions: async (signal) => {
      const listed = await logs.list(signal);
      const refused = await logs.damagedLogs(new Set(listed.map(({ header }) => header.id)));
      damaged = refused.map((error) => ({ sessionId: prefix + error.sessionId, file: `${error.sessionId}/`, error: asSourceError(error) }));
      return listed.map(listedHeader);
    },
    readTitles: async (sessionIds, signal) =>
      Promise.all(
        sessionIds.map(async (sessionId) => {
          try {
            const { titleOfStored } = await import('./own-surface.js');
            const title = titleOfStored(native(sessionId), await stored(sessionId, signal))?.title;
            return { sessionId, status: 'fulfilled' as const, title: sessionLabel(name, title, native(sessionId)) };
          } catch (reason) {
            return { sessionId, status: 'rejected' as const, reason };
          }
        }),
      ),
    readSurface: async (sessionId, signal) => {
      const { surfaceOfStored } = await import('./own-surface.js');
      const surface = surfaceOfStored(native(sessionId), await stored(sessionId, signal));
      if (surface === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `dsh session "${native(sessionId)}" of a mirror is in a shape only dsh itself reads`);
      return { ...surface, session: { ...surface.session, id: sessionId } };
    },
    changeStamps: async (signal) => new Map((await logs.list(signal)).map((listed) => [prefix + listed.header.id, listed.revision])),
    problems: () => damaged,
    close: () => undefined,
  };
}

/**
 * A refused log of a mirrored root as another machine's session is refused:
 * the source's code for that kind of refusal, and the log's words without
 * the session they begin with, so whoever reports it names the session by
 * its host's id (a hint to move a log out of "the root" would speak of this
 * machine's root).
 */
function asSourceError(error: SessionLogError): SourceReadError {
  const code: SourceReadCode =
    error.code === 'SESSION_LOG_TOO_LARGE' || error.code === 'SESSION_LOG_HEADER_TOO_LARGE'
      ? 'SOURCE_SESSION_TOO_LARGE'
      : error.code === 'SESSION_LOG_UNREADABLE' || error.code === 'SESSION_LOG_NOT_A_FILE'
        ? 'SOURCE_SESSION_UNREADABLE'
        : error.code === 'SESSION_LOG_UNSUPPORTED'
          ? 'SOURCE_SESSION_UNSUPPORTED'
          : 'SOURCE_SESSION_CORRUPT';
  return new SourceReadError(code, error.message.replace(/^session "[^"]*": /, ''));
}
