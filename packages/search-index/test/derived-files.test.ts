/**
 * Class 4 of #25: derived files are disposable. sessref's search index is
 * checked when opened and on every use: damaged, truncated, of another
 * version, a directory or a FIFO at its path, unreadable, or locked by
 * another process past the busy timeout, it is rebuilt (or left to its
 * holder for an index in memory), with a notice that names the index file,
 * and every search answers. An entry written for another revision of a
 * session (an edited or older file) is never trusted over the session's
 * current stamp. Derived files are only written in a directory no one else
 * can write into.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { deflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSource, SurfaceMessage } from '@sessref/core';
import { directoryProblem, replaceFileAtomically } from '@sessref/platform';
import { openSearchIndex, type SearchIndex } from '@sessref/search-index';

/** A source of sessions whose stamp is the version of their text. */
function source(sessions: Record<string, { text: string; version: number }>, reads: string[] = []): SessionSource {
  const message = (text: string): SurfaceMessage => ({ role: 'user', origin: 'direct-user', content: [{ type: 'text', text }] });
  return {
    name: 'fake',
    owns: (id) => id in sessions,
    changeStamps: () => Promise.resolve(new Map(Object.entries(sessions).map(([id, session]) => [id, `v${session.version}`]))),
    listSessions: () => Promise.resolve(Object.keys(sessions).map((id) => ({ id, createdAt: 1_700_000_000_000 }))),
    readTitles: (ids) => Promise.resolve(ids.map((sessionId) => ({ sessionId, status: 'fulfilled' as const, title: undefined }))),
    readSurface: (id) => {
      reads.push(id);
      return Promise.resolve({ session: { id, createdAt: 1_700_000_000_000 }, capturedThroughSeq: null, messages: [message(sessions[id]!.text)] });
    },
  };
}

const CORPUS = Object.fromEntries(Array.from({ length: 20 }, (_, at) => [`s${at}`, { text: `derived file entry ${at} heron`, version: 1 }]));

let directory: string;
const open: SearchIndex[] = [];
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'sessref-derived-'));
});
afterEach(() => {
  for (const index of open.splice(0)) index.close();
  chmodSync(directory, 0o700);
  rmSync(directory, { recursive: true, force: true });
});

async function indexAt(file: string, from: SessionSource, busyTimeoutMs = 50): Promise<SearchIndex> {
  const index = await openSearchIndex({ location: { file }, sources: [from], busyTimeoutMs });
  open.push(index);
  return index;
}

async function found(index: SearchIndex, query: string): Promise<string[]> {
  return (await index.search({ query, limit: 50 })).hits.map((hit) => hit.sessionId).sort();
}

/** A populated index file, closed. */
async function populated(file: string): Promise<void> {
  const index = await indexAt(file, source(CORPUS));
  await index.refresh();
  index.close();
}

const isRoot = process.getuid?.() === 0;

describe('a search index file that cannot be used as found (#25, class 4)', () => {
  it.each([
    ['truncated to half', (file: string) => truncateSync(file, Math.floor(statSync(file).size / 2))],
    ['truncated to its first page', (file: string) => truncateSync(file, 4096)],
    ['emptied', (file: string) => truncateSync(file, 0)],
    ['random bytes', (file: string) => writeFileSync(file, Buffer.from(Array.from({ length: 8192 }, (_, at) => (at * 7919) % 251)))],
    ['of a later schema version', (file: string) => new DatabaseSync(file).exec('PRAGMA user_version = 99;')],
    ['a FIFO', (file: string) => (rmSync(file), execFileSync('mkfifo', [file]))],
  ])('%s: rebuilt, the notice naming the index file, and every search answers', async (_what, damage) => {
    const file = join(directory, 'content.sqlite');
    await populated(file);
    damage(file);
    const index = await indexAt(file, source(CORPUS));
    expect(await index.refresh()).toMatchObject({ sessions: 20, skipped: [] });
    expect(await found(index, 'entry 7 heron')).toEqual(['s7']);
    expect((await found(index, 'heron')).length).toBe(20);
    for (const notice of index.notices) expect(notice).toContain(file);
    expect(statSync(file).isFile()).toBe(true);
  });

  it('a directory at its path: kept in memory once for the process (not rebuilt on every search), the notice naming the file', async () => {
    const file = join(directory, 'content.sqlite');
    mkdirSync(file);
    writeFileSync(join(file, 'keep'), 'not ours');
    const reads: string[] = [];
    const index = await indexAt(file, source(CORPUS, reads));
    expect(await found(index, 'entry 3 heron')).toEqual([]);
    await index.refresh();
    expect(await found(index, 'entry 3 heron')).toEqual(['s3']);
    expect(reads).toHaveLength(20);
    // Before, the in-memory index was dropped at every use (the directory's identity never matched), so every session was read again.
    expect(await index.refresh()).toMatchObject({ indexed: 0 });
    expect(await found(index, 'entry 4 heron')).toEqual(['s4']);
    expect(reads).toHaveLength(20);
    expect(index.notices).toEqual([expect.stringContaining(file)]);
    expect(index.notices[0]).toMatch(/is a directory/);
    expect(readFileSync(join(file, 'keep'), 'utf8')).toBe('not ours');
  });

  it.skipIf(isRoot)('unreadable: rebuilt or kept in memory, the notice naming the file', async () => {
    const file = join(directory, 'content.sqlite');
    await populated(file);
    chmodSync(file, 0);
    const index = await indexAt(file, source(CORPUS));
    await index.refresh();
    expect(await found(index, 'entry 9 heron')).toEqual(['s9']);
    expect(index.notices.join('\n')).toContain(file);
  });

  it('locked by another process past the busy timeout: left to its holder, searched in memory, the notice saying so', async () => {
    const file = join(directory, 'content.sqlite');
    await populated(file);
    const sizeBefore = statSync(file).size;
    // Another process's transaction holds the write lock (and, with exclusive locking, keeps readers out too).
    const holder = new DatabaseSync(file);
    holder.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM terms;');
    try {
      const changed = { ...CORPUS, s5: { text: 'derived file entry 5 egret', version: 2 } };
      const index = await indexAt(file, source(changed));
      expect(await index.refresh()).toMatchObject({ sessions: 20, skipped: [] });
      expect(await found(index, 'entry 5 egret')).toEqual(['s5']);
      expect((await found(index, 'heron')).length).toBe(19);
      expect(index.notices).toEqual([expect.stringMatching(/locked by another process/)]);
      expect(index.notices[0]).toContain(file);
      // The holder's file was neither replaced nor rebuilt under it.
      expect(statSync(file).size).toBe(sizeBefore);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Once the lock is gone, a new process uses the file again, as it was.
    const after = await indexAt(file, source(CORPUS));
    expect(after.notices).toEqual([]);
    expect(await after.refresh()).toMatchObject({ indexed: 0 });
  });

  it('locked while in use: the search in progress answers from memory', async () => {
    const file = join(directory, 'content.sqlite');
    await populated(file);
    const sessions = { ...CORPUS };
    const index = await indexAt(file, source(sessions));
    expect(await index.refresh()).toMatchObject({ indexed: 0 });
    const holder = new DatabaseSync(file);
    // Another process's write transaction: readers go on (WAL), this process's writes wait for it.
    holder.exec('BEGIN IMMEDIATE; DELETE FROM terms;');
    try {
      sessions.s2 = { text: 'derived file entry 2 ibis', version: 2 };
      expect(await index.refresh()).toMatchObject({ sessions: 20 });
      expect(await found(index, 'entry 2 ibis')).toEqual(['s2']);
      expect(index.notices).toEqual([expect.stringMatching(/locked by another process/)]);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});

describe('an index entry is never trusted over the session it describes when their stamps differ (#25, class 4)', () => {
  it('an entry written for another revision, claiming other text (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z]{6,12}$/), fc.stringMatching(/^[a-z]{6,12}$/), fc.integer({ min: 0, max: 19 }), async (forged, truth, at) => {
        fc.pre(forged !== truth && !truth.includes(forged) && !forged.includes(truth) && !/heron|entry|derived|file/.test(forged + truth));
        const file = join(directory, `content-${forged}.sqlite`);
        const id = `s${at}`;
        // The file holds the session as an edited (or older) index claims it: other text, under a stamp that is not the session's now.
        const claimed = await indexAt(file, source({ ...CORPUS, [id]: { text: `claimed ${forged}`, version: 1 } }));
        await claimed.refresh();
        claimed.close();
        const reads: string[] = [];
        const index = await indexAt(file, source({ ...CORPUS, [id]: { text: `actual ${truth}`, version: 2 } }, reads));
        expect(await index.refresh()).toMatchObject({ indexed: 1 });
        expect(reads).toEqual([id]);
        expect(await found(index, forged)).toEqual([]);
        expect(await found(index, truth)).toEqual([id]);
      }),
      { numRuns: 15, seed: 25 },
    );
  });
});

describe("a session's stored text is never trusted when it is not what the index writes (#25, class 4)", () => {
  it('a blob that is not deflated, or whose message after the matching one is malformed, gives no hit; the others still do', async () => {
    const file = join(directory, 'content-blobs.sqlite');
    const sessions = { s0: { text: 'first heron', version: 1 }, s1: { text: 'second heron', version: 1 }, s2: { text: 'third heron', version: 1 } };
    const written = await indexAt(file, source(sessions));
    await written.refresh();
    written.close();
    const db = new DatabaseSync(file);
    const keyOf = (id: string): unknown => db.prepare('SELECT key FROM sessions WHERE id = ?').get(id)?.['key'];
    // s1 matches in its first message; a second one of an unknown kind follows it, which a hit never reads.
    const malformedAfterMatch = deflateRawSync(JSON.stringify([[0, null, 0, 'second heron'], [1, null, 9, 'unknown kind']]));
    db.prepare('UPDATE messages SET blob = ? WHERE key = ?').run(Buffer.from('not deflated'), keyOf('s0') as number);
    db.prepare('UPDATE messages SET blob = ? WHERE key = ?').run(malformedAfterMatch, keyOf('s1') as number);
    db.close();
    const reads: string[] = [];
    const index = await indexAt(file, source(sessions, reads));
    expect(await found(index, 'heron')).toEqual(['s2']);
    expect(reads).toEqual([]);
  });
});

describe('derived files are written only where no one else can write (#25, class 4)', () => {
  it('refuses to write into a directory others can write, or one of another user', () => {
    const shared = join(directory, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    expect(directoryProblem(shared)).toBe('is writable by other users');
    expect(replaceFileAtomically(join(shared, 'titles.json'), Buffer.from('{}'))).toBe(false);
    expect(readdirSync(shared)).toEqual([]);
    chmodSync(shared, 0o700);
    expect(directoryProblem(shared)).toBeUndefined();
    expect(replaceFileAtomically(join(shared, 'titles.json'), Buffer.from('{}'))).toBe(true);
    expect(directoryProblem(join(shared, 'titles.json'))).toBe('is not a directory');
    if (isRoot) {
      const foreign = join(directory, 'foreign');
      mkdirSync(foreign, { mode: 0o700 });
      execFileSync('chown', ['65534', foreign]);
      expect(directoryProblem(foreign)).toBe('belongs to another user');
      expect(replaceFileAtomically(join(foreign, 'titles.json'), Buffer.from('{}'))).toBe(false);
      expect(readdirSync(foreign)).toEqual([]);
    }
  });
});
