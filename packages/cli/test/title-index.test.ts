/**
 * The title index behind discovery: it must answer exactly as the host's own
 * listing and title reads, notice every change made by another process, and
 * let a fresh process re-read only the logs that changed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '@deepseek-ai/dsh-agent';
import { SessionId } from '@deepseek-ai/dsh-session';
import { createSessionReferenceCore } from '@sessref/core';
import { sessionQueryStorage } from '@sessref/dsh';
import type { Engine } from '../src/engine/engine';
import { appendExchange, setTitle } from '@sessref/test-support';
import { hostOf, openEngineOnHost } from './support';

let root: string;
let indexFile: string;
const engines: Engine[] = [];

beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sessref-catalog-'));
  root = join(dir, 'sessions');
  indexFile = join(dir, 'cache', 'titles.json');
});

afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
  await rm(join(root, '..'), { recursive: true, force: true });
});

/** One "process": an engine over the shared root and index file. */
async function open(watchLogs = false): Promise<Engine> {
  const engine = await openEngineOnHost({ root, indexFile, watchLogs });
  engines.push(engine);
  return engine;
}

async function write(engine: Engine, id: string, options: { title?: string; cwd?: string; createdAt: number }): Promise<void> {
  const meta = { createdAt: options.createdAt, ...(options.cwd === undefined ? {} : { cwd: options.cwd }) };
  const session = hostOf(engine).sessions.create(SessionId(id), { meta });
  if (options.title !== undefined) setTitle(session, options.title);
  appendExchange(session, { user: `hello from ${id}`, assistant: 'hi' });
  await hostOf(engine).sessions.flush(session);
}

async function retitle(engine: Engine, id: string, title: string): Promise<void> {
  const session = hostOf(engine).sessions.get(SessionId(id)) ?? (await hostOf(engine).sessionPersistence.prepare(SessionId(id))).session;
  if (hostOf(engine).sessions.get(SessionId(id)) === undefined) {
    hostOf(engine).sessions.enter(session);
    hostOf(engine).sessions.announce(session);
  }
  setTitle(session, title);
  await hostOf(engine).sessions.flush(session);
}

const target = { id: SessionId('target'), session: { header: { id: 'target', cwd: '/p/a', createdAt: 0 } } } as unknown as Agent;

async function labels(engine: Engine, query: string): Promise<string[]> {
  const candidates = await hostOf(engine).sessionReferenceResolver.listCandidates(target, query, 50);
  return candidates.map((candidate) => `${candidate.sessionId}=${candidate.label}`);
}

/** The same discovery without the index: straight through ctx.sessionQuery. */
async function withoutIndex(engine: Engine, query: string): Promise<string[]> {
  const resolver = createSessionReferenceCore(sessionQueryStorage(() => hostOf(engine).sessionQuery));
  const candidates = await resolver.listCandidates({ id: 'target', cwd: '/p/a' }, query, 50);
  return candidates.map((candidate) => `${candidate.sessionId}=${candidate.label}`);
}

/** Count the ids each host title read asks for. */
function countTitleReads(engine: Engine): string[] {
  const read: string[] = [];
  const query = hostOf(engine).sessionQuery;
  const original = query.readTitleSnapshots.bind(query);
  query.readTitleSnapshots = (ids, signal) => {
    read.push(...ids);
    return original(ids, signal);
  };
  return read;
}

describe('title index', () => {
  it('answers exactly as the host listing and title reads do', async () => {
    const writer = await open();
    await write(writer, 'b', { title: 'Billing plan', cwd: '/p/a', createdAt: 3 });
    await write(writer, 'a', { title: 'Auth rollout', cwd: '/p/b', createdAt: 3 });
    await write(writer, 'c', { cwd: '/p/a', createdAt: 2 });
    await write(writer, 'd', { title: 'billing follow-up', createdAt: 1 });
    await writer.close();
    engines.splice(0);

    const reader = await open();
    for (const query of ['', 'billing', 'P/A', 'zzz', 'c']) {
      expect(await labels(reader, query)).toEqual(await withoutIndex(reader, query));
    }
  });

  it.each([
    ['re-statting every log', false],
    ['following file-system events', true],
  ])('reflects a new title, a new session, a deleted session and a rewrite by another process, %s', async (_how, watchLogs) => {
    const reader = await open(watchLogs);
    const other = await open();
    await write(other, 'one', { title: 'First', cwd: '/p/a', createdAt: 1 });
    expect(await labels(reader, '')).toEqual(['one=First']);

    await retitle(other, 'one', 'Renamed');
    expect(await labels(reader, 'renamed')).toEqual(['one=Renamed']);

    await write(other, 'two', { title: 'Second', cwd: '/p/a', createdAt: 2 });
    expect(await labels(reader, '')).toEqual(['two=Second', 'one=Renamed']);

    await rm(join(root, '--p-a--', 'one'), { recursive: true });
    expect(await labels(reader, '')).toEqual(['two=Second']);

    // A log rewritten in place by another process: same size is not enough to hide it.
    await retitle(other, 'two', 'Second, renamed');
    expect(await labels(reader, 'renamed')).toEqual(['two=Second, renamed']);
    await write(other, 'three', { title: 'Third', cwd: '/p/new', createdAt: 3 });
    expect(await labels(reader, '')).toEqual(['two=Second, renamed', 'three=Third']);
  });

  it('lets a fresh process re-read only the logs whose revision changed', async () => {
    const first = await open();
    for (let index = 0; index < 6; index++) await write(first, `s${index}`, { title: `Task ${index}`, createdAt: index });
    expect(await labels(first, 'task')).toHaveLength(6);
    await retitle(first, 's2', 'Task 2 revised');
    await first.close();
    engines.splice(0);

    const fresh = await open();
    const reads = countTitleReads(fresh);
    expect(await labels(fresh, 'task')).toContain('s2=Task 2 revised');
    expect(reads).toEqual(['s2']);
    reads.length = 0;
    expect(await labels(fresh, 'task')).toHaveLength(6);
    expect(reads).toEqual([]);
  });
});
