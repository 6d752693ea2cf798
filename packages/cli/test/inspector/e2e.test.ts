/**
 * End to end: the built web client in Debian Chromium, against the real
 * server over a root written through the real dsh host.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatSessionReferenceMention } from '@sessref/core';
import { messageText } from '@sessref/core/internal';
import { Engine } from '../../src/engine/engine.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { TARGET, WEBAPP, buildWeb, launchBrowser, openPage, removeDir, seedRoot, tempDir, type Browser } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;
const calls = { inflight: 0, aborted: 0 };
const searches = { inflight: 0, aborted: 0 };

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
  // The same for content searches, the menu's second request.
  const search = engine.search.bind(engine);
  engine.search = async (query, options) => {
    searches.inflight++;
    try {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (options?.signal?.aborted) searches.aborted++;
      return await search(query, options);
    } finally {
      searches.inflight--;
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

const open = () => openPage(browser, server.url);

const menuItems = (page: Page) => page.locator('#menu .menu-item');

it('types @, picks a session, previews and sends; the target shows the snapshot', async () => {
  const { page, problems } = await open();
  // The token left the address bar for an HttpOnly cookie.
  expect(page.url()).not.toContain('token');
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
    const { surface } = await reader.conversation(TARGET);
    const [readable, snapshotEvent] = surface.events.slice(-2);
    expect(readable?.type === 'user/message' && messageText(readable.data.content)).toBe('Compare with @Fix flaky CI on main and summarize what changed.');
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
  // The title match first; sessions whose conversation has a word starting with "bill" follow it (prefix search).
  await expect.poll(async () => (await menuItems(page).allTextContents())[0]).toEqual(expect.stringContaining('Design the billing schema'));
  await menuItems(page).first().click();
  await expect.poll(() => page.locator('#draft .chip').allTextContents()).toEqual(['@Release notes for v2.4', '@Design the billing schema']);
  await page.click('#preview-button');
  await expect.poll(() => page.locator('#preview .reference').count()).toBe(2);
  expect(problems).toEqual([]);
  await page.close();
});

it('finds sessions by what their conversation says: a "Found in conversation" group, picked like any candidate', async () => {
  const { page, problems } = await open();
  await page.click(`#sessions .session[data-session-id="${TARGET}"]`);
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
  await page.click('#draft');
  // "partition" is in no title, id or cwd: only the incident review's conversation says it.
  await page.keyboard.type('Ask @partition');
  const group = page.locator('#menu .menu-group');
  await expect.poll(() => group.textContent()).toBe('Found in conversation');
  const hits = page.locator('#menu .menu-hit');
  await expect.poll(() => hits.count()).toBe(1);
  await expect(hits.first().getAttribute('data-session-id')).resolves.toBe('payments-incident');
  await expect(hits.first().locator('.menu-title').textContent()).resolves.toBe('Payments queue incident review');
  await expect(hits.first().locator('.menu-role').textContent()).resolves.toBe('Assistant');
  const snippet = (await hits.first().locator('.menu-snippet').textContent()) ?? '';
  expect(snippet).toContain('partition leader');
  // Every occurrence in the snippet is marked, and nothing else.
  const marks = await hits.first().locator('mark').allTextContents();
  expect(marks.length).toBe(snippet.split('partition').length - 1);
  expect(new Set(marks)).toEqual(new Set(['partition']));
  // No title matches: the content hit is the active row, and Enter picks it as it picks a title match.
  await expect(page.locator('#menu .menu-none').textContent()).resolves.toBe('No title matches');
  await expect(hits.first().getAttribute('class')).resolves.toContain('active');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
  const chip = page.locator('#draft .chip');
  await expect(chip.textContent()).resolves.toBe('@Payments queue incident review');
  const mention = formatSessionReferenceMention({ sessionId: 'payments-incident', label: 'Payments queue incident review' });
  await expect(chip.getAttribute('data-mention')).resolves.toBe(mention);
  await page.keyboard.type('about the lag.');

  // Superseded searches were aborted in the client, and the abort reached the server's work.
  await expect.poll(() => searches.inflight).toBe(0);
  expect(searches.aborted).toBeGreaterThan(0);

  await page.click('#preview-button');
  const messages = page.locator('#preview .model-message .model-text');
  await expect.poll(() => messages.count()).toBe(2);
  expect(await messages.nth(0).textContent()).toBe('Ask @Payments queue incident review about the lag.');
  expect(await messages.nth(1).textContent()).toContain('"sessionId": "payments-incident"');
  await expect(page.locator('#preview .reference[data-session-id="payments-incident"]').count()).resolves.toBe(1);
  expect(problems).toEqual([]);
  await page.close();
});

it('shows title matches first, and renders a hostile snippet as text with only the match marked', async () => {
  const hostile = await engine.create({ title: 'Hostile notes', cwd: WEBAPP });
  await engine.send(hostile, '<img src=x onerror="window.__pwned=1"> quarantinezone </mark><script>window.__pwned=2</script> <b>bold</b>');
  const titled = await engine.create({ title: 'Quarantinezone rollout', cwd: WEBAPP });
  await engine.send(titled, 'Nothing special here.');
  const { page, problems } = await open();
  await page.click(`#sessions .session[data-session-id="${TARGET}"]`);
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Checkout page redesign');
  await page.click('#draft');
  await page.keyboard.type('@quarantinezone');
  // The whole menu's text first: should the content group not come, the failure says what the menu showed instead.
  await expect.poll(() => page.locator('#menu').textContent()).toContain('Hostile notes');
  const hits = page.locator('#menu .menu-hit');
  await expect.poll(() => hits.count()).toBe(1);
  // The title match leads, the content match follows in its group.
  await expect.poll(() => page.locator('#menu .menu-item').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')))).toEqual([titled, hostile]);
  const snippet = hits.first().locator('.menu-snippet');
  // Cut around the match (the row has two lines), the rest as text.
  expect(await snippet.textContent()).toContain('onerror="window.__pwned=1"> quarantinezone </mark><script>');
  await expect(page.locator('#menu img, #menu script, #menu b').count()).resolves.toBe(0);
  await expect(snippet.locator('mark').allTextContents()).resolves.toEqual(['quarantinezone']);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  // Keyboard use is unchanged: down to the content hit, Tab inserts it.
  await page.keyboard.press('ArrowDown');
  await expect(hits.first().getAttribute('class')).resolves.toContain('active');
  await page.keyboard.press('Tab');
  await expect(page.locator('#draft .chip').getAttribute('data-session-id')).resolves.toBe(hostile);
  expect(problems).toEqual([]);
  await page.close();
});
