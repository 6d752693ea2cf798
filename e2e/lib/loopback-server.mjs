/**
 * The HTTP plumbing every stand-in model server of the e2e suites shares:
 * listen on 127.0.0.1 at an OS-chosen port, read each request body whole (up
 * to a cap, past which the handler is told and nothing more is kept), and
 * close with every open connection cut, so a client that keeps a socket alive
 * cannot hold the test open.
 */
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

/**
 * Start a server whose `handle(req, res, body)` runs once the request has
 * ended; `body` is the whole body, or `undefined` when it passed `maxBody` bytes.
 * @param {{ maxBody: number, handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: Buffer | undefined) => void }} options
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function startLoopbackServer({ maxBody, handle }) {
  const sockets = new Set();
  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= maxBody) chunks.push(chunk);
    });
    req.on('end', () => handle(req, res, size > maxBody ? undefined : Buffer.concat(chunks)));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
