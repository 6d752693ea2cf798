import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { SourceReadError } from '../errors.js';
import { keptRefusal, refusalKept } from '../transcripts/listing-cache.js';
import { wholeOrNone } from '../database-listings.js';
import { requireTables as requireOwnTables, schemaKinds, withReadOnlyDatabase } from '../sqlite-database.js';
import { asObject, parseJson } from '../json-lines.js';
import { firstPrompt } from './fold.js';
import { messageOf, partOf, sessionOf, type OpencodeMessage, type OpencodeRevert, type OpencodeSessionInfo } from './model.js';
import { sessionEntryMessage, UnknownSessionEntry } from './session-entries.js';

type Row = Record<string, SQLOutputValue>;
type JsonObject = Record<string, unknown>;

/** Limits on one session's rows: far above any real session, far below the process's memory. */
export interface RowLimits {
  /** Messages plus parts. */
  maxRows: number;
  /** Bytes of their JSON `data`. */
  maxBytes: number;
}

/** Open opencode's database read-only for `read` (`../sqlite-database.ts`). */
function withDatabase<T>(path: string, read: (database: DatabaseSync) => T): Promise<T> {
  return withReadOnlyDatabase(path, 'opencode', read);
}

/** Project rows read for their worktrees: far above any real store, and a bound on the read. */
const MAX_PROJECTS = 100_000;

/** Refuse the database unless each of `names` is a real table (`../sqlite-database.ts`). */
function requireTables(database: DatabaseSync, names: readonly string[]): void {
  requireOwnTables(database, names, 'opencode');
}

/** The sessions of a database: each one's facts, or why its row cannot be read. */
export type SessionRow = OpencodeSessionInfo | { id: string; error: SourceReadError };

/** Every session row (subagents' too) with its project's worktree as a fallback cwd; at most `maxSessions`. */
export function listDatabaseSessions(path: string, maxSessions: number): Promise<SessionRow[]> {
  return withDatabase(path, (database) => {
    requireTables(database, ['session']);
    const worktrees = projectWorktrees(database);
    const rows = database
      .prepare('SELECT id, title, directory, project_id, parent_id, time_created, time_updated, revert FROM session LIMIT ?')
      .all(maxSessions + 1);
    if (rows.length > maxSessions) throw new SourceReadError('SOURCE_SESSION_TOO_LARGE', `the database holds more than ${maxSessions} sessions`);
    return rows.map((row) => sessionRow(row, worktrees));
  });
}

/**
 * A listing's rows as kept between processes (`../database-listings.ts`):
 * each session's facts under the names {@link sessionOf} reads, so that
 * reading one back checks it as a row is checked; a refused row by its
 * refusal; none when a refusal may not last.
 */
export function keptSessionRows(rows: readonly SessionRow[]): unknown[] | undefined {
  return wholeOrNone(rows, keptSessionRow);
}

function keptSessionRow(row: SessionRow): JsonObject | undefined {
  if ('error' in row) {
    const refused = keptRefusal(row.error);
    return refused === undefined ? undefined : { id: row.id, refused };
  }
  const { revert } = row;
  const fields = { id: row.id, title: row.title, directory: row.directory, projectId: row.projectId, parentId: row.parentId, created: row.createdAt, updated: row.updatedAt };
  return revert === undefined ? fields : { ...fields, revert: { messageID: revert.messageId, partID: revert.partId } };
}

/** The rows {@link keptSessionRows} wrote, or none when `saved` holds anything else. */
export function sessionRowsKept(saved: unknown): SessionRow[] | undefined {
  return Array.isArray(saved) ? wholeOrNone(saved as unknown[], sessionRowKept) : undefined;
}

/** A kept row read as a database row is, trusted only when keeping it again writes what was read: a field `sessionOf` would drop or change is no kept row. */
function sessionRowKept(entry: unknown): SessionRow | undefined {
  const kept = asObject(entry);
  if (kept === undefined || typeof kept['id'] !== 'string') return undefined;
  const { id, title, directory, projectId, parentId, created, updated, revert, refused } = kept;
  const error = refused === undefined ? undefined : refusalKept(refused);
  const row = error === undefined ? sessionOf({ id, title, directory, projectId, parentId, created, updated, revert }) : { id, error };
  return row !== undefined && JSON.stringify(keptSessionRow(row)) === JSON.stringify(kept) ? row : undefined;
}

function projectWorktrees(database: DatabaseSync): Map<string, string> {
  const worktrees = new Map<string, string>();
  // Only a real table is read: a project view would be computed, maybe without end.
  if (schemaKinds(database, ['project']).get('project') !== 'table') return worktrees;
  try {
    for (const row of database.prepare('SELECT id, worktree FROM project LIMIT ?').all(MAX_PROJECTS)) {
      if (typeof row['id'] === 'string' && typeof row['worktree'] === 'string') worktrees.set(row['id'], row['worktree']);
    }
  } catch {
    // A project table of another shape: sessions keep their own directory only.
  }
  return worktrees;
}

function sessionRow(row: Row, worktrees: ReadonlyMap<string, string>): SessionRow {
  const id = typeof row['id'] === 'string' ? row['id'] : String(row['id']);
  try {
    const revert = typeof row['revert'] === 'string' ? parseJson(row['revert'], `session ${id}'s revert`) : undefined;
    const projectId = row['project_id'];
    const directory = row['directory'] ?? (typeof projectId === 'string' ? worktrees.get(projectId) : undefined);
    const session = sessionOf({ id, title: row['title'], directory, projectId, parentId: row['parent_id'], created: row['time_created'], updated: row['time_updated'], revert });
    return session ?? { id, error: new SourceReadError('SOURCE_SESSION_CORRUPT', `session ${id}'s row has no creation time`) };
  } catch (error) {
    return { id, error: error instanceof SourceReadError ? error : new SourceReadError('SOURCE_SESSION_CORRUPT', `session ${id}'s row cannot be read`, { cause: error }) };
  }
}

/** Refuse a session whose counted rows or bytes of JSON (`size`, from one `count`/`sum` query) are over `limits`, before any row is read. */
function refuseOverLimits(size: Row | undefined, sessionId: string, limits: RowLimits): void {
  if (Number(size?.['rows'] ?? 0) > limits.maxRows || Number(size?.['bytes'] ?? 0) > limits.maxBytes) {
    throw new SourceReadError('SOURCE_SESSION_TOO_LARGE', `session ${sessionId} has more than ${limits.maxRows} rows or ${limits.maxBytes} bytes`);
  }
}

/** A session's messages with their parts, refused whole when over `limits` or when a row is not opencode's JSON. */
export function readDatabaseSession(path: string, sessionId: string, limits: RowLimits): Promise<OpencodeMessage[]> {
  return withDatabase(path, (database) => {
    requireTables(database, ['message', 'part']);
    const size = database
      .prepare('SELECT (SELECT count(*) FROM message WHERE session_id = ?1) + (SELECT count(*) FROM part WHERE session_id = ?1) AS rows, (SELECT coalesce(sum(length(data)), 0) FROM message WHERE session_id = ?1) + (SELECT coalesce(sum(length(data)), 0) FROM part WHERE session_id = ?1) AS bytes')
      .get(sessionId);
    refuseOverLimits(size, sessionId, limits);
    const messages = database.prepare('SELECT id, time_created, data FROM message WHERE session_id = ?').all(sessionId).map((row) => messageRow(row, sessionId));
    if (messages.length === 0) return readSessionEntries(database, sessionId, limits);
    const byId = new Map(messages.map((message) => [message.id, message]));
    for (const row of database.prepare('SELECT id, message_id, data FROM part WHERE session_id = ?').all(sessionId)) {
      const part = partOf(rowData(row, sessionId), String(row['id']));
      if (part !== undefined) byId.get(String(row['message_id']))?.parts.push(part);
    }
    return messages;
  });
}

function rowData(row: Row, sessionId: string): Record<string, unknown> {
  const data = typeof row['data'] === 'string' ? asObject(parseJson(row['data'], `a row of session ${sessionId}`)) : undefined;
  if (data === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `a row of session ${sessionId} has no JSON object as its data`);
  return data;
}

function messageRow(row: Row, sessionId: string): OpencodeMessage {
  const created = row['time_created'];
  const message = messageOf(rowData(row, sessionId), { id: String(row['id']), ...(typeof created === 'number' ? { created } : {}) });
  if (message === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `message ${String(row['id'])} of session ${sessionId} has no role`);
  return { ...message, parts: [] };
}

/**
 * A session with no `message` rows may have been written through opencode
 * 1.18's experimental session API, whose conversation is in
 * `session_message` (read in `seq` order, within the same limits). A
 * database without that table (every release before it) has none; one
 * that is not a real table refuses the session, as `message` would. A type
 * whose rule is not known refuses the session.
 */
function readSessionEntries(database: DatabaseSync, sessionId: string, limits: RowLimits): OpencodeMessage[] {
  if (!schemaKinds(database, ['session_message']).has('session_message')) return [];
  requireTables(database, ['session_message']);
  const size = database.prepare('SELECT count(*) AS rows, coalesce(sum(length(data)), 0) AS bytes FROM session_message WHERE session_id = ?').get(sessionId);
  refuseOverLimits(size, sessionId, limits);
  const rows = database.prepare('SELECT id, type, seq, data FROM session_message WHERE session_id = ? ORDER BY seq, id').all(sessionId);
  try {
    return rows.map((row) => sessionEntryMessage({ id: String(row['id']), type: String(row['type']), seq: Number(row['seq']) || 0, data: rowData(row, sessionId) }));
  } catch (error) {
    if (!(error instanceof UnknownSessionEntry)) throw error;
    throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `session ${sessionId} holds ${error.message}, whose place in the conversation sessref does not know`, { cause: error });
  }
}

/** A session whose title is its first prompt: its id and the revert that may hide the start of it. */
export interface PromptTitleRequest {
  id: string;
  revert?: OpencodeRevert;
}

/**
 * Each session's first direct user prompt (`firstPrompt`'s rule), for many
 * sessions in one open of the database, each read only as far as its first
 * prompt: a listing of thousands of untitled sessions (every Kilo session)
 * costs one open and a few rows per session, not every row. A session that
 * cannot be read this way has no entry (its label falls back to its id).
 */
export function readFirstPrompts(path: string, sessions: readonly PromptTitleRequest[]): Promise<Map<string, string>> {
  return withDatabase(path, (database) => {
    requireTables(database, ['message', 'part']);
    const messages = database.prepare('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id');
    // The session's parts of one message, as a whole read takes them (opencode's indexes serve both columns).
    const parts = database.prepare('SELECT id, data FROM part WHERE session_id = ? AND message_id = ? ORDER BY id');
    const hasMessages = database.prepare('SELECT 1 AS found FROM message WHERE session_id = ? LIMIT 1');
    // As for a whole read: the experimental API's rows count only for a session without message rows.
    const entries = schemaKinds(database, ['session_message']).get('session_message') === 'table'
      ? database.prepare("SELECT id, type, seq, data FROM session_message WHERE session_id = ? AND type = 'user' ORDER BY seq, id LIMIT 1")
      : undefined;
    const found = new Map<string, string>();
    for (const session of sessions) {
      try {
        const prompt = hasMessages.get(session.id) === undefined ? firstEntryPrompt(session.id, entries) : firstMessagePrompt(session, messages, parts);
        if (prompt !== undefined) found.set(session.id, prompt);
      } catch {
        // A damaged row: no title from it; reading the session says why.
      }
    }
    return found;
  });
}

type Statement = ReturnType<DatabaseSync['prepare']>;

/** The first prompt among a session's message rows, in opencode's order, stopping where a pending revert cuts the session. */
function firstMessagePrompt({ id, revert }: PromptTitleRequest, messages: Statement, parts: Statement): string | undefined {
  for (const row of messages.iterate(id)) {
    const message = messageRow(row, id);
    const reverted = message.id === revert?.messageId;
    if (reverted && revert.partId === undefined) return undefined;
    if (message.role === 'user') {
      const own = parts.all(id, message.id).flatMap((partRow) => partOf(rowData(partRow, id), String(partRow['id'])) ?? []);
      const kept = reverted ? own.filter((part) => revert.partId === undefined || part.id < revert.partId) : own;
      const prompt = firstPrompt([{ ...message, parts: kept }], undefined);
      if (prompt !== undefined) return prompt;
    }
    if (reverted) return undefined;
  }
  return undefined;
}

/** The first `user` entry's text of a session the experimental API wrote. */
function firstEntryPrompt(sessionId: string, entries: Statement | undefined): string | undefined {
  const row = entries?.get(sessionId);
  if (row === undefined) return undefined;
  return firstPrompt([sessionEntryMessage({ id: String(row['id']), type: 'user', seq: 0, data: rowData(row, sessionId) })], undefined);
}
