/**
 * The sessions list is one tab stop (#35, item 6): Tab enters it on the row
 * the keyboard was last on (else the target's), the arrows move between
 * rows and to a row's copy button, and the next Tab leaves the list, however
 * many sessions it holds (Chromium against the real server).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TARGET, demoPageRig, openPage } from './fixture.js';

const rig = demoPageRig('keyboard-list');

/** What has the keyboard: a session row's session id, else the element's id, else its name (a copy button's). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement as HTMLElement | null;
    return active?.dataset.sessionId ?? (active?.id || active?.getAttribute('aria-label')) ?? '';
  });

describe('the sessions list by keyboard', () => {
  it('is one tab stop, entered on the target, left with the next Tab; the arrows reach every row and its copy button', async () => {
    const { page, problems } = await openPage(rig().browser, `${rig().server.url}&session=${TARGET}`);
    await expect.poll(() => focused(page)).toBe('draft');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    // From the composer back into the list: the conversation, then the list's one stop, on the target's row.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe(TARGET);
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('refresh');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe(TARGET);

    await page.keyboard.press('ArrowDown');
    const next = await focused(page);
    expect(next).not.toBe(TARGET);
    await page.keyboard.press('ArrowRight');
    expect(await focused(page)).toMatch(/^Copy the mention of /);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/^@\[.+\]\(dsh-session:[\w-]+\)$/);
    await page.keyboard.press('ArrowLeft');
    expect(await focused(page)).toBe(next);
    // The list is left with one Tab, and entered again on the row the keyboard was on.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('#sessions') === null)).toBe(true);
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe(next);
    expect(problems).toEqual([]);
    await page.close();
  });
});
