/**
 * `GET /api/events` keeps its bound on streams honest while a stream's first
 * answer is awaited (issue #37, item 1): a page that leaves before that
 * answer gives its slot back, and a burst of pages never holds more streams
 * than the bound. The engine's change stamps are held back by a gate, so
 * every stream waits exactly where a slow first walk would make it wait.
 */
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { listen, removeDir, tempDir } from './fixture.js';

const BOUND = 16;

let base: string;
let engine: Engine;
let server: RunningServer | undefined;

beforeAll(async () => {
  base = await tempDir('event-slots');
  engine = await Engine.open({ root: join(base, 'root'), indexFile: join(base, 'titles.json'), searchIndexFile: join(base, 'search.sqlite') });
});

afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

afterAll(async () => {
  await engine?.close();
  await removeDir(base);
});

/** Hold every change-stamp walk until `open()` is called; count the walks asked for. */
function gateStamps(): { calls: () => number; open: () => void } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const spy = vi.spyOn(engine, 'changeStamps').mockImplementation(async () => {
    await gate;
    return new Map<string, string>();
  });
  return { calls: () => spy.mock.calls.length, open: release };
}

function openStream(target: RunningServer, signal?: AbortSignal): Promise<Response> {
  return fetch(`${target.origin}/api/events`, { headers: { 'x-sessref-token': target.token }, ...(signal ? { signal } : {}) });
}

/** More pages than the bound opening the stream at once, each with its own abort; back once the first walks wait at `gate`. */
async function burst(target: RunningServer, gate: ReturnType<typeof gateStamps>): Promise<{ controllers: AbortController[]; requests: Promise<Response | undefined>[] }> {
  const controllers = Array.from({ length: BOUND + 4 }, () => new AbortController());
  const requests = controllers.map((controller) => openStream(target, controller.signal).catch(() => undefined));
  await expect.poll(() => gate.calls()).toBeGreaterThanOrEqual(BOUND);
  return { controllers, requests };
}

it('gives back the slot of every page that left before its first answer: a new page is still followed', async () => {
  server = await startServer(engine, { events: { pollMs: 50 } });
  const gate = gateStamps();
  const { controllers: leaving, requests } = await burst(server, gate);
  // Every stream is waiting on its first walk (or was refused over the bound): now they all leave.
  for (const controller of leaving) controller.abort();
  await Promise.all(requests);
  // Let the server see the closed connections before the walk answers.
  await new Promise((resolve) => setTimeout(resolve, 200));
  gate.open();

  const next = await listen(server);
  try {
    expect(next.status).toBe(200);
    await expect.poll(() => next.events).toEqual([{ revision: 0, changed: [] }]);
  } finally {
    next.stop();
    await next.ended;
  }
});

it('never holds more streams than its bound, even when a burst arrives while the first walk runs', async () => {
  server = await startServer(engine, { events: { pollMs: 50 } });
  const gate = gateStamps();
  // The refusals answer at once; the accepted streams wait on the walk.
  const { controllers: stops, requests } = await burst(server, gate);
  await new Promise((resolve) => setTimeout(resolve, 200));
  gate.open();
  const responses = await Promise.all(requests);
  try {
    const statuses = responses.map((response) => response?.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(BOUND);
    expect(statuses.filter((status) => status === 503)).toHaveLength(stops.length - BOUND);
    const refused = responses.find((response) => response?.status === 503);
    expect(await refused?.json()).toMatchObject({ error: { code: 'TOO_MANY_STREAMS' } });
  } finally {
    for (const controller of stops) controller.abort();
  }
});
