/**
 * The dsh Web UI, driven in Debian's Chromium through playwright-core: the
 * workspace picker of a fresh home, the composer's `@` menu (a listbox named
 * "Trigger suggestions" whose session options read
 * "Session · <label> <id> · <cwd> · <ISO time>"), the inserted reference chip
 * (`[data-reference-appearance="session"]`) and sending with Enter; on a
 * later boot, the sidebar's session tree ("Sessions": one expandable row per
 * workspace, then "Ungrouped", each followed by its session rows) and a sent
 * message's session chip (`[data-ref-chip="session"]`, titled `@<label>`).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT } from './install.mjs';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic',
  '--no-first-run', '--disable-component-update', '--disable-sync',
];

export async function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing (install Debian's: apt-get update -qq && apt-get install -y -qq chromium)`);
  }
  const { chromium } = createRequire(`${REPO_ROOT}package.json`)('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/**
 * How long one action on the app's page may wait: long enough that a busy
 * 2-core machine (it once took over 20 s to show the first-run notice while
 * npm was unpacking the agents' CLIs) never decides the verdict.
 */
const ACTION_TIMEOUT_MS = 60_000;

/**
 * A page for the app, with its errors collected. dsh shows a first-run
 * "Internal Testing Notice" dialog on a fresh home, at a moment of its own:
 * on one CI run it opened only after the workspace was connected, over the
 * composer the next step clicks, and that click timed out. The page's
 * locator handler dismisses it before any action whenever it shows.
 */
async function newAppPage(browser) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-US', timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(ACTION_TIMEOUT_MS);
  const problems = { pageErrors: [], consoleErrors: [] };
  page.on('pageerror', (error) => problems.pageErrors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.consoleErrors.push(message.text()); });
  const notice = page.getByRole('dialog', { name: 'Internal Testing Notice' });
  await page.addLocatorHandler(notice, (dialog) => dialog.getByRole('button', { name: 'Continue' }).click());
  return { context, page, problems };
}

/**
 * Open the app on a fresh home: dismiss the first-run notice, connect the
 * workspace folder, wait for the live composer of the new blank session.
 */
export async function openApp(browser, { url, workspace }) {
  const { context, page, problems } = await newAppPage(browser);
  await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
  // Click the chooser (bounded) until it opens the directory dialog: it may
  // render before it takes clicks, and the notice is dismissed by the click.
  const chooser = page.getByRole('textbox', { name: 'Choose workspace' });
  const dialog = page.getByRole('dialog', { name: 'Select Workspace Directory' });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (await chooser.isVisible()) {
      await chooser.click({ timeout: 2000 }).catch(() => {});
      if (await dialog.waitFor({ timeout: 2000 }).then(() => true, () => false)) break;
    }
    if (Date.now() > deadline) throw new Error('the Web UI showed no usable "Choose workspace" box within 60 s');
    await sleep(250);
  }
  await dialog.getByRole('button', { name: 'Edit path' }).click();
  const pathInput = dialog.getByRole('textbox', { name: 'Edit path' });
  await pathInput.fill(workspace);
  await pathInput.press('Enter');
  await dialog.getByRole('button', { name: 'Open', exact: true }).click();
  await page.locator('textarea:enabled[placeholder="Describe what you want to build"]').waitFor({ timeout: 30_000 });
  return { page, context, problems };
}

const composer = (page) => page.locator('textarea').first();
const menu = (page) => page.getByRole('listbox', { name: 'Trigger suggestions' });

/**
 * The session options of the open `@` menu once they stop changing (two equal
 * reads 400 ms apart), each as { name, selected }.
 */
async function settledSessionOptions(page, { what, accept = () => true, timeoutMs = 20_000 }) {
  const started = Date.now();
  let previous = '';
  for (;;) {
    const named = await menu(page).getByRole('option').evaluateAll((nodes) => nodes.map((node) => ({
      name: (node.getAttribute('aria-label') ?? node.innerText ?? '').replace(/\s+/g, ' ').trim(),
      selected: node.getAttribute('aria-selected') === 'true',
    }))).catch(() => []);
    const sessions = named.filter((row) => row.name.startsWith('Session ·'));
    const key = JSON.stringify(sessions);
    if (sessions.length > 0 && accept(sessions) && key === previous) return sessions;
    previous = key;
    if (Date.now() - started > timeoutMs) {
      throw new Error(`${what}: the @ menu did not settle on session options within ${timeoutMs / 1000} s (last read: ${sessions.length} session rows)`);
    }
    await sleep(400);
  }
}

/**
 * Type `@` into the composer and read the menu (its screenshot `shot` shows
 * the last rows with `showLast`); then narrow it with `filter`, check the
 * selected option is `expectId`, and insert it with Enter.
 */
export async function pickReference(page, { filter, expectId, expectLabel, shot, showLast = false }) {
  const input = composer(page);
  await input.click();
  await input.fill('@');
  await menu(page).waitFor({ timeout: 20_000 });
  const allRows = await settledSessionOptions(page, { what: 'empty query' });
  if (showLast) await menu(page).getByRole('option').last().scrollIntoViewIfNeeded();
  if (shot !== undefined) await page.screenshot({ path: shot });
  await input.fill(`@${filter}`);
  const filteredRows = await settledSessionOptions(page, {
    what: `query "${filter}"`,
    accept: (rows) => rows.length < allRows.length || allRows.every((row) => row.name.toLowerCase().includes(filter)),
  });
  const selected = filteredRows.find((row) => row.selected);
  if (selected === undefined || !selected.name.includes(` ${expectId} `)) {
    throw new Error(`query "${filter}": the selected @ option is ${JSON.stringify(selected?.name ?? 'none')}, expected session ${expectId}`);
  }
  await input.press('Enter');
  const expectedValue = `@${expectLabel} `;
  await waitFor(async () => (await input.inputValue()) === expectedValue, 10_000,
    async () => `after Enter the composer holds ${JSON.stringify(await input.inputValue())}, expected ${JSON.stringify(expectedValue)}`);
  const chip = page.locator('[data-reference-appearance="session"]');
  await waitFor(async () => (await chip.count()) === 1 && (await chip.textContent()) === `@${expectLabel}`, 10_000,
    async () => `the composer shows no session chip "@${expectLabel}" (chips: ${await chip.count()})`);
  return { allRows, filteredRows, selected: selected.name };
}

/**
 * Type `text` after whatever the composer holds, send it with Enter and wait
 * for the model's reply to appear. Resolves to the `session.prompt` payload
 * the page sent.
 */
export async function sendAndWaitForReply(page, { text, reply, timeoutMs = 60_000 }) {
  const input = composer(page);
  await input.focus();
  await input.press('End');
  await input.pressSequentially(text, { delay: 5 });
  const prompt = page.waitForRequest((request) => request.url().endsWith('/api/session.prompt'), { timeout: 15_000 });
  await input.press('Enter');
  const request = await prompt.catch(() => {
    throw new Error('pressing Enter in the composer sent no session.prompt request');
  });
  const payload = JSON.parse(request.postData() ?? '{}').payload;
  await page.getByText(reply, { exact: true }).first().waitFor({ timeout: timeoutMs }).catch(() => {
    throw new Error(`the reply "${reply}" did not appear in the conversation within ${timeoutMs / 1000} s`);
  });
  return payload;
}

/** How long a group row clicked open may show collapsed before it is clicked again. */
const REOPEN_MS = 3000;

/**
 * Open the app on a home dsh web has already used (no workspace chooser) and
 * open a session from the sidebar: expand each collapsed group (again when it
 * still shows collapsed a while after: a click under load can land before the
 * group takes it, seen once in CI with "Ungrouped" left closed), then
 * click, in tree order, each session row whose label (the row's first line;
 * the second is its age) is one of `labels`, until the header's "Session
 * hierarchy" names `title`. Resolves to the page and where the session was
 * listed (`group` is the label of the group row above it). On failure the
 * page is saved to `failureShot` and closed.
 */
export async function openListedSession(browser, { url, labels, title, failureShot, timeoutMs = 45_000 }) {
  const { context, page, problems } = await newAppPage(browser);
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 60_000 });
    const tree = page.getByRole('tree', { name: 'Sessions' });
    const heading = page.getByRole('navigation', { name: 'Session hierarchy' }).getByRole('button', { name: title, exact: true });
    // When each group row was last clicked open: one that shows collapsed again (the sidebar re-renders as sessions arrive) is opened again after a while.
    const opened = new Map();
    const deadline = Date.now() + timeoutMs;
    let rows = [];
    for (;;) {
      rows = await tree.getByRole('treeitem').evaluateAll((nodes) => nodes.map((node) => ({
        group: node.hasAttribute('aria-expanded'),
        expanded: node.getAttribute('aria-expanded') === 'true',
        label: (node.innerText ?? '').split('\n')[0].trim(),
      }))).catch(() => []);
      const collapsed = rows.findIndex((row) => row.group && !row.expanded && Date.now() - (opened.get(row.label) ?? 0) > REOPEN_MS);
      if (collapsed >= 0) {
        opened.set(rows[collapsed].label, Date.now());
        await tree.getByRole('treeitem').nth(collapsed).click({ timeout: 2000 }).catch(() => {});
        await sleep(300);
        continue;
      }
      let group = '';
      const candidates = [];
      rows.forEach((row, index) => {
        if (row.group) group = row.label;
        else if (labels.includes(row.label)) candidates.push({ index, group, label: row.label });
      });
      for (const candidate of candidates) {
        await tree.getByRole('treeitem').nth(candidate.index).click({ timeout: 2000 }).catch(() => {});
        if (await heading.waitFor({ timeout: 5000 }).then(() => true, () => false)) {
          return { page, context, problems, group: candidate.group, label: candidate.label };
        }
      }
      if (candidates.length === 0) {
        await tree.getByRole('button', { name: /^Show \d+ more sessions?$/ }).first().click({ timeout: 1000 }).catch(() => {});
      }
      if (Date.now() > deadline) {
        const seen = rows.map((row) => (row.group ? `[${row.label}]` : row.label)).join(', ');
        throw new Error(`no sidebar row labelled ${labels.map((label) => JSON.stringify(label)).join(' or ')} opened the session "${title}" within ${timeoutMs / 1000} s (rows: ${seen || 'none'})`);
      }
      await sleep(300);
    }
  } catch (error) {
    if (failureShot !== undefined) await page.screenshot({ path: failureShot }).catch(() => {});
    await context.close().catch(() => {});
    throw error;
  }
}

/**
 * The text of the sent message that carries a session chip for `label`, as
 * the conversation renders it: its text parts, with each chip read as its
 * `@label` title.
 */
export async function readChipMessage(page, { label, timeoutMs = 15_000 }) {
  const chip = page.locator(`[data-ref-chip="session"][title=${JSON.stringify(`@${label}`)}]`).first();
  await chip.waitFor({ timeout: timeoutMs }).catch(() => {
    throw new Error(`the conversation shows no session chip "@${label}" within ${timeoutMs / 1000} s`);
  });
  return chip.evaluate((node) => [...node.parentElement.childNodes]
    .map((child) => (child.dataset?.refChip === undefined ? child.textContent : child.getAttribute('title'))).join(''));
}

/** Poll `check` until true (bounded); on timeout throw `describe()`'s text. */
export async function waitFor(check, timeoutMs, describe) {
  const started = Date.now();
  for (;;) {
    if (await check()) return;
    if (Date.now() - started > timeoutMs) throw new Error(await describe());
    await sleep(200);
  }
}
