/**
 * "Found in conversation" rows show their match (#35, item 3): the snippet
 * a row has room for (two lines) is the part of the hit around its first
 * match, as `sessref search` cuts it, so the marked words are on screen
 * however deep in the message they are (Chromium against the real server,
 * the inspector suites' demo sessions).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { TARGET, demoPageRig, openPage } from './fixture.js';

const rig = demoPageRig('search-hits');

/** Each content hit's first mark and the snippet box it sits in, as laid out on screen. */
async function hitBoxes(page: Page): Promise<{ mark: string; markBottom: number; markRight: number; boxBottom: number; boxRight: number }[]> {
  return page.locator('#menu .menu-hit .menu-snippet').evaluateAll((boxes) =>
    boxes.map((box) => {
      const mark = box.querySelector('mark')!;
      const [markRect, boxRect] = [mark.getBoundingClientRect(), box.getBoundingClientRect()];
      return { mark: mark.textContent ?? '', markBottom: markRect.bottom, markRight: markRect.right, boxBottom: boxRect.bottom, boxRight: boxRect.right };
    }),
  );
}

describe('content hits in the @ menu', () => {
  it.each(['mock', 'leader'])('show where "%s" matched, inside the lines the row has', async (query) => {
    const { page, problems } = await openPage(rig().browser, `${rig().server.url}&session=${TARGET}`);
    await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
    await page.click('#draft');
    await page.keyboard.type(`@${query}`);
    await expect.poll(() => page.locator('#menu .menu-hit').count()).toBeGreaterThan(0);
    const boxes = await hitBoxes(page);
    for (const box of boxes) {
      expect(box.mark.toLowerCase()).toBe(query.toLowerCase());
      expect(box.markBottom, `the match "${box.mark}" is below the snippet's last line`).toBeLessThanOrEqual(box.boxBottom + 0.5);
      expect(box.markRight).toBeLessThanOrEqual(box.boxRight + 0.5);
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});
