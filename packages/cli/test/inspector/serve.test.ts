import { createServer } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveCommand } from '../../src/commands/serve.js';
import { httpRequest, removeDir, seedRoot, tempDir } from './fixture.js';

let root: string;

beforeAll(async () => {
  root = await tempDir('serve-root');
  await seedRoot(root);
});

afterAll(() => removeDir(root));

function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
    },
  };
}

it('prints the tokened URL on stdout, serves until stopped, then closes', async () => {
  const { out, io } = capture();
  const stop = new AbortController();
  const running = serveCommand({ root, host: '127.0.0.1', port: 0, signal: stop.signal }, io);
  await expect.poll(() => out.stdout).toMatch(/\n$/);
  const url = new URL(out.stdout.trim());
  expect(url.hostname).toBe('127.0.0.1');
  const token = url.searchParams.get('token') ?? '';
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  const reply = await httpRequest(Number(url.port), { path: '/api/sessions', headers: { 'x-sessref-token': token } });
  expect(reply.status).toBe(200);
  expect(out.stderr).toContain(root);
  stop.abort();
  await running;
  await expect(httpRequest(Number(url.port), { path: '/api/sessions' })).rejects.toThrow();
});

it('explains a busy port: not a usage error, and how to pass --port 0 through npm start', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const { io } = capture();
    await expect(serveCommand({ root, host: '127.0.0.1', port }, io)).rejects.toMatchObject({
      code: 'PORT_IN_USE',
      exitCode: 1,
      message: `port ${port} on 127.0.0.1 is in use`,
      hint: 'pass --port N, or --port 0 for a free one; through npm start: npm start -- --port 0',
    });
  } finally {
    blocker.close();
  }
});
