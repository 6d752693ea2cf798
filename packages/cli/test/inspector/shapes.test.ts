/**
 * The inspector over a root with damaged logs, and over one a newer dsh
 * starts writing while it serves: `/api/sessions` lists every healthy
 * session and flags each damaged one with its code and reason, a read of a
 * damaged session is a 502 naming it, a newer generation is served as the
 * session's log, and no byte of the root changes.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framePerRecord, writeGeneration, type Step } from '@sessref/test-support';
import { Engine } from '../../src/engine/engine.js';
import type { ApiError, MessagesResponse, SessionsResponse } from '../../src/server/protocol.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { SEED, WEBAPP, httpRequest, json, removeDir, seedRoot, tempDir, type Reply } from './fixture.js';

let root: string;
let cache: string;
let engine: Engine;
let server: RunningServer;

const log = (id: string, cwd?: string) => join(root, cwd === undefined ? '_no-cwd' : `--${cwd.slice(1).replace(/\//g, '-')}--`, id, 'session.jsonl.zstd');

async function hashTree(dir: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    hashes[relative(dir, path)] = createHash('sha256').update(await readFile(path)).digest('hex');
  }
  return hashes;
}

function api(path: string, body?: unknown): Promise<Reply> {
  return httpRequest(server.port, {
    path,
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-sessref-token': server.token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

beforeAll(async () => {
  root = await tempDir('shapes-root');
  cache = await tempDir('shapes-cache');
  await seedRoot(root);
  // flaky-ci loses its header, billing-schema its last 40 bytes.
  await truncate(log('flaky-ci', WEBAPP), 20);
  const billing = log('billing-schema', WEBAPP);
  await truncate(billing, (await readFile(billing)).length - 40);
  engine = await Engine.open({ root, indexFile: join(cache, 'index.json'), watchLogs: true });
  server = await startServer(engine, {});
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(cache);
});

describe('the inspector over damaged logs', () => {
  it('/api/sessions lists every healthy session and flags each damaged one with its code and reason', async () => {
    const before = await hashTree(root);
    const reply = await api('/api/sessions');
    expect(reply.status).toBe(200);
    const { sessions } = json<SessionsResponse>(reply);
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(SEED.map((s) => s.id).sort());
    const flagged = Object.fromEntries(sessions.filter((s) => s.readError).map((s) => [s.sessionId, s]));
    expect(Object.keys(flagged).sort()).toEqual(['billing-schema', 'flaky-ci']);
    // The header of flaky-ci is gone: only its id (from its directory) and why.
    expect(flagged['flaky-ci']).toEqual({
      sessionId: 'flaky-ci',
      // The root's own session: no agent, so the page may write into it once it can be read.
      source: 'dsh',
      live: false,
      persisted: true,
      readError: {
        code: 'SESSION_LOG_CORRUPT',
        message: 'session "flaky-ci": log --home-dev-webapp--/flaky-ci/session.jsonl.zstd: the log has no complete header line',
      },
    });
    expect(flagged['billing-schema']).toMatchObject({ cwd: WEBAPP, createdAt: expect.any(Number), readError: { code: 'SESSION_LOG_TRUNCATED' } });
    expect(flagged['billing-schema']!.readError!.message).toMatch(/^session "billing-schema": log --home-dev-webapp--\/billing-schema\/session\.jsonl\.zstd ends in an incomplete write after byte \d+$/);
    for (const session of sessions.filter((s) => !s.readError)) expect(session.title).toBe(SEED.find((s) => s.id === session.sessionId)!.title);
    expect(await hashTree(root)).toEqual(before);
  });

  it('a read of a damaged session is a 502 with its code, never "not found"; healthy ones read as usual', async () => {
    const before = await hashTree(root);
    const damaged = await api('/api/messages', { sessionId: 'flaky-ci' });
    expect(damaged.status).toBe(502);
    expect(json<ApiError>(damaged).error).toEqual({
      code: 'SESSION_LOG_CORRUPT',
      message: 'session "flaky-ci": log --home-dev-webapp--/flaky-ci/session.jsonl.zstd: the log has no complete header line',
      // The CLI's `fix:` for it (#35, item 6).
      hint: 'restore the file from a backup, or move it out of the root',
    });
    const truncated = await api('/api/messages', { sessionId: 'billing-schema' });
    expect(truncated.status).toBe(502);
    expect(json<ApiError>(truncated).error.code).toBe('SESSION_LOG_TRUNCATED');
    const preview = await api('/api/preview', { target: 'checkout-redesign', text: 'see dsh-session:ImZsYWt5LWNpIg' });
    expect(preview.status).toBe(502);
    expect(json<ApiError>(preview).error.code).toBe('SESSION_LOG_CORRUPT');
    expect((await api('/api/messages', { sessionId: 'checkout-redesign' })).status).toBe(200);
    expect(await hashTree(root)).toEqual(before);
  });
});

describe('a newer dsh writing a newer generation while the inspector serves the root', () => {
  it('serves the newer generation from then on, never the superseded log, and writes nothing', async () => {
    const target = 'checkout-redesign';
    const current = await api('/api/messages', { sessionId: target });
    expect(current.status).toBe(200);
    const { cwd, messages } = json<MessagesResponse>(current);
    expect(messages.length).toBeGreaterThan(0);
    const targetLog = (await readdir(root, { recursive: true })).find((path) => path.endsWith(`/${target}/session.jsonl.zstd`))!;
    const newer = join(root, dirname(targetLog), 'session.v4.jsonl.zstd');
    const steps: Step[] = [{ kind: 'exchange', user: 'Continued in dsh 0.2.', assistant: 'Written as log format v4.' }];
    await writeFile(newer, framePerRecord(writeGeneration(4, steps, { id: target, createdAt: 1_700_000_000_000, ...(cwd === undefined ? {} : { cwd }) })));
    try {
      const before = await hashTree(root);
      const served = await api('/api/messages', { sessionId: target });
      expect(served.status).toBe(200);
      expect(json<MessagesResponse>(served).messages.map((message) => message.text)).toEqual(['Continued in dsh 0.2.', 'Written as log format v4.']);
      expect((await api('/api/sessions')).status).toBe(200);
      expect(await hashTree(root)).toEqual(before);
    } finally {
      await rm(newer);
    }
    expect(json<MessagesResponse>(await api('/api/messages', { sessionId: target })).messages).toEqual(messages);
  });
});
