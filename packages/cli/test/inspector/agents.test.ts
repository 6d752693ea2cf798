/**
 * Every source in the inspector: with HOME holding one real transcript per
 * agent at its default location (Claude Code, Codex and Gemini CLI samples
 * from `../shared`, copied into a temporary home), the other agents' sessions
 * are listed with their source and agent, offered by the `@` menu, shown as
 * their snapshot carries them, and read-only: Send and Preview never target
 * one and the API refuses to write into one; a dsh target cites one and the
 * preview frames it exactly as a dsh source (Chromium against the real server).
 */
import { appendFileSync, copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import type { ApiError, CandidatesResponse, MessagesResponse, SessionsResponse } from '../../src/server/protocol.js';
import type { RunningServer } from '../../src/server/server.js';
import { hashTree } from '../support.js';
import { TARGET, cite, httpRequest, json, listen, openPage, postJson, removeDir, startPageRig, tempDir, type Browser, type PageRig, type Reply } from './fixture.js';

const SAMPLES = fileURLToPath(new URL('../../../../../shared/cross-harness-samples/', import.meta.url));
const CLAUDE_ID = 'claude-code:ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const CODEX_ID = 'codex:019b2ea4-aaaa-bbbb-cccc-58208e1f0000';
const GEMINI_ID = 'gemini-cli:session-2026-01-16T18-34-3739ef95';
/** The agents' folder variables, which would send the readers elsewhere than the temporary HOME. */
const AGENT_VARIABLES = ['HOME', 'CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'XDG_DATA_HOME'] as const;

/** Where each sample goes in the home: the agent's default location. */
const PLACES: readonly (readonly [sample: string, ...path: string[]])[] = [
  [`claude-code/spotter/${CLAUDE_ID.slice('claude-code:'.length)}.jsonl`, '.claude', 'projects', '-work-app', `${CLAUDE_ID.slice('claude-code:'.length)}.jsonl`],
  ['codex/agent-sessions/large.jsonl', '.codex', 'sessions', '2025', '12', '18', `rollout-2025-12-18T10-00-00-${CODEX_ID.slice('codex:'.length)}.jsonl`],
  ['gemini-cli/agent-sessions/small.json', '.gemini', 'tmp', 'app', 'chats', `${GEMINI_ID.slice('gemini-cli:'.length)}.json`],
];

let home: string;
let rig: PageRig;
let engine: Engine;
let server: RunningServer;
let browser: Browser;

/** An engine reading every agent's home, booted with HOME at the temporary home and none of the agents' own folder variables. */
async function openWithAgents(root: string): Promise<Engine> {
  const saved = Object.fromEntries(AGENT_VARIABLES.map((name) => [name, process.env[name]]));
  for (const name of AGENT_VARIABLES) delete process.env[name];
  process.env.HOME = home;
  try {
    return await Engine.open({ root, sources: ['claude-code', 'codex', 'gemini-cli', 'opencode'] });
  } finally {
    for (const name of AGENT_VARIABLES) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  }
}

beforeAll(async () => {
  home = await tempDir('agents-home');
  for (const [sample, ...path] of PLACES) {
    const file = join(home, ...path);
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(join(SAMPLES, sample), file);
  }
  // opencode's folder is a link loop: that agent is skipped, and the page says so (#37).
  mkdirSync(join(home, '.local', 'share'), { recursive: true });
  symlinkSync(join(home, '.local', 'share', 'opencode'), join(home, '.local', 'share', 'opencode'));
  rig = await startPageRig('agents', openWithAgents);
  ({ engine, server, browser } = rig);
});

afterAll(async () => {
  await rig?.close();
  await removeDir(home);
});

const post = (path: string, body: unknown): Promise<Reply> => postJson(server, path, body);

describe("the API over other agents' sessions", () => {
  it('lists each with its source and agent after the dsh sessions, which carry neither agent', async () => {
    const reply = await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': server.token } });
    const { sessions } = json<SessionsResponse>(reply);
    const foreign = sessions.filter((session) => session.source !== 'dsh');
    expect(foreign.map(({ sessionId, source, agent }) => [sessionId, source, agent])).toEqual([
      [CLAUDE_ID, 'claude-code', 'Claude Code'],
      [CODEX_ID, 'codex', 'Codex'],
      [GEMINI_ID, 'gemini-cli', 'Gemini CLI'],
    ]);
    expect(foreign.find((session) => session.source === 'codex')).toMatchObject({ title: 'Codex · Start', cwd: '/tmp/large' });
    expect(sessions.slice(0, sessions.length - foreign.length).every((session) => session.source === 'dsh' && session.agent === undefined)).toBe(true);
  });

  it("answers a session's conversation as its snapshot carries it, the same projection `show` gives", async () => {
    for (const id of [CODEX_ID, GEMINI_ID, CLAUDE_ID]) {
      const reply = await post('/api/messages', { sessionId: id });
      expect(reply.status).toBe(200);
      const { messages } = json<MessagesResponse>(reply);
      const shown = (await engine.show(id)).items;
      expect(messages.map(({ role, kind, text }) => ({ role, checkpoint: kind === 'checkpoint', text }))).toEqual(shown.map(({ role, checkpoint, text }) => ({ role, checkpoint, text })));
    }
    const codex = json<MessagesResponse>(await post('/api/messages', { sessionId: CODEX_ID }));
    expect(codex.messages.slice(0, 3).map(({ role, text }) => [role, text])).toEqual([
      ['user', 'Start'],
      ['assistant', 'Acknowledged.'],
      ['assistant', 'Captured multiline output.'],
    ]);
  });

  it('offers them as candidates for a dsh target, agent named', async () => {
    const { candidates } = json<CandidatesResponse>(await post('/api/candidates', { target: TARGET, query: 'Codex' }));
    expect(candidates.map(({ sessionId, source, agent, label }) => ({ sessionId, source, agent, label }))).toEqual([{ sessionId: CODEX_ID, source: 'codex', agent: 'Codex', label: 'Codex · Start' }]);
  });

  it('refuses to send into one, and nothing in the home changes', async () => {
    const before = await hashTree(home);
    const reply = await post('/api/send', { target: CODEX_ID, text: 'hello' });
    expect(json<ApiError>(reply).error.code).toBe('SESSION_WRITE_UNSUPPORTED');
    expect(await hashTree(home)).toEqual(before);
  });
});

const rowOf = (page: Page, id: string) => page.locator(`#sessions .session[data-session-id="${id}"]`);

describe("following other agents' sessions", () => {
  it('names a transcript that grew in the change stream, and the open page shows its new title with no click', async () => {
    const { page, problems } = await openPage(browser, server.url);
    const claude = rowOf(page, CLAUDE_ID);
    await expect.poll(() => claude.locator('.session-title').count()).toBe(1);
    const stream = await listen(server);
    try {
      await expect.poll(() => stream.events).toEqual([{ revision: 0, changed: [] }]);
      // What Claude Code appends when the user names the session (`/rename`).
      const [, ...path] = PLACES[0]!;
      appendFileSync(join(home, ...path), `${JSON.stringify({ type: 'custom-title', customTitle: 'Renamed while open', sessionId: CLAUDE_ID.slice('claude-code:'.length) })}\n`);
      await expect.poll(() => stream.events.at(-1), { timeout: 15_000 }).toEqual({ revision: 1, changed: [CLAUDE_ID] });
      await expect.poll(() => claude.locator('.session-title').textContent(), { timeout: 15_000 }).toBe('Claude Code · Renamed while open');
    } finally {
      stream.stop();
      await stream.ended;
    }
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("the page over other agents' sessions", () => {
  it('lists them read-only with their agent, shows their conversation, never sends into one, and cites one from a dsh target as a dsh source', async () => {
    const { page, problems } = await openPage(browser, server.url);
    // The landing target is a dsh session, never another agent's.
    await expect.poll(() => page.evaluate(() => new URL(location.href).searchParams.get('session'))).not.toBeNull();
    expect(new URL(page.url()).searchParams.get('session')).not.toMatch(/^(claude-code|codex|gemini-cli):/);

    const codex = rowOf(page, CODEX_ID);
    await expect.poll(() => codex.locator('.session-title').textContent()).toBe('Codex · Start');
    await expect(codex.locator('.badge.read-only').textContent()).resolves.toBe('read-only');
    await expect(codex.locator('.badge.read-only').getAttribute('title')).resolves.toContain('A Codex session, read in place');
    expect(await rowOf(page, TARGET).locator('.badge.read-only').count()).toBe(0);

    await codex.click();
    await expect.poll(() => page.locator('#conversation').textContent()).toContain('Captured multiline output.');
    await page.click('#draft');
    await page.keyboard.type('hello');
    expect(await page.locator('#send-button').isDisabled()).toBe(true);
    expect(await page.locator('#preview-button').isDisabled()).toBe(true);
    await expect(page.locator('#send-button').getAttribute('title')).resolves.toContain('A Codex session, read in place');

    await rowOf(page, TARGET).click();
    await page.click('#draft');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('see ');
    await cite(page, 'Codex');
    await expect(page.locator('#draft .chip').textContent()).resolves.toBe('@Codex · Start');
    expect(await page.locator('#send-button').isDisabled()).toBe(false);
    await page.click('#preview-button');
    const messages = page.locator('#preview .model-message .model-text');
    await expect.poll(() => messages.count()).toBe(2);
    // The chip is followed by the space the composer adds after it.
    expect((await messages.nth(0).textContent())?.trimEnd()).toBe('see @Codex · Start');
    const context = (await messages.nth(1).textContent()) ?? '';
    expect(context).toContain('## Referenced sessions');
    expect(context).toContain(`"sessionId": "${CODEX_ID}"`);
    expect(context).toContain('"label": "Codex · Start"');
    expect(context).toContain('Captured multiline output.');
    await expect(page.locator(`#preview .reference[data-session-id="${CODEX_ID}"]`).count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("what other agents' sources could not read (#37)", () => {
  const sessionsReply = async () => json<SessionsResponse>(await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': server.token } }));

  it('/api/sessions answers each problem on one line, and the page shows them in a quiet note above the list', async () => {
    const opencode = join(home, '.local', 'share', 'opencode');
    const skippedHome = { source: 'opencode', code: 'SOURCE_SESSION_UNREADABLE', message: `opencode sessions skipped: ${opencode} cannot be read (ELOOP)` };
    expect((await sessionsReply()).problems).toEqual([skippedHome]);

    // A looping project folder in Gemini CLI's tmp/: that folder alone is left out, and named.
    const loop = join(home, '.gemini', 'tmp', 'loop');
    symlinkSync(loop, loop);
    try {
      const folder = { source: 'gemini-cli', sessionId: 'gemini-cli:tmp/loop/', code: 'SOURCE_SESSION_UNREADABLE', message: expect.stringContaining('tmp/loop/ cannot be searched (ELOOP): its Gemini CLI sessions are left out') as unknown };
      await expect.poll(async () => (await sessionsReply()).problems, { timeout: 15_000 }).toEqual([skippedHome, folder]);
      expect((await sessionsReply()).sessions.filter((session) => session.source === 'gemini-cli').map((session) => session.sessionId)).toEqual([GEMINI_ID, 'gemini-cli:tmp/loop/']);

      const { page, problems } = await openPage(browser, server.url);
      const notice = page.locator('#source-notice');
      await expect.poll(() => notice.isVisible()).toBe(true);
      expect(await notice.locator('.source-notice-head').textContent()).toBe('2 things other agents keep could not be read; every other session is listed.');
      const lines = await notice.locator('li').allTextContents();
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe(skippedHome.message);
      expect(lines[1]).toContain('tmp/loop/ cannot be searched (ELOOP)');
      // The other agents' sessions are listed as before.
      await expect.poll(() => rowOf(page, CODEX_ID).count()).toBe(1);
      expect(problems).toEqual([]);
      await page.close();
    } finally {
      rmSync(loop);
    }
  });
});
