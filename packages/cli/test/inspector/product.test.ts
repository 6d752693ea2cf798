/**
 * The inspector as a product, in Debian Chromium against the real server:
 * honest badges and notices, sessions created from the page, the reference
 * limit before any error, a combobox that a keyboard and a screen reader can
 * use (axe-core finds nothing serious), layouts at 420 and 1024 px, the
 * sign-in page, dsh Web's conventions, and mentions copied out for dsh.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSessionReferenceMention } from '@sessref/core';
import { serveCommand } from '../../src/commands/serve.js';
import { Engine } from '../../src/engine/engine.js';
import type { SessionsResponse } from '../../src/server/protocol.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { TARGET, WEBAPP, buildWeb, cite, httpRequest, json, launchBrowser, openPage, removeDir, seedRoot, tempDir, type Browser } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [root, webRoot] = await Promise.all([tempDir('product-root'), tempDir('product-web')]);
  await Promise.all([seedRoot(root), buildWeb(webRoot)]);
  engine = await Engine.open({ root });
  server = await startServer(engine, { webRoot });
  browser = await launchBrowser();
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(webRoot);
});

// ---------------------------------------------------------------- helpers

async function open(): Promise<{ page: Page; problems: string[] }> {
  const opened = await openPage(browser, server.url);
  // Loaded: the first target is shown and the composer has the keyboard.
  await expect.poll(() => activeId(opened.page)).toBe('draft');
  return opened;
}

async function target(page: Page, id: string, title: string): Promise<void> {
  await page.click(`#sessions .session[data-session-id="${id}"]`);
  await expect.poll(() => page.locator('#target .target-title').textContent()).toBe(title);
}

const draftText = (page: Page) => page.locator('#draft').evaluate((draft) => draft.textContent);
const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const toast = (page: Page) => page.locator('#toast');

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core run in the page (evaluated through the DevTools protocol, so the page's CSP stays as it is): serious and critical findings. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')})`);
}

/** A process that keeps `path` open for writing, as a running dsh keeps its session's log. */
function holdOpenForWriting(path: string): Promise<ChildProcess> {
  const script = "require('fs').openSync(process.argv[1], 'a'); console.log('ready'); setInterval(() => {}, 1e6);";
  const child = spawn(process.execPath, ['-e', script, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
}

async function logPath(sessionId: string): Promise<string> {
  const path = (await engine.logPaths([sessionId])).get(sessionId);
  if (path === undefined) throw new Error(`no log listed for ${sessionId}`);
  return path;
}

// ---------------------------------------------------------------- 1. honest state

describe('honest state', () => {
  it('a root seeded by `serve --seed-if-empty` lists no session as live or in use', async () => {
    const empty = await tempDir('product-seeded');
    const out = { stdout: '' };
    const stop = new AbortController();
    const io = { stdout: { write: (text: string) => (out.stdout += text) }, stderr: { write: () => true } };
    const serving = serveCommand({ root: empty, host: '127.0.0.1', port: 0, seedFirst: true, signal: stop.signal }, io);
    try {
      await expect.poll(() => out.stdout, { timeout: 60_000 }).toMatch(/\n$/);
      const url = new URL(out.stdout.trim());
      const reply = await httpRequest(Number(url.port), { path: '/api/sessions', headers: { 'x-sessref-token': url.searchParams.get('token') ?? '' } });
      const { sessions } = json<SessionsResponse>(reply);
      expect(sessions.length).toBe(8);
      // The seed ran through an engine of its own, closed before serving: nothing stays open in the server.
      expect(sessions.filter((session) => session.live || session.inUse)).toEqual([]);
    } finally {
      stop.abort();
      await serving;
      await removeDir(empty);
    }
  });

  it('"in use" appears only while another program writes a session, says who in its tooltip, and Send then fails in words', async () => {
    const { page, problems } = await open();
    await expect(page.locator('#sessions .badge.live, #sessions .badge.in-use').count()).resolves.toBe(0);
    const holder = await holdOpenForWriting(await logPath('staging-vpc'));
    try {
      await page.click('#refresh');
      const badge = page.locator('#sessions .session[data-session-id="staging-vpc"] .badge.in-use');
      await expect.poll(() => badge.count()).toBe(1);
      await expect(page.locator('#sessions .badge.in-use').count()).resolves.toBe(1);
      const tooltip = (await badge.getAttribute('title')) ?? '';
      expect(tooltip).toContain(`(pid ${holder.pid}) has this session's log open for writing right now`);
      expect(tooltip).toContain('Send is refused until it lets go; Preview still works.');

      await target(page, 'staging-vpc', 'Terraform: staging VPC');
      await page.keyboard.type('Any news?');
      await page.keyboard.press('Control+Enter');
      await expect.poll(() => toast(page).getAttribute('class')).toBe('toast error');
      const said = (await toast(page).textContent()) ?? '';
      expect(said).toMatch(/^Another program is writing this session right now: the log is open for writing in \S+ \(pid \d+\)\. Nothing was written; try again once it is done\.SESSION_IN_USE$/);
    } finally {
      holder.kill('SIGKILL');
    }
    await page.click('#refresh');
    await expect.poll(() => page.locator('#sessions .badge.in-use').count()).toBe(0);
    expect(problems.filter((problem) => !problem.includes('409'))).toEqual([]);
    await page.close();
  });

  it('after Send it says plainly that two messages were appended and that no model runs here', async () => {
    const { page, problems } = await open();
    await target(page, 'release-notes', 'Release notes for v2.4');
    await page.click('#draft');
    await page.keyboard.type('Mention ');
    await cite(page, 'bill');
    await page.keyboard.type('in the notes.');
    await page.keyboard.press('Control+Enter');
    const note = page.locator('#preview .sent-note');
    await expect.poll(() => note.textContent()).toBe(
      'Both messages were appended to “Release notes for v2.4”. No model runs here: the next dsh turn on this session will see them.',
    );
    await expect(page.locator('#preview h2').textContent()).resolves.toBe('Appended to the target');
    expect(problems).toEqual([]);
    await page.close();
  });
});

// ---------------------------------------------------------------- 2. sessions from the UI

describe('sessions from the UI', () => {
  it('creates a session with the keyboard alone; it becomes the target, and the address keeps it across a reload', async () => {
    const { page, problems } = await open();
    // From the composer, Shift+Tab walks back through the sessions list to the New session button.
    for (let step = 0; step < 40 && (await activeId(page)) !== 'new-session'; step++) await page.keyboard.press('Shift+Tab');
    expect(await activeId(page)).toBe('new-session');
    await page.keyboard.press('Enter');
    await expect.poll(() => activeId(page)).toBe('new-session-title');
    await page.keyboard.type('Pricing rules audit');
    await page.keyboard.press('Tab');
    await page.keyboard.type('relative/dir');
    await page.keyboard.press('Enter');
    // A refusal is a sentence in the dialog, next to the fields.
    await expect.poll(() => page.locator('#new-session-error').textContent()).toBe(
      'The working directory must be an absolute path (starting with /), not "relative/dir".',
    );
    await page.keyboard.press('Control+A');
    await page.keyboard.type(WEBAPP);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Pricing rules audit');
    expect(await page.locator('#new-session-dialog').evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(false);
    expect(await activeId(page)).toBe('draft');

    const id = new URL(page.url()).searchParams.get('session') ?? '';
    const created = (await engine.sessions()).find((session) => session.sessionId === id);
    expect(created).toMatchObject({ title: 'Pricing rules audit', cwd: WEBAPP, live: false });
    await expect(page.locator(`#sessions .session[data-session-id="${id}"][aria-current="true"]`).count()).resolves.toBe(1);

    await page.reload();
    await expect.poll(() => page.locator('#target .target-title').textContent()).toBe('Pricing rules audit');
    expect(new URL(page.url()).searchParams.get('session')).toBe(id);
    expect(new URL(page.url()).hash).toBe('');
    // Escape cancels the dialog without creating anything.
    const before = (await engine.sessions()).length;
    await page.click('#new-session');
    await page.keyboard.type('Never mind');
    await page.keyboard.press('Escape');
    expect(await page.locator('#new-session-dialog').evaluate((dialog) => (dialog as HTMLDialogElement).open)).toBe(false);
    expect((await engine.sessions()).length).toBe(before);
    expect(problems.filter((problem) => !problem.includes('400'))).toEqual([]);
    await page.close();
  });
});

// ---------------------------------------------------------------- 3. limits before errors

describe('limits before errors', () => {
  it('offers no fourth distinct session once three are cited, and says why with the configured limit', async () => {
    const { page, problems } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    await page.click('#draft');
    await cite(page, 'flaky');
    await cite(page, 'bill');
    await cite(page, 'release');
    await page.keyboard.type('@');
    const notice = page.locator('#menu .menu-limit');
    await expect.poll(() => notice.textContent()).toBe('3 of 3 references used: only those are offered');
    await expect(notice.getAttribute('title')).resolves.toBe(
      'This message already references 3 sessions, the most one message may carry (maxReferences = 3). Remove a reference to add another session.',
    );
    // A calm line, not an alarm: its own case, one line high, no coloured block.
    const look = await notice.evaluate((node) => {
      const style = getComputedStyle(node);
      return { transform: style.textTransform, lines: node.getBoundingClientRect().height / parseFloat(style.lineHeight), background: style.backgroundColor };
    });
    expect(look).toEqual({ transform: 'none', lines: expect.closeTo(1, 0) as unknown, background: 'rgba(0, 0, 0, 0)' });
    // Only the three cited sessions remain on offer (citing one again adds no session).
    const offered = await page.locator('#menu .menu-item').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-session-id')).sort());
    expect(offered).toEqual(['billing-schema', 'flaky-ci', 'release-notes']);
    await page.keyboard.type('staging');
    await expect.poll(() => page.locator('#menu .menu-status').first().textContent()).toBe('No session matches');
    await expect(notice.count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    // Remove one reference: the fourth session is offered again.
    await page.keyboard.press('Escape');
    for (let count = 0; count < '@staging'.length + 1; count++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await expect.poll(() => page.locator('#draft .chip').count()).toBe(2);
    await cite(page, 'staging');
    await expect(page.locator('#draft .chip').count()).resolves.toBe(3);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows every server refusal as a sentence, with its code only beside it', async () => {
    const { page } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    const refusals: [text: string, sentence: string, code: string][] = [
      [
        ['flaky-ci', 'billing-schema', 'release-notes', 'staging-vpc'].map((id) => formatSessionReferenceMention({ sessionId: id, label: id })).join(' '),
        'A message may reference at most 3 sessions, got 4. Remove a reference, then try again.',
        'SESSION_REFERENCE_TOO_MANY',
      ],
      [formatSessionReferenceMention({ sessionId: TARGET, label: 'me' }), 'A session cannot reference itself: pick a session other than the target.', 'SESSION_REFERENCE_SELF_REFERENCE'],
      [
        formatSessionReferenceMention({ sessionId: 'ghost', label: 'ghost' }),
        'A referenced session could not be read (could not read session "ghost": session "ghost" not found).',
        'SESSION_REFERENCE_READ_FAILED',
      ],
    ];
    for (const [text, sentence, code] of refusals) {
      await page.locator('#draft').evaluate((draft, value) => {
        draft.textContent = value;
        draft.dispatchEvent(new InputEvent('input'));
      }, text);
      await page.click('#preview-button');
      await expect.poll(() => toast(page).textContent()).toBe(`${sentence}${code}`);
      await expect(toast(page).locator('.toast-code').textContent()).resolves.toBe(code);
    }
    await page.close();
  });
});

// ---------------------------------------------------------------- 4. accessibility

describe('accessibility', () => {
  it('the composer is a combobox over the menu; Escape closes the menu, then the preview, and focus stays in the composer; axe finds nothing serious', async () => {
    const { page } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    const draft = page.locator('#draft');
    expect(await draft.getAttribute('role')).toBe('combobox');
    expect(await draft.getAttribute('aria-controls')).toBe('menu');
    expect(await draft.getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('#menu').getAttribute('role')).toBe('listbox');
    expect(await seriousViolations(page)).toEqual([]);

    await page.keyboard.type('Compare @');
    await expect.poll(() => page.locator('#menu .menu-item').count()).toBeGreaterThan(3);
    expect(await draft.getAttribute('aria-expanded')).toBe('true');
    const activeOption = async () => {
      const id = (await draft.getAttribute('aria-activedescendant')) ?? '';
      return page.locator(`[id="${id}"]`).evaluate((option) => [option.getAttribute('role'), option.getAttribute('aria-selected'), option.classList.contains('active')]);
    };
    await expect(activeOption()).resolves.toEqual(['option', 'true', true]);
    const first = await draft.getAttribute('aria-activedescendant');
    await page.keyboard.press('ArrowDown');
    expect(await draft.getAttribute('aria-activedescendant')).not.toBe(first);
    await expect(activeOption()).resolves.toEqual(['option', 'true', true]);
    await expect(page.locator('#menu [role="option"][aria-selected="true"]').count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    // The dark theme keeps the same contrast.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await seriousViolations(page)).toEqual([]);

    await page.keyboard.press('Escape');
    expect(await draft.getAttribute('aria-expanded')).toBe('false');
    expect(await draft.getAttribute('aria-activedescendant')).toBeNull();
    await page.keyboard.press('Backspace');
    await cite(page, 'flaky');
    await page.keyboard.type('please.');
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .reference').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('#preview').isHidden()).toBe(true);
    expect(await activeId(page)).toBe('draft');

    // The same with the preview's close button, reached and pressed by keyboard (the empty draft's buttons are disabled).
    await page.keyboard.press('Control+Enter');
    await expect.poll(() => page.locator('#preview .sent-note').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close preview');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#preview').isHidden()).toBe(true);
    expect(await activeId(page)).toBe('draft');
    await page.close();
  });
});

// ---------------------------------------------------------------- 5. responsive

describe('responsive', () => {
  for (const viewport of [
    { width: 420, height: 820 },
    { width: 1024, height: 768 },
  ]) {
    it(`at ${viewport.width} px the composer, conversation and preview stay usable; the preview is a sheet below the conversation`, async () => {
      const { page, problems } = await open();
      await page.setViewportSize(viewport);
      const narrow = viewport.width < 720;
      if (narrow) {
        // The sessions list folds behind a header button; picking a session folds it again.
        await expect(page.locator('#sessions').isVisible()).resolves.toBe(false);
        await page.click('#sessions-toggle');
        expect(await page.locator('#sessions-toggle').getAttribute('aria-expanded')).toBe('true');
      }
      await target(page, 'flaky-ci', 'Fix flaky CI on main');
      await expect(page.locator('#sessions').isVisible()).resolves.toBe(!narrow);
      await page.click('#draft');
      await page.keyboard.type('See ');
      await cite(page, 'incident');
      await page.click('#preview-button');
      await expect.poll(() => page.locator('#preview .reference').count()).toBe(1);
      const box = async (selector: string) => (await page.locator(selector).boundingBox())!;
      const [conversation, composer, preview] = [await box('#conversation'), await box('#composer'), await box('#preview')];
      // Nothing covers the conversation or the composer; all three are inside the window.
      expect(preview.y).toBeGreaterThanOrEqual(composer.y + composer.height - 1);
      expect(composer.y).toBeGreaterThanOrEqual(conversation.y + conversation.height - 1);
      expect(conversation.height).toBeGreaterThan(80);
      expect(preview.y + preview.height).toBeLessThanOrEqual(viewport.height + 1);
      expect(preview.width).toBeGreaterThan(narrow ? viewport.width - 2 : 600);
      expect(composer.x + composer.width).toBeLessThanOrEqual(viewport.width);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      // Both stay usable: the composer takes input while the sheet is open, and the sheet scrolls on its own.
      await page.locator('#draft').focus();
      await page.keyboard.type(' now');
      await expect(draftText(page)).resolves.toContain('now');
      expect(await page.locator('#preview .preview-body').evaluate((body) => getComputedStyle(body).overflowY)).toBe('auto');
      expect(await seriousViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});

// ---------------------------------------------------------------- 6. the bare address

describe('the bare address', () => {
  it('answers a browser without the launch link with a sign-in page in words', async () => {
    // No page cookie and no token in this tab: what anyone who types the address sees.
    await browser.context.clearCookies();
    const fresh = await browser.context.newPage();
    const response = await fresh.goto(`${server.origin}/`);
    expect(response?.status()).toBe(401);
    await expect(fresh.locator('h1').textContent()).resolves.toBe('This inspector needs its launch link');
    await expect(fresh.locator('body').textContent()).resolves.toContain('Open the printed address');
    await fresh.close();
  });
});

// ---------------------------------------------------------------- 7. dsh conventions

describe('dsh conventions', () => {
  it('menu rows read like dsh Web: "Session · title", then the id when it differs, the cwd or (no cwd), and the time', async () => {
    const { page } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    await page.click('#draft');
    await page.keyboard.type('@');
    const row = (id: string) => page.locator(`#menu .menu-item[data-session-id="${id}"]`);
    await expect.poll(() => row('release-notes').count()).toBe(1);
    await expect(row('flaky-ci').locator('.menu-name').textContent()).resolves.toBe('Session · Fix flaky CI on main');
    await expect(row('flaky-ci').locator('.menu-meta').textContent()).resolves.toBe(`flaky-ci · ${WEBAPP} · 3d ago`);
    await expect(row('release-notes').locator('.menu-meta').textContent()).resolves.toBe('release-notes · (no cwd) · 4h ago');
    const time = row('flaky-ci').locator('time');
    expect(new Date((await time.getAttribute('datetime')) ?? '').toISOString()).toBe(await time.getAttribute('datetime'));
    await page.close();
  });

  it('a picked session is one reference: one space after it, never two, and Backspace or Delete removes it whole', async () => {
    const { page } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    await page.click('#draft');
    await page.keyboard.type('Ask ');
    await cite(page, 'flaky');
    // A space typed right after the separating space is not doubled.
    await page.keyboard.type(' about it');
    await expect(draftText(page)).resolves.toBe('Ask @Fix flaky CI on main about it');
    await page.click('#preview-button');
    await expect.poll(() => page.locator('#preview .model-message.readable .model-text').textContent()).toBe('Ask @Fix flaky CI on main about it');
    // Escape closes the preview and hands the keyboard back to the end of the draft.
    await page.keyboard.press('Escape');
    expect(await activeId(page)).toBe('draft');

    // Backspace at the end of the separating space takes the space, the next one the whole chip.
    for (let count = 0; count < 'about it'.length; count++) await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await expect(page.locator('#draft .chip').count()).resolves.toBe(1);
    await page.keyboard.press('Backspace');
    await expect(page.locator('#draft .chip').count()).resolves.toBe(0);
    await expect(draftText(page)).resolves.toBe('Ask ');

    // Delete just before a chip removes it whole too; a chip picked before a space adds none.
    await cite(page, 'flaky');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Delete');
    await expect(page.locator('#draft .chip').count()).resolves.toBe(0);
    await expect(draftText(page)).resolves.toBe('Ask  ');
    await cite(page, 'bill');
    await expect(draftText(page)).resolves.toBe('Ask @Design the billing schema ');
    await page.close();
  });

  it('a sent reference shows as dsh Web replays it: the names under the message, the snapshot behind a collapsed recall row', async () => {
    const { page } = await open();
    await target(page, 'billing-schema', 'Design the billing schema');
    await page.click('#draft');
    await page.keyboard.type('Use ');
    await cite(page, 'flaky');
    await cite(page, 'staging');
    await page.keyboard.type('as background.');
    await page.keyboard.press('Control+Enter');
    const recall = page.locator('#conversation .message.context').last();
    await expect.poll(() => recall.count()).toBe(1);
    await expect(recall.locator('summary').textContent()).resolves.toMatch(/^Session recall·Fix flaky CI on main, Terraform: staging VPC#\d+$/);
    expect(await recall.locator('details').evaluate((details) => (details as HTMLDetailsElement).open)).toBe(false);
    await expect(recall.locator('.message-pre').isVisible()).resolves.toBe(false);
    await recall.locator('summary').click();
    await expect(recall.locator('.recall').allTextContents()).resolves.toEqual(['Fix flaky CI on main6 kept · 0 omitted', 'Terraform: staging VPC2 kept · 0 omitted']);
    await expect(recall.locator('.message-pre').textContent()).resolves.toContain('<referenced-sessions>');
    const sent = page.locator('#conversation .message.user').last();
    await expect(sent.locator('.reference-summary').textContent()).resolves.toBe('Referenced session · Fix flaky CI on main, Terraform: staging VPC');
    await expect(sent.locator('.sent-ref').allTextContents()).resolves.toEqual(['@Fix flaky CI on main', '@Terraform: staging VPC']);
    await page.close();
  });
});

// ---------------------------------------------------------------- 8. copy out

describe('copy out', () => {
  it('copies the canonical mention of a session, of a chip, and of a selected draft, for pasting into dsh', async () => {
    const { page } = await open();
    await target(page, TARGET, 'Checkout page redesign');
    const flaky = formatSessionReferenceMention({ sessionId: 'flaky-ci', label: 'Fix flaky CI on main' });
    const incident = formatSessionReferenceMention({ sessionId: 'payments-incident', label: 'Payments queue incident review' });

    // A session row's copy button: Shift+Tab from the composer into the list (one tab stop), ↓ to the row, → to its button, Enter.
    const copyLabel = 'Copy the mention of Fix flaky CI on main';
    const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
    const focusedRow = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.sessionId);
    for (let step = 0; step < 10 && (await focusedRow()) === undefined; step++) await page.keyboard.press('Shift+Tab');
    for (let step = 0; step < 20 && (await focusedRow()) !== 'flaky-ci'; step++) await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    expect(await focusedLabel()).toBe(copyLabel);
    await page.keyboard.press('Enter');
    await expect.poll(() => clipboard(page)).toBe(flaky);
    await expect.poll(() => toast(page).textContent()).toBe('Copied the mention of “Fix flaky CI on main”: paste it into dsh to reference that session.');

    // A chip's copy mark.
    await page.click('#draft');
    await page.keyboard.type('Compare ');
    await cite(page, 'incident');
    await page.keyboard.type('with ');
    await cite(page, 'flaky');
    await page.locator('#draft .chip[data-session-id="payments-incident"] .chip-copy').click();
    await expect.poll(() => clipboard(page)).toBe(incident);

    // The keyboard way: select the draft and copy; chips come out as their mentions.
    await page.click('#draft');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    await expect.poll(() => clipboard(page)).toBe(`Compare ${incident} with ${flaky} `);
    await page.close();
  });
});
