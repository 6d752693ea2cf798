/**
 * The opencode reader over what opencode 1.18.33 really writes
 * (`../shared/formats/opencode-1.18.md`): every real sample read in place
 * from `../shared` with the conversation opencode would continue from and
 * without a byte written; generated databases of 1.18's shape (ids only in
 * the columns, the `event` log, the experimental `session_message` table,
 * `run`'s quoted prompts, placeholder titles); folds of generated rows; and
 * hostile or huge stores refused with codes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SurfaceMessage } from '@sessref/core';
import { opencodeSource } from '@sessref/sources';
import { firstPrompt, opencodeSurface } from '../src/opencode/fold.js';
import { sessionEntryMessage } from '../src/opencode/session-entries.js';
import { readDatabaseSession } from '../src/opencode/sqlite-store.js';
import { carried as carriedBy, itReadsEverySample, samplesOf, scratchFolder, type Item } from './support.js';

const REAL = join(samplesOf('opencode'), 'real-1.18.33');
const carried = (messages: readonly SurfaceMessage[]): Item[] => carriedBy({ createdAt: 0, messages: [...messages], throughRecord: null });
const scratch = scratchFolder('sessref-opencode-118-');

/** Every file under `folder` with a digest of its bytes: what "nothing written" compares. */
function fingerprint(folder: string): string[] {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${join(entry.parentPath, entry.name)} ${createHash('sha256').update(readFileSync(join(entry.parentPath, entry.name))).digest('hex')}`)
    .sort();
}

/** The `tables.dump.jsonl` beside a sample: each table's rows as JSON. */
function dumpOf(folder: string): Map<string, Record<string, unknown>[]> {
  const lines = readFileSync(join(folder, 'tables.dump.jsonl'), 'utf8').split('\n').filter((line) => line !== '');
  return new Map(lines.map((line) => JSON.parse(line) as { table: string; rows: Record<string, unknown>[] }).map(({ table, rows }) => [table, rows]));
}

/** A source over a sample folder laid out home-relative, with nothing moved by the environment. */
const sampleSource = (home: string) => opencodeSource({ environment: { home, env: {} } });

const SUMMARIZED = join(REAL, 'run-continue-summarize');
const SUMMARIZED_ID = 'opencode:ses_db61e1770ffeybPhSJoD20QnA2';
const V2 = join(REAL, 'v2-api-experimental');
const V2_ID = 'opencode:ses_db61b5dccffeMF250zh4aMqdKv';

describe('the real opencode 1.18.33 samples, read in place', () => {
  itReadsEverySample(REAL, {
    'run-continue-summarize/.local/share/opencode/opencode.db': async () => {
      const before = fingerprint(SUMMARIZED);
      const source = sampleSource(SUMMARIZED);
      expect(await source.listSessions()).toEqual([{ id: SUMMARIZED_ID, createdAt: 1796535871632, cwd: '/home/user/project' }]);
      expect(source.problems()).toEqual([]);
      // The title agent answered (the fake model's text): opencode's own title.
      expect(await source.readTitles([SUMMARIZED_ID])).toEqual([{ sessionId: SUMMARIZED_ID, status: 'fulfilled', title: 'opencode · Hello from the fake model. (request 1)' }]);
      const surface = await source.readSurface(SUMMARIZED_ID);
      // `summarize` compacted after two turns: opencode's next request was the summary and the new prompt
      // (the compaction's own user message, rendered "What did we do so far?", carries no text of the user's).
      expect(carried(surface.messages)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 5)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 6)'],
      ]);
      // 9 messages and 19 parts; the bash call and its output are a tool message no snapshot carries.
      expect(surface.capturedThroughSeq).toBe(27);
      expect(JSON.stringify(surface.messages)).not.toContain('notes.txt');
      expect(fingerprint(SUMMARIZED)).toEqual(before);
    },
    'run-continue-summarize/tables.dump.jsonl': async () => {
      // Not read by sessref: the same rows as JSON. The reader counts exactly the dump's messages and parts of the session.
      const dump = dumpOf(SUMMARIZED);
      expect(dump.get('message')).toHaveLength(9);
      expect(dump.get('part')).toHaveLength(19);
      expect(dump.get('event')).toHaveLength(65);
      const surface = await sampleSource(SUMMARIZED).readSurface(SUMMARIZED_ID);
      expect(surface.capturedThroughSeq).toBe(dump.get('message')!.length + dump.get('part')!.length - 1);
      // ids live only in the columns: no message or part data names its own id.
      expect([...dump.get('message')!, ...dump.get('part')!].every((row) => !('id' in (JSON.parse(String(row['data'])) as object)))).toBe(true);
    },
    'run-continue-summarize/.config/opencode/opencode.json': async () => {
      // opencode's configuration (the fake provider), outside the data folder: never a session, never opened.
      const config = JSON.parse(readFileSync(join(SUMMARIZED, '.config/opencode/opencode.json'), 'utf8')) as Record<string, unknown>;
      expect(config['model']).toBe('fake/gpt-fake');
      expect((await sampleSource(SUMMARIZED).listSessions()).map((header) => header.id)).toEqual([SUMMARIZED_ID]);
    },
    'v2-api-experimental/.local/share/opencode/opencode.db': async () => {
      const before = fingerprint(V2);
      const source = sampleSource(V2);
      expect(await source.listSessions()).toEqual([{ id: V2_ID, createdAt: 1796536050257, cwd: '/home/user/project' }]);
      // The title stayed opencode's placeholder: the first prompt titles the session.
      expect(await source.readTitles([V2_ID])).toEqual([{ sessionId: V2_ID, status: 'fulfilled', title: 'opencode · first v2 prompt: say hi' }]);
      // No message rows: the conversation is the session_message rows in seq order. The only reply ran a tool and
      // has no text; the third prompt ("after compaction" in name only: that endpoint answered 503) was promoted after it.
      const surface = await source.readSurface(V2_ID);
      expect(carried(surface.messages)).toEqual([
        ['user', 'first v2 prompt: say hi'],
        ['user', 'second v2 prompt'],
        ['user', 'third v2 prompt after compaction'],
      ]);
      expect(surface.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
      expect(JSON.stringify(surface.messages)).not.toContain('notes.txt');
      expect(fingerprint(V2)).toEqual(before);
    },
    'v2-api-experimental/tables.dump.jsonl': async () => {
      const dump = dumpOf(V2);
      expect(dump.get('message')).toEqual([]);
      expect(dump.get('session_message')!.map((row) => row['type'])).toEqual(['user', 'user', 'assistant', 'user']);
      // The context epoch's baseline is opencode's system context: injected, never carried.
      const baseline = String(dump.get('session_context_epoch')![0]!['baseline']);
      const surface = await sampleSource(V2).readSurface(V2_ID);
      expect(JSON.stringify(surface.messages)).not.toContain(baseline.slice(0, 40));
    },
  });
});

/** A database with opencode 1.18.33's tables as it wrote them (the columns the reader and these tests use), in WAL mode. */
function create118Database(path: string): DatabaseSync {
  mkdirSync(join(path, '..'), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec(`
    PRAGMA journal_mode = WAL;
    CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
      path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, revert TEXT, metadata TEXT, agent TEXT, model TEXT,
      time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
    CREATE TABLE event (id TEXT PRIMARY KEY, aggregate_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
    CREATE TABLE session_message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, type TEXT NOT NULL, seq INTEGER NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
  `);
  database.prepare("INSERT INTO project (id, worktree) VALUES ('global', '/')").run();
  return database;
}

function addSession(database: DatabaseSync, id: string, title: string, created = 1000): void {
  database
    .prepare("INSERT INTO session (id, project_id, slug, directory, path, title, version, time_created, time_updated) VALUES (?, 'global', 'slug', '/home/user/project', 'home/user/project', ?, '1.18.33', ?, ?)")
    .run(id, title, created, created);
}

/** One message and its parts as 1.18 writes them: ids and the session only in the columns, never in `data`. */
function addRows(database: DatabaseSync, sessionId: string, id: string, created: number, info: object, parts: readonly object[]): void {
  database.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(id, sessionId, created, created, JSON.stringify(info));
  parts.forEach((part, index) => {
    database.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${id}_${String(index).padStart(3, '0')}`, id, sessionId, created, created, JSON.stringify(part));
  });
}

function addEntry(database: DatabaseSync, sessionId: string, id: string, type: string, seq: number, data: string): void {
  database.prepare('INSERT INTO session_message (id, session_id, type, seq, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?, ?)').run(id, sessionId, type, seq, seq, seq, data);
}

const user = (created: number) => ({ role: 'user', time: { created }, agent: 'build', model: { providerID: 'fake', modelID: 'gpt-fake' }, summary: { diffs: [] } });
const reply = (created: number, parentID: string, finish = 'stop', extra: object = {}) => ({ parentID, role: 'assistant', mode: 'build', agent: 'build', time: { created, completed: created + 1 }, finish, ...extra });
const text = (value: string, extra: object = {}) => ({ type: 'text', text: value, ...extra });
const bashCall = { type: 'tool', tool: 'bash', callID: 'call_1', state: { status: 'completed', input: { command: 'cat secret' }, output: 'TOOL OUTPUT', title: 'cat', metadata: {}, time: { start: 1, end: 2 } } };

/** A home whose opencode data folder holds one 1.18-shaped database. */
function storeHome(name: string): { home: string; data: string; database: DatabaseSync } {
  const home = join(scratch, name);
  const data = join(home, '.local', 'share', 'opencode');
  return { home, data, database: create118Database(join(data, 'opencode.db')) };
}

describe('opencode 1.18 rows', () => {
  it('ids only in the columns, the event log never read, run\'s quoted prompt kept as the model saw it, the placeholder title replaced by it', async () => {
    const { home, database } = storeHome('columns');
    addSession(database, 'ses_a', 'New session - 2026-12-06T05:44:31.632Z');
    // `opencode run "first prompt: say hi"` stores the quotes it added around an argument with spaces.
    addRows(database, 'ses_a', 'msg_001', 1001, user(1001), [text('"first prompt: say hi"')]);
    addRows(database, 'ses_a', 'msg_002', 1002, reply(1002, 'msg_001', 'tool-calls'), [{ type: 'step-start' }, bashCall, { type: 'step-finish', reason: 'tool-calls' }]);
    addRows(database, 'ses_a', 'msg_003', 1003, reply(1003, 'msg_001'), [{ type: 'step-start' }, { type: 'reasoning', text: 'REASONING' }, text('Hi.'), { type: 'step-finish', reason: 'stop' }]);
    // The event log repeats every object; as a view over nothing, any read of it would fail the session.
    database.exec('DROP TABLE event; CREATE VIEW event AS SELECT * FROM nothing_here;');
    database.close();
    const source = sampleSource(home);
    expect((await source.listSessions()).map((header) => header.id)).toEqual(['opencode:ses_a']);
    expect(await source.readTitles(['opencode:ses_a'])).toEqual([{ sessionId: 'opencode:ses_a', status: 'fulfilled', title: 'opencode · "first prompt: say hi"' }]);
    const surface = await source.readSurface('opencode:ses_a');
    expect(carried(surface.messages)).toEqual([
      ['user', '"first prompt: say hi"'],
      ['assistant', 'Hi.'],
    ]);
    expect(JSON.stringify(surface.messages)).not.toMatch(/TOOL OUTPUT|REASONING|cat secret/);
  });

  it('a title the agent gave wins; a session with no prompt at all is labelled by its id', async () => {
    const { home, database } = storeHome('titles');
    addSession(database, 'ses_named', 'Fix the flaky test', 1000);
    addRows(database, 'ses_named', 'msg_1', 1001, user(1001), [text('why is it flaky?')]);
    addSession(database, 'ses_empty', 'Child session - 2026-12-06T05:44:31.632Z', 2000);
    addRows(database, 'ses_empty', 'msg_2', 2001, user(2001), [text('<file>', { synthetic: true }), { type: 'compaction', auto: true }]);
    // A pending revert hides what it undoes from the title too: the whole first prompt, or its parts from the named one on.
    const placeholder = 'New session - 2026-12-06T05:44:31.632Z';
    database.prepare('INSERT INTO session (id, project_id, slug, directory, title, version, revert, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run('ses_undone', 'global', 's', '/w', placeholder, '1.18.33', JSON.stringify({ messageID: 'msg_u1' }), 3000, 3000);
    addRows(database, 'ses_undone', 'msg_u1', 3001, user(3001), [text('undone prompt')]);
    database.prepare('INSERT INTO session (id, project_id, slug, directory, title, version, revert, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run('ses_partly', 'global', 's', '/w', placeholder, '1.18.33', JSON.stringify({ messageID: 'msg_p1', partID: 'prt_msg_p1_001' }), 4000, 4000);
    addRows(database, 'ses_partly', 'msg_p1', 4001, user(4001), [text('kept part'), text('undone part')]);
    addRows(database, 'ses_partly', 'msg_p2', 4002, user(4002), [text('later prompt')]);
    // A damaged row gives no title (reading the session says why); the others keep theirs.
    addSession(database, 'ses_damaged', placeholder, 5000);
    database.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_d', 'ses_damaged', 5001, 5001, '{not json')").run();
    database.close();
    const ids = ['opencode:ses_named', 'opencode:ses_empty', 'opencode:ses_undone', 'opencode:ses_partly', 'opencode:ses_damaged', 'opencode:ses_missing'];
    const titles = await sampleSource(home).readTitles(ids);
    expect(titles.map((result) => (result.status === 'fulfilled' ? result.title : result.reason))).toEqual([
      'opencode · Fix the flaky test',
      'opencode · ses_empt',
      'opencode · ses_undo',
      'opencode · kept part',
      'opencode · ses_dama',
      expect.objectContaining({ code: 'SOURCE_SESSION_NOT_FOUND' }),
    ]);
  });

  it('a session listed before its first prompt is titled by it once the prompt is written, though its update time stays', async () => {
    const { home, data, database } = storeHome('late-prompt');
    addSession(database, 'ses_late', 'New session - 2026-12-06T05:47:30.257Z');
    database.close();
    const source = sampleSource(home);
    expect(await source.readTitles(['opencode:ses_late'])).toEqual([{ sessionId: 'opencode:ses_late', status: 'fulfilled', title: 'opencode · ses_late' }]);
    // The experimental API writes the prompt without touching the session row.
    const writer = new DatabaseSync(join(data, 'opencode.db'));
    addEntry(writer, 'ses_late', 'msg_1', 'user', 1, JSON.stringify({ time: { created: 1 }, text: 'a late first prompt' }));
    writer.close();
    expect(await source.readTitles(['opencode:ses_late'])).toEqual([{ sessionId: 'opencode:ses_late', status: 'fulfilled', title: 'opencode · a late first prompt' }]);
  });

  it('message rows win over session_message rows of the same session; the v2 rows are read only when there are none', async () => {
    const { home, database } = storeHome('both-tables');
    addSession(database, 'ses_v1', 'v1');
    addRows(database, 'ses_v1', 'msg_1', 1001, user(1001), [text('from message rows')]);
    addEntry(database, 'ses_v1', 'msg_x', 'user', 1, JSON.stringify({ time: { created: 1 }, text: 'from session_message' }));
    addSession(database, 'ses_v2', 'v2', 2000);
    addEntry(database, 'ses_v2', 'msg_b', 'assistant', 2, JSON.stringify({ time: { created: 2, completed: 3 }, content: [{ type: 'reasoning', text: 'REASONING' }, { type: 'text', text: 'first' }, { type: 'text', text: 'second' }] }));
    addEntry(database, 'ses_v2', 'msg_a', 'user', 1, JSON.stringify({ time: { created: 1 }, text: 'question' }));
    addEntry(database, 'ses_v2', 'msg_c', 'synthetic', 3, JSON.stringify({ time: { created: 3 }, text: 'INJECTED' }));
    addEntry(database, 'ses_v2', 'msg_d', 'assistant', 4, JSON.stringify({ time: { created: 4 }, content: [{ type: 'text', text: 'still streaming' }] }));
    database.close();
    const source = sampleSource(home);
    await source.listSessions();
    expect(carried((await source.readSurface('opencode:ses_v1')).messages)).toEqual([['user', 'from message rows']]);
    // In seq order; the synthetic entry is opencode's, the last reply is not over.
    const v2 = await source.readSurface('opencode:ses_v2');
    expect(carried(v2.messages)).toEqual([
      ['user', 'question'],
      ['assistant', 'first\nsecond'],
    ]);
    expect(JSON.stringify(v2.messages)).not.toMatch(/REASONING|still streaming/);
    expect(v2.messages).toContainEqual({ role: 'user', origin: 'other', content: [{ type: 'text', text: 'INJECTED' }] });
  });
});

describe('hostile and huge 1.18 stores stay bounded, with codes', () => {
  /** A store with one healthy session `ses_ok` and one v2 session `ses_bad` that `damage` fills. */
  async function readDamaged(name: string, damage: (database: DatabaseSync) => void, limits?: { maxRows: number; maxBytes: number }) {
    const { home, data, database } = storeHome(name);
    addSession(database, 'ses_ok', 'Healthy', 1000);
    addRows(database, 'ses_ok', 'msg_ok', 1001, user(1001), [text('healthy')]);
    addSession(database, 'ses_bad', 'Damaged', 2000);
    damage(database);
    database.close();
    const before = fingerprint(data);
    const source = opencodeSource({ environment: { home, env: {} }, ...(limits === undefined ? {} : { limits }) });
    expect((await source.listSessions()).map((header) => header.id)).toEqual(['opencode:ses_bad', 'opencode:ses_ok']);
    const outcome = await source.readSurface('opencode:ses_bad').then(
      (surface) => ({ surface }),
      (error: unknown) => ({ error }),
    );
    expect(carried((await source.readSurface('opencode:ses_ok')).messages)).toEqual([['user', 'healthy']]);
    expect(fingerprint(data)).toEqual(before);
    return outcome;
  }

  it.each([
    ['an entry type whose rule is unknown (a v2 compaction)', 'SOURCE_SESSION_UNSUPPORTED', (database: DatabaseSync) => addEntry(database, 'ses_bad', 'msg_c', 'compaction', 1, '{"summary":"s"}')],
    ['data that is not JSON', 'SOURCE_SESSION_CORRUPT', (database: DatabaseSync) => addEntry(database, 'ses_bad', 'msg_j', 'user', 1, '{"text":')],
    ['data nested 100,000 levels deep', 'SOURCE_SESSION_CORRUPT', (database: DatabaseSync) => addEntry(database, 'ses_bad', 'msg_n', 'user', 1, `${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
    ['data that is a JSON array', 'SOURCE_SESSION_CORRUPT', (database: DatabaseSync) => addEntry(database, 'ses_bad', 'msg_a', 'user', 1, '[1]')],
    ['session_message as a view', 'SOURCE_SESSION_UNSUPPORTED', (database: DatabaseSync) => database.exec('DROP TABLE session_message; CREATE VIEW session_message AS SELECT 1 AS id;')],
  ])('%s refuses that session alone (%s), writing nothing', async (name, code, damage) => {
    const { error } = (await readDamaged(name.replaceAll(/\W+/g, '-'), damage)) as { error?: unknown };
    expect(error).toMatchObject({ code });
  });

  it('more session_message rows or bytes than the limits refuse the session before a row is read', async () => {
    const many = (database: DatabaseSync) => {
      for (let index = 0; index < 20; index += 1) addEntry(database, 'ses_bad', `msg_${index}`, 'user', index, JSON.stringify({ text: `prompt ${index} ${'x'.repeat(60)}` }));
    };
    expect(await readDamaged('many-rows', many, { maxRows: 10, maxBytes: 1 << 20 })).toMatchObject({ error: { code: 'SOURCE_SESSION_TOO_LARGE' } });
    expect(await readDamaged('many-bytes', many, { maxRows: 100, maxBytes: 400 })).toMatchObject({ error: { code: 'SOURCE_SESSION_TOO_LARGE' } });
  });

  it('a 32 MiB prompt in a session_message row is carried whole, once', async () => {
    const huge = 'x'.repeat(32 * 1024 * 1024);
    const { surface } = (await readDamaged('huge', (database) => addEntry(database, 'ses_bad', 'msg_h', 'user', 1, JSON.stringify({ text: huge })))) as { surface: { messages: readonly SurfaceMessage[] } };
    expect(carried(surface.messages)[0]?.[1]).toHaveLength(huge.length);
  });
});

describe('properties of 1.18 rows', () => {
  /** One generated turn: a prompt (maybe with opencode's synthetic text), then replies (tool steps, then maybe text), or a compaction. */
  const turn = fc.oneof(
    fc.record({ kind: fc.constant('prompt' as const), prompt: fc.string({ minLength: 1, maxLength: 8 }).map((value) => `p${value}`), synthetic: fc.boolean(), toolSteps: fc.nat({ max: 2 }), answer: fc.option(fc.string({ minLength: 1, maxLength: 8 }).map((value) => `a${value}`), { nil: undefined }) }),
    fc.record({ kind: fc.constant('compaction' as const), summary: fc.string({ minLength: 1, maxLength: 8 }).map((value) => `s${value}`), finished: fc.boolean() }),
  );
  let run = 0;

  it('a session of generated 1.18 rows carries the latest finished compaction\'s summary, then the prompts and answers after it, nothing else', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 6 }), async (turns) => {
        const { home, database } = storeHome(`property-${run++}`);
        addSession(database, 'ses_p', 'Generated');
        let clock = 1000;
        let expected: Item[] = [];
        turns.forEach((item, index) => {
          const userId = `msg_${String(index).padStart(3, '0')}_0`;
          if (item.kind === 'compaction') {
            addRows(database, 'ses_p', userId, (clock += 1), user(clock), [{ type: 'compaction', auto: false }]);
            const summary = reply((clock += 1), userId, item.finished ? 'stop' : '', { summary: true, mode: 'compaction', agent: 'compaction', ...(item.finished ? {} : { error: { name: 'MessageAbortedError' } }) });
            addRows(database, 'ses_p', `msg_${String(index).padStart(3, '0')}_1`, clock, summary, [{ type: 'step-start' }, text(item.summary)]);
            if (item.finished) expected = [['checkpoint', item.summary]];
            return;
          }
          addRows(database, 'ses_p', userId, (clock += 1), user(clock), [text(item.prompt), ...(item.synthetic ? [text('INJECTED', { synthetic: true })] : [])]);
          expected.push(['user', item.prompt]);
          for (let step = 0; step < item.toolSteps; step += 1) addRows(database, 'ses_p', `msg_${String(index).padStart(3, '0')}_t${step}`, (clock += 1), reply(clock, userId, 'tool-calls'), [bashCall]);
          if (item.answer !== undefined) {
            addRows(database, 'ses_p', `msg_${String(index).padStart(3, '0')}_z`, (clock += 1), reply(clock, userId), [{ type: 'reasoning', text: 'REASONING' }, text(item.answer)]);
            expected.push(['assistant', item.answer]);
          }
        });
        database.close();
        const surface = await sampleSource(home).readSurface('opencode:ses_p');
        expect(carried(surface.messages)).toEqual(expected);
        expect(JSON.stringify(surface.messages.filter((message) => message.origin !== 'other'))).not.toMatch(/INJECTED|REASONING|TOOL OUTPUT/);
      }),
      { numRuns: 25 },
    );
  });

  it('a title read only as far as the first prompt is the one the whole session gives (firstPrompt over every row), pending reverts included', async () => {
    const part = fc.record({ type: fc.constantFrom('text', 'text', 'file', 'compaction'), text: fc.constantFrom('', ' ', 'a\nb', 'prompt'), synthetic: fc.boolean(), ignored: fc.boolean() });
    const spec = fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), parts: fc.array(part, { maxLength: 3 }) }), { maxLength: 5 });
    const revert = fc.option(fc.record({ message: fc.nat({ max: 5 }), part: fc.option(fc.nat({ max: 3 }), { nil: undefined }) }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(spec, revert, async (messages, undo) => {
        const { home, data, database } = storeHome(`title-property-${run++}`);
        const id = (index: number) => `msg_${String(index).padStart(3, '0')}`;
        const reverted = undo === undefined ? undefined : { messageID: id(undo.message), ...(undo.part === undefined ? {} : { partID: `prt_${id(undo.message)}_${String(undo.part).padStart(3, '0')}` }) };
        database
          .prepare("INSERT INTO session (id, project_id, slug, directory, title, version, revert, time_created, time_updated) VALUES ('ses_t', 'global', 's', '/w', 'New session - 2026-12-06T05:44:31.632Z', '1.18.33', ?, 1, 1)")
          .run(reverted === undefined ? null : JSON.stringify(reverted));
        messages.forEach((message, index) => addRows(database, 'ses_t', id(index), 10 + index, message.role === 'user' ? user(10 + index) : reply(10 + index, id(0)), message.parts));
        database.close();
        const whole = firstPrompt(await readDatabaseSession(join(data, 'opencode.db'), 'ses_t', { maxRows: 1000, maxBytes: 1 << 20 }), reverted === undefined ? undefined : { messageId: reverted.messageID, ...(reverted.partID === undefined ? {} : { partId: reverted.partID }) });
        const [title] = await sampleSource(home).readTitles(['opencode:ses_t']);
        expect(title).toEqual({ sessionId: 'opencode:ses_t', status: 'fulfilled', title: `opencode · ${whole ?? 'ses_t'}` });
      }),
      { numRuns: 40 },
    );
  });

  it('session_message rows fold to their users\' texts and finished replies\' text, never synthetic text, reasoning or tools', () => {
    const word = fc.string({ minLength: 1, maxLength: 6 }).map((value) => `w${value}`);
    const content = fc.array(fc.record({ type: fc.constantFrom('text', 'reasoning', 'tool'), text: word }), { maxLength: 3 });
    const entry = fc.oneof(
      fc.record({ type: fc.constant('user'), text: word }),
      fc.record({ type: fc.constant('synthetic'), text: word }),
      fc.record({ type: fc.constant('assistant'), content, completed: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 8 }), (entries) => {
        const rows = entries.map((item, seq) => ({
          id: `msg_${String(seq).padStart(3, '0')}`,
          type: item.type,
          seq,
          data: 'content' in item ? { time: { created: seq, ...(item.completed ? { completed: seq + 1 } : {}) }, content: item.content } : { time: { created: seq }, text: item.text },
        }));
        const expected = entries.flatMap((item, index): Item[] => {
          if (item.type === 'user') return [['user', item.text]];
          if (!('content' in item) || !(item.completed || index < entries.length - 1)) return [];
          const texts = item.content.filter((part) => part.type === 'text').map((part) => part.text);
          return texts.length === 0 ? [] : [['assistant', texts.join('\n')]];
        });
        expect(carried(opencodeSurface(rows.map(sessionEntryMessage), undefined))).toEqual(expected);
      }),
    );
  });
});
