/**
 * A cited session that cannot be read is named in the failure, never the
 * session the message was for (#37 item 11). With `--target scratchpad`,
 * each unreadable source (another agent's transcript of garbage bytes or
 * gone since it was listed, a dsh log of garbage bytes, a dsh session that
 * does not exist) is named by `prepare` and `send` (under `--json` too), by
 * the inspector's /api/preview and /api/send, and by `sessref mcp`'s `ref`
 * prompt. The agents' samples come from `../shared`, copied into a temporary
 * home.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { encodeSessionReferenceUri } from '@sessref/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, NO_DSH_HOME, emptyRoot, expectFailure, hashTree, logPath, ok, removeTemps, requireBuild, serveInChild, sessref, tempDir } from './support';

const SAMPLES = fileURLToPath(new URL('../../../../shared/cross-harness-samples/', import.meta.url));
const CLAUDE = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const GEMINI = 'session-2026-01-16T18-34-3739ef95';
const TARGET = 'scratchpad';

/** Each unreadable source: what it is, its id, the code and exit status of citing it. */
const SOURCES = [
  ['a Gemini CLI chat of garbage bytes', `gemini-cli:${GEMINI}`, 'SOURCE_SESSION_CORRUPT', 2],
  ['a Claude Code transcript gone since it was listed', `claude-code:${CLAUDE}`, 'SOURCE_SESSION_NOT_FOUND', 1],
  ['a dsh log of garbage bytes', 'flaky-ci', 'SESSION_LOG_CORRUPT', 2],
  ['a dsh session that does not exist', 'no-such-session', 'SESSION_REFERENCE_READ_FAILED', 1],
] as const;

let root: string;
let env: Record<string, string>;

const cite = (sessionId: string) => `see @[it](${encodeSessionReferenceUri(sessionId)})`;
const garbage = (size: number) => Buffer.from(Array.from({ length: size }, (_, index) => (index * 7919 + 13) % 256));

/** A failure's message names the cited session, and the target nowhere. */
function expectNames(message: string, sessionId: string): void {
  expect(message).toContain(`session "${sessionId}"`);
  expect(message).not.toContain(`"${TARGET}"`);
}

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
  const log = logPath(root, 'flaky-ci', '/home/dev/webapp');
  writeFileSync(log, garbage(readFileSync(log).length));
  const home = await tempDir('sessref-cited-home-');
  const gemini = join(home, '.gemini', 'tmp', 'app', 'chats');
  mkdirSync(gemini, { recursive: true });
  writeFileSync(join(gemini, `${GEMINI}.json`), garbage(3000));
  const claude = join(home, '.claude', 'projects', '-work-app');
  mkdirSync(claude, { recursive: true });
  copyFileSync(join(SAMPLES, 'claude-code', 'spotter', `${CLAUDE}.jsonl`), join(claude, `${CLAUDE}.jsonl`));
  env = { PATH: process.env.PATH ?? '', HOME: home, DSH_HOME: NO_DSH_HOME, SESSREF_CACHE_DIR: await tempDir('sessref-cited-cache-'), NO_COLOR: '1' };
  expect((await sessref(['list', '--root', root], { env })).stdout).toContain(`claude-code:${CLAUDE}`);
  rmSync(join(claude, `${CLAUDE}.jsonl`));
});

afterAll(removeTemps);

describe('a cited session that cannot be read', () => {
  it.each(SOURCES)('%s: prepare and send name it, under --json too, and write nothing', async (_, sessionId, code, exit) => {
    const before = await hashTree(root);
    for (const command of ['prepare', 'send']) {
      expectNames(expectFailure(await sessref([command, '--root', root, '--target', TARGET, cite(sessionId)], { env }), exit, code), sessionId);
      const asJson = await sessref([command, '--root', root, '--target', TARGET, '--json', cite(sessionId)], { env });
      const { error } = JSON.parse(asJson.stderr.trimEnd().split('\n').at(-1)!) as { error: { code: string; message: string } };
      expect(error.code).toBe(code);
      expectNames(error.message, sessionId);
    }
    expect(await hashTree(root)).toEqual(before);
  });

  it("the inspector's /api/preview and /api/send name it", async () => {
    const stop = new AbortController();
    try {
      const { port, token } = await serveInChild(['--root', root], { env, signal: stop.signal });
      for (const path of ['/api/preview', '/api/send']) {
        for (const [, sessionId, code] of SOURCES) {
          const response = await fetch(`http://127.0.0.1:${port}${path}`, {
            method: 'POST',
            headers: { 'x-sessref-token': token, 'content-type': 'application/json' },
            body: JSON.stringify({ target: TARGET, text: cite(sessionId) }),
          });
          const { error } = (await response.json()) as { error: { code: string; message: string } };
          expect(response.status, `${path} ${sessionId}`).toBeGreaterThanOrEqual(400);
          expect(error.code).toBe(code);
          expectNames(error.message, sessionId);
        }
      }
    } finally {
      stop.abort();
    }
  });

  it("sessref mcp's ref prompt names it, cited beside a readable session", async () => {
    const client = new Client({ name: 'sessref-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root], env, stderr: 'pipe' }));
    try {
      for (const [, sessionId, code] of SOURCES) {
        const error: unknown = await client.getPrompt({ name: 'ref', arguments: { session: TARGET, session2: sessionId } }).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(ProtocolError);
        expect((error as ProtocolError).data, sessionId).toMatchObject({ code });
        expectNames((error as ProtocolError).message, sessionId);
      }
    } finally {
      await client.close();
    }
  });
});
