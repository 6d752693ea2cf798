/**
 * `npm run screenshots`: docs/inspector-composer.png (the @ menu open),
 * docs/inspector-preview.png (the model preview), and the same preview as a
 * bottom sheet at 1024 px (docs/inspector-1024.png) and 420 px
 * (docs/inspector-420.png), from the built client in Chromium over a seeded
 * root. A 4 KiB snapshot budget makes the byte bars and truncation visible.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { startServer } from '../../src/server/server.js';
import { TARGET, buildWeb, cite, launchBrowser, removeDir, seedRoot, tempDir } from './fixture.js';

const DOCS = fileURLToPath(new URL('../../../../docs/', import.meta.url));

/** The open preview at a narrower window, where it is a sheet under the conversation. */
async function narrowShot(page: Page, viewport: { width: number; height: number }, file: string): Promise<void> {
  await page.setViewportSize(viewport);
  await page.waitForTimeout(200);
  await page.screenshot({ path: `${DOCS}${file}` });
}

it('takes the inspector screenshots', async () => {
  const [root, webRoot] = await Promise.all([tempDir('shots-root'), tempDir('shots-web')]);
  await Promise.all([seedRoot(root), buildWeb(webRoot), mkdir(DOCS, { recursive: true })]);
  const engine = await Engine.open({ root, resolver: { maxReferenceBytes: 4096 } });
  const server = await startServer(engine, { webRoot });
  const browser = await launchBrowser({ width: 1440, height: 900 });
  try {
    const page = await browser.context.newPage();
    await page.goto(server.url);
    await page.click(`#sessions .session[data-session-id="${TARGET}"]`);
    await page.click('#draft');
    await page.keyboard.type('Keep the pricing rules from ');
    await cite(page, 'billing');
    await page.keyboard.type('in mind.');
    await page.click('#send-button');
    await expect.poll(() => page.locator('#conversation .message.context').count()).toBe(1);
    await page.locator('#preview .icon-button').click();
    await page.locator('#toast').evaluate((toast) => toast.setAttribute('hidden', ''));

    await page.click('#draft');
    await page.keyboard.type('Was the checkout failure in ');
    await cite(page, 'flaky');
    await page.keyboard.type('related to @');
    await expect.poll(() => page.locator('#menu .menu-item').count()).toBe(5);
    for (let step = 0; step < 4; step++) await page.keyboard.press('ArrowDown');
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${DOCS}inspector-composer.png` });

    await page.keyboard.type('incident');
    await expect.poll(() => page.locator('#menu .menu-item:not(.menu-hit)').count()).toBe(1);
    await page.keyboard.press('Enter');
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .reference').count()).toBe(2);
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${DOCS}inspector-preview.png` });

    await narrowShot(page, { width: 1024, height: 768 }, 'inspector-1024.png');
    await narrowShot(page, { width: 420, height: 860 }, 'inspector-420.png');
  } finally {
    await browser.close();
    await server.close();
    await engine.close();
    await removeDir(root);
    await removeDir(webRoot);
  }
});
