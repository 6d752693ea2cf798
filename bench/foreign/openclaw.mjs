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
import { readFileSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { zstdCompressSync } from 'node:zlib';
import { piEntries } from './jsonl.mjs';
import { cwdOf, sessionClock, uuidOf } from './records.mjs';

/** OpenClaw's tables, as the reader's unit test builds them (one schema for both). */
const SCHEMA = readFileSync(new URL('../../packages/sources/test/fixtures/openclaw-agent-schema.sql', import.meta.url), 'utf8');

/** A compressed row's navigation metadata, as OpenClaw's schema asks for one (the reader never reads it): the unit test's. */
const NAVIGATION = readFileSync(new URL('../../packages/sources/test/fixtures/openclaw-navigation.json', import.meta.url), 'utf8').trim();

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
