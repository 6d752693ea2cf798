/**
 * "Found in conversation" → cite this part (#34 item 2): a content hit's
 * "Cite this part" (or Shift+Enter on the hit) puts the session's chip in
 * the draft followed by the excerpt suffix around the phrase the hit found,
 * and the preview cites that part of the session, with the notice that the
 * rest was left out (Chromium against the real server, the inspector
 * suites' demo sessions).
 */
import type { Page } from 'playwright-core';
import { REFERENCE_EXCERPTS_HEADING } from '@sessref/core';
import { describe, expect, it } from 'vitest';
import { TARGET, demoPageRig, openPage } from './fixture.js';

const rig = demoPageRig('excerpt-part');

/** A page on the target with `@partition` typed: only the incident review's conversation says it. */
async function hitFor(): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(rig().browser, `${rig().server.url}&session=${TARGET}`);
  const { page } = opened;
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
  await page.click('#draft');
  await page.keyboard.type('Ask @partition');
  // The query's own answer, settled and shown, before a key acts on it.
  await expect.poll(() => page.locator('#menu').getAttribute('aria-busy')).toBeNull();
  await expect.poll(() => page.locator('#menu:not([hidden]) .menu-hit.active[data-session-id="payments-incident"]').count()).toBe(1);
  return opened;
}

/** The draft's text as the server receives it, and the two model-facing messages of its preview. */
async function previewOf(page: Page): Promise<{ readable: string; context: string }> {
  await page.click('#preview-button');
  const messages = page.locator('#preview .model-message .model-text');
  await expect.poll(() => messages.count()).toBe(2);
  return { readable: (await messages.nth(0).textContent()) ?? '', context: (await messages.nth(1).textContent()) ?? '' };
}

/** What the preview must show for a part cited around a phrase starting with "partition". */
function expectPartCited({ readable, context }: { readable: string; context: string }): void {
  expect(readable).toMatch(/^Ask @Payments queue incident review \{around: "partition[^"]*"\} about the lag\.$/);
  expect(context).toContain(`\n\n${REFERENCE_EXCERPTS_HEADING}\n\n`);
  const notice = JSON.parse(context.trimEnd().split('\n').at(-1)!) as { sessionId: string; around: string }[];
  expect(notice).toEqual([expect.objectContaining({ sessionId: 'payments-incident', around: expect.stringMatching(/^partition/) as unknown })]);
}

describe('citing the part a content hit found', () => {
  it('"Cite this part" puts the chip and the excerpt suffix in the draft, and the preview cites that part', async () => {
    const { page, problems } = await hitFor();
    const part = page.locator('#menu .menu-hit .menu-cite-part');
    await expect(part.textContent()).resolves.toBe('Cite this part');
    await expect(page.locator('#menu .menu-foot').textContent()).resolves.toContain('Shift+Enter cite the part found');
    await part.click();
    await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
    await expect(page.locator('#draft .chip').getAttribute('data-session-id')).resolves.toBe('payments-incident');
    await page.keyboard.type('about the lag.');
    expectPartCited(await previewOf(page));
    expect(problems).toEqual([]);
    await page.close();
  });

  it('Shift+Enter on the hit does the same, and Enter still cites the whole session', async () => {
    const { page, problems } = await hitFor();
    await page.keyboard.press('Shift+Enter');
    await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
    await page.keyboard.type('about the lag.');
    expectPartCited(await previewOf(page));
    await page.close();

    const whole = await hitFor();
    await whole.page.keyboard.press('Enter');
    await whole.page.keyboard.type('about the lag.');
    const { readable, context } = await previewOf(whole.page);
    expect(readable).toBe('Ask @Payments queue incident review about the lag.');
    expect(context).not.toContain(REFERENCE_EXCERPTS_HEADING);
    expect([...problems, ...whole.problems]).toEqual([]);
    await whole.page.close();
  });
});
