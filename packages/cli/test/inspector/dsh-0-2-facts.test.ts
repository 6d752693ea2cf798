/**
 * What dsh 0.2 changed about a session, as the inspector shows it (Chromium
 * against the real server): a session that changed its working directory
 * (dsh 0.2.1+) is listed, and offered in the `@` menu, in the directory it is
 * in now; a v4 session's age is the time since its user last sent a message,
 * said so ("last sent"), as dsh 0.2 dates a session; a v0 session keeps its
 * age since creation, worded as before.
 *
 * SYNTHETIC: no real log with a `working-directory/change` exists in
 * ../shared/dsh-log-samples; the v4 log here is written by the test-side
 * generation writer, its times set to now, the change in the shape
 * upstream's `packages/session/working-directory` declares.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SESSIONS } from '@sessref/host';
import { framePerRecord, writeGeneration } from '@sessref/test-support';
import { Engine } from '../../src/engine/engine.js';
import type { SessionsResponse } from '../../src/server/protocol.js';
import { TARGET, httpRequest, json, openPage, startPageRig, type PageRig } from './fixture.js';

const MOVED = 'moved-by-dsh-0-2';
const STARTED_IN = '/home/dev/old-checkout';
const HOUR = 3_600_000;
const CREATED_AT = Date.now() - 3 * 24 * HOUR;
const SENT_AT = Date.now() - 2 * HOUR;

/** Where it moved: the target's directory, so the `@` menu of the target ranks it with the target's own. */
const MOVED_TO = DEMO_SESSIONS.find((demo) => demo.id === TARGET)!.cwd!;

let rig: PageRig;

/**
 * {@link MOVED} as dsh 0.2 leaves it: created three days ago in
 * {@link STARTED_IN}, its one message sent two hours ago, then moved to `cwd`.
 */
function movedLog(cwd: string): Buffer {
  const [header, ...events] = writeGeneration(4, [{ kind: 'exchange', user: 'Plan the 0.2 upgrade', assistant: 'Upgrade plan ready.' }, { kind: 'title', title: 'Upgrade plan' }], {
    id: MOVED,
    createdAt: CREATED_AT,
    cwd: STARTED_IN,
  })
    .trimEnd()
    .split('\n');
  // Every event before the user's message at creation, the rest when it was sent.
  let sent = false;
  const timed = events.map((line) => {
    const event = JSON.parse(line) as { type: string; seq: number };
    sent ||= event.type === 'user/message';
    return JSON.stringify({ ...event, time: (sent ? SENT_AT : CREATED_AT) + event.seq });
  });
  const change = JSON.stringify({ type: 'working-directory/change', data: { cwd }, seq: events.length, time: SENT_AT + events.length });
  return framePerRecord([header, ...timed, change, ''].join('\n'));
}

beforeAll(async () => {
  rig = await startPageRig('dsh-0-2', async (root) => {
    const directory = join(root, '--home-dev-old-checkout--', MOVED);
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, 'session.v4.jsonl.zstd'), movedLog(MOVED_TO));
    return Engine.open({ root });
  });
});

afterAll(() => rig?.close());

describe("dsh 0.2's facts in the inspector", () => {
  it('/api/sessions gives the moved session its new cwd and when its user last sent; v0 sessions carry no such time', async () => {
    const { sessions } = json<SessionsResponse>(await httpRequest(rig.server.port, { path: '/api/sessions', headers: { 'x-sessref-token': rig.server.token } }));
    expect(sessions.find((session) => session.sessionId === MOVED)).toMatchObject({ cwd: MOVED_TO, createdAt: CREATED_AT, lastSentAt: expect.any(Number) });
    expect(sessions.find((session) => session.sessionId === MOVED)!.lastSentAt! - SENT_AT).toBeLessThan(100);
    expect(sessions.filter((session) => session.lastSentAt !== undefined).map((session) => session.sessionId)).toEqual([MOVED]);
  });

  it('lists it in its new directory, aged since its last send and saying so, and offers it in the @ menu there; a v0 row keeps its age', async () => {
    const { page, problems } = await openPage(rig.browser, `${rig.server.url}&session=${TARGET}`);
    const row = page.locator(`#sessions .session[data-session-id="${MOVED}"]`);
    await expect.poll(() => row.locator('.session-cwd').textContent()).toBe(MOVED_TO);
    expect(await row.locator('.session-age').textContent()).toBe('last sent 2h ago');
    const v0Age = await page.locator(`#sessions .session[data-session-id="${TARGET}"] .session-age`).textContent();
    expect(v0Age).toMatch(/^\d+[smhd] ago/);

    await page.click('#draft');
    await page.keyboard.type('@Upgrade');
    await expect.poll(() => page.locator('#menu').getAttribute('aria-busy')).toBeNull();
    const item = page.locator('#menu .menu-item:not(.menu-hit)');
    await expect.poll(() => item.count()).toBe(1);
    expect(await item.textContent()).toContain(MOVED_TO);
    expect(await item.textContent()).not.toContain(STARTED_IN);
    expect(problems).toEqual([]);
    await page.close();
  });
});
