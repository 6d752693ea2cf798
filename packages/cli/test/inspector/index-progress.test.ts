/**
 * The inspector shows how far a first build of sessref's content index has
 * come while "Found in conversation" waits for it: `GET /api/index` answers
 * the build's progress (sessions indexed of total, time left), and the `@`
 * menu shows it under the group's heading until the search is answered
 * (Chromium against the real server). The build is held midway by holding
 * the host's own session reads after the first batch, so the test sees it
 * mid-build however fast the machine is. The build is started by a first
 * `GET /api/index` before the user types, as the page's own poll would: it
 * follows the build to its end, so the keystrokes' searches join that one
 * build and stopping one never stops it (a search stopped alone would end
 * its refresh after the first batch was written, and the next refresh would
 * begin past the held line). Reads of the session the page shows are the
 * page's, not the build's.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendExchange, createHost, createSession, setTitle } from '@sessref/test-support';
import type { Engine } from '../../src/engine/engine.js';
import type { IndexStatus } from '../../src/server/protocol.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { hostOf, openEngineOnHost } from '../support.js';
import { buildWeb, httpRequest, json, launchBrowser, openPage, removeDir, tempDir, type Browser } from './fixture.js';

/** Two batches of the index's 64 and some. */
const SESSIONS = 130;
const BATCH = 64;

let root: string;
let cache: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;
/** Set once the page has loaded: from then on, reads past the first batch wait for {@link release}. */
let holding = false;
/** The session the page shows: its reads are the page's, not the build's. */
let shown: string | undefined;
let release: () => void = () => {};

beforeAll(async () => {
  [root, cache, webRoot] = await Promise.all([tempDir('progress-root'), tempDir('progress-cache'), tempDir('progress-web')]);
  await writeTopics(root);
  await buildWeb(webRoot);
  engine = await openEngineOnHost({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'search.sqlite') });
  const query = hostOf(engine).get('sessionQuery')!;
  const read = query.readSurface.bind(query);
  const gate = new Promise<void>((resolve) => (release = resolve));
  // The first batch's sessions, by id: only a session past them waits.
  const admitted = new Set<string>();
  vi.spyOn(query, 'readSurface').mockImplementation(async (...args) => {
    const sessionId: string = args[0];
    if (holding && sessionId !== shown && !admitted.has(sessionId)) {
      if (admitted.size < BATCH) admitted.add(sessionId);
      else await gate;
    }
    return read(...args);
  });
  server = await startServer(engine, { webRoot });
  browser = await launchBrowser();
});

afterAll(async () => {
  release();
  await browser?.close();
  await server?.close();
  await engine?.close();
  await Promise.all([root, cache, webRoot].map(removeDir));
});

/** {@link SESSIONS} small sessions, each a titled exchange about a heron, through the real host. */
async function writeTopics(at: string): Promise<void> {
  const host = await createHost({ root: at, invariants: false });
  const write = async (topic: number) => {
    const session = createSession(host, { id: `topic-${topic}`, createdAt: 5_000 + topic });
    appendExchange(session, { user: `Topic ${topic}: the heron plan.`, assistant: `Noted topic ${topic}.` });
    setTitle(session, `Topic ${topic}`);
    await host.flush(session);
  };
  try {
    for (const topic of Array.from({ length: SESSIONS }, (_, index) => index)) await write(topic);
  } finally {
    await host.dispose();
  }
}

const status = async () => json<IndexStatus>(await httpRequest(server.port, { path: '/api/index', headers: { 'x-sessref-token': server.token } }));

describe('a first build of the content index', () => {
  it('is shown in the @ menu under "Found in conversation" with sessions indexed of total and the time left, then gives way to the hits', async () => {
    const { page, problems } = await openPage(browser, server.url);
    await expect.poll(() => page.locator('#conversation .message').count()).toBeGreaterThan(0);
    shown = (await page.evaluate(() => new URLSearchParams(location.search).get('session'))) ?? undefined;
    expect(shown).toMatch(/^topic-/);
    holding = true;
    expect(await status()).toMatchObject({ state: 'building' });

    await page.click('#draft');
    await page.keyboard.type('@heron');
    const indexing = page.locator('#menu .menu-indexing');
    await expect.poll(() => indexing.textContent(), { timeout: 30_000 }).toMatch(new RegExp(`^indexing conversations: ${BATCH} of ${SESSIONS} sessions, about \\d+ s left$`));
    await expect(page.locator('#menu .menu-searching').textContent()).resolves.toBe('Searching conversations…');
    expect(await status()).toMatchObject({ state: 'building', indexed: BATCH, total: SESSIONS, remainingMs: expect.any(Number) });

    release();
    await expect.poll(() => page.locator('#menu .menu-hit').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await indexing.count()).toBe(0);
    await expect.poll(() => status()).toEqual({ state: 'ready' });
    expect(problems).toEqual([]);
    await page.close();
  });
});
