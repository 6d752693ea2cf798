import type { DatabaseSync, SQLOutputValue } from 'node:sqlite';
import { decompressZstd } from '../codex/zstd.js';
import { SourceReadError } from '../errors.js';
import { asObject, asString, isOptionalString, parseJson } from '../json-lines.js';
import { requireTables, schemaKinds, withReadOnlyDatabase } from '../sqlite-database.js';
import { keptRefusal, refusalKept } from '../transcripts/listing-cache.js';
import { wholeOrNone } from '../database-listings.js';
import { firstPromptOf } from './fold.js';

type Row = Record<string, SQLOutputValue>;
type JsonRecord = Record<string, unknown>;

/** Events a listing reads at most per session to find its first prompt: a real session's comes within its first few. */
const MAX_PROMPT_SCAN = 1000;

/** How refusals name the store. */
const AGENT = 'OpenClaw';

/** The most one compressed event may hold, as OpenClaw's own schema bounds it (`transcript_events` CHECK: 4 MiB). */
const MAX_EVENT_BYTES = 4 * 1024 * 1024;

/** Limits on one session's events: far above any real session, far below the process's memory. */
export interface EventLimits {
  /** Events (rows of `transcript_events`). */
  maxRows: number;
  /** Bytes of their JSON, compressed ones counted at their plaintext size. */
  maxBytes: number;
}

/** One session window of an agent database, with what a listing shows of it. */
export interface WindowRow {
  /** The session id (`session_windows.session_id`), the id OpenClaw's transcript rows carry. */
  readonly id: string;
  /** When it last changed (epoch ms), for its change stamp. */
  readonly updatedAt: number;
  /** OpenClaw's own title for it: its node's label or display name (when it is the node's current session), else its window's display name. */
  readonly title: string | undefined;
  /** Its first user prompt on one line, when one is among its first {@link MAX_PROMPT_SCAN} events. */
  readonly firstPrompt: string | undefined;
  /** Its `session` header event, when it has one. */
  readonly header: JsonRecord | undefined;
}

/** A window, or why its row cannot be read. */
export type ListedWindow = WindowRow | { id: string; error: SourceReadError };

/**
 * A listing's windows as kept between processes (`../database-listings.ts`):
 * each window as it is, a refused one by its refusal; none when a refusal
 * may not last (a listing in a process that cannot read as far reads again).
 */
export function keptWindows(windows: readonly ListedWindow[]): unknown[] | undefined {
  return wholeOrNone(windows, keptWindow);
}

function keptWindow(window: ListedWindow): object | undefined {
  if (!('error' in window)) return window;
  const refused = keptRefusal(window.error);
  return refused === undefined ? undefined : { id: window.id, refused };
}

/** The windows {@link keptWindows} wrote, or none when `saved` holds anything else. */
export function windowsKept(saved: unknown): ListedWindow[] | undefined {
  return Array.isArray(saved) ? wholeOrNone(saved as unknown[], windowKept) : undefined;
}

function windowKept(entry: unknown): ListedWindow | undefined {
  const kept = asObject(entry);
  if (kept === undefined || typeof kept['id'] !== 'string') return undefined;
  const { id, updatedAt, title, firstPrompt, header, refused } = kept;
  if (refused !== undefined) {
    const error = refusalKept(refused);
    return error === undefined ? undefined : { id, error };
  }
  if (typeof updatedAt !== 'number' || !Number.isFinite(updatedAt) || !isOptionalString(title) || !isOptionalString(firstPrompt)) return undefined;
  if (header !== undefined && asObject(header) === undefined) return undefined;
  return { id, updatedAt, title, firstPrompt, header: asObject(header) };
}

/** A name that is set and not blank. */
function named(value: SQLOutputValue | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A first prompt known from an earlier listing of the session at update time `updatedAt` (see `listWindows`). */
export type KnownPrompt = (sessionId: string, updatedAt: number) => string | undefined;

/**
 * Every session window of the database that holds transcript events (at
 * most `maxSessions`), each with its own title and its header event. The
 * node table is optional: a store without it (or with one that is not a
 * real table) gives no own titles. A session with no title of its own reads
 * on to its first prompt, unless `knownPrompt` knows it at the window's
 * update time: then its header alone is read.
 */
export function listWindows(path: string, maxSessions: number, knownPrompt: KnownPrompt = () => undefined): Promise<ListedWindow[]> {
  return withReadOnlyDatabase(path, AGENT, (database) => {
    requireTables(database, ['session_windows', 'transcript_events'], AGENT);
    const nodes = schemaKinds(database, ['session_nodes']).get('session_nodes') === 'table';
    const rows = database
      .prepare(
        nodes
          ? 'SELECT w.session_id AS id, w.updated_at, w.display_name AS window_name, n.label, n.display_name, n.current_session_id FROM session_windows w LEFT JOIN session_nodes n ON n.session_key = w.session_key WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id) LIMIT ?'
          : 'SELECT w.session_id AS id, w.updated_at, w.display_name AS window_name FROM session_windows w WHERE EXISTS (SELECT 1 FROM transcript_events e WHERE e.session_id = w.session_id) LIMIT ?',
      )
      .all(maxSessions + 1);
    if (rows.length > maxSessions) throw new SourceReadError('SOURCE_SESSION_TOO_LARGE', `the database holds more than ${maxSessions} sessions`);
    const first = database.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq LIMIT ?');
    return rows.map((row): ListedWindow => {
      const id = String(row['id']);
      const updatedAt = Number(row['updated_at']) || 0;
      try {
        const own = row['current_session_id'] === id ? (named(row['label']) ?? named(row['display_name'])) : undefined;
        const title = own ?? named(row['window_name']);
        const known = title === undefined ? knownPrompt(id, updatedAt) : undefined;
        const scan = title === undefined && known === undefined;
        // Decoded one at a time: a session with a title of its own, or a known prompt, reads its header alone; any other reads on to its first prompt.
        const events = eventsOf(first.iterate(id, scan ? MAX_PROMPT_SCAN : 1), id);
        try {
          const header = events.next().value;
          const firstPrompt = scan ? promptOrNone(events) : known;
          return { id, updatedAt, title, firstPrompt, header: header?.['type'] === 'session' ? header : undefined };
        } finally {
          events.return(undefined);
        }
      } catch (error) {
        return { id, error: error instanceof SourceReadError ? error : new SourceReadError('SOURCE_SESSION_CORRUPT', `session ${id}'s rows cannot be read`, { cause: error }) };
      }
    });
  });
}

/**
 * A session's events in `seq` order, each a JSON object, refused whole when
 * over `limits` (counted before any event is read) or when an event is not
 * OpenClaw's: not a JSON object, nesting too deep, or a compressed event
 * whose zstd data, or its declared size, does not hold.
 */
export function readEvents(path: string, sessionId: string, limits: EventLimits): Promise<JsonRecord[]> {
  return withReadOnlyDatabase(path, AGENT, (database) => {
    requireTables(database, ['transcript_events'], AGENT);
    refuseOverLimits(database, sessionId, limits);
    return database.prepare('SELECT seq, event_json, event_zstd, event_utf8_bytes FROM transcript_events WHERE session_id = ? ORDER BY seq').all(sessionId).map((row) => eventOf(row, sessionId));
  });
}

function refuseOverLimits(database: DatabaseSync, sessionId: string, limits: EventLimits): void {
  const size = database
    .prepare('SELECT count(*) AS rows, coalesce(sum(CASE WHEN event_json IS NOT NULL THEN length(CAST(event_json AS BLOB)) ELSE max(coalesce(event_utf8_bytes, 0), length(event_zstd)) END), 0) AS bytes FROM transcript_events WHERE session_id = ?')
    .get(sessionId);
  if (Number(size?.['rows'] ?? 0) > limits.maxRows || Number(size?.['bytes'] ?? 0) > limits.maxBytes) {
    throw new SourceReadError('SOURCE_SESSION_TOO_LARGE', `session ${sessionId} has more than ${limits.maxRows} events or ${limits.maxBytes} bytes`);
  }
}

/** The first prompt among `events`, or none when an event before it cannot be read (reading the session says why). */
function promptOrNone(events: Iterable<JsonRecord>): string | undefined {
  try {
    return firstPromptOf(events);
  } catch {
    return undefined;
  }
}

/** The events of `rows`, decoded one at a time as they are asked for. */
function* eventsOf(rows: Iterable<Row>, sessionId: string): Generator<JsonRecord> {
  for (const row of rows) yield eventOf(row, sessionId);
}

/** One row's event: its JSON text, or its zstd data decoded to exactly the UTF-8 size the row declares (OpenClaw's own check). */
function eventOf(row: Row, sessionId: string): JsonRecord {
  const where = `event ${String(row['seq'])} of session ${sessionId}`;
  const text = asString(row['event_json']) ?? compressedText(row, where);
  const event = asObject(parseJson(text, where));
  if (event === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} is not a JSON object`);
  return event;
}

function compressedText(row: Row, where: string): string {
  const bytes = row['event_zstd'];
  const declared = row['event_utf8_bytes'];
  if (!(bytes instanceof Uint8Array) || bytes.length === 0) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} has neither JSON nor zstd data`);
  if (typeof declared !== 'number' || !Number.isSafeInteger(declared) || declared < 1 || declared > MAX_EVENT_BYTES) {
    throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} declares no size between 1 and ${MAX_EVENT_BYTES} bytes`);
  }
  let plain: Buffer;
  try {
    plain = decompressZstd(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), declared);
  } catch (error) {
    if (!(error instanceof SourceReadError)) throw error;
    throw new SourceReadError(error.code === 'SOURCE_SESSION_UNSUPPORTED' ? error.code : 'SOURCE_SESSION_CORRUPT', `${where} ${error.message}`, { cause: error });
  }
  if (plain.length !== declared) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} decodes to ${plain.length} bytes, not the ${declared} it declares`);
  return plain.toString('utf8');
}
