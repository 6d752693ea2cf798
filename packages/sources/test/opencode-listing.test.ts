/**
 * opencode's and Kilo's listing answered from memory while their store is
 * unchanged (#33), and a new process's from the reads an earlier one kept
 * (#31, theirs and OpenClaw's): the rule (`DatabaseListings`) over a modelled file system
 * whose clock is as coarse as any, and the source over real databases that
 * node:sqlite writes in WAL mode as opencode does, counting every open of a
 * database through the readers' one way into SQLite.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileRevision } from '@sessref/platform';
import { readRevision } from '@sessref/platform';
import { DatabaseListings, type DatabaseLooks, type KeptReads } from '../src/database-listings.js';
import { SourceReadError } from '../src/errors.js';
import { sessionOf } from '../src/opencode/model.js';
import { keptSessionRows, listDatabaseSessions, sessionRowsKept, type SessionRow } from '../src/opencode/sqlite-store.js';
import { databaseReadsFile, listingCache, promptTitleCache, type DatabaseReadCache, type KeptDatabaseRead } from '../src/transcripts/listing-cache.js';
import type * as SqliteDatabase from '../src/sqlite-database.js';
import type { kiloSource as KiloSource } from '../src/kilo/source.js';
import type { opencodeSource as OpencodeSource } from '../src/opencode/source.js';
import { readsThroughWal } from '../src/sqlite-database.js';
import { scratchFolder } from './support.js';

const scratch = scratchFolder('sessref-opencode-listing-');
const SETTLED_MS = 2_000;
const NS_PER_MS = 1_000_000n;

/**
 * What happens to the store between listings: a commit (to the -wal, which keeps its size when it is written over from its
 * start), a checkpoint (the database file), the -wal given its owner again (SQLite run as root, at any open: only its
 * change time moves), time passing, a listing, and a new process started over the file the last one kept.
 */
type Step = { kind: 'commit'; sameSize: boolean } | { kind: 'checkpoint' } | { kind: 'owner' } | { kind: 'wait'; ms: number } | { kind: 'list' } | { kind: 'new process' };
const storeStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('commit' as const), sameSize: fc.boolean() }),
  fc.record({ kind: fc.constant('checkpoint' as const) }),
  fc.record({ kind: fc.constant('owner' as const) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5_000 })) }),
  fc.record({ kind: fc.constant('list' as const) }),
);
/** File systems' timestamp steps, from the nanosecond to FAT's two seconds. */
const tick = fc.constantFrom(1n, NS_PER_MS, 10n * NS_PER_MS, 1000n * NS_PER_MS, 2000n * NS_PER_MS);

/**
 * Run `steps` over a modelled store whose file times are its clock cut to `tickNs`, listing it through the listings
 * `open` makes (again at each new process): every listing gives what the database holds at that moment, and one over a
 * store unwritten since a read the rule keeps reads nothing.
 */
async function checkRule(tickNs: bigint, startMs: number, steps: readonly Step[], open: (read: () => Promise<number>, looks: DatabaseLooks) => DatabaseListings<number>): Promise<void> {
  let nowMs = 1_800_000_000_000 + startMs;
  /** A time as stat shows it: the clock cut to the file system's step. */
  const stamp = (): bigint => ((BigInt(nowMs) * NS_PER_MS) / tickNs) * tickNs;
  const written = (ino: bigint, size: bigint): FileRevision => ({ dev: 1n, ino, size, mtimeNs: stamp(), ctimeNs: stamp() });
  let database = written(1n, 4096n);
  let wal = written(2n, 0n);
  let content = 0;
  const looks: DatabaseLooks = { state: () => ({ database, wal, throughWal: true }), now: () => nowMs };
  const read = (): Promise<number> => Promise.resolve(content);
  let listings = open(read, looks);
  let readsBefore = 0;
  /** Whether anything was written since the last read the rule keeps: until then, a listing may read. */
  let writtenSinceKeptRead = true;
  for (const next of steps) {
    if (next.kind === 'commit') {
      content += 1;
      wal = written(2n, next.sameSize ? wal.size : wal.size + 4096n);
    } else if (next.kind === 'checkpoint') {
      database = written(1n, database.size);
    } else if (next.kind === 'owner') {
      wal = { ...wal, ctimeNs: stamp() };
    } else if (next.kind === 'wait') {
      nowMs += next.ms;
    } else if (next.kind === 'new process') {
      listings = open(read, looks);
      readsBefore = 0;
    }
    if (next.kind === 'commit' || next.kind === 'checkpoint') writtenSinceKeptRead = true;
    if (next.kind !== 'list') continue;
    expect(await listings.get('store.db')).toBe(content);
    if (!writtenSinceKeptRead) expect(listings.reads).toBe(readsBefore);
    // A read is kept when neither file was written within the settling time before it.
    if (listings.reads !== readsBefore) writtenSinceKeptRead = BigInt(nowMs) * NS_PER_MS - (database.mtimeNs > wal.mtimeNs ? database.mtimeNs : wal.mtimeNs) < BigInt(SETTLED_MS) * NS_PER_MS;
    readsBefore = listings.reads;
  }
}

describe('the rule: a database is read again only when its files changed, or changed too recently to tell', () => {
  it('every listing gives what the database holds at that moment, however coarse the clock of the file system, and an unchanged, settled store is never read again', async () => {
    await fc.assert(
      fc.asyncProperty(tick, fc.integer({ min: 0, max: 10_000 }), fc.array(storeStep, { maxLength: 60 }), async (tickNs, startMs, steps) => {
        await checkRule(tickNs, startMs, steps, (read, looks) => new DatabaseListings(read, SETTLED_MS, looks));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the rule across processes: reads kept in a file answer a new process exactly as the one that made them would have (#31)', () => {
  it('every listing of every process gives what the database holds, and a process over a settled, unchanged store reads nothing', async () => {
    const steps = fc.array(fc.oneof(storeStep, fc.constant<Step>({ kind: 'new process' })), { maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(tick, fc.integer({ min: 0, max: 10_000 }), steps, async (tickNs, startMs, generated) => {
        // The file between processes, as JSON keeps it.
        let file = '{}';
        const cache: DatabaseReadCache = {
          load: () => new Map(Object.entries(JSON.parse(file) as Record<string, KeptDatabaseRead>)),
          save: (reads) => void (file = JSON.stringify(Object.fromEntries(reads))),
        };
        const kept: KeptReads<number> = { cache, encode: (value) => value, decode: (saved) => (typeof saved === 'number' ? saved : undefined) };
        await checkRule(tickNs, startMs, generated, (read, looks) => new DatabaseListings(read, SETTLED_MS, looks, kept));
      }),
      { numRuns: 300 },
    );
  });

  it('a kept read its source cannot decode, or would not keep, is read again', async () => {
    let file = new Map<string, KeptDatabaseRead>();
    const cache: DatabaseReadCache = { load: () => new Map(file), save: (reads) => void (file = new Map(reads)) };
    const looks: DatabaseLooks = { state: () => ({ database: { dev: 1n, ino: 1n, size: 1n, mtimeNs: 0n, ctimeNs: 0n }, wal: undefined, throughWal: false }), now: () => 1_800_000_000_000 };
    const read = () => Promise.resolve('read');
    const undecodable: KeptReads<string> = { cache, encode: (value) => value, decode: () => undefined };
    await new DatabaseListings(read, SETTLED_MS, looks, undecodable).get('a.sqlite');
    const again = new DatabaseListings(read, SETTLED_MS, looks, undecodable);
    await again.get('a.sqlite');
    expect(again.reads).toBe(1);
    file = new Map();
    await new DatabaseListings(read, SETTLED_MS, looks, { cache, encode: () => undefined, decode: (saved) => saved as string }).get('a.sqlite');
    expect(file.size).toBe(0);
  });
});
/** A database with opencode's tables (session.sql.ts, project.sql.ts), in WAL mode, as opencode keeps it open while it runs. */
function openStore(path: string): DatabaseSync {
  mkdirSync(join(path, '..'), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec(`
    PRAGMA journal_mode = WAL;
    CREATE TABLE IF NOT EXISTS project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER, time_updated INTEGER);
    CREATE TABLE IF NOT EXISTS session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
      path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, revert TEXT, permission TEXT, time_created INTEGER, time_updated INTEGER,
      time_compacting INTEGER, time_archived INTEGER);
    CREATE TABLE IF NOT EXISTS message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
  `);
  return database;
}

/**
 * Commit one new session row, as opencode's `Session.create` does; with
 * `placeholder`, titled as Kilo leaves every session (its first prompt
 * titles it) and given that prompt, unless `prompt` is `null`.
 */
function addSession(database: DatabaseSync, id: string, created: number, placeholder = false, prompt: string | null = `prompt of ${id}`): void {
  const title = placeholder ? `New session - ${new Date(created).toISOString()}` : `Session ${id}`;
  database
    .prepare('INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
    .run(id, 'proj', 'slug', '/work/app', title, '1.18.0', created, created);
  if (!placeholder || prompt === null) return;
  database.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(`msg_${id}`, id, created, created, JSON.stringify({ role: 'user', time: { created } }));
  database.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${id}`, `msg_${id}`, id, created, created, JSON.stringify({ type: 'text', text: prompt }));
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLED_MS + 100));

describe("opencode's and Kilo's source over a real store", () => {
  afterEach(() => {
    vi.doUnmock('../src/sqlite-database.js');
    vi.resetModules();
  });

  /** The source modules loaded afresh with every open of a database counted, by path. */
  async function countingOpens(): Promise<{ opens: string[]; opencodeSource: typeof OpencodeSource; kiloSource: typeof KiloSource }> {
    const opens: string[] = [];
    vi.resetModules();
    vi.doMock('../src/sqlite-database.js', async (importOriginal) => {
      const real = await importOriginal<typeof SqliteDatabase>();
      const counted: typeof real.withReadOnlyDatabase = (path, agent, read) => {
        opens.push(path);
        return real.withReadOnlyDatabase(path, agent, read);
      };
      return { ...real, withReadOnlyDatabase: counted };
    });
    const [{ opencodeSource }, { kiloSource }] = await Promise.all([import('../src/opencode/source.js'), import('../src/kilo/source.js')]);
    return { opens, opencodeSource, kiloSource };
  }

  it.each([
    ['opencode', 'opencode', 'opencode.db'],
    ['kilo', 'kilo', 'kilo.db'],
  ] as const)('%s: an unchanged store lists without opening the database; a commit, a checkpoint and a write right after a listing are each seen by the next listing', async (agent, folder, file) => {
    const { opens, opencodeSource, kiloSource } = await countingOpens();
    const data = join(scratch, agent, 'data');
    const path = join(data, folder, file);
    const writer = openStore(path);
    writer.prepare('INSERT INTO project (id, worktree) VALUES (?, ?)').run('proj', '/work/app');
    // Kilo's sessions keep their placeholder title: their first prompts title them, one with none yet.
    const kilo = agent === 'kilo';
    for (let n = 1; n <= 5; n += 1) addSession(writer, `ses_${n}`, 1000 + n, kilo, n === 5 ? null : undefined);
    const environment = { home: join(scratch, agent, 'nobody'), env: { XDG_DATA_HOME: data } };
    const source = kilo ? kiloSource({ environment }) : opencodeSource({ environment });
    const ids = async () => (await source.listSessions()).map((header) => header.id.slice(agent.length + 1));
    const titles = async () => (await source.readTitles((await source.listSessions()).map((header) => header.id))).map((result) => (result.status === 'fulfilled' ? result.title : 'rejected'));
    const opened = () => opens.filter((opened) => opened === path).length;

    // opencode running: the rows are in the -wal, read through it.
    expect(readsThroughWal(path)).toBe(true);
    await settle();
    expect(await ids()).toEqual(['ses_5', 'ses_4', 'ses_3', 'ses_2', 'ses_1']);
    expect(opened()).toBe(1);
    const label = kilo ? (n: number) => `Kilo · prompt of ses_${n}` : (n: number) => `opencode · Session ses_${n}`;
    expect(await titles()).toEqual([kilo ? 'Kilo · ses_5' : label(5), label(4), label(3), label(2), label(1)]);
    // Kilo's prompts are read once, in one more open of the database; a session with none is not looked at again while the store is unchanged.
    const listedOnce = opened();
    expect(listedOnce).toBe(kilo ? 2 : 1);
    expect(await ids()).toHaveLength(5);
    expect(await titles()).toHaveLength(5);
    expect(opened()).toBe(listedOnce);

    // A new session committed: appended to the -wal, seen by the next listing (read while the -wal has just changed, and so again after).
    addSession(writer, 'ses_6', 1006, kilo);
    expect(await ids()).toContain('ses_6');
    expect(opened()).toBe(listedOnce + 1);
    expect(await ids()).toContain('ses_6');
    expect(opened()).toBe(listedOnce + 2);
    await settle();
    expect(await ids()).toHaveLength(6);
    expect(opened()).toBe(listedOnce + 3);
    expect(await titles()).toContain(kilo ? 'Kilo · prompt of ses_6' : 'opencode · Session ses_6');
    const settledOpens = opened();
    expect(await ids()).toHaveLength(6);
    expect(await titles()).toHaveLength(6);
    expect(opened()).toBe(settledOpens);

    // A checkpoint copies the -wal into the database file; the next commit writes the -wal over from its start.
    const walBefore = statSync(`${path}-wal`).size;
    writer.exec('PRAGMA wal_checkpoint(PASSIVE)');
    await settle();
    expect(await ids()).toHaveLength(6);
    expect(opened()).toBe(settledOpens + 1);
    expect(await ids()).toHaveLength(6);
    expect(opened()).toBe(settledOpens + 1);
    addSession(writer, 'ses_7', 1007);
    // Written over, not grown: only the times tell.
    expect(statSync(`${path}-wal`).size).toBe(walBefore);
    expect(await ids()).toContain('ses_7');

    // The last connection closed: SQLite checkpoints and removes the -wal and -shm; the store then reads the file alone.
    writer.close();
    expect(readsThroughWal(path)).toBe(false);
    expect(await ids()).toHaveLength(7);
    await settle();
    expect(await ids()).toHaveLength(7);
    const closedOpens = opened();
    expect(await ids()).toHaveLength(7);
    expect(opened()).toBe(closedOpens);
    source.close();
  });

  it("Kilo's titles taken from first prompts are kept between processes: a new source reads no prompt it knows, and reads again the prompt of a session updated since", async () => {
    const { opens, kiloSource } = await countingOpens();
    const data = join(scratch, 'kilo-titles', 'data');
    const path = join(data, 'kilo', 'kilo.db');
    const writer = openStore(path);
    for (let n = 1; n <= 3; n += 1) addSession(writer, `ses_${n}`, 1000 + n, true);
    writer.close();
    const cache = join(scratch, 'kilo-titles', 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const listingCacheFile = join(cache, 'listing-kilo.v1.json');
    const environment = { home: join(scratch, 'kilo-titles', 'nobody'), env: { XDG_DATA_HOME: data } };
    /** What a new process lists: every label, and how many times it opened the database. */
    const labels = async (): Promise<{ titles: string[]; opens: number }> => {
      const before = opens.length;
      const source = kiloSource({ environment, listingCacheFile });
      const results = await source.readTitles((await source.listSessions()).map((header) => header.id));
      return { titles: results.map((result) => (result.status === 'fulfilled' ? (result.title ?? 'untitled') : 'rejected')), opens: opens.length - before };
    };
    const [third, second, first] = ['Kilo · prompt of ses_3', 'Kilo · prompt of ses_2', 'Kilo · prompt of ses_1'];
    expect(await labels()).toEqual({ titles: [third, second, first], opens: 2 });
    expect(await labels()).toEqual({ titles: [third, second, first], opens: 1 });
    // Kilo rewrites a session (here its first prompt, with its update time): that one prompt is read again, in one open.
    const rewriter = new DatabaseSync(path);
    rewriter.prepare('UPDATE part SET data = ? WHERE session_id = ?').run(JSON.stringify({ type: 'text', text: 'a new first prompt' }), 'ses_2');
    rewriter.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(2002, 'ses_2');
    rewriter.close();
    expect(await labels()).toEqual({ titles: [third, 'Kilo · a new first prompt', first], opens: 2 });
    expect(await labels()).toEqual({ titles: [third, 'Kilo · a new first prompt', first], opens: 1 });
  });

  it("reading a session leaves every session's change stamp as it was; a commit changes them", async () => {
    const { opencodeSource } = await countingOpens();
    const data = join(scratch, 'stamps', 'data');
    const writer = openStore(join(data, 'opencode', 'opencode.db'));
    for (let n = 1; n <= 3; n += 1) addSession(writer, `ses_${n}`, 1000 + n, true);
    const source = opencodeSource({ environment: { home: join(scratch, 'stamps', 'nobody'), env: { XDG_DATA_HOME: data } } });
    const before = await source.changeStamps();
    expect(before.size).toBe(3);
    // Read through the live -wal: SQLite run as root (as here) gives the -wal its owner again at the open, which moves its change time.
    await source.readSurface('opencode:ses_1');
    await source.readTitles(['opencode:ses_2']);
    expect(await source.changeStamps()).toEqual(before);
    addSession(writer, 'ses_4', 1004);
    const after = await source.changeStamps();
    expect(after.get('opencode:ses_1')).not.toBe(before.get('opencode:ses_1'));
    writer.close();
  });

  it.each(['opencode', 'kilo'] as const)("%s: a settled store's rows are kept between processes: a new source over unchanged files opens no database, and reads again once it is written", async (agent) => {
    const { opens, opencodeSource, kiloSource } = await countingOpens();
    const data = join(scratch, `${agent}-kept`, 'data');
    const path = join(data, agent, `${agent}.db`);
    const writer = openStore(path);
    writer.prepare('INSERT INTO project (id, worktree) VALUES (?, ?)').run('proj', '/work/app');
    const kilo = agent === 'kilo';
    for (let n = 1; n <= 3; n += 1) addSession(writer, `ses_${n}`, 1000 + n, kilo);
    writer.close();
    const settledLongAgo = new Date(Date.now() - 60_000);
    for (const file of readdirSync(join(path, '..'))) utimesSync(join(path, '..', file), settledLongAgo, settledLongAgo);
    const cache = join(scratch, `${agent}-kept`, 'cache');
    mkdirSync(cache, { mode: 0o700 });
    const listingCacheFile = join(cache, `listing-${agent}.v1.json`);
    const environment = { home: join(scratch, `${agent}-kept`, 'nobody'), env: { XDG_DATA_HOME: data } };
    /** What a new process lists: every label, newest first, and how many times it opened the database. */
    const process = async (): Promise<{ titles: string[]; opens: number }> => {
      const before = opens.length;
      const source = kilo ? kiloSource({ environment, listingCacheFile }) : opencodeSource({ environment, listingCacheFile });
      const results = await source.readTitles((await source.listSessions()).map((header) => header.id));
      return { titles: results.map((result) => (result.status === 'fulfilled' ? (result.title ?? 'untitled') : 'rejected')), opens: opens.length - before };
    };
    const label = (n: number, title = kilo ? `prompt of ses_${n}` : `Session ses_${n}`) => `${kilo ? 'Kilo' : 'opencode'} · ${title}`;
    // The first process reads the rows (and Kilo's first prompts, in one more open); the next opens nothing.
    expect(await process()).toEqual({ titles: [label(3), label(2), label(1)], opens: kilo ? 2 : 1 });
    expect(await process()).toEqual({ titles: [label(3), label(2), label(1)], opens: 0 });
    // What the next process finds kept is what it lists: here a row given a title of its own only the kept read has.
    const keptFile = databaseReadsFile(listingCacheFile);
    const kept = JSON.parse(readFileSync(keptFile, 'utf8')) as { reads: Record<string, { value: { id: string; title: string }[] }> };
    expect(Object.keys(kept.reads)).toEqual([path]);
    kept.reads[path]!.value.find((row) => row.id === 'ses_2')!.title = 'a title only the kept read has';
    writeFileSync(keptFile, JSON.stringify(kept));
    expect(await process()).toEqual({ titles: [label(3), label(2, 'a title only the kept read has'), label(1)], opens: 0 });
    // The agent writes the store: the next process reads it again, and sees the write.
    const renamer = new DatabaseSync(path);
    renamer.prepare('UPDATE session SET title = ? WHERE id = ?').run('Renamed', 'ses_1');
    renamer.close();
    expect(await process()).toEqual({ titles: [label(3), label(2), label(1, 'Renamed')], opens: 1 });
  });

  it('rows kept between processes read back as they were read, and nothing else reads back as rows', () => {
    const text = fc.option(fc.string(), { nil: null });
    const fields = fc.record({ id: fc.string(), title: text, directory: text, projectId: text, parentId: text, created: fc.oneof(fc.integer(), fc.double().filter((time) => !Object.is(time, -0))), updated: fc.option(fc.integer(), { nil: null }) });
    const revert = fc.option(fc.record({ messageID: fc.string(), partID: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: ['messageID'] }), { nil: null });
    // Rows as a database gives them: every session whose row sessionOf reads, and lasting refusals by id.
    const row: fc.Arbitrary<SessionRow | undefined> = fc.oneof(
      fc.tuple(fields, revert).map(([values, pending]) => sessionOf({ ...values, revert: pending })),
      fc.tuple(fc.string(), fc.constantFrom('SOURCE_SESSION_CORRUPT' as const, 'SOURCE_SESSION_UNSUPPORTED' as const), fc.string()).map(([id, code, message]) => ({ id, error: new SourceReadError(code, message) })),
    );
    fc.assert(
      fc.property(fc.array(row, { maxLength: 8 }), (generated) => {
        const rows = generated.filter((read): read is SessionRow => read !== undefined);
        const back = sessionRowsKept(JSON.parse(JSON.stringify(keptSessionRows(rows))));
        expect(back).toEqual(rows);
        back?.forEach((read, at) => expect('error' in read ? [read.error.code, read.error.message] : []).toEqual('error' in rows[at]! ? [rows[at].error.code, rows[at].error.message] : []));
      }),
    );
    // A refusal that may not last is never kept; anything but what keptSessionRows writes is no listing.
    expect(keptSessionRows([{ id: 's', error: new SourceReadError('SOURCE_SESSION_TOO_LARGE', 'over the limit here') }])).toBeUndefined();
    const written = { id: 's', title: 'T', created: 1, updated: 2 };
    expect(sessionRowsKept([written])).toEqual([{ id: 's', title: 'T', createdAt: 1, updatedAt: 2 }]);
    for (const saved of [{}, [{ ...written, created: '1' }], [{ ...written, title: 7 }], [{ ...written, title: '' }], [{ ...written, revert: { partID: 'p' } }], [{ id: 's', refused: { code: 'SOURCE_SESSION_NOT_FOUND', message: 'gone' } }], [{ title: 'T', created: 1 }]]) {
      expect(sessionRowsKept(saved)).toBeUndefined();
    }
  });

  it('a prompt-title cache keeps its entries of the right shape only, and is never read as a transcript listing (or one as it)', () => {
    const cache = join(scratch, 'title-cache');
    mkdirSync(cache, { mode: 0o700 });
    const file = join(cache, 'listing-kilo.v1.json');
    const identity = { source: 'kilo', home: '/home/u/.local/share/kilo' };
    promptTitleCache(file, identity).keep(() => new Map([['kilo:ses_1', { updatedAt: 1001, title: 'first' }], ['kilo:ses_2', { updatedAt: 1002, title: 'second' }]]), true);
    expect(promptTitleCache(file, identity).load()).toEqual(new Map([['kilo:ses_1', { updatedAt: 1001, title: 'first' }], ['kilo:ses_2', { updatedAt: 1002, title: 'second' }]]));
    expect(listingCache(file, identity).load().entries.size).toBe(0);
    expect(promptTitleCache(file, { ...identity, home: '/elsewhere' }).load().size).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { titles: Record<string, unknown> };
    saved.titles['kilo:ses_2'] = { updatedAt: 'yesterday', title: 'second' };
    writeFileSync(file, JSON.stringify(saved));
    expect(promptTitleCache(file, identity).load()).toEqual(new Map([['kilo:ses_1', { updatedAt: 1001, title: 'first' }]]));
    listingCache(file, identity).save(new Map());
    expect(promptTitleCache(file, identity).load().size).toBe(0);
  });

  it('a commit within the same second as a listing is not missed on a file system that keeps whole seconds (the -wal written over at the same size)', async () => {
    const path = join(scratch, 'same-second', 'opencode.db');
    const writer = openStore(path);
    writer.prepare('INSERT INTO project (id, worktree) VALUES (?, ?)').run('proj', '/work/app');
    for (let n = 1; n <= 5; n += 1) addSession(writer, `ses_${n}`, 1000 + n);
    writer.exec('PRAGMA wal_checkpoint(PASSIVE)');
    await settle();
    /** The files as a file system with one-second times shows them. */
    const seconds = (revision: FileRevision | undefined): FileRevision | undefined =>
      revision === undefined ? undefined : { ...revision, mtimeNs: (revision.mtimeNs / 1_000_000_000n) * 1_000_000_000n, ctimeNs: (revision.ctimeNs / 1_000_000_000n) * 1_000_000_000n };
    const listings = new DatabaseListings(async (database) => (await listDatabaseSessions(database, 100)).length, SETTLED_MS, {
      state: (database) => ({ database: seconds(readRevision(database, true)), wal: seconds(readRevision(`${database}-wal`, true)), throughWal: readsThroughWal(database) }),
      now: () => Date.now(),
    });
    expect(await listings.get(path)).toBe(5);
    expect(await listings.get(path)).toBe(5);
    expect(listings.reads).toBe(1);
    // At the start of a second: a commit (the -wal written over from its start), a listing, another commit, all within that second.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 10));
    addSession(writer, 'ses_6', 1006);
    const listed = statSync(`${path}-wal`, { bigint: true });
    expect(await listings.get(path)).toBe(6);
    addSession(writer, 'ses_7', 1007);
    const written = statSync(`${path}-wal`, { bigint: true });
    // The -wal looks as it did at the listing: the same file, the same size, the same second.
    expect([written.ino, written.size, written.mtimeNs / 1_000_000_000n]).toEqual([listed.ino, listed.size, listed.mtimeNs / 1_000_000_000n]);
    expect(await listings.get(path)).toBe(7);
    writer.close();
  });
});
