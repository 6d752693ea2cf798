/**
 * Shared setup for the inspector tests: a session root written through the
 * real dsh host, the web client built with Vite, Debian Chromium driven by
 * playwright-core, and a raw HTTP client that can forge any header.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SessionId } from '@deepseek-ai/dsh-session';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { expect } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { SessionWriter } from '@sessref/host';

export const WEBAPP = '/home/dev/webapp';
const INFRA = '/home/dev/infra';
export const TARGET = 'checkout-redesign';
const HOUR = 3_600_000;

interface SeedSession {
  id: string;
  title: string;
  cwd?: string;
  hoursAgo: number;
  exchanges: [user: string, assistant: string][];
}

const INCIDENT_NOTES = Array.from({ length: 10 }, (_, index) => [
  `Timeline entry ${index + 1}: what happened next on the payments queue?`,
  `At T+${(index + 1) * 4} min the consumer lag grew to ${(index + 1) * 1200} messages. ${'The retry storm kept the partition leader busy while the dead-letter topic filled up. '.repeat(6)}`,
] as [string, string]);

export const SEED: readonly SeedSession[] = [
  {
    id: 'flaky-ci',
    title: 'Fix flaky CI on main',
    cwd: WEBAPP,
    hoursAgo: 72,
    exchanges: [
      ['The e2e job on main fails about one run in five. Can you find out why?', 'Every failure is the same timeout waiting for `#cart`: the cart renders after a price fetch that CI does not mock, so it races the 5 s default.'],
      ['Mock the price API then.', 'Done: `tests/setup.ts` registers a route for `/api/prices` that returns fixtures. 40 green runs in a row locally.'],
      ['Anything else flaky?', 'One more: `checkout.spec.ts` reads the system clock. I pinned it with a fake timer.'],
    ],
  },
  {
    id: 'billing-schema',
    title: 'Design the billing schema',
    cwd: WEBAPP,
    hoursAgo: 30,
    exchanges: [
      ['We need invoices, line items and credit notes. Postgres.', 'Proposed tables: `invoices`, `invoice_lines`, `credit_notes`, all amounts as integer cents with a currency column; invoices are immutable once issued.'],
      ['How do refunds fit?', 'A refund is a credit note against the invoice plus a payment reversal; the invoice itself never changes.'],
    ],
  },
  {
    id: 'payments-incident',
    title: 'Payments queue incident review',
    cwd: INFRA,
    hoursAgo: 20,
    exchanges: INCIDENT_NOTES,
  },
  {
    id: 'staging-vpc',
    title: 'Terraform: staging VPC',
    cwd: INFRA,
    hoursAgo: 8,
    exchanges: [['Split staging into public and private subnets.', 'Two /20 subnets per AZ; NAT gateways only in the public ones. `terraform plan` shows 14 additions, no destroys.']],
  },
  {
    id: 'release-notes',
    title: 'Release notes for v2.4',
    hoursAgo: 4,
    exchanges: [['Draft the v2.4 release notes.', 'Highlights: faster checkout, saved carts, and the new billing export. Breaking: the `/v1/prices` endpoint is gone.']],
  },
  {
    id: TARGET,
    title: 'Checkout page redesign',
    cwd: WEBAPP,
    hoursAgo: 1,
    exchanges: [['Let us redesign the checkout page. Where do we start?', 'Start from the cart summary: it is the slowest part and the one users complain about most.']],
  },
];

/** Write {@link SEED} into `root` through the real host (turns via Session.append, then flush), then close it. */
export async function seedRoot(root: string, now = Date.now()): Promise<void> {
  const engine = await Engine.open({ root });
  try {
    for (const spec of SEED) {
      const meta = { createdAt: now - spec.hoursAgo * HOUR, ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }) };
      const session = engine.ctx.sessions.create(SessionId(spec.id), { meta });
      const writer = new SessionWriter(session);
      for (const [user, assistant] of spec.exchanges) writer.exchange({ user, assistant });
      writer.title(spec.title);
      await engine.ctx.sessions.flush(session);
    }
  } finally {
    await engine.close();
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
