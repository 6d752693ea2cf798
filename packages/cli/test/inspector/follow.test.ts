/**
 * The inspector follows changes made by other programs: a message sent with
 * `sessref send` from a terminal appears in the open conversation and a
 * session made with `sessref new` in the list, with no click, the draft kept
 * (Chromium against the real server and the built CLI); and the change
 * stream itself, `GET /api/events`: its first event, the ids of a change,
 * its bound on listeners and its end when the server closes.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { ok, requireBuild } from '../support.js';
import { TARGET, listen, openPage, startPageRig, type Browser, type PageRig } from './fixture.js';

let rig: PageRig;
let root: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  requireBuild();
  // As `sessref serve` opens it: the title index follows the root through file-system events.
  rig = await startPageRig('follow', (at) => Engine.open({ root: at, watchLogs: true }));
  ({ root, engine, server, browser } = rig);
});

afterAll(() => rig?.close());

const draftText = (page: Page) => page.locator('#draft').evaluate((draft) => draft.textContent);

describe('the page follows changes', () => {
  it('shows a message sent from the CLI in the open conversation, and a session made there in the list, keeping the draft', async () => {
    const { page, problems } = await openPage(browser, server.url);
    await page.click(`#sessions .session[data-session-id="${TARGET}"]`);
    await expect.poll(() => page.evaluate(() => new URL(location.href).searchParams.get('session'))).toBe(TARGET);
    await expect.poll(() => page.locator('#conversation .message').count()).toBeGreaterThan(0);
    await page.click('#draft');
    await page.keyboard.type('a half-written thought');

    await ok(['send', '--root', root, '--target', TARGET, 'Sent from a terminal while the page was open']);
    await expect.poll(() => page.locator('#conversation').textContent(), { timeout: 15_000 }).toContain('Sent from a terminal while the page was open');
    expect(await draftText(page)).toBe('a half-written thought');

    const id = (await ok(['new', '--root', root, '--title', 'Made in a terminal'])).trim();
    await expect.poll(() => page.locator(`#sessions .session[data-session-id="${id}"]`).textContent(), { timeout: 15_000 }).toContain('Made in a terminal');
    // Still the same target and draft.
    expect(new URL(page.url()).searchParams.get('session')).toBe(TARGET);
    expect(await draftText(page)).toBe('a half-written thought');
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('GET /api/events', () => {
  it('answers a first event at once, then the ids of each change; refuses a listener over the bound; ends every stream when the server closes', async () => {
    const small = await startServer(engine, { events: { pollMs: 50, maxListeners: 1 } });
    try {
      const first = await listen(small);
      expect(first.status).toBe(200);
      await expect.poll(() => first.events).toEqual([{ revision: 0, changed: [] }]);

      const second = await listen(small);
      expect(second.status).toBe(503);

      const id = (await ok(['new', '--root', root, '--title', 'Followed'])).trim();
      await expect.poll(() => first.events.at(-1), { timeout: 15_000 }).toEqual({ revision: 1, changed: [id] });

      await small.close();
      await first.ended;
      expect(first.events.at(-1)).toEqual({ revision: 1, changed: [id] });
    } finally {
      await small.close();
    }
  });

  it('is refused without the token, like every API route', async () => {
    expect((await fetch(`${server.origin}/api/events`)).status).toBe(401);
  });
});
