/**
 * Unreadable sessions in the inspector, named (#35, item 5): a session
 * whose log cannot be read is listed by its id with its code in a badge
 * that fits the sidebar, and the `@` menu marks it where it offers it, so
 * the user knows before picking it that Preview cannot read it (Chromium
 * against the real server, with one log whose header is gone and one cut
 * short).
 */
import { readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { TARGET, openPage, startPageRig, type PageRig } from './fixture.js';

let rig: PageRig;

const log = (root: string, id: string) => join(root, '--home-dev-webapp--', id, 'session.jsonl.zstd');

beforeAll(async () => {
  rig = await startPageRig('unreadable', async (root) => {
    // flaky-ci loses its header; billing-schema, the last 40 bytes of its log.
    await truncate(log(root, 'flaky-ci'), 20);
    const billing = log(root, 'billing-schema');
    await truncate(billing, (await readFile(billing)).length - 40);
    return Engine.open({ root });
  });
});

afterAll(() => rig?.close());

/** Whether `inner` lies within `outer` as laid out, to the pixel. */
async function inside(inner: Locator, outer: Locator): Promise<boolean> {
  const [a, b] = [await inner.boundingBox(), await outer.boundingBox()];
  return a !== null && b !== null && a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 && a.y + a.height <= b.y + b.height + 0.5;
}

describe('an unreadable session in the inspector', () => {
  it('is listed by its id, with its code in a badge that fits the row', async () => {
    const { page, problems } = await openPage(rig.browser, `${rig.server.url}&session=${TARGET}`);
    const row = page.locator('#sessions .session[data-session-id="flaky-ci"]');
    await expect.poll(() => row.locator('.session-title').textContent()).toBe('flaky-ci');
    expect(await row.textContent()).not.toContain('unknown age');
    const badge = row.locator('.badge.unreadable');
    expect(await badge.textContent()).toBe('unreadable');
    await expect.poll(() => inside(badge, row)).toBe(true);
    expect(await row.textContent()).toContain('SESSION_LOG_CORRUPT');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('is marked in the @ menu, with why, where the menu offers it', async () => {
    const { page, problems } = await openPage(rig.browser, `${rig.server.url}&session=${TARGET}`);
    await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
    await page.click('#draft');
    await page.keyboard.type('@billing');
    const offered = page.locator('#menu .menu-item[data-session-id="billing-schema"]');
    await expect.poll(() => offered.count()).toBe(1);
    const mark = offered.locator('.badge.unreadable');
    expect(await mark.textContent()).toBe('unreadable');
    expect(await mark.getAttribute('title')).toMatch(/^SESSION_LOG_TRUNCATED: /);
    // Polled: the menu renders again when the content search answers, and a row may be measured mid-layout.
    await expect.poll(() => inside(mark, offered)).toBe(true);
    // A readable session's row carries no mark.
    await page.keyboard.press('Control+A');
    await page.keyboard.type('@release');
    await expect.poll(() => page.locator('#menu .menu-item[data-session-id="release-notes"]').count()).toBe(1);
    // Polled: a search of a shorter query typed on the way may still be on its way to the menu.
    await expect.poll(() => page.locator('#menu .badge.unreadable').count()).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("cited anyway, the toast gives the failure's fix as the CLI does (#35, item 6)", async () => {
    const { page, problems } = await openPage(rig.browser, `${rig.server.url}&session=${TARGET}`);
    await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
    await page.click('#draft');
    await page.keyboard.type('see @billing');
    await expect.poll(() => page.locator('#menu .menu-item[data-session-id="billing-schema"]').count()).toBe(1);
    await page.keyboard.press('Enter');
    await page.click('#preview-button');
    const toast = page.locator('#toast');
    await expect.poll(() => toast.isVisible()).toBe(true);
    expect(await toast.textContent()).toMatch(/^Session "billing-schema": .+\. Fix: .+\.SESSION_LOG_TRUNCATED$/);
    // The failed request is the only console error.
    expect(problems).toEqual([expect.stringContaining('502')]);
    await page.close();
  });
});
