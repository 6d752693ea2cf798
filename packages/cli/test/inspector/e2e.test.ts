/**
 * End to end: the built web client in Debian Chromium, against the real
 * server over a root written through the real dsh host.
 */
import { SessionId } from '@deepseek-ai/dsh-session';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatSessionReferenceMention } from '@sessref/core';
import { Engine } from '../../src/engine/engine.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { textOf } from '../../src/server/view.js';
import { TARGET, buildWeb, launchBrowser, removeDir, seedRoot, tempDir, type Browser } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;
const calls = { inflight: 0, aborted: 0 };

beforeAll(async () => {
  [root, webRoot] = await Promise.all([tempDir('e2e-root'), tempDir('e2e-web')]);
  await Promise.all([seedRoot(root), buildWeb(webRoot)]);
  engine = await Engine.open({ root });
  // Count candidate work and hold it briefly, so fast typing supersedes requests that are still running.
  const candidates = engine.candidates.bind(engine);
  engine.candidates = async (target, query, limit, signal) => {
    calls.inflight++;
    try {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (signal?.aborted) calls.aborted++;
      return await candidates(target, query, limit, signal);
    } finally {
      calls.inflight--;
    }
  };
  server = await startServer(engine, { webRoot });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(webRoot);
});

async function open(): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(server.url);
  return { page, problems };
}

const menuItems = (page: Page) => page.locator('#menu .menu-item');

it('types @, picks a session, previews and sends; the target shows the snapshot', async () => {
  const { page, problems } = await open();
  // The token left the address bar for an HttpOnly cookie.
  expect(page.url()).toBe(`${server.origin}/`);
  await expect.poll(() => page.locator('#sessions .session').count()).toBe(6);
  await page.click(`#sessions .session[data-session-id="${TARGET}"]`);
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');

  await page.click('#draft');
  await page.keyboard.type('Compare with @');
  await expect.poll(() => menuItems(page).count()).toBe(5);
  await page.keyboard.press('ArrowDown');
  await expect(menuItems(page).nth(1).getAttribute('class')).resolves.toContain('active');
  await page.keyboard.press('ArrowUp');
  await expect(menuItems(page).nth(0).getAttribute('class')).resolves.toContain('active');

  await page.keyboard.type('fla');
  await expect.poll(() => menuItems(page).allTextContents()).toEqual([expect.stringContaining('Fix flaky CI on main')]);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
  const chip = page.locator('#draft .chip');
  await expect(chip.textContent()).resolves.toBe('@Fix flaky CI on main');
  await expect(chip.getAttribute('data-mention')).resolves.toBe(formatSessionReferenceMention({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main' }));
  await page.keyboard.type('and summarize what changed.');

  // Superseded candidate requests were aborted in the client and the abort reached the server's work.
  await expect.poll(() => calls.inflight).toBe(0);
  expect(calls.aborted).toBeGreaterThan(0);

  await page.click('#preview-button');
  const messages = page.locator('#preview .model-message .model-text');
  await expect.poll(() => messages.count()).toBe(2);
  expect(await messages.nth(0).textContent()).toBe('Compare with @Fix flaky CI on main and summarize what changed.');
  const context = (await messages.nth(1).textContent()) ?? '';
  expect(context).toContain('## Referenced sessions');
  expect(context).toContain('<referenced-sessions>\n[\n  {\n    "sessionId": "flaky-ci",');
  const bar = page.locator('#preview .reference[data-session-id="flaky-ci"] .bar');
  expect(Number(await bar.getAttribute('aria-valuenow'))).toBe((await engine.show('flaky-ci')).reference?.bytes);
  expect(Number(await bar.getAttribute('aria-valuemax'))).toBe(engine.maxReferenceBytes);
  await expect(page.locator('#preview .stat.retained').textContent()).resolves.toBe('6 retained');
  await expect(page.locator('#preview .stat.omitted').textContent()).resolves.toBe('0 omitted');

  await page.click('#send-button');
  const snapshot = page.locator('#conversation .message.context');
  await expect.poll(() => snapshot.count()).toBe(1);
  await expect(snapshot.locator('.ref-pill').textContent()).resolves.toContain('Fix flaky CI on main');
  await expect(page.locator('#conversation .message.user').last().textContent()).resolves.toContain('Compare with @Fix flaky CI on main and summarize what changed.');
  await expect(page.locator('#draft').textContent()).resolves.toBe('');

  // The target's log on disk holds both messages, as a fresh host reads them.
  const reader = await Engine.open({ root });
  try {
    const surface = await reader.ctx.sessionQuery.readSurface(SessionId(TARGET));
    const [readable, snapshotEvent] = surface.events.slice(-2);
    expect(readable?.type === 'user/message' && textOf(readable.data.content)).toBe('Compare with @Fix flaky CI on main and summarize what changed.');
    expect(snapshotEvent?.type === 'user/message' && snapshotEvent.data.source.kind).toBe('session-reference');
  } finally {
    await reader.close();
  }
  expect(problems).toEqual([]);
  await page.close();
});

it('closes the menu on Escape, reopens on a new @, and picks with Tab or a click', async () => {
  const { page, problems } = await open();
  await page.click(`#sessions .session[data-session-id="staging-vpc"]`);
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Terraform: staging VPC');
  await page.click('#draft');
  await page.keyboard.type('@');
  await expect.poll(() => menuItems(page).count()).toBeGreaterThan(0);
  await page.keyboard.press('Escape');
  await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
  await page.keyboard.type('rel');
  await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.type('@rel');
  await expect.poll(() => menuItems(page).allTextContents()).toEqual([expect.stringContaining('Release notes for v2.4')]);
  await page.keyboard.press('Tab');
  await page.keyboard.type('then @bill');
  await expect.poll(() => menuItems(page).allTextContents()).toEqual([expect.stringContaining('Design the billing schema')]);
  await menuItems(page).first().click();
  await expect.poll(() => page.locator('#draft .chip').allTextContents()).toEqual(['@Release notes for v2.4', '@Design the billing schema']);
  await page.click('#preview-button');
  await expect.poll(() => page.locator('#preview .reference').count()).toBe(2);
  expect(problems).toEqual([]);
  await page.close();
});
