/**
 * A content search names its hits from the index and the sources' titles,
 * never from a listing of the sessions: what a listing would have left out
 * is left out all the same (the sessions of a source this process does not
 * read, which an index file shared with a process that read more still
 * holds, and those of a source whose stamps cannot be listed just now), and
 * an id is one hit, the host's own session winning, as everywhere else.
 * Under a hold of the process's first looks, one refresh serves the run.
 * The sources are in-memory stand-ins: the index and the labelling are real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { combineSources, type SessionSource, type SurfaceMessage } from '@sessref/core';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { ContentIndex } from '../src/content-index.js';
import { OWN_SOURCE } from '../src/foreign.js';

interface Stored {
  createdAt: number;
  cwd?: string;
  text: string;
  title?: string;
}

/** A source over `sessions`; `failing.stamps` makes its stamps (and its listing) fail, as an unreadable home does. */
function memorySource(name: string, sessions: Record<string, Stored>, failing = { stamps: false }): SessionSource & { listings: number } {
  const entries = () => Object.entries(sessions);
  const source = {
    name,
    listings: 0,
    owns: (id: string) => name === OWN_SOURCE || id.startsWith(`${name}:`),
    changeStamps() {
      if (failing.stamps) return Promise.reject(new Error(`${name} cannot be listed`));
      return Promise.resolve(new Map(entries().map(([id]) => [id, 'v1'])));
    },
    listSessions() {
      source.listings += 1;
      if (failing.stamps) return Promise.reject(new Error(`${name} cannot be listed`));
      return Promise.resolve(entries().map(([id, { createdAt, cwd }]) => ({ id, createdAt, ...(cwd === undefined ? {} : { cwd }) })));
    },
    readTitles: (ids: readonly string[]) => Promise.resolve(ids.map((sessionId) => ({ sessionId, status: 'fulfilled' as const, title: sessions[sessionId]?.title }))),
    readSurface(id: string) {
      const stored = sessions[id];
      if (stored === undefined) return Promise.reject(new Error(`no session ${id}`));
      const message: SurfaceMessage = { role: 'user', origin: 'direct-user', content: [{ type: 'text', text: stored.text }] };
      const { createdAt, cwd } = stored;
      return Promise.resolve({ session: { id, createdAt, ...(cwd === undefined ? {} : { cwd }) }, capturedThroughSeq: null, messages: [message] });
    },
  };
  return source;
}

const open: ContentIndex[] = [];
afterEach(async () => {
  for (const index of open.splice(0)) await index.close();
});

/** A content index over `own` and `foreign` (in `file`, else in memory), the own sessions stamped as a title index stamps them. */
function contentIndex(own: SessionSource, foreign: SessionSource[], file?: string): ContentIndex {
  const catalog = { changeStamps: (signal?: AbortSignal) => own.changeStamps(signal), ...(file === undefined ? {} : { searchIndexFile: file }) };
  const index = new ContentIndex({ own, catalog: () => catalog as never, foreign, storage: combineSources(own, foreign, { primaryName: OWN_SOURCE }) });
  open.push(index);
  return index;
}

it('labels each hit by its title, with the cwd and creation its text was indexed with, listing no source', async () => {
  const own = memorySource(OWN_SOURCE, { 'own-1': { createdAt: 2, cwd: '/proj', text: 'the shared phrase', title: 'Own work' } });
  const codex = memorySource('codex', { 'codex:1': { createdAt: 1, text: 'the shared phrase' } });
  const hits = await contentIndex(own, [codex]).search({ query: 'shared phrase', limit: 8 });
  expect(hits.map(({ sessionId, label, cwd, createdAt }) => ({ sessionId, label, cwd, createdAt }))).toEqual([
    { sessionId: 'own-1', label: 'Own work', cwd: '/proj', createdAt: 2 },
    { sessionId: 'codex:1', label: 'codex:1', cwd: undefined, createdAt: 1 },
  ]);
  expect(own.listings + codex.listings).toBe(0);
});

it('leaves out the sessions of a source whose stamps cannot be listed now, and finds them once they can', async () => {
  const failing = { stamps: false };
  const own = memorySource(OWN_SOURCE, { 'own-1': { createdAt: 2, text: 'the shared phrase' } });
  const codex = memorySource('codex', { 'codex:1': { createdAt: 1, text: 'the shared phrase' } }, failing);
  const index = contentIndex(own, [codex]);
  expect((await index.search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId)).toEqual(['own-1', 'codex:1']);
  failing.stamps = true;
  expect((await index.search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId)).toEqual(['own-1']);
  failing.stamps = false;
  expect((await index.search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId)).toEqual(['own-1', 'codex:1']);
});

it('leaves out the sessions another process indexed in the same file from a source this one does not read', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'sessref-content-hits-'));
  try {
    const file = join(directory, 'content.sqlite');
    const own = memorySource(OWN_SOURCE, { 'own-1': { createdAt: 2, text: 'the shared phrase' } });
    const codex = memorySource('codex', { 'codex:1': { createdAt: 1, text: 'the shared phrase' } });
    const everything = contentIndex(own, [codex], file);
    expect((await everything.search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId)).toEqual(['own-1', 'codex:1']);
    await everything.close();
    expect((await contentIndex(own, [], file).search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId)).toEqual(['own-1']);
  } finally {
    await Promise.all(open.splice(0).map((index) => index.close()));
    rmSync(directory, { recursive: true, force: true });
  }
});

it('gives an id both the host and another agent hold once, as the host\'s session', async () => {
  const own = memorySource(OWN_SOURCE, { 'codex:1': { createdAt: 1, text: 'the shared phrase', title: 'Named by the host' } });
  const codex = memorySource('codex', { 'codex:1': { createdAt: 2, text: 'the shared phrase' } });
  const hits = await contentIndex(own, [codex]).search({ query: 'shared phrase', limit: 8 });
  expect(hits.map(({ sessionId, createdAt }) => ({ sessionId, createdAt }))).toEqual([{ sessionId: 'codex:1', createdAt: 1 }]);
});

it('refreshes once under a hold of the first looks: a search after a refresh under the same hold lists no stamps again', async () => {
  const own = memorySource(OWN_SOURCE, { 'own-1': { createdAt: 2, text: 'the shared phrase' } });
  const codex = memorySource('codex', { 'codex:1': { createdAt: 1, text: 'the shared phrase' } });
  let stamps = 0;
  const changeStamps = codex.changeStamps.bind(codex);
  codex.changeStamps = (signal) => ((stamps += 1), changeStamps(signal));
  const index = contentIndex(own, [codex]);
  const search = async () => (await index.search({ query: 'shared phrase', limit: 8 })).map((hit) => hit.sessionId);
  const letGo = PROCESS_LISTINGS.holdFirstLook();
  try {
    await index.refresh();
    expect(await search()).toEqual(['own-1', 'codex:1']);
    expect(stamps).toBe(1);
  } finally {
    letGo();
  }
  // Without a hold, and under the next one, every search looks again.
  await search();
  expect(stamps).toBe(2);
  const again = PROCESS_LISTINGS.holdFirstLook();
  try {
    await search();
    await search();
  } finally {
    again();
  }
  expect(stamps).toBe(3);
});
