/**
 * The inspector's credential never reaches another local server. Cookies are
 * not isolated by port, so a second server on 127.0.0.1 that the browser
 * visits receives every cookie the inspector set: none of them may be the
 * API token. Checked in Debian Chromium against the real server.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { buildWeb, launchBrowser, removeDir, seedRoot, tempDir, type Browser } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let inspector: RunningServer;
let browser: Browser;
let neighbour: Server;
const seenByNeighbour: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  [root, webRoot] = await Promise.all([tempDir('credentials-root'), tempDir('credentials-web')]);
  await Promise.all([seedRoot(root), buildWeb(webRoot)]);
  engine = await Engine.open({ root });
  inspector = await startServer(engine, { webRoot });
  // Another local server, as any the user might visit while the inspector runs.
  neighbour = createServer((req, res) => {
    seenByNeighbour.push(req.headers);
    res.end('<!doctype html><title>neighbour</title><p>another local server</p>');
  });
  await new Promise<void>((resolve) => neighbour.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => neighbour?.close(resolve));
  await inspector?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(webRoot);
});

it('keeps the API token out of cookies, the served HTML and the address bar, yet the page works', async () => {
  const page = await browser.context.newPage();
  const pageHtml: string[] = [];
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'document') pageHtml.push(await response.text().catch(() => ''));
  });
  await page.goto(inspector.url);
  await expect.poll(() => page.locator('#sessions .session').count(), { timeout: 20_000 }).toBeGreaterThan(0);
  // The address keeps the target shown, never the token.
  await expect.poll(() => page.url()).toMatch(new RegExp(`^${inspector.origin}/\\?session=[^#&]+$`));
  expect(await page.evaluate(() => sessionStorage.getItem('sessref-token'))).toBe(inspector.token);
  for (const html of pageHtml) expect(html).not.toContain(inspector.token);

  const cookies = await browser.context.cookies();
  expect(cookies.length).toBeGreaterThan(0);
  for (const cookie of cookies) expect(cookie.value).not.toBe(inspector.token);

  const port = (neighbour.address() as AddressInfo).port;
  await page.goto(`http://127.0.0.1:${port}/`);
  await expect.poll(() => seenByNeighbour.length, { timeout: 20_000 }).toBeGreaterThan(0);
  for (const headers of seenByNeighbour) {
    expect(JSON.stringify(headers)).not.toContain(inspector.token);
  }
  // What the neighbour did receive, the page cookie, opens nothing on the API.
  const leaked = (seenByNeighbour[0]!.cookie ?? '').split(';').map((pair) => pair.trim().split('=')[1] ?? '');
  for (const value of leaked.filter(Boolean)) {
    const reply = await fetch(`${inspector.origin}/api/sessions`, { headers: { 'x-sessref-token': value } });
    expect(reply.status).toBe(403);
  }
  await page.close();
});

it('a tab opened at the bare address gets told how to get in', async () => {
  const page = await browser.context.newPage();
  const response = await page.goto(`${inspector.origin}/`);
  // This browser holds the page cookie, so the page loads, but this tab has no token: it says how to get in, and stays.
  expect(response?.status()).toBe(200);
  await expect.poll(() => page.locator('h1').textContent(), { timeout: 20_000 }).toContain('launch link');
  await expect(page.locator('#sessions').count()).resolves.toBe(0);
  await expect(page.locator('#toast').isHidden()).resolves.toBe(true);
  await page.close();

  const fresh = await launchBrowser();
  try {
    const bare = await fresh.context.newPage();
    const reply = await bare.goto(`${inspector.origin}/`);
    expect(reply?.status()).toBe(401);
    await expect.poll(() => bare.locator('h1').textContent(), { timeout: 20_000 }).toContain('launch link');
  } finally {
    await fresh.close();
  }
});
