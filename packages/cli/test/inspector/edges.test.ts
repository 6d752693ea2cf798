/**
 * The inspector server at its edges: bodies over the limit sent eagerly,
 * clients that stop midway, slow clients, and what error answers reveal.
 */
import { connect, type Socket } from 'node:net';
import { readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSessionDirectory } from '@sessref/dsh/jsonl-root';
import { Engine } from '../../src/engine/engine.js';
import { HttpError, MAX_BODY_BYTES, withRelativePaths } from '../../src/server/http.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { removeDir, seedRoot, tempDir } from './fixture.js';

let root: string;
let webRoot: string;
let engine: Engine;
let server: RunningServer;
const logged: string[] = [];

beforeAll(async () => {
  [root, webRoot] = await Promise.all([tempDir('edges-root'), tempDir('edges-web')]);
  await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>t</title>');
  await seedRoot(root);
  engine = await Engine.open({ root });
  server = await startServer(engine, { webRoot, log: (line) => logged.push(line), headersTimeoutMs: 300, requestTimeoutMs: 600 });
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
  await removeDir(root);
  await removeDir(webRoot);
});

/** A raw connection: write what the test says, collect what the server answers until it closes (bounded). */
function rawExchange(write: (socket: Socket) => void, waitMs = 5_000): Promise<{ answer: string; closedBy: 'server' | 'test' }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closedBy: 'test' });
    }, waitMs);
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, closedBy: 'server' });
    });
    socket.on('connect', () => write(socket));
  });
}

function head(path: string, length: number): string {
  return [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${server.port}`,
    `X-Sessref-Token: ${server.token}`,
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');
}

describe('bodies', () => {
  it.each([
    ['declared too large and sent at once', MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 1],
    ['declared too large, twice the limit', 2 * MAX_BODY_BYTES, 2 * MAX_BODY_BYTES],
  ])('a body %s still gets its 413', async (_name, declared, sent) => {
    const { answer } = await rawExchange((socket) => {
      socket.write(head('/api/preview', declared));
      socket.write(Buffer.alloc(sent, 0x20));
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
    expect(answer).toContain('PAYLOAD_TOO_LARGE');
  });

  it('a chunked body that outgrows the limit midway still gets its 413', async () => {
    const { answer } = await rawExchange((socket) => {
      socket.write(head('/api/preview', 0).replace('Content-Length: 0', 'Transfer-Encoding: chunked'));
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      for (let index = 0; index < 6; index++) socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]));
      socket.write('0\r\n\r\n');
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
  });

  it('a client that stops midway is a client error, never logged as an internal one', async () => {
    logged.length = 0;
    await rawExchange((socket) => {
      socket.write(head('/api/preview', 1000));
      socket.write('{"target":');
      setTimeout(() => socket.destroy(), 50);
    }, 2_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(logged.filter((line) => / 5\d\d /.test(line))).toEqual([]);
  });
});

describe('timeouts', () => {
  it('closes a connection whose headers never finish', async () => {
    const started = Date.now();
    const { answer, closedBy } = await rawExchange((socket) => socket.write(`GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`));
    expect(closedBy).toBe('server');
    expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('closes a connection whose body trickles past the request timeout', async () => {
    const { answer, closedBy } = await rawExchange((socket) => {
      socket.write(head('/api/preview', 100));
      const trickle = setInterval(() => (socket.writable ? socket.write(' ') : clearInterval(trickle)), 100);
      socket.on('close', () => clearInterval(trickle));
    });
    expect(closedBy).toBe('server');
    expect(answer === '' || /^HTTP\/1\.1 (408|400)/.test(answer)).toBe(true);
  });
});

describe('error answers', () => {
  it('name files relative to the root and other absolute paths by their last segment', () => {
    const error = new HttpError(502, 'X', `cannot read '${'/srv/roots/a'}/--p--/s1/session.jsonl.zstd': EISDIR, see /home/me/.cache/sessref/titles.json`);
    expect(withRelativePaths(error, '/srv/roots/a').message).toBe("cannot read '--p--/s1/session.jsonl.zstd': EISDIR, see …/titles.json");
    const plain = new HttpError(400, 'Y', 'nothing to hide');
    expect(withRelativePaths(plain, '/srv/roots/a')).toBe(plain);
  });

  it('a log replaced by a directory answers without the absolute root', async () => {
    const project = readdirSync(root)[0]!;
    const session = readdirSync(join(root, project))[0]!;
    const log = join(root, project, session, 'session.jsonl.zstd');
    await rm(log);
    await mkdir(log);
    const reply = await fetch(`${server.origin}/api/messages`, {
      method: 'POST',
      headers: { 'x-sessref-token': server.token, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId: decodeSessionDirectory(session) }),
    });
    expect(reply.status).toBeGreaterThanOrEqual(400);
    const text = await reply.text();
    expect(text).not.toContain(root);
  });
});
