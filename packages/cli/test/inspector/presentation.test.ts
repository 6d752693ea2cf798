/**
 * The inspector's presentation, in Debian Chromium against the real server:
 * a 4,000-message session drawn a window at a time, long titles cut with an
 * ellipsis (the whole title in a tooltip), quiet notices, a dark theme, and
 * the page's small conveniences (the draft kept across a reload, pasted
 * mentions as chips, arrow keys in the sessions list, untitled sessions
 * named as the CLI names them, the root path cut at its start).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSessionReferenceMention } from '@sessref/core';
import { DEMO_SESSIONS, appendExchange, type DemoSession } from '@sessref/host';
import { Engine } from '../../src/engine/engine.js';
import type { RunningServer } from '../../src/server/server.js';
import { SEED, TARGET, cite, openPage, startPageRig, type Browser, type PageRig } from './fixture.js';

const LONG = 'research-log';
const LONG_TITLE_ID = 'long-title';
const LONG_TITLE = `A title that goes on ${'and on '.repeat(710)}until the end`;
const UNTITLED = 'terraform-cleanup';

const longTitle: DemoSession = {
  id: LONG_TITLE_ID,
  title: LONG_TITLE,
  cwd: '/home/dev/webapp',
  ageHours: 0.5,
  write: (session) => appendExchange(session, { user: 'Short question.', assistant: 'Short answer.' }, { provider: 'deepseek', model: 'deepseek-chat', stream: false }),
};

let rig: PageRig;
let root: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  const extra = DEMO_SESSIONS.filter((demo) => demo.id === LONG || demo.id === UNTITLED);
  rig = await startPageRig('presentation', (at) => Engine.open({ root: at }), {
    sessions: [...SEED, ...extra, longTitle],
    // A root deep enough that the footer must shorten it.
    rootUnder: join('projects-with-a-rather-long-folder-name', 'dsh-home', 'sessions'),
    viewport: { width: 1366, height: 900 },
  });
  ({ root, engine, server, browser } = rig);
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
});

afterAll(() => rig?.close());

async function open(): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(browser, server.url);
  await expect.poll(() => opened.page.locator('#sessions .session').count()).toBeGreaterThan(0);
  return opened;
}

async function target(page: Page, id: string): Promise<void> {
  await page.click(`#sessions .session[data-session-id="${id}"]`);
  await expect.poll(() => page.locator('#target .target-meta code').getAttribute('title')).toBe(id);
}

/** On the usual target, the draft `Keep @Fix flaky CI on main in mind.` with its chip picked from the menu. */
async function draftCitingFlakyCi(page: Page): Promise<void> {
  await target(page, TARGET);
  await page.click('#draft');
  await page.keyboard.type('Keep ');
  await cite(page, 'flaky');
  await page.keyboard.type('in mind.');
}

const conversationElements = (page: Page) => page.locator('#conversation').evaluate((section) => section.querySelectorAll('*').length);
const drawnSeqs = (page: Page) => page.locator('#conversation .message').evaluateAll((messages) => messages.map((message) => Number(message.getAttribute('data-seq'))));

describe('a long session', () => {
  it('draws a bounded number of elements, yet scrolls to its first and last message', async () => {
    const { page, problems } = await open();
    await target(page, LONG);
    await expect.poll(() => page.locator('#target .target-meta').textContent()).toContain('4000 messages');

    // Opened at its end: the last message is drawn and in view, and only a window of the others exists.
    const lastText = `Run 2000:`;
    await expect.poll(() => page.locator('#conversation .message').last().textContent()).toContain(lastText);
    await expect(page.locator('#conversation .message').last().isVisible()).resolves.toBe(true);
    expect(await conversationElements(page)).toBeLessThan(600);

    // Home, by keyboard: the first message, still a bounded window.
    await page.locator('#conversation').focus();
    await page.keyboard.press('Home');
    await expect.poll(async () => (await drawnSeqs(page))[0]).toBeLessThanOrEqual(2);
    await expect.poll(() => page.locator('#conversation .message.user').first().textContent()).toContain('Note 1: ');
    expect(await conversationElements(page)).toBeLessThan(600);

    // The middle, by dragging the scrollbar there: the messages drawn are the ones in view, in order.
    await page.locator('#conversation').evaluate((section) => (section.scrollTop = section.scrollHeight / 2));
    await expect.poll(async () => (await drawnSeqs(page))[0]).toBeGreaterThan(1000);
    const middle = await drawnSeqs(page);
    expect(middle).toEqual([...middle].sort((a, b) => a - b));
    const inView = await page.locator('#conversation .message').evaluateAll((messages) => {
      const box = messages[0]!.parentElement!.getBoundingClientRect();
      return messages.filter((message) => {
        const own = message.getBoundingClientRect();
        return own.bottom > box.top && own.top < box.bottom;
      }).length;
    });
    expect(inView).toBeGreaterThan(3);

    // End again, by keyboard: the last message is back.
    await page.locator('#conversation').focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.locator('#conversation .message').last().textContent()).toContain(lastText);
    await expect.poll(() => page.locator('#conversation').evaluate((section) => section.scrollHeight - section.scrollTop - section.clientHeight)).toBeLessThan(4);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('a 5,000-character title', () => {
  let shownTitle = '';

  /** `selector`'s first match is one line cut with an ellipsis, inside the window, with the whole title as its tooltip. */
  async function cutWithTooltip(page: Page, selector: string, tooltip = shownTitle): Promise<void> {
    // Polled as a whole: the list and header are drawn again whenever the root changes, which may replace the element.
    const shape = () =>
      page
        .locator(selector)
        .first()
        .evaluate((node) => {
          const style = getComputedStyle(node);
          const box = node.getBoundingClientRect();
          return {
            tooltip: node.getAttribute('title'),
            overflow: style.textOverflow,
            wrap: style.whiteSpace,
            cut: node.scrollWidth > node.clientWidth,
            inside: box.right <= window.innerWidth,
            oneLine: box.height < 40,
          };
        });
    await expect.poll(shape).toEqual({ tooltip, overflow: 'ellipsis', wrap: 'nowrap', cut: true, inside: true, oneLine: true });
  }

  it('is one line with an ellipsis in the header, the list, the @ menu, the chip and the preview, whole in each tooltip', async () => {
    const { page, problems } = await open();
    expect(LONG_TITLE.length).toBeGreaterThanOrEqual(5000);
    // The title as the session list reports it (dsh's title index may keep only its start).
    shownTitle = (await engine.sessions()).find((session) => session.sessionId === LONG_TITLE_ID)?.title ?? '';
    expect(LONG_TITLE.startsWith(shownTitle) && shownTitle.length >= 200).toBe(true);
    await target(page, LONG_TITLE_ID);
    await cutWithTooltip(page, '#target .target-title');
    await cutWithTooltip(page, `#sessions .session[data-session-id="${LONG_TITLE_ID}"] .session-title`);

    await target(page, 'flaky-ci');
    await page.click('#draft');
    await page.keyboard.type('Compare @A title that goes');
    await expect.poll(() => page.locator(`#menu .menu-item[data-session-id="${LONG_TITLE_ID}"]`).count()).toBe(1);
    await cutWithTooltip(page, `#menu .menu-item[data-session-id="${LONG_TITLE_ID}"] .menu-name`);
    await page.click(`#menu .menu-item[data-session-id="${LONG_TITLE_ID}"]`);
    const chip = page.locator('#draft .chip .chip-label');
    await expect.poll(() => chip.count()).toBe(1);
    expect(await chip.evaluate((node) => node.scrollWidth > node.clientWidth && getComputedStyle(node).textOverflow === 'ellipsis')).toBe(true);

    await page.click('#preview-button');
    await cutWithTooltip(page, '#preview .reference-label .chip-label');
    // Nothing runs off the page sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1366);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('quiet notices', () => {
  it('says Send once, in the preview, and no notice covers the preview\'s ×', async () => {
    const { page, problems } = await open();
    await draftCitingFlakyCi(page);
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#preview .sent-note').count()).toBe(1);
    await expect.poll(() => page.locator('#conversation .message.context').count()).toBe(1);
    expect(await page.locator('#toast').isHidden()).toBe(true);

    // A notice while the preview is open (a mention copied) leaves its × clickable.
    await page.hover(`#sessions .session-item:has([data-session-id="flaky-ci"])`);
    await page.click(`#sessions .session-item:has([data-session-id="flaky-ci"]) .copy-button`);
    await expect.poll(() => page.locator('#toast').isVisible()).toBe(true);
    const close = page.locator('#preview .preview-head .icon-button');
    const onTop = await close.evaluate((button) => {
      const box = button.getBoundingClientRect();
      return document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) === button;
    });
    expect(onTop).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a tab holding an earlier launch\'s token says how to get in, instead of an empty app', async () => {
    const { page } = await open();
    await page.evaluate(() => sessionStorage.setItem('sessref-token', '0'.repeat(64)));
    await page.reload();
    await expect.poll(() => page.locator('h1').textContent()).toContain('launch link');
    await expect(page.locator('#sessions').count()).resolves.toBe(0);
    await expect(page.locator('#toast').isHidden()).resolves.toBe(true);
    await page.close();
  });

  it('puts the target it lands on in the address', async () => {
    const { page } = await open();
    const newest = (await engine.sessions()).find((session) => session.title !== undefined)?.sessionId;
    await expect.poll(() => new URL(page.url()).searchParams.get('session')).toBe(newest);
    await expect.poll(() => page.locator('#target .target-meta code').getAttribute('title')).toBe(newest);
    await page.close();
  });
});

describe('the page\'s conveniences', () => {
  it('follows a dark system theme', async () => {
    const { page } = await open();
    const colors = () =>
      page.evaluate(() => {
        const luminance = (color: string) => {
          const [r, g, b] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
          return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
        };
        const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
        return { page: luminance(style('html').backgroundColor), text: luminance(style('html').color), panel: luminance(style('.sidebar').backgroundColor) };
      });
    const light = await colors();
    expect(light.page).toBeGreaterThan(0.9);
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await colors();
    expect(dark.page).toBeLessThan(0.15);
    expect(dark.panel).toBeLessThan(0.15);
    expect(dark.text).toBeGreaterThan(0.8);
    await page.close();
  });

  it('names an untitled session as sessref list does, and moves through the list with the arrow keys', async () => {
    const { page } = await open();
    const untitledRow = page.locator(`#sessions .session[data-session-id="${UNTITLED}"]`);
    await expect.poll(() => untitledRow.locator('.session-title').textContent()).toBe('(untitled)');
    // Its id stands beside the cwd, so two untitled sessions are told apart.
    await expect(untitledRow.locator('.session-cwd').textContent()).resolves.toBe(`${UNTITLED} · /home/dev/infra`);
    await target(page, UNTITLED);
    await expect(page.locator('#target .target-title').textContent()).resolves.toBe('(untitled)');
    await expect(page.locator('#target .target-title').getAttribute('title')).resolves.toBe(UNTITLED);

    const ids = await page.locator('#sessions .session').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')));
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-session-id'));
    await page.locator('#sessions .session').first().focus();
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe(ids[1]);
    await page.keyboard.press('End');
    expect(await focused()).toBe(ids.at(-1));
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe(ids.at(-2));
    // The list is drawn again when the root changes (here, a session created from the CLI's engine): the keyboard stays put.
    await engine.create({ title: 'Made while the list has the keyboard' });
    await expect.poll(() => page.locator('#sessions .session').count()).toBe(ids.length + 1);
    expect(await focused()).toBe(ids.at(-2));
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const third = await page.locator('#sessions .session').nth(2).getAttribute('data-session-id');
    await expect.poll(() => page.locator('#target .target-meta code').getAttribute('title')).toBe(third);
    await page.close();
  });

  it('shortens the root in the footer at its start, keeping its end in view', async () => {
    const { page } = await open();
    const footer = page.locator('#root');
    await expect.poll(() => footer.textContent()).toBe(root);
    const seen = await footer.evaluate((element) => {
      const text = element.firstChild!;
      const box = element.getBoundingClientRect();
      const padding = parseFloat(getComputedStyle(element).paddingLeft);
      const charBox = (at: number) => {
        const range = document.createRange();
        range.setStart(text, at);
        range.setEnd(text, at + 1);
        return range.getBoundingClientRect();
      };
      const length = text.textContent!.length;
      return { clipped: element.scrollWidth > element.clientWidth, first: charBox(0).left, last: charBox(length - 1).right, left: box.left + padding, right: box.right - padding };
    });
    expect(seen.clipped).toBe(true);
    // The end is inside the box, the start cut off before it.
    expect(seen.last).toBeLessThanOrEqual(seen.right + 1);
    expect(seen.last).toBeGreaterThan(seen.left);
    expect(seen.first).toBeLessThan(seen.left);
    await page.close();
  });

  it('turns a pasted canonical mention into a chip', async () => {
    const { page } = await open();
    await target(page, TARGET);
    const mention = formatSessionReferenceMention({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main' });
    await page.evaluate((text) => navigator.clipboard.writeText(text), `See ${mention} first.`);
    await page.click('#draft');
    await page.keyboard.press('Control+V');
    const chip = page.locator('#draft .chip');
    await expect.poll(() => chip.count()).toBe(1);
    await expect(chip.getAttribute('data-mention')).resolves.toBe(mention);
    await expect(page.locator('#draft').textContent()).resolves.toBe('See @Fix flaky CI on main first.');
    // What the server receives is the canonical mention again.
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .reference').getAttribute('data-session-id')).toBe('flaky-ci');
    await page.close();
  });

  it('keeps the draft of each target across a reload, chips included, until it is sent', async () => {
    const { page } = await open();
    await draftCitingFlakyCi(page);
    await page.reload();
    await expect.poll(() => page.locator('#target .target-meta code').getAttribute('title')).toBe(TARGET);
    await expect.poll(() => page.locator('#draft').textContent()).toBe('Keep @Fix flaky CI on main in mind.');
    await expect(page.locator('#draft .chip').getAttribute('data-session-id')).resolves.toBe('flaky-ci');
    // Another target has its own (empty) draft; back on this one, the draft is there.
    await target(page, 'release-notes');
    await expect.poll(() => page.locator('#draft').textContent()).toBe('');
    await target(page, TARGET);
    await expect.poll(() => page.locator('#draft').textContent()).toBe('Keep @Fix flaky CI on main in mind.');
    // Sent, it is gone, reload or not.
    await page.click('#send-button');
    await expect.poll(() => page.locator('#preview .sent-note').count()).toBe(1);
    await page.reload();
    await expect.poll(() => page.locator('#target .target-meta code').getAttribute('title')).toBe(TARGET);
    await expect(page.locator('#draft').textContent()).resolves.toBe('');
    await page.close();
  });
});
