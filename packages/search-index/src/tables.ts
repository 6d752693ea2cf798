import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { encodeMessages, type SessionDocument } from './documents.js';

/** One session's stored row. */
export interface SessionRow {
  source: string;
  id: string;
  createdAt: number;
  /** The directory the session started in, as its header records it. */
  cwd: string | undefined;
  /** The deflated carried messages; null for a session whose read failed. */
  messages: Uint8Array | null;
}

/** A session matching a full-text expression. */
export interface MatchRow {
  key: number;
  id: string;
}

/** Keys per millisecond of `createdAt`: sessions created in the same millisecond share it. */
const SLOTS = 1024;
/** Latest `createdAt` a key can hold (year 2248): keys stay safe integers. */
const MAX_CREATED_AT = 2 ** 43 - 1;

/** The index's SQL, in one place: every statement prepared once per open database. */
export class IndexTables {
  private readonly statements: Record<
    'dataVersion' | 'sessionsOf' | 'keyOf' | 'deleteSession' | 'deleteMessages' | 'deleteBody' | 'slots' | 'insertSession' | 'insertMessages' | 'insertBody' | 'insertTerm' | 'matches' | 'session' | 'termsAfter' | 'termsContaining' | 'totals',
    StatementSync
  >;

  /** Words known to be in `terms`: most words recur, and an ignored insert still costs a B-tree probe. */
  private readonly knownWords = new Set<string>();
  /**
   * The stamp of each session of each source the index holds, by id, as
   * last read or written by this connection: valid while no other connection
   * committed (SQLite's `data_version` is unchanged), so a refresh that finds
   * one session changed compares stamps without reading every row again.
   */
  private held = new Map<string, Map<string, string>>();
  private heldVersion: unknown;

  constructor(private readonly db: DatabaseSync) {
    const prepare = (sql: string): StatementSync => db.prepare(sql);
    this.statements = {
      dataVersion: prepare('PRAGMA data_version'),
      sessionsOf: prepare('SELECT id, stamp FROM sessions WHERE source = ?'),
      keyOf: prepare('SELECT key FROM sessions WHERE source = ? AND id = ?'),
      deleteSession: prepare('DELETE FROM sessions WHERE key = ?'),
      deleteMessages: prepare('DELETE FROM messages WHERE key = ?'),
      deleteBody: prepare('DELETE FROM body WHERE rowid = ?'),
      slots: prepare('SELECT key FROM sessions WHERE key >= ? AND key < ? ORDER BY key'),
      insertSession: prepare('INSERT INTO sessions (key, source, id, stamp, created_at, cwd, carried, failure) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      insertMessages: prepare('INSERT INTO messages (key, blob) VALUES (?, ?)'),
      insertBody: prepare('INSERT INTO body (rowid, tokens) VALUES (?, ?)'),
      insertTerm: prepare('INSERT OR IGNORE INTO terms (reversed) VALUES (?)'),
      // Row-id order is recency order: FTS5 walks matches newest first and stops at the limit.
      matches: prepare('SELECT s.key AS key, s.id AS id FROM body JOIN sessions s ON s.key = body.rowid WHERE body MATCH ? ORDER BY body.rowid DESC LIMIT ?'),
      session: prepare('SELECT s.source AS source, s.id AS id, s.created_at AS created_at, s.cwd AS cwd, m.blob AS messages FROM sessions s LEFT JOIN messages m ON m.key = s.key WHERE s.key = ?'),
      termsAfter: prepare('SELECT reversed FROM terms WHERE reversed > ? AND reversed < ? LIMIT ?'),
      termsContaining: prepare('SELECT reversed FROM terms WHERE instr(reversed, ?) > 0 AND substr(reversed, -length(?)) <> ? LIMIT ?'),
      totals: prepare('SELECT count(*) AS sessions, coalesce(sum(carried), 0) AS carried FROM sessions'),
    };
  }

  /** Run `work` as one write transaction, taken at once (waiting out another process's under the busy timeout). */
  transaction(work: () => void): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      work();
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      // What the rolled-back writes remembered is not in the tables.
      this.knownWords.clear();
      this.held.clear();
      throw error;
    }
  }

  /** The stamp of each session of `source` the index holds, by id (through the `(source, id)` index, unless no other process wrote since the last time). */
  sessionsOf(source: string): ReadonlyMap<string, string> {
    const version = this.statements.dataVersion.get()?.data_version;
    if (version !== this.heldVersion) {
      this.held.clear();
      this.heldVersion = version;
    }
    let stamps = this.held.get(source);
    if (stamps === undefined) {
      const rows = this.statements.sessionsOf.all(source) as unknown as Array<{ id: string; stamp: string }>;
      stamps = new Map(rows.map((row) => [row.id, row.stamp]));
      this.held.set(source, stamps);
    }
    return stamps;
  }

  /** Drop one session of a source, if the index holds it (looked up now: another process may have re-keyed it). */
  removeSession(source: string, id: string): void {
    const previous = this.statements.keyOf.get(source, id) as { key: number } | undefined;
    if (previous !== undefined) this.remove(previous.key);
    this.held.get(source)?.delete(id);
  }

  /** Drop one session's rows, all by key. */
  private remove(key: number): void {
    this.statements.deleteBody.run(key);
    this.statements.deleteMessages.run(key);
    this.statements.deleteSession.run(key);
  }

  /**
   * Store `document` (or, for a session that could not be read, the
   * failure, so it is not read again until its stamp changes) in place of
   * whatever the index held for the session.
   */
  put(source: string, id: string, stamp: string, content: SessionDocument | { failure: string; createdAt: number }): void {
    this.removeSession(source, id);
    const key = this.freeKey(content.createdAt);
    this.held.get(source)?.set(id, stamp);
    if ('failure' in content) {
      this.statements.insertSession.run(key, source, id, stamp, content.createdAt, null, 0, content.failure);
      return;
    }
    this.statements.insertSession.run(key, source, id, stamp, content.createdAt, content.cwd ?? null, content.carriedBytes, null);
    this.statements.insertMessages.run(key, encodeMessages(content.messages));
    this.statements.insertBody.run(key, content.tokens);
  }

  /** Remember words (reversed) for the queries that start inside one. */
  addTerms(words: Iterable<string>): void {
    for (const word of words) {
      if (this.knownWords.has(word)) continue;
      this.statements.insertTerm.run(reverse(word));
      this.knownWords.add(word);
    }
  }

  /** The first free key for a session created at `createdAt`, so keys sort by recency. */
  private freeKey(createdAt: number): number {
    const millisecond = Number.isFinite(createdAt) ? Math.min(Math.max(0, Math.floor(createdAt)), MAX_CREATED_AT) : 0;
    for (let base = millisecond * SLOTS; ; base += SLOTS) {
      const taken = new Set((this.statements.slots.all(base, base + SLOTS) as unknown as Array<{ key: number }>).map((row) => row.key));
      for (let key = base; key < base + SLOTS; key += 1) if (!taken.has(key)) return key;
    }
  }

  /** Sessions matching an FTS5 expression, newest first, at most `limit`. */
  matches(expression: string, limit: number): MatchRow[] {
    return this.statements.matches.all(expression, limit) as unknown as MatchRow[];
  }

  session(key: number): SessionRow | undefined {
    const row = this.statements.session.get(key) as { source: string; id: string; created_at: number; cwd: string | null; messages: Uint8Array | null } | undefined;
    return row && { source: row.source, id: row.id, createdAt: row.created_at, cwd: row.cwd ?? undefined, messages: row.messages };
  }

  /** Indexed words that end with `suffix` and are longer than it, at most `limit`. */
  wordsEndingWith(suffix: string, limit: number): string[] {
    const reversed = reverse(suffix);
    // After every string that starts with `reversed`: U+10FFFF is the greatest code point.
    const rows = this.statements.termsAfter.all(reversed, `${reversed}\u{10FFFF}`, limit) as unknown as Array<{ reversed: string }>;
    return rows.map((row) => reverse(row.reversed));
  }

  /** Indexed words that contain `part` but do not start with it, at most `limit` (a scan of the vocabulary). */
  wordsContaining(part: string, limit: number): string[] {
    const reversed = reverse(part);
    const rows = this.statements.termsContaining.all(reversed, reversed, reversed, limit) as unknown as Array<{ reversed: string }>;
    return rows.map((row) => reverse(row.reversed));
  }

  /** Sessions held and the UTF-8 bytes of the carried text they index. */
  totals(): { sessions: number; carriedBytes: number } {
    const row = this.statements.totals.get() as { sessions: number; carried: number };
    return { sessions: row.sessions, carriedBytes: row.carried };
  }
}

/** `text` reversed by code point. */
function reverse(text: string): string {
  return Array.from(text).reverse().join('');
}
