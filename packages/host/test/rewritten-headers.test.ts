/**
 * Class 3 of #25 for the headers a listing keeps (in memory and in
 * `<search index>.headers.json`): a log rewritten in place (the same inode:
 * truncated and written again) with another header is listed with the new
 * header, by a live host following file-system events, by one walking the
 * root, and by a new process over the kept headers of an earlier one. An
 * append (dsh's logs only grow) keeps the header without a full listing.
 */
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sessionLogs } from '@sessref/dsh/jsonl-root';
import { CheckedJsonlPersistence, bootHost } from '@sessref/host';
import { appendExchange, createHost, createSession, setTitle } from '@sessref/test-support';
import { temporaryDirectories } from './generation-support.js';

afterEach(() => vi.restoreAllMocks());
const temp = temporaryDirectories();

const ID = 'rewritten';
const CWD = '/work/app';

/**
 * The bytes of the session's log in a root of its own, created at
 * `createdAt`: after one exchange, and after a second one appended to it
 * (`grown`, which starts with `first`'s bytes); and the project directory
 * dsh put it in (named after the cwd, so the same for every version).
 */
async function versionOf(createdAt: number): Promise<{ first: Buffer; grown: Buffer; project: string }> {
  const root = join(temp('sessref-rewritten-'), 'sessions');
  const writer = await createHost({ root, invariants: false, writeBatchMaxDelayMs: 1 });
  try {
    const session = createSession(writer, { id: ID, cwd: CWD, createdAt });
    appendExchange(session, { user: 'First question.', assistant: 'First answer.' });
    setTitle(session, `Created at ${createdAt}`);
    await writer.flush(session);
    const path = sessionLogs(root, 'zstd').find((log) => log.sessionId === ID)!.path;
    const first = readFileSync(path);
    appendExchange(session, { user: 'Second question.', assistant: 'Second answer.' });
    await writer.flush(session);
    return { first, grown: readFileSync(path), project: basename(dirname(dirname(path))) };
  } finally {
    await writer.dispose();
  }
}

/** A root holding `bytes` as the session's log in `project`; the log's path. */
function rootWith(bytes: Buffer, project: string): { root: string; log: string } {
  const root = join(temp('sessref-rewritten-root-'), 'sessions');
  const directory = join(root, project, ID);
  mkdirSync(directory, { recursive: true });
  const log = join(directory, 'session.jsonl.zstd');
  rewriteInPlace(log, bytes);
  return { root, log };
}

/** Truncate the file at `path` and write `bytes` into it through the same descriptor: the same inode throughout. */
function rewriteInPlace(path: string, bytes: Buffer): void {
  const fd = openSync(path, statSync(path, { throwIfNoEntry: false }) === undefined ? 'w' : 'r+');
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, bytes, 0, bytes.length, 0);
  } finally {
    closeSync(fd);
  }
}

async function listedCreatedAt(ctx: Awaited<ReturnType<typeof bootHost>>): Promise<number[]> {
  const snapshots = await ctx.get('sessionPersistence')!.listSnapshots();
  return snapshots.filter((snapshot) => snapshot.header.id === ID).map((snapshot) => snapshot.header.createdAt);
}

describe('a log rewritten in place with another header (#25, class 3)', async () => {
  const [older, newer] = await Promise.all([versionOf(1_700_000_000_000), versionOf(1_700_000_999_000)]);
  expect(newer.project).toBe(older.project);

  for (const watchLogs of [true, false]) {
    it(`is listed with its new header by a live host ${watchLogs ? 'following file-system events' : 'walking the root'}`, async () => {
      const { root, log } = rootWith(older.first, older.project);
      const cache = temp('sessref-rewritten-cache-');
      const ctx = await bootHost({ root, searchIndexFile: join(cache, 'content.sqlite'), indexFile: join(cache, 'titles.json'), watchLogs });
      try {
        expect(await listedCreatedAt(ctx)).toEqual([1_700_000_000_000]);
        const inode = statSync(log).ino;
        rewriteInPlace(log, newer.first);
        expect(statSync(log).ino, 'the same inode').toBe(inode);
        expect(await listedCreatedAt(ctx)).toEqual([1_700_000_999_000]);
        expect((await ctx.sessionQuery.listSessions()).map((record) => record.header.createdAt)).toEqual([1_700_000_999_000]);
      } finally {
        await ctx.fiber.dispose();
      }
    });
  }

  it('is listed with its new header by a new process over the headers an earlier one kept', async () => {
    const { root, log } = rootWith(older.first, older.project);
    const cache = temp('sessref-rewritten-cache-');
    const boot = () => bootHost({ root, searchIndexFile: join(cache, 'content.sqlite'), indexFile: join(cache, 'titles.json') });
    const first = await boot();
    try {
      expect(await listedCreatedAt(first)).toEqual([1_700_000_000_000]);
    } finally {
      await first.fiber.dispose();
    }
    rewriteInPlace(log, newer.first);
    const second = await boot();
    try {
      expect(await listedCreatedAt(second)).toEqual([1_700_000_999_000]);
    } finally {
      await second.fiber.dispose();
    }
  });

  it('keeps the header of a log that only grew, without listing the root again', async () => {
    const { root, log } = rootWith(older.first, older.project);
    const ctx = await bootHost({ root, watchLogs: true });
    try {
      expect(await listedCreatedAt(ctx)).toEqual([1_700_000_000_000]);
      const fullListings = vi.spyOn(CheckedJsonlPersistence.prototype, 'listSnapshots');
      expect(older.grown.subarray(0, older.first.length).equals(older.first), 'an append').toBe(true);
      rewriteInPlace(log, older.grown);
      const [snapshot] = await ctx.get('sessionPersistence')!.listSnapshots();
      expect(snapshot?.header.createdAt).toBe(1_700_000_000_000);
      expect(fullListings).not.toHaveBeenCalled();
    } finally {
      await ctx.fiber.dispose();
    }
  });
});
