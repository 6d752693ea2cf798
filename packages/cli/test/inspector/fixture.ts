/**
 * Shared setup for the inspector tests: a session root written through the
 * real dsh host, the web client built with Vite, Debian Chromium driven by
 * playwright-core, and a raw HTTP client that can forge any header.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, expect } from 'vitest';
import { DEMO_SESSIONS, bootHost, writeDemoSessions, type DemoSession } from '@sessref/host';
import { Engine } from '../../src/engine/engine.js';
import type { ChangeEvent } from '../../src/server/protocol.js';
import { startServer, type RunningServer } from '../../src/server/server.js';

export const WEBAPP = '/home/dev/webapp';
export const TARGET = 'checkout-redesign';

/**
 * The inspector suites' sessions, from `@sessref/host`'s demo data set: a
 * target with no references yet, sessions to cite, and a long incident log
 * that content search finds.
 */
const INSPECTOR_SESSIONS = new Set(['flaky-ci', 'billing-schema', 'payments-incident', 'staging-vpc', 'release-notes', TARGET]);
export const SEED = DEMO_SESSIONS.filter((demo) => INSPECTOR_SESSIONS.has(demo.id));

/** Write `sessions` ({@link SEED} unless given) into `root` through the real host, then close it. */
export async function seedRoot(root: string, sessions: readonly DemoSession[] = SEED): Promise<void> {
  const ctx = await bootHost({ root });
  try {
    await writeDemoSessions(ctx, sessions);
  } finally {
    await ctx.fiber.dispose();
  }
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `sessref-${prefix}-`));
}

export async function removeDir(path: string | undefined): Promise<void> {
  if (path !== undefined) await rm(path, { recursive: true, force: true });
}

/** Build the web client from its sources into `outDir` (the same config `npm run build:web` uses). */
export async function buildWeb(outDir: string): Promise<void> {
  const configFile = fileURLToPath(new URL('../../vite.config.ts', import.meta.url));
  await build({ configFile, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
}

const CHROMIUM = process.env.SESSREF_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian Chromium with a fresh user-data-dir. */
export async function launchBrowser(viewport = { width: 1440, height: 900 }): Promise<Browser> {
  const profile = await tempDir('chromium');
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport });
  return {
    context,
    async close() {
      await context.close();
      await removeDir(profile);
    },
  };
}

/** A new page at `url`, with every console error and uncaught exception it reports. */
export async function openPage(browser: Browser, url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  return { page, problems };
}

/** Type `@query` in the composer and pick its one title match with Enter (content matches, if any, follow it). */
export async function cite(page: Page, query: string): Promise<void> {
  await page.keyboard.type(`@${query}`);
  await expect.poll(() => page.locator('#menu').getAttribute('aria-busy')).toBeNull();
  await expect.poll(() => page.locator('#menu .menu-item:not(.menu-hit)').count()).toBe(1);
  await page.keyboard.press('Enter');
  await expect.poll(() => page.locator('#menu').isHidden()).toBe(true);
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RequestOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Send no Host header at all. */
  noHost?: boolean;
}

/** A raw request to 127.0.0.1:port; unlike fetch it can forge Host and Origin. */
export function httpRequest(port: number, options: RequestOptions = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers ?? {},
        setHost: options.noHost !== true,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

export function json<T = unknown>(reply: Reply): T {
  return JSON.parse(reply.text) as T;
}

/** A page test's world: a seeded root, the built page, an engine over the root, the server over it, and Chromium. */
export interface PageRig {
  root: string;
  engine: Engine;
  server: RunningServer;
  browser: Browser;
  /** Close the browser, the server and the engine, and remove the root and the built page. */
  close(): Promise<void>;
}

/** What a page test may change in its rig. */
interface PageRigOptions {
  /** The sessions the root holds ({@link SEED} unless given). */
  sessions?: readonly DemoSession[];
  /** A relative path: the root is that folder under the temporary one, not the temporary folder itself. */
  rootUnder?: string;
  /** Chromium's window ({@link launchBrowser}'s unless given). */
  viewport?: { width: number; height: number };
}

/** Seed a root, build the page, open an engine on the root with `open` and serve it to a fresh Chromium. */
export async function startPageRig(prefix: string, open: (root: string) => Promise<Engine>, options: PageRigOptions = {}): Promise<PageRig> {
  const [base, webRoot] = await Promise.all([tempDir(`${prefix}-root`), tempDir(`${prefix}-web`)]);
  const root = join(base, options.rootUnder ?? '');
  await mkdir(root, { recursive: true });
  await Promise.all([seedRoot(root, options.sessions), buildWeb(webRoot)]);
  const engine = await open(root);
  const server = await startServer(engine, { webRoot });
  const browser = await launchBrowser(options.viewport);
  return {
    root,
    engine,
    server,
    browser,
    async close() {
      await browser.close();
      await server.close();
      await engine.close();
      await Promise.all([removeDir(base), removeDir(webRoot)]);
    },
  };
}

/**
 * A {@link startPageRig} over the suites' sessions with a plain engine on
 * their root, for one file's tests: started before them, closed after them.
 */
export function demoPageRig(prefix: string): () => PageRig {
  let rig: PageRig | undefined;
  beforeAll(async () => {
    rig = await startPageRig(prefix, (root) => Engine.open({ root }));
  });
  afterAll(() => rig?.close());
  return () => rig!;
}

/** A JSON POST to one of `server`'s API routes, with its token. */
export function postJson(server: RunningServer, path: string, body: unknown): Promise<Reply> {
  return httpRequest(server.port, { path, method: 'POST', headers: { 'x-sessref-token': server.token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** An open change stream: its events as they arrive, and a way to stop reading. */
export async function listen(target: RunningServer): Promise<{ status: number; events: ChangeEvent[]; ended: Promise<void>; stop(): void }> {
  const stop = new AbortController();
  const response = await fetch(`${target.origin}/api/events`, { headers: { 'x-sessref-token': target.token }, signal: stop.signal });
  const events: ChangeEvent[] = [];
  const ended = (async () => {
    if (!response.ok || response.body === null) return;
    let buffered = '';
    const decoder = new TextDecoder();
    try {
      const reader = response.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffered += decoder.decode(read.value, { stream: true });
        const blocks = buffered.split('\n\n');
        buffered = blocks.pop() ?? '';
        for (const block of blocks) if (block.startsWith('data: ')) events.push(JSON.parse(block.slice(6)) as ChangeEvent);
      }
    } catch {
      // Stopped by this test.
    }
  })();
  return { status: response.status, events, ended, stop: () => stop.abort() };
}
