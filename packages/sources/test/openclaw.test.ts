/**
 * OpenClaw's agent databases (`<state>/agents/<agent id>/agent/openclaw-agent.sqlite`,
 * this package's README, "OpenClaw"): no sample of them is in ../shared, so
 * every database here is built by the test with the tables the reader reads,
 * as OpenClaw 2026.9.6 creates them, and rows shaped as its real run wrote
 * them (e2e/agents drives the real CLI).
 */
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SurfaceMessage } from '@sessref/core';
import { foldOpenclaw } from '../src/openclaw/fold.js';
import { openclawSource } from '../src/openclaw/source.js';
import { keptWindows, windowsKept } from '../src/openclaw/store.js';
import { SourceReadError } from '../src/errors.js';
import { databaseReadsFile } from '../src/transcripts/listing-cache.js';
import { foldPiEntries } from '../src/pi/fold.js';
import { carried, itFoldsAHugeMessage, listing, scratchFolder, words, type Item } from './support';

/** The tables sessref reads, as OpenClaw 2026.9.6 creates them (see the fixture's own comment). */
const SCHEMA = readFileSync(new URL('fixtures/openclaw-agent-schema.sql', import.meta.url), 'utf8');

type Event = Record<string, unknown>;
/** An event as a row holds it: plain JSON, or zstd-compressed with its UTF-8 size. */
type Stored = Event | { readonly zstd: Event };

interface StoredSession {
  readonly id: string;
  readonly events: readonly Stored[];
  /** The node's label and display name, and whether this window is the node's current session (default: yes). */
  readonly node?: { label?: string; displayName?: string; current?: boolean };
  readonly windowName?: string;
}

const TIMESTAMP = '2026-12-06T21:10:15.724Z';
const header = (id: string): Event => ({ type: 'session', version: 4, id, timestamp: TIMESTAMP, cwd: '/home/me/.openclaw/workspace' });
const user = (id: string, parentId: string | null, text: string): Event => ({ type: 'message', id, parentId, timestamp: TIMESTAMP, message: { role: 'user', content: text, timestamp: 1, __openclaw: { senderIsOwner: true } } });
const assistant = (id: string, parentId: string | null, text: string): Event => ({ type: 'message', id, parentId, timestamp: TIMESTAMP, message: { role: 'assistant', content: [{ type: 'text', text }], api: 'openai-completions', stopReason: 'stop' } });
const compaction = (id: string, parentId: string | null, summary: string, firstKeptEntryId: string): Event => ({ type: 'compaction', id, parentId, timestamp: TIMESTAMP, summary, firstKeptEntryId, tokensBefore: 17, tokensAfter: 129, fromHook: true });
const custom = (id: string, parentId: string | null, customType: string): Event => ({ type: 'custom', customType, data: { timestamp: 1 }, id, parentId, timestamp: TIMESTAMP });

/** What OpenClaw's schema asks of a compressed row's navigation metadata (any valid value does: the reader never reads it); the benchmark corpus writes the same. */
const NAVIGATION = readFileSync(new URL('fixtures/openclaw-navigation.json', import.meta.url), 'utf8').trim();

/** Write an agent database at `path` (WAL mode, as OpenClaw's), holding `sessions`. */
function writeStore(path: string, sessions: readonly StoredSession[], schema = SCHEMA): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec('PRAGMA journal_mode = WAL');
  database.exec(schema);
  const node = database.prepare('INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, label, display_name) VALUES (?, ?, ?, 1, ?, ?)');
  const window = database.prepare('INSERT INTO session_windows (session_id, session_key, created_at, updated_at, display_name) VALUES (?, ?, 1, ?, ?)');
  const event = database.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json) VALUES (?, ?, ?, 1, ?, ?, ?)');
  sessions.forEach((session, index) => {
    const key = `agent:main:explicit:${session.id}`;
    if (schema.includes('session_nodes')) node.run(key, session.node?.current === false ? 'another' : session.id, '{}', session.node?.label ?? null, session.node?.displayName ?? null);
    window.run(session.id, key, index + 1, session.windowName ?? null);
    session.events.forEach((stored, seq) => {
      if (!('zstd' in stored)) return void event.run(session.id, seq, JSON.stringify(stored), null, null, null);
      const text = Buffer.from(JSON.stringify(stored.zstd));
      event.run(session.id, seq, null, zstdCompressSync(text), text.length, NAVIGATION);
    });
  });
  database.close();
}

const root = scratchFolder('sessref-openclaw-');
let homes = 0;
/** A fresh home whose default OpenClaw state holds `sessions` in the main agent's database. */
function homeWith(sessions: readonly StoredSession[]): { home: string; database: string } {
  const home = join(root, `home-${(homes += 1)}`);
  const database = join(home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  writeStore(database, sessions);
  return { home, database };
}
/** What a snapshot of these surface messages carries. */
const carriedBy = (messages: readonly SurfaceMessage[]): Item[] => carried({ createdAt: 0, messages: [...messages], throughRecord: null });
const sourceOf = (home: string, env: Record<string, string> = {}) => openclawSource({ environment: { home, env } });

/** The session the real run wrote (e2e/agents): two turns, a compaction keeping the last reply, a third turn, OpenClaw's own entries between them. */
const REAL_SHAPE: Event[] = [
  header('s1'),
  { type: 'model_change', provider: 'fake', modelId: 'gpt-fake', id: 'mc', parentId: null, timestamp: TIMESTAMP },
  { type: 'thinking_level_change', thinkingLevel: 'off', id: 'tl', parentId: 'mc', timestamp: TIMESTAMP },
  custom('ms', 'tl', 'model-snapshot'),
  user('u1', 'ms', 'Turn 1: remember ALPHA.'),
  assistant('a1', 'u1', 'Reply 1: ALPHA noted.'),
  custom('b1', 'a1', 'openclaw:bootstrap-context:full'),
  user('u2', 'b1', 'Turn 2: remember BETA.'),
  assistant('a2', 'u2', 'Reply 2: BETA noted.'),
  custom('b2', 'a2', 'openclaw:bootstrap-context:full'),
  compaction('c1', 'b2', 'SUMMARY of ALPHA and BETA', 'a2'),
  user('u3', 'c1', 'Turn 3: remember GAMMA.'),
  assistant('a3', 'u3', 'Reply 3: GAMMA noted.'),
  custom('b3', 'a3', 'openclaw:bootstrap-context:full'),
];

describe('OpenClaw sessions', () => {
  it('lists each session with its header facts and reads the conversation OpenClaw sent after its compaction', async () => {
    const { home } = homeWith([{ id: 's1', events: REAL_SHAPE }]);
    const source = sourceOf(home);
    expect(await listing(source)).toEqual({
      headers: [{ id: 'openclaw:s1', createdAt: Date.parse(TIMESTAMP), cwd: '/home/me/.openclaw/workspace' }],
      titles: ['OpenClaw · Turn 1: remember ALPHA.'],
      problems: [],
    });
    const surface = await source.readSurface('openclaw:s1');
    expect(surface.capturedThroughSeq).toBe(REAL_SHAPE.length - 1);
    // The real run's turn-3 request: the summary, then the kept reply (firstKeptEntryId), then turn 3.
    expect(carriedBy(surface.messages)).toEqual([
      ['checkpoint', 'SUMMARY of ALPHA and BETA'],
      ['assistant', 'Reply 2: BETA noted.'],
      ['user', 'Turn 3: remember GAMMA.'],
      ['assistant', 'Reply 3: GAMMA noted.'],
    ]);
  });

  it("titles a session by OpenClaw's own name (the node's label, else its display name, else the window's), else its first prompt", async () => {
    const events = (id: string) => [header(id), user(`${id}-u`, null, `first prompt of\n${id}`)];
    const { home } = homeWith([
      { id: 'labelled', events: events('labelled'), node: { label: 'My label', displayName: 'Shown name' } },
      { id: 'displayed', events: events('displayed'), node: { label: '  ', displayName: 'Shown name' } },
      { id: 'window', events: events('window'), windowName: 'Window name' },
      { id: 'older', events: events('older'), node: { label: 'Not this window', current: false } },
      { id: 'plain', events: events('plain') },
    ]);
    const source = sourceOf(home);
    const ids = ['labelled', 'displayed', 'window', 'older', 'plain'].map((id) => `openclaw:${id}`);
    expect((await source.readTitles(ids)).map((result) => (result.status === 'fulfilled' ? result.title : 'rejected'))).toEqual([
      'OpenClaw · My label',
      'OpenClaw · Shown name',
      'OpenClaw · Window name',
      'OpenClaw · first prompt of older',
      'OpenClaw · first prompt of plain',
    ]);
  });

  it('reads zstd-compressed events, and refuses one whose data or declared size does not hold', async () => {
    const compressed = REAL_SHAPE.map((event, index) => (index > 0 ? { zstd: event } : event));
    const { home, database } = homeWith([{ id: 's1', events: compressed }, { id: 'cut', events: [header('cut'), user('u', null, 'hello')] }]);
    const source = sourceOf(home);
    expect(carriedBy((await source.readSurface('openclaw:s1')).messages)).toHaveLength(4);
    const writer = new DatabaseSync(database);
    writer.prepare("UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = 99, navigation_json = ? WHERE session_id = 'cut' AND seq = 1").run(Buffer.from('not zstd at all'), NAVIGATION);
    writer.close();
    await expect(source.readSurface('openclaw:cut')).rejects.toMatchObject({ code: 'SOURCE_SESSION_CORRUPT', message: expect.stringContaining('event 1 of session cut') });
    const resized = new DatabaseSync(database);
    const text = Buffer.from(JSON.stringify(user('u', null, 'hello')));
    resized.prepare("UPDATE transcript_events SET event_zstd = ?, event_utf8_bytes = ? WHERE session_id = 'cut' AND seq = 1").run(zstdCompressSync(text), text.length + 1);
    resized.close();
    await expect(source.readSurface('openclaw:cut')).rejects.toMatchObject({ code: 'SOURCE_SESSION_CORRUPT', message: expect.stringContaining(`not the ${text.length + 1} it declares`) });
  });

  it('reads every agent of the state folder, moved by OPENCLAW_STATE_DIR or OPENCLAW_HOME', async () => {
    const state = join(root, 'moved-state');
    writeStore(join(state, 'agents', 'work', 'agent', 'openclaw-agent.sqlite'), [{ id: 'w1', events: [header('w1'), user('u', null, 'work agent')] }]);
    writeStore(join(state, 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), [{ id: 'm1', events: [header('m1'), user('u', null, 'main agent')] }]);
    mkdirSync(join(state, 'agents', 'empty', 'agent'), { recursive: true });
    const ids = async (env: Record<string, string>) => (await sourceOf(join(root, 'nobody'), env).listSessions()).map((found) => found.id).sort();
    expect(await ids({ OPENCLAW_STATE_DIR: state })).toEqual(['openclaw:m1', 'openclaw:w1']);
    expect(await ids({ OPENCLAW_STATE_DIR: '  ' })).toEqual([]);
    const home = join(root, 'openclaw-home');
    writeStore(join(home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), [{ id: 'h1', events: [header('h1')] }]);
    expect(await ids({ OPENCLAW_HOME: home })).toEqual(['openclaw:h1']);
  });

  it('a listing opens a database again only once it changed, and then sees the change', async () => {
    const { home, database } = homeWith([{ id: 's1', events: [header('s1'), user('u', null, 'one')] }]);
    const source = sourceOf(home);
    expect((await source.listSessions()).map((found) => found.id)).toEqual(['openclaw:s1']);
    const stamps = await source.changeStamps();
    expect(await source.changeStamps()).toEqual(stamps);
    const writer = new DatabaseSync(database);
    writer.prepare("INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at) VALUES ('k2', 's2', '{}', 5)").run();
    writer.prepare("INSERT INTO session_windows (session_id, session_key, created_at, updated_at) VALUES ('s2', 'k2', 1, 5)").run();
    writer.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 0, ?, 1)').run('s2', JSON.stringify(header('s2')));
    writer.close();
    expect((await source.listSessions()).map((found) => found.id).sort()).toEqual(['openclaw:s1', 'openclaw:s2']);
    expect((await source.changeStamps()).get('openclaw:s1')).not.toBe(stamps.get('openclaw:s1'));
  });

  it('keeps first-prompt titles in the listing cache: a new source reads a known session\'s header alone, and a session changed since on to its prompt', async () => {
    const events = (id: string) => [header(id), custom(`${id}-c`, null, 'model-snapshot'), user(`${id}-u`, `${id}-c`, `prompt of ${id}`)];
    const { home, database } = homeWith([
      { id: 's1', events: events('s1') },
      { id: 's2', events: events('s2') },
    ]);
    const listingCacheFile = join(scratchFolder('sessref-openclaw-cache-'), 'listing-openclaw.json');
    const cached = () => openclawSource({ environment: { home, env: {} }, listingCacheFile });
    const titles = async (source: ReturnType<typeof cached>) => ((await listing(source)) as { titles: string[] }).titles.sort();
    expect(await titles(cached())).toEqual(['OpenClaw · prompt of s1', 'OpenClaw · prompt of s2']);
    // Each prompt is now unreadable where it lies: only s2's window moves on, as a write by OpenClaw moves it.
    const writer = new DatabaseSync(database);
    writer.prepare("UPDATE transcript_events SET event_json = '{not json' WHERE seq = 2").run();
    writer.prepare("UPDATE session_windows SET updated_at = 99 WHERE session_id = 's2'").run();
    writer.close();
    // s1 is read to its header alone, its title the prompt the cache kept; s2 is read on, and its prompt cannot be read now.
    expect(await titles(cached())).toEqual(['OpenClaw · prompt of s1', 'OpenClaw · s2']);
    expect(await titles(sourceOf(home))).toEqual(['OpenClaw · s1', 'OpenClaw · s2']);
  });

  it('keeps a settled listing of each database between processes: a new source over unchanged files opens none, and one written since is read again', async () => {
    const { home, database } = homeWith([{ id: 's1', events: [header('s1'), user('u', null, 'the real prompt')] }]);
    const settledLongAgo = new Date(Date.now() - 60_000);
    for (const file of readdirSync(join(database, '..'))) utimesSync(join(database, '..', file), settledLongAgo, settledLongAgo);
    const listingCacheFile = join(scratchFolder('sessref-openclaw-kept-'), 'listing-openclaw.json');
    const cached = () => openclawSource({ environment: { home, env: {} }, listingCacheFile });
    const titles = async () => ((await listing(cached())) as { titles: string[] }).titles;
    expect(await titles()).toEqual(['OpenClaw · the real prompt']);
    // What the next process finds kept: its one window, under its database's state, here given another prompt.
    const keptFile = databaseReadsFile(listingCacheFile);
    const kept = JSON.parse(readFileSync(keptFile, 'utf8')) as { reads: Record<string, { value: { firstPrompt: string }[] }> };
    expect(Object.keys(kept.reads)).toEqual([database]);
    kept.reads[database]!.value[0]!.firstPrompt = 'a prompt only the kept read has';
    writeFileSync(keptFile, JSON.stringify(kept));
    expect(await titles()).toEqual(['OpenClaw · a prompt only the kept read has']);
    const writer = new DatabaseSync(database);
    writer.prepare("UPDATE session_windows SET display_name = 'Renamed' WHERE session_id = 's1'").run();
    writer.close();
    expect(await titles()).toEqual(['OpenClaw · Renamed']);
  });

  it('never writes: the folder holds the same files after listing and reading, closed or live', async () => {
    const { home, database } = homeWith([{ id: 's1', events: REAL_SHAPE }]);
    const folder = join(database, '..');
    const files = () => readdirSync(folder).sort();
    const before = files();
    const source = sourceOf(home);
    await listing(source);
    await source.readSurface('openclaw:s1');
    expect(files()).toEqual(before);
    // A live OpenClaw: its connection keeps the -wal and -shm, which the reader reads through.
    const live = new DatabaseSync(database);
    live.exec('PRAGMA journal_mode = WAL');
    live.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)').run('s1', REAL_SHAPE.length, JSON.stringify(user('u4', 'b3', 'Turn 4, not checkpointed')));
    const liveFiles = files();
    expect(liveFiles).toContain('openclaw-agent.sqlite-wal');
    expect(carriedBy((await source.readSurface('openclaw:s1')).messages).at(-1)).toEqual(['user', 'Turn 4, not checkpointed']);
    expect(files()).toEqual(liveFiles);
    live.close();
  });
});

describe('hostile OpenClaw databases stay bounded', () => {
  itFoldsAHugeMessage((huge) => foldOpenclaw([header('s'), user('u', null, huge)], undefined, 'huge'));

  it('refuses a session whose event is not JSON, nests too deep or is no object, with the other sessions still read', async () => {
    const { home, database } = homeWith([{ id: 'ok', events: [header('ok'), user('u', null, 'fine')] }, { id: 'bad', events: [header('bad')] }]);
    const source = sourceOf(home);
    for (const [json, detail] of [['{not json', 'is not valid JSON'], [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'nests more than 256 levels'], ['[1]', 'is not a JSON object']] as const) {
      const writer = new DatabaseSync(database);
      writer.prepare("INSERT OR REPLACE INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('bad', 1, ?, 1)").run(json);
      writer.close();
      await expect(source.readSurface('openclaw:bad')).rejects.toMatchObject({ code: 'SOURCE_SESSION_CORRUPT', message: expect.stringContaining(detail) });
      // Listed still (its header reads), its label the id: the damaged event comes before any prompt.
      expect(await source.readTitles(['openclaw:bad'])).toEqual([{ sessionId: 'openclaw:bad', status: 'fulfilled', title: 'OpenClaw · bad' }]);
      expect(carriedBy((await source.readSurface('openclaw:ok')).messages)).toEqual([['user', 'fine']]);
    }
  });

  it('refuses a session over the limits before reading its events', async () => {
    const { home } = homeWith([{ id: 's1', events: REAL_SHAPE }]);
    const few = openclawSource({ environment: { home, env: {} }, limits: { maxRows: 5, maxBytes: 1 << 20 } });
    await expect(few.readSurface('openclaw:s1')).rejects.toMatchObject({ code: 'SOURCE_SESSION_TOO_LARGE' });
    const small = openclawSource({ environment: { home, env: {} }, limits: { maxRows: 1000, maxBytes: 100 } });
    await expect(small.readSurface('openclaw:s1')).rejects.toMatchObject({ code: 'SOURCE_SESSION_TOO_LARGE' });
  });

  it('reads only real tables: a view in place of transcript_events refuses the database, named among the problems', async () => {
    const path = join(root, 'view-home', '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
    const schema = SCHEMA.replace(/CREATE TABLE transcript_events \([\s\S]*?\) STRICT;/, 'CREATE VIEW transcript_events AS WITH RECURSIVE n(seq) AS (SELECT 0 UNION ALL SELECT seq + 1 FROM n) SELECT \'x\' AS session_id, seq, NULL AS event_json, NULL AS event_zstd, NULL AS event_utf8_bytes FROM n;');
    mkdirSync(join(path, '..'), { recursive: true });
    const database = new DatabaseSync(path);
    database.exec(schema);
    database.close();
    const source = sourceOf(join(root, 'view-home'));
    expect(await listing(source)).toEqual({
      headers: [],
      titles: [],
      problems: [['openclaw:main/agent/openclaw-agent.sqlite', 'SOURCE_SESSION_UNSUPPORTED', 'main/agent/openclaw-agent.sqlite: `transcript_events` is a view, not a table: sessref reads only OpenClaw\'s own tables']],
    });
  });

  it('lists a session without a session header among the problems, and the others', async () => {
    const { home } = homeWith([{ id: 'headless', events: [user('u', null, 'no header')] }, { id: 'ok', events: [header('ok')] }]);
    const source = sourceOf(home);
    expect((await source.listSessions()).map((found) => found.id)).toEqual(['openclaw:ok']);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([['openclaw:headless', 'SOURCE_SESSION_UNSUPPORTED']]);
  });

  it('a cycle in parentId cuts the branch instead of looping', () => {
    expect(carried(foldOpenclaw([header('s'), user('a', 'b', 'one'), assistant('b', 'a', 'two')], undefined, 'cycle'))).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
    ]);
  });
});

describe('properties', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e');
  /** An event of any kind OpenClaw writes, linked anywhere (cycles, missing parents and repeated ids included). */
  const anyEvent = fc.oneof(
    fc.tuple(ids, fc.option(ids, { nil: null }), words).map(([id, parent, text]) => user(id, parent, text)),
    fc.tuple(ids, fc.option(ids, { nil: null }), words).map(([id, parent, text]) => assistant(id, parent, text)),
    fc.tuple(ids, fc.option(ids, { nil: null }), words, ids).map(([id, parent, text, kept]) => compaction(id, parent, text, kept)),
    fc.tuple(ids, fc.option(ids, { nil: null })).map(([id, parent]) => custom(id, parent, 'openclaw:bootstrap-context:full')),
    fc.jsonValue({ maxDepth: 3 }).map((value): Event => ({ type: 'custom_message', id: 'x', content: JSON.stringify(value) })),
  );
  let runs = 0;

  it("a listing's windows kept between processes read back as they were, and nothing else reads back as windows", () => {
    const text = fc.option(fc.string(), { nil: undefined });
    const window = fc.oneof(
      fc.record({
        id: fc.string(),
        updatedAt: fc.integer(),
        title: text,
        firstPrompt: text,
        header: fc.option(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null))), { nil: undefined }),
      }),
      fc.record({ id: fc.string(), error: fc.tuple(fc.constantFrom('SOURCE_SESSION_CORRUPT' as const, 'SOURCE_SESSION_UNSUPPORTED' as const), fc.string()).map(([code, message]) => new SourceReadError(code, message)) }),
    );
    fc.assert(
      fc.property(fc.array(window, { maxLength: 8 }), (windows) => {
        const back = windowsKept(JSON.parse(JSON.stringify(keptWindows(windows))));
        expect(back).toEqual(windows);
        back?.forEach((read, at) => {
          const written = windows[at]!;
          if ('error' in written) expect('error' in read && read.error.code === written.error.code && read.error.message === written.error.message).toBe(true);
        });
      }),
    );
    // A refusal that may not last is never kept; anything but what keptWindows writes is no listing.
    expect(keptWindows([{ id: 'w', error: new SourceReadError('SOURCE_SESSION_TOO_LARGE', 'over the limit here') }])).toBeUndefined();
    for (const saved of [{}, [{ id: 'w', updatedAt: '1' }], [{ id: 'w', updatedAt: 1, header: [] }], [{ id: 'w', refused: { code: 'SOURCE_SESSION_NOT_FOUND', message: 'gone' } }], [{ updatedAt: 1 }]]) {
      expect(windowsKept(saved)).toBeUndefined();
    }
  });

  it("reading a generated database gives pi's fold of its events, plain or compressed, and only text they hold", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(anyEvent, fc.boolean()), { maxLength: 15 }), async (generated) => {
        const events = [header('s'), ...generated.map(([event]) => event)];
        const stored = events.map((event, index): Stored => (index > 0 && generated[index - 1]![1] ? { zstd: event } : event));
        const { home } = homeWith([{ id: `p${(runs += 1)}`, events: stored }]);
        const surface = await sourceOf(home).readSurface(`openclaw:p${runs}`);
        const expected = foldPiEntries(events, 'expected');
        expect(surface.messages).toEqual(expected.messages);
        const text = JSON.stringify(events);
        for (const [, found] of carried(expected)) expect(text).toContain(JSON.stringify(found).slice(1, -1));
      }),
      { numRuns: 40 },
    );
  });

  it('a compaction keeps exactly its summary, the events from firstKeptEntryId up to it, and what follows', () => {
    fc.assert(
      fc.property(fc.array(words, { minLength: 1, maxLength: 8 }), fc.nat(), fc.array(words, { maxLength: 5 }), (before, keptAt, after) => {
        const chain = before.map((text, index) => (index % 2 === 0 ? user : assistant)(`m${index}`, index === 0 ? null : `m${index - 1}`, text));
        const kept = keptAt % before.length;
        const later = after.map((text, index) => user(`l${index}`, index === 0 ? 'c' : `l${index - 1}`, text));
        const expected: Item[] = [['checkpoint', 'SUMMARY'], ...before.slice(kept).map((text, index): Item => [(kept + index) % 2 === 0 ? 'user' : 'assistant', text]), ...after.map((text): Item => ['user', text])];
        expect(carried(foldOpenclaw([header('s'), ...chain, compaction('c', `m${before.length - 1}`, 'SUMMARY', `m${kept}`), ...later], undefined, 'generated'))).toEqual(expected);
      }),
    );
  });
});
