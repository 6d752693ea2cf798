/**
 * dsh's sessions of other machines, read from the mirrors `sessref remote
 * sync` keeps: each mirror's dsh root read as this machine's is read without
 * a host (sessref's own strict log reader, then dsh's own title and surface
 * folds), and named by its host like the agents' mirrored sessions
 * (`devbox/dsh:<id>`, `devbox · dsh · <title>`). Never written: a remote
 * session is no target.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionHeaderLike } from '@sessref/core';
import { OWN_SOURCE, type ForeignSource } from '@sessref/dsh/service';
import { RootLogs, assertSupportedRoot, type ListedLog, type SessionLogError } from '@sessref/host/reading';
import { SourceReadError, hostedSource, mirrors, sessionLabel, type SourceEnvironment, type SourceProblem, type SourceReadCode, type TranscriptSource } from '@sessref/sources';

/** Where dsh keeps its sessions on a machine by default (`~/.dsh/sessions`, `$DSH_HOME` unset), relative to its home: what a mirror pulls of dsh. */
export const DSH_MIRRORED = '.dsh/sessions/';

/** A mirrored root's sessions are dsh's, named as this machine's are: `devbox/dsh`, which `--sources dsh` reads too. */
const NAME = OWN_SOURCE;
const PREFIX = `${NAME}:`;

/** A source per mirror that holds a dsh root, by remote name. */
export function mirroredDshRoots(environment: SourceEnvironment): ForeignSource[] {
  return mirrors(environment).flatMap(({ host, home }) => {
    const root = join(home, DSH_MIRRORED);
    if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
    try {
      assertSupportedRoot(root);
    } catch {
      // A root in a shape sessref does not read (flat, uncompressed) lists nothing, as the agents' sources skip what they cannot read.
      return [];
    }
    return [{ name: `${host}/${NAME}`, displayName: `${host} · dsh`, home: root, host, source: hostedSource(host, dshRootSource(new RootLogs(root))) }];
  });
}

/**
 * The sessions of one dsh root, ids `dsh:<id>`, labels `dsh · <title>`, read
 * only through sessref's own reads of its logs. A log its listing leaves out
 * as damaged is one of the source's problems, named by its session.
 */
function dshRootSource(logs: RootLogs): TranscriptSource {
  const native = (sessionId: string): string => sessionId.slice(PREFIX.length);
  let damaged: SourceProblem[] = [];
  const stored = async (sessionId: string, signal?: AbortSignal) => {
    const log = await logs.load(native(sessionId), signal);
    if (log === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no dsh session has the id "${native(sessionId)}"`);
    return log;
  };
  return {
    name: NAME,
    owns: (sessionId) => sessionId.startsWith(PREFIX),
    listSessions: async (signal) => {
      const listed = await logs.list(signal);
      const refused = await logs.damagedLogs(new Set(listed.map(({ header }) => header.id)));
      damaged = refused.map((error) => ({ sessionId: PREFIX + error.sessionId, file: `${error.sessionId}/`, error: asSourceError(error) }));
      return listed.map(listedHeader);
    },
    readTitles: async (sessionIds, signal) =>
      Promise.all(
        sessionIds.map(async (sessionId) => {
          try {
            const { titleOfStored } = await import('@sessref/host/surface');
            const title = titleOfStored(native(sessionId), await stored(sessionId, signal))?.title;
            return { sessionId, status: 'fulfilled' as const, title: sessionLabel(NAME, title, native(sessionId)) };
          } catch (reason) {
            return { sessionId, status: 'rejected' as const, reason };
          }
        }),
      ),
    readSurface: async (sessionId, signal) => {
      const { surfaceOfStored } = await import('@sessref/host/surface');
      const surface = surfaceOfStored(native(sessionId), await stored(sessionId, signal));
      if (surface === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `dsh session "${native(sessionId)}" of a mirror is in a shape only dsh itself reads`);
      return { ...surface, session: { ...surface.session, id: sessionId } };
    },
    changeStamps: async (signal) => new Map((await logs.list(signal)).map((listed) => [PREFIX + listed.header.id, listed.revision])),
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

function listedHeader({ header }: ListedLog): SessionHeaderLike {
  const id = PREFIX + header.id;
  return header.cwd === undefined ? { id, createdAt: header.createdAt } : { id, createdAt: header.createdAt, cwd: header.cwd };
}
