/**
 * A dsh session a later dsh wrote (log format v1-v4, every release since
 * 0.1.3) in the inspector: sessref reads, previews and cites it but never
 * sends into it, so the page disables Send up front, says why and what to
 * do instead (send it from that dsh, the message copied with its mentions),
 * and never writes a byte of it (Chromium against the real server).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framePerRecord, writeGeneration } from '@sessref/test-support';
import { Engine } from '../../src/engine/engine.js';
import type { SessionsResponse } from '../../src/server/protocol.js';
import { hashTree } from '../support.js';
import { TARGET, cite, httpRequest, json, openPage, startPageRig, type PageRig } from './fixture.js';

/** Written by dsh 0.2: log format v4. */
const LATER = 'written-by-dsh-0-2';

let rig: PageRig;

/** `root` with {@link LATER} beside the seeded sessions, as dsh 0.2 writes it. */
async function withLaterSession(root: string): Promise<Engine> {
  const directory = join(root, '--home-dev-webapp--', LATER);
  await mkdir(directory, { recursive: true });
  const steps = [{ kind: 'exchange' as const, user: 'Plan the 0.2 upgrade', assistant: 'Upgrade plan ready.' }, { kind: 'title' as const, title: 'Upgrade plan' }];
  await writeFile(join(directory, 'session.v4.jsonl.zstd'), framePerRecord(writeGeneration(4, steps, { id: LATER, createdAt: Date.now(), cwd: '/home/dev/webapp' })));
  return Engine.open({ root });
}

beforeAll(async () => {
  rig = await startPageRig('later-dsh', withLaterSession);
});

afterAll(() => rig?.close());

const rowOf = (page: Page, id: string) => page.locator(`#sessions .session[data-session-id="${id}"]`);

describe('a session a later dsh wrote, in the inspector', () => {
  it("/api/sessions names its log format; the root's v0 sessions carry none", async () => {
    const { sessions } = json<SessionsResponse>(await httpRequest(rig.server.port, { path: '/api/sessions', headers: { 'x-sessref-token': rig.server.token } }));
    expect(sessions.find((session) => session.sessionId === LATER)).toMatchObject({ source: 'dsh', logFormat: 4 });
    expect(sessions.filter((session) => session.logFormat !== undefined).map((session) => session.sessionId)).toEqual([LATER]);
  });

  it('disables Send up front with why and what to do instead, keeps Preview, and copies the message with its mentions for dsh', async () => {
    const before = await hashTree(rig.root);
    const { page, problems } = await openPage(rig.browser, `${rig.server.url}&session=${LATER}`);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await expect.poll(() => page.locator('#conversation').textContent()).toContain('Upgrade plan ready.');
    const note = page.locator('#send-note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.textContent()).toMatch(/log format v4, written by a dsh newer than 0\.1\.0-rc\.8: sessref sends only into log format v0\. Send the message from that dsh/);

    await page.click('#draft');
    await page.keyboard.type('see ');
    await cite(page, 'Fix flaky');
    expect(await page.locator('#send-button').isDisabled()).toBe(true);
    expect(await page.locator('#preview-button').isDisabled()).toBe(false);
    await page.keyboard.press('Control+Enter');
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .model-message').count()).toBe(2);

    await note.getByRole('button', { name: 'Copy message' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^see @\[Fix flaky CI on main\]\(dsh-session:[\w-]+\) ?$/);

    // A v0 session of the same root sends as before, with no note.
    await rowOf(page, TARGET).click();
    expect(await note.isVisible()).toBe(false);
    expect(problems).toEqual([]);
    await page.close();
    expect(await hashTree(rig.root)).toEqual(before);
  });
});
