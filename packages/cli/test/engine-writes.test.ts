/**
 * Writes inside one process: concurrent sends to one session through the
 * engine and through the inspector's server (each is appended once, none
 * fails), and the last checks before an append (a log that changed since it
 * was read, a lock another sessref holds) refusing with nothing written.
 */
import { mkdtemp, readFile, readdir, rename, rm, symlink, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { request } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createUserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId, type SessionEvent } from '@deepseek-ai/dsh-session';
import type { Engine } from '../src/engine/engine';
import { FileLock } from '../src/engine/session-lock';
import { lockFilesBeside } from '@sessref/dsh/jsonl-root';
import { appendTurn } from '../src/engine/session-writes';
import { SessionWriteError } from '../src/engine/write-error';
import { toHttpError } from '../src/server/http';
import { startServer } from '../src/server/server';
import { hostOf, openEngineOnHost } from './support';

const dirs: string[] = [];
const engines: Engine[] = [];

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function openEngine(options: { lockWaitMs?: number } = {}): Promise<Engine> {
  const dir = await mkdtemp(join(tmpdir(), 'sessref-engine-writes-'));
  dirs.push(dir);
  const engine = await openEngineOnHost({ root: join(dir, 'sessions'), indexFile: join(dir, 'title-index.json'), ...options });
  engines.push(engine);
  return engine;
}

async function events(engine: Engine, id: string): Promise<readonly SessionEvent[]> {
  return (await hostOf(engine).sessionPersistence.inspect(SessionId(id))).events;
}

function userTexts(list: readonly SessionEvent[]): string[] {
  return list.flatMap((event) =>
    event.type === 'user/message' && event.data.source.kind === 'user' ? [event.data.content.map((block) => (block.type === 'text' ? block.text : '')).join('')] : [],
  );
}

function logOf(engine: Engine, id: string, cwd?: string): string {
  return hostOf(engine).sessionPersistence.locate({ version: 0, id: SessionId(id), createdAt: 0, ...(cwd === undefined ? {} : { cwd }) })!.path;
}

describe('concurrent sends in one process', () => {
  it('20 sends at once to a session nobody resumed yet: all appended once, each at the seqs it reports', async () => {
    const engine = await openEngine();
    const target = await engine.create({ title: 'Target' });
    const source = await engine.create({ title: 'Source' });
    const texts = Array.from({ length: 20 }, (_, index) => `message ${index}`);
    const results = await Promise.all(texts.map((text, index) => engine.send(target, index % 2 === 0 ? text : `${text} dsh-session:${Buffer.from(JSON.stringify(source)).toString('base64url')}`)));
    const stored = await events(engine, target);
    stored.forEach((event, index) => expect(event.seq).toBe(index));
    for (const [index, result] of results.entries()) {
      const event = stored[result.appendedSeqs[0]!]!;
      expect(event.type).toBe('user/message');
      expect(userTexts([event])[0]).toBe(index % 2 === 0 ? texts[index] : `${texts[index]} @${source}`);
    }
    expect(userTexts(stored).sort()).toEqual(results.map((result) => userTexts([stored[result.appendedSeqs[0]!]!])[0]).sort());
    expect(new Set(results.flatMap((result) => result.appendedSeqs)).size).toBe(results.flatMap((result) => result.appendedSeqs).length);
  });

  it("the inspector's server answers 8 concurrent sends to one session with 200 each", async () => {
    const engine = await openEngine();
    const target = await engine.create({ cwd: '/home/dev/app', title: 'Target' });
    const server = await startServer(engine, { log: () => {} });
    try {
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, index) => post(server.port, server.token, '/api/send', { target, text: `parallel ${index}` })),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(200));
    } finally {
      await server.close();
    }
    expect(userTexts(await events(engine, target)).sort()).toEqual(Array.from({ length: 8 }, (_, index) => `parallel ${index}`).sort());
  });
});

describe('the last checks before an append', () => {
  it('a log that changed after it was read: SESSION_IN_USE, and the append does not happen', async () => {
    const engine = await openEngine();
    const target = await engine.create({ title: 'Target' });
    const log = logOf(engine, target);
    const persistence = hostOf(engine).sessionPersistence;
    const read = persistence.readFrom.bind(persistence);
    // Another program writes the log right after sessref read it.
    persistence.readFrom = async (...args) => {
      const result = await read(...args);
      const later = new Date(Date.now() + 5_000);
      await utimes(log, later, later);
      return result;
    };
    const before = await readFile(log);
    const error = await engine.send(target, 'too late').catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SessionWriteError);
    expect(error).toMatchObject({ code: 'SESSION_IN_USE', sessionId: target });
    expect((await readFile(log)).equals(before)).toBe(true);
    expect(toHttpError(error)).toMatchObject({ status: 409, code: 'SESSION_IN_USE' });
  });

  it('a lock another sessref holds: SESSION_BUSY after the wait (409 from the server), nothing written', async () => {
    const engine = await openEngine({ lockWaitMs: 50 });
    const target = await engine.create({ title: 'Target' });
    const log = logOf(engine, target);
    const held = await FileLock.acquire(lockFilesBeside(log).sessref, { waitMs: 0 });
    const before = await readFile(log);
    try {
      const error = await engine.send(target, 'blocked').catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'SESSION_BUSY', sessionId: target });
      expect(toHttpError(error)).toMatchObject({ status: 409, code: 'SESSION_BUSY' });
      expect((await readFile(log)).equals(before)).toBe(true);
    } finally {
      held.release();
    }
    await engine.send(target, 'now');
    expect(userTexts(await events(engine, target))).toEqual(['now']);
  });
});

describe('a symbolic link below the root', () => {
  for (const position of ['log', 'session directory', 'project directory'] as const) {
    it(`${position}: the append is refused before any lock or byte is written, inside or outside the root`, async () => {
      const engine = await openEngine();
      const id = await engine.create({ cwd: '/home/dev/app', title: 'Target' });
      const { meta: header } = await hostOf(engine).sessionPersistence.inspect(SessionId(id));
      const log = logOf(engine, id, '/home/dev/app');
      const linked = position === 'log' ? log : position === 'session directory' ? dirname(log) : dirname(dirname(log));
      const outside = await mkdtemp(join(tmpdir(), 'sessref-outside-'));
      dirs.push(outside);
      await rename(linked, join(outside, 'moved'));
      await symlink(join(outside, 'moved'), linked);
      const before = { bytes: await readFile(log), entries: await readdir(outside, { recursive: true }) };
      const messages = [createUserMessage({ content: [{ type: 'text', text: 'hello' }], source: { kind: 'user' } })];
      await expect(appendTurn(hostOf(engine), { root: engine.root, header, messages, lockWaitMs: 0 })).rejects.toMatchObject({ code: 'SESSION_LOG_SYMLINK', sessionId: id });
      expect({ bytes: await readFile(log), entries: await readdir(outside, { recursive: true }) }).toEqual(before);
    });
  }
});

function post(port: number, token: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), 'x-sessref-token': token } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
