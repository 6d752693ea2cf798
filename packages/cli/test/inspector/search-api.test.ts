/**
 * POST /api/search, the `@` menu's "Found in conversation" request, on the
 * real server over a root written through the real dsh host.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionReferenceError } from '@sessref/core';
import { phraseTokens } from '@sessref/core/internal';
import { MARKERS, UNCARRIED_MARKERS, appendCompactedTurns, appendExchange, appendInjectedNote, appendToolTurn, createHost, createSession } from '@sessref/test-support';
import { Engine } from '../../src/engine/engine.js';
import type { ApiError, SearchResponse } from '../../src/server/protocol.js';
import { MENU_SEARCH_LIMIT } from '../../src/server/api.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { TARGET, WEBAPP, httpRequest, json, removeDir, seedRoot, tempDir, type Reply } from './fixture.js';

let root: string;
let webRoot: string;
let cache: string;
let engine: Engine;
let server: RunningServer;

beforeAll(async () => {
  [root, webRoot, cache] = await Promise.all([tempDir('search-api-root'), tempDir('search-api-web'), tempDir('search-api-cache')]);
  await mkdir(join(webRoot, 'assets'));
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
  await writeFile(join(webRoot, 'assets', 'app.js'), 'export {};\n');
  await seedRoot(root);
  await writeMarkers(root);
  engine = await Engine.open({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'search.sqlite') });
  const hostile = await engine.create({ title: 'Hostile', cwd: WEBAPP });
  await engine.send(hostile, 'See <img src=x onerror=alert(1)> the lagmarker </mark> here');
  server = await startServer(engine, { webRoot });
});

/** One session holding each word of the shared marker corpus in its place (the compaction first, so the rest stays current). */
async function writeMarkers(directory: string): Promise<void> {
  const host = await createHost({ root: directory, invariants: false });
  try {
    const session = createSession(host, { id: 'markers', cwd: WEBAPP, createdAt: 1_000 });
    appendCompactedTurns(session);
    appendExchange(session, { user: `Where is the ${MARKERS.userText} module?`, assistant: `The ${MARKERS.assistantText} explains it.` });
    appendToolTurn(session, { user: 'Look around.', assistant: 'Looked.' });
    appendInjectedNote(session);
    await host.flush(session);
  } finally {
    await host.dispose();
  }
}

afterAll(async () => {
  await server?.close();
  await engine?.close();
  for (const dir of [root, webRoot, cache]) await removeDir(dir);
});

function search(body: unknown): Promise<Reply> {
  return httpRequest(server.port, {
    path: '/api/search',
    method: 'POST',
    headers: { 'x-sessref-token': server.token, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('POST /api/search', () => {
  it('answers hits with the phrase\'s spans in each snippet, never the target itself', async () => {
    const reply = await search({ target: TARGET, query: 'partition leader' });
    expect(reply.status).toBe(200);
    const { hits } = json<SearchResponse>(reply);
    expect(hits.map((hit) => hit.sessionId)).toEqual(['payments-incident']);
    const [hit] = hits;
    expect(hit).toMatchObject({ label: 'Payments queue incident review', role: 'assistant', checkpoint: false });
    expect(hit!.highlights.length).toBeGreaterThan(0);
    for (const [start, end] of hit!.highlights) expect(phraseTokens(hit!.snippet.slice(start, end))).toEqual(['partition', 'leader']);
    // The incident review is the target here: it is left out.
    expect(json<SearchResponse>(await search({ target: 'payments-incident', query: 'partition leader' })).hits).toEqual([]);
  });

  it('keeps to the menu\'s limit and answers an empty query with no hits', async () => {
    const { hits } = json<SearchResponse>(await search({ target: TARGET, query: 'the' }));
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(MENU_SEARCH_LIMIT);
    expect(json<SearchResponse>(await search({ target: TARGET, query: '' })).hits).toEqual([]);
    expect(json<SearchResponse>(await search({ target: TARGET, query: '  ** ' })).hits).toEqual([]);
  });

  it('finds the words a snapshot carries and never the ones it does not (the shared marker corpus)', async () => {
    for (const word of [MARKERS.userText, MARKERS.assistantText, MARKERS.checkpoint]) {
      expect(json<SearchResponse>(await search({ target: TARGET, query: word })).hits.map((hit) => hit.sessionId), word).toEqual(['markers']);
    }
    for (const [what, word] of UNCARRIED_MARKERS) expect(json<SearchResponse>(await search({ target: TARGET, query: word })).hits, what).toEqual([]);
  });

  it('carries a hostile snippet as plain data, with spans on the phrase only', async () => {
    const { hits } = json<SearchResponse>(await search({ target: TARGET, query: 'lagmarker' }));
    expect(hits).toHaveLength(1);
    expect(hits[0]!.snippet).toBe('See <img src=x onerror=alert(1)> the lagmarker </mark> here');
    expect(hits[0]!.highlights.map(([start, end]) => hits[0]!.snippet.slice(start, end))).toEqual(['lagmarker']);
  });

  it('finds CJK substrings and emoji, with their spans', async () => {
    const unspaced = await engine.create({ title: 'Unspaced', cwd: WEBAPP });
    await engine.send(unspaced, '結果は安定しています 😀');
    for (const query of ['結果', '😀']) {
      const { hits } = json<SearchResponse>(await search({ target: TARGET, query }));
      expect(hits.map((hit) => hit.sessionId)).toContain(unspaced);
      const hit = hits.find((found) => found.sessionId === unspaced)!;
      expect(hit.highlights.map(([start, end]) => hit.snippet.slice(start, end))).toEqual([query]);
    }
  });

  it('stops the previous request\'s search when the next keystroke\'s arrives', async () => {
    const real = engine.search.bind(engine);
    let stopped: unknown;
    const spy = vi.spyOn(engine, 'search').mockImplementationOnce(
      (_query, options) =>
        new Promise((_resolve, reject) =>
          options?.signal?.addEventListener('abort', () => {
            stopped = options.signal!.reason;
            reject(new SessionReferenceError('content search was cancelled', 'SESSION_REFERENCE_CANCELLED'));
          }),
        ),
    );
    spy.mockImplementation(real);
    const first = search({ target: TARGET, query: 'partition' });
    await vi.waitFor(() => expect(spy).toHaveBeenCalledTimes(1));
    const second = await search({ target: TARGET, query: 'partition leader' });
    expect(second.status).toBe(200);
    expect(json<SearchResponse>(second).hits.map((hit) => hit.sessionId)).toEqual(['payments-incident']);
    const superseded = await first;
    expect(superseded.status).toBe(499);
    expect(json<ApiError>(superseded).error.code).toBe('SESSION_REFERENCE_CANCELLED');
    expect(String(stopped)).toContain('a newer search arrived');
    spy.mockRestore();
  });

  it('refuses a NUL or an over-long query with 400 and the coded error, and a bad body like every route', async () => {
    for (const query of ['a\0b', 'x'.repeat(300)]) {
      const reply = await search({ target: TARGET, query });
      expect(reply.status).toBe(400);
      expect(json<ApiError>(reply).error.code).toBe('SESSION_REFERENCE_INVALID_QUERY');
    }
    expect((await search({ target: TARGET })).status).toBe(400);
    expect((await search({ target: TARGET, query: 7 })).status).toBe(400);
    expect((await search({ target: 'no-such-session', query: 'x' })).status).toBe(404);
  });
});
