/**
 * `npm run screenshots`: the inspector in Chromium over a seeded root, each
 * picture in the light and the dark theme (`-dark`):
 * docs/inspector-1366-composer.png (the @ menu open), docs/inspector-1366.png
 * (the model preview beside the conversation), and the same preview as a
 * bottom sheet at 1024 px (docs/inspector-1024.png) and 420 px
 * (docs/inspector-420.png). A 4 KiB snapshot budget makes the byte bars and
 * truncation visible.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { startServer } from '../../src/server/server.js';
import { TARGET, buildWeb, cite, launchBrowser, removeDir, seedRoot, tempDir } from './fixture.js';

const DOCS = fileURLToPath(new URL('../../../../docs/', import.meta.url));

/** `docs/<name>.png` in the light theme and `docs/<name>-dark.png` in the dark one, at `viewport`. */
async function shoot(page: Page, name: string, viewport: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(viewport);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${DOCS}${name}${scheme === 'dark' ? '-dark' : ''}.png` });
  }
}

const WIDE = { width: 1366, height: 860 };

it('takes the inspector screenshots', async () => {
  const [root, webRoot] = await Promise.all([tempDir('shots-root'), tempDir('shots-web')]);
  await Promise.all([seedRoot(root), buildWeb(webRoot), mkdir(DOCS, { recursive: true })]);
  const engine = await Engine.open({ root, resolver: { maxReferenceBytes: 4096 } });
  const server = await startServer(engine, { webRoot });
  const browser = await launchBrowser(WIDE);
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

    await page.click('#draft');
    await page.keyboard.type('Was the checkout failure in ');
    await cite(page, 'flaky');
    await page.keyboard.type('related to @');
    await expect.poll(() => page.locator('#menu .menu-item').count()).toBe(5);
    for (let step = 0; step < 4; step++) await page.keyboard.press('ArrowDown');
    await shoot(page, 'inspector-1366-composer', WIDE);

    await page.keyboard.type('incident');
    await expect.poll(() => page.locator('#menu .menu-item:not(.menu-hit)').count()).toBe(1);
    await page.keyboard.press('Enter');
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .reference').count()).toBe(2);
    await shoot(page, 'inspector-1366', WIDE);
    await shoot(page, 'inspector-1024', { width: 1024, height: 768 });
    await shoot(page, 'inspector-420', { width: 420, height: 860 });
  } finally {
    await browser.close();
    await server.close();
    await engine.close();
    await removeDir(root);
    await removeDir(webRoot);
  }
});
