/**
 * The corpus's OpenClaw store: `~/.openclaw/agents/main/agent/openclaw-agent.sqlite`,
 * written through node:sqlite with the tables the reader queries as OpenClaw
 * 2026.9.6 creates them (packages/sources/README.md, "OpenClaw"): per
 * session a node keyed `agent:main:explicit:<id>`, its window, and its pi
 * entries (version 4) as `transcript_events` rows of plain JSON, one in four
 * sessions' zstd-compressed as OpenClaw stores a large event. Nodes carry
 * no label, as the real runs left them, so each title is the first prompt.
 */
import { Buffer } from 'node:buffer';
import { statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { zstdCompressSync } from 'node:zlib';
import { piEntries } from './jsonl.mjs';
import { cwdOf, sessionClock, uuidOf } from './records.mjs';

const SCHEMA = `
CREATE TABLE session_nodes (
  session_key TEXT NOT NULL PRIMARY KEY, current_session_id TEXT NOT NULL, entry_json TEXT NOT NULL,
  entry_valid INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL, created_at INTEGER,
  label TEXT, display_name TEXT
) STRICT;
CREATE TABLE session_windows (
  session_id TEXT NOT NULL PRIMARY KEY, session_key TEXT NOT NULL, previous_session_id TEXT, reason TEXT,
  session_scope TEXT NOT NULL DEFAULT 'conversation', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  display_name TEXT,
  FOREIGN KEY (session_key) REFERENCES session_nodes(session_key) ON DELETE CASCADE
) STRICT;
CREATE TABLE transcript_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL,
  event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
  PRIMARY KEY (session_id, seq),
  FOREIGN KEY (session_id) REFERENCES session_windows(session_id) ON DELETE CASCADE
) STRICT;
CREATE TABLE session_transcript_active_events (
  session_id TEXT NOT NULL, active_position INTEGER NOT NULL, event_seq INTEGER NOT NULL,
  message_position INTEGER, context_eligible INTEGER, PRIMARY KEY (session_id, active_position)
) STRICT;
`;

/** A compressed row's navigation metadata, as OpenClaw's schema asks for one (the reader never reads it). */
const NAVIGATION = JSON.stringify({ version: 1, report: { kind: 'canonical' }, navigation: {}, reset: {}, model: {}, modelBytes: 0, modelWithoutCheckpointBytes: 0, withoutCustomDataBytes: 0 });

/** OpenClaw: `~/.openclaw/agents/main/agent/openclaw-agent.sqlite` (WAL), `count` sessions in one transaction. */
export function writeOpenclaw(files, count, next) {
  const path = files.path('.openclaw/agents/main/agent/openclaw-agent.sqlite');
  const database = new DatabaseSync(path);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec(SCHEMA);
  const node = database.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, created_at) VALUES (?, ?, ?, ?, ?)');
  const window = database.prepare("INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES (?, ?, 'initial', ?, ?)");
  const event = database.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const active = database.prepare('INSERT INTO session_transcript_active_events (session_id, active_position, event_seq, context_eligible) VALUES (?, ?, ?, 1)');
  database.exec('BEGIN');
  for (let n = 0; n < count; n += 1) {
    const id = uuidOf(n, 12);
    const key = `agent:main:explicit:${id}`;
    const clock = sessionClock(n);
    const entries = piEntries(n, next, { id, cwd: cwdOf(n, 50), version: 4, clock });
    node.run(key, id, '{}', clock.now(), clock.start);
    window.run(id, key, clock.start, clock.now());
    entries.forEach((entry, seq) => {
      const json = JSON.stringify(entry);
      if (n % 4 === 3) event.run(id, seq, null, clock.start, zstdCompressSync(Buffer.from(json)), Buffer.byteLength(json), NAVIGATION);
      else event.run(id, seq, json, clock.start, null, null, null);
      active.run(id, seq, seq);
    });
  }
  database.exec('COMMIT');
  database.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  database.close();
  files.count(statSync(path).size);
}
