/**
 * One rule for what a person may give as a title or a message (the CLI's
 * src/session-input.ts), the same through `sessref new`, `prepare` and `send` and
 * through the inspector's API: a blank title names the session untitled, a
 * title over the maximum is INVALID_TITLE, a blank message is EMPTY_MESSAGE,
 * and a refusal writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_TITLE_LENGTH } from '../src/session-input.js';
import { Engine } from '../src/engine/engine.js';
import type { ApiError, NewSessionResponse } from '../src/server/protocol.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { json as replyJson, postJson, type Reply } from './inspector/fixture.js';
import { emptyRoot, expectFailure, hashTree, json, ok, removeTemps, requireBuild, sessref } from './support.js';

const TOO_LONG = 'x'.repeat(MAX_TITLE_LENGTH + 1);
const BLANKS = ['', '   ', '\n\t '];

let root: string;
let target: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  target = (await ok(['new', '--root', root, '--title', 'Target'])).trim();
});

afterAll(removeTemps);

async function titleOf(sessionId: string): Promise<string | undefined> {
  const listed = await json<{ sessionId: string; title?: string }[]>(['list', '--root', root]);
  return listed.find((session) => session.sessionId === sessionId)?.title;
}

describe('the CLI', () => {
  it('names a session created with a blank --title untitled, as without one, and trims a title', async () => {
    for (const blank of BLANKS) {
      const id = (await ok(['new', '--root', root, '--title', blank])).trim();
      expect(await titleOf(id)).toBe(`Untitled ${id.slice(0, 8)}`);
    }
    const id = (await ok(['new', '--root', root, '--title', '  Release notes \t'])).trim();
    expect(await titleOf(id)).toBe('Release notes');
  });

  it('refuses a title over the maximum with INVALID_TITLE and writes nothing; the maximum itself is taken', async () => {
    const before = await hashTree(root);
    expect(expectFailure(await sessref(['new', '--root', root, '--title', TOO_LONG]), 1, 'INVALID_TITLE')).toContain(`at most ${MAX_TITLE_LENGTH} characters`);
    expect(await hashTree(root)).toEqual(before);
    const id = (await ok(['new', '--root', root, '--title', TOO_LONG.slice(1)])).trim();
    expect(await titleOf(id)).toBe(TOO_LONG.slice(1));
  });

  it('refuses an empty or whitespace-only message to prepare and send with EMPTY_MESSAGE, and writes nothing', async () => {
    const before = await hashTree(root);
    for (const blank of BLANKS) {
      for (const command of ['prepare', 'send']) {
        expectFailure(await sessref([command, '--root', root, '--target', target, blank]), 1, 'EMPTY_MESSAGE');
      }
    }
    expect(await hashTree(root)).toEqual(before);
  });
});

describe('the inspector API', () => {
  let engine: Engine;
  let server: RunningServer;

  beforeAll(async () => {
    engine = await Engine.open({ root });
    server = await startServer(engine);
  });

  afterAll(async () => {
    await server?.close();
    await engine?.close();
  });

  const post = (path: string, body: unknown): Promise<Reply> => postJson(server, path, body);
  const code = (reply: Reply) => replyJson<ApiError>(reply).error.code;

  it('names a session created with a blank or no title untitled, as `sessref new` does', async () => {
    for (const body of [{}, ...BLANKS.map((title) => ({ title }))]) {
      const reply = await post('/api/new', body);
      expect(reply.status).toBe(200);
      const { sessionId } = replyJson<NewSessionResponse>(reply);
      expect(await titleOf(sessionId)).toBe(`Untitled ${sessionId.slice(0, 8)}`);
    }
  });

  it('refuses a title over the same maximum with 400 INVALID_TITLE and writes nothing', async () => {
    const before = await hashTree(root);
    const reply = await post('/api/new', { title: TOO_LONG });
    expect([reply.status, code(reply)]).toEqual([400, 'INVALID_TITLE']);
    expect(await hashTree(root)).toEqual(before);
  });

  it('refuses an empty or whitespace-only message to preview and send with 400 EMPTY_MESSAGE, and writes nothing', async () => {
    const before = await hashTree(root);
    for (const text of BLANKS) {
      for (const path of ['/api/preview', '/api/send']) {
        const reply = await post(path, { target, text });
        expect([reply.status, code(reply)], `${path} ${JSON.stringify(text)}`).toEqual([400, 'EMPTY_MESSAGE']);
      }
    }
    expect(await hashTree(root)).toEqual(before);
  });
});
