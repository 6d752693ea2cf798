import { join, relative, resolve } from 'node:path';
import type { SessionHeaderLike, SurfaceSnapshot, TitleReadResult } from '@sessref/core';
import { AGENTS } from '../agents.js';
import { listDirectory } from '../directory.js';
import { SourceReadError } from '../errors.js';
import { foreignSessionId } from '../ids.js';
import { fileToken, readRevision, revisionToken } from '../revision.js';
import type { SourceEnvironment } from '../transcripts/format.js';
import { asReadError, newestFirst, sessionHeader, sessionLabel, type SourceProblem, type TranscriptSource } from '../transcripts/transcript-source.js';
import { opencodeSurface } from './fold.js';
import { opencodeDataDirectory } from './locate.js';
import { readSessionFile, readTreeSession, sessionFiles } from './json-store.js';
import type { OpencodeMessage, OpencodeSessionInfo } from './model.js';
import { listDatabaseSessions, readDatabaseSession, type RowLimits, type SessionRow } from './sqlite-store.js';

const NAME = 'opencode';
const DISPLAY_NAME = AGENTS.opencode.displayName;

/** Sessions one store may hold before sessref refuses to list it. */
const MAX_SESSIONS = 1_000_000;
const DEFAULT_LIMITS: RowLimits = { maxRows: 1_000_000, maxBytes: 256 * 1024 * 1024 };

export interface OpencodeSourceOptions {
  environment: SourceEnvironment;
  /** Largest session read: its messages and parts, and the bytes of their JSON. */
  limits?: RowLimits;
}

/** Channel databases: `opencode.db`, `opencode-<channel>.db` (storage/db.ts `path()`). */
const DATABASE_FILE = /^opencode(-[^/]+)?\.db$/;

/**
 * The databases to read: every channel's in the data folder, and the one
 * `OPENCODE_DB` names (relative to the data folder; `:memory:` has none).
 */
function databases(environment: SourceEnvironment, data: string): string[] {
  const found = listDirectory(data, data)
    .filter((entry) => entry.kind === 'file' && DATABASE_FILE.test(entry.name))
    .map((entry) => entry.path);
  const override = environment.env['OPENCODE_DB'];
  if (override === undefined || override === '' || override === ':memory:') return found;
  const path = resolve(data, override);
  return found.includes(path) || readRevision(path, true) === undefined ? found : [...found, path];
}

/** Where a listed session is read from. */
type Location = { kind: 'database'; path: string } | { kind: 'tree'; storage: string; file: string };

interface Listed {
  info: OpencodeSessionInfo;
  location: Location;
}

/** A source over opencode's SQLite store and its older JSON tree, read in place and never written. */
export function opencodeSource(options: OpencodeSourceOptions): TranscriptSource {
  const limits = options.limits ?? DEFAULT_LIMITS;
  let listed = new Map<string, Listed>();
  let problems: SourceProblem[] = [];

  const discover = async (signal?: AbortSignal): Promise<Map<string, Listed>> => {
    const data = opencodeDataDirectory(options.environment);
    const found = new Map<string, Listed>();
    const seen: SourceProblem[] = [];
    const take = (row: SessionRow, location: Location): void => {
      const sessionId = foreignSessionId(NAME, row.id);
      const file = location.kind === 'database' ? location.path : location.file;
      if ('error' in row) return void seen.push({ sessionId, file: relative(data, file), error: row.error });
      // Subagents' sessions are part of their parent's tool calls; opencode lists them under it.
      if (row.parentId !== undefined) return;
      const known = found.get(sessionId);
      // The same session in two stores (the migration copies and leaves the tree): the newer copy wins.
      if (known === undefined || row.updatedAt > known.info.updatedAt) found.set(sessionId, { info: row, location });
    };
    for (const path of databases(options.environment, data)) {
      signal?.throwIfAborted();
      try {
        for (const row of await listDatabaseSessions(path, MAX_SESSIONS)) take(row, { kind: 'database', path });
      } catch (error) {
        seen.push({ sessionId: foreignSessionId(NAME, relative(data, path)), file: relative(data, path), error: asReadError(error, { nativeId: '', path, home: data }) });
      }
    }
    const storage = join(data, 'storage');
    for (const file of sessionFiles(storage)) {
      signal?.throwIfAborted();
      take(readSessionFile(file, storage), { kind: 'tree', storage, file });
    }
    listed = found;
    problems = seen;
    return found;
  };

  const find = async (sessionId: string, signal?: AbortSignal): Promise<Listed> => {
    const entry = listed.get(sessionId) ?? (await discover(signal)).get(sessionId);
    if (entry === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no ${DISPLAY_NAME} session has the id "${sessionId}"`);
    return entry;
  };

  const readMessages = async ({ info, location }: Listed): Promise<OpencodeMessage[]> => {
    const data = opencodeDataDirectory(options.environment);
    const path = location.kind === 'database' ? location.path : location.file;
    try {
      return location.kind === 'database' ? await readDatabaseSession(location.path, info.id, limits) : readTreeSession(location.storage, info.id, limits);
    } catch (error) {
      throw asReadError(error, { nativeId: info.id, path, home: data });
    }
  };

  return {
    name: NAME,
    owns: (sessionId) => sessionId.startsWith(`${NAME}:`),

    async changeStamps(signal) {
      const stamps = new Map<string, string>();
      for (const [sessionId, { info, location }] of await discover(signal)) {
        const stamp = locationStamp(location, info);
        if (stamp !== undefined) stamps.set(sessionId, stamp);
      }
      return stamps;
    },

    async listSessions(signal): Promise<SessionHeaderLike[]> {
      const found = await discover(signal);
      return [...found].map(([sessionId, { info }]) => sessionHeader(sessionId, headerFacts(info))).sort(newestFirst);
    },

    async readTitles(sessionIds, signal) {
      const results: TitleReadResult[] = [];
      for (const sessionId of sessionIds) {
        try {
          const { info } = await find(sessionId, signal);
          results.push({ sessionId, status: 'fulfilled', title: sessionLabel(DISPLAY_NAME, info.title, info.id) });
        } catch (reason) {
          results.push({ sessionId, status: 'rejected', reason });
        }
      }
      return results;
    },

    async readSurface(sessionId, signal): Promise<SurfaceSnapshot> {
      signal?.throwIfAborted();
      const entry = await find(sessionId, signal);
      const messages = await readMessages(entry);
      const rows = messages.reduce((count, message) => count + 1 + message.parts.length, 0);
      return {
        session: sessionHeader(sessionId, headerFacts(entry.info)),
        capturedThroughSeq: rows === 0 ? null : rows - 1,
        messages: opencodeSurface(messages, entry.info.revert),
      };
    },

    problems: () => [...problems],

    // Each listing opens and closes the database: nothing stays open between them.
    close() {},
  };
}

function headerFacts(info: OpencodeSessionInfo): { createdAt: number; cwd?: string } {
  return info.directory === undefined ? { createdAt: info.createdAt } : { createdAt: info.createdAt, cwd: info.directory };
}

/**
 * A session's change stamp without reading its messages. In the database,
 * any write lands in the `-wal` file (or, checkpointed, the database file),
 * so their revisions stamp every session of it, with the session's own
 * update time. In the tree, the session file and its message folder.
 */
function locationStamp(location: Location, info: OpencodeSessionInfo): string | undefined {
  if (location.kind === 'database') {
    const database = readRevision(location.path, true);
    if (database === undefined) return undefined;
    const wal = readRevision(`${location.path}-wal`, true);
    return `db:${revisionToken(database)}:${wal === undefined ? '-' : revisionToken(wal)}:${info.updatedAt}`;
  }
  const file = readRevision(location.file, true);
  if (file === undefined) return undefined;
  const messages = readRevision(join(location.storage, 'message', info.id));
  return `tree:${revisionToken(file)}:${messages === undefined ? '-' : `${fileToken(messages)}:${messages.mtimeNs}`}`;
}
