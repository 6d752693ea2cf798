/**
 * The strict persistence checks a session's directory and finds its logs on
 * every read. It answers those from listings kept by the directories'
 * revisions: a read of an unchanged root lists no directory, and a change to
 * any directory (the root, a project directory, a session directory) is seen
 * by the next read.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import { afterAll, describe, expect, it } from 'vitest';
import { sessionLogs, type SessionLog } from '@sessref/dsh/jsonl-root';
import { CheckedJsonlPersistence, bootLayers, pluginLayer, sessionServices } from '@sessref/host';
import { DirectoryListings } from '@sessref/platform';
import { appendExchange, createHost, createSession } from '@sessref/test-support';

const temps: string[] = [];
afterAll(() => temps.forEach((path) => rmSync(path, { recursive: true, force: true })));

/** Longer than this machine's file-system timestamp step, short enough to wait for. */
const SETTLED_MS = 50;

/** The strict persistence with listings that settle after {@link SETTLED_MS}, and how many directories it has listed. */
class Counted extends CheckedJsonlPersistence {
  protected override readonly listings = new DirectoryListings(SETTLED_MS);

  get directoryReads(): number {
    return this.listings.reads;
  }
}

/** A root of two sessions in one project directory, written by dsh's own persistence, and a host reading it through {@link Counted}. */
async function rootAndReader(): Promise<{ root: string; persistence: Counted; ctx: Context }> {
  const root = join(mkdtempSync(join(tmpdir(), 'sessref-listings-')), 'sessions');
  temps.push(root);
  const writer = await createHost({ root, invariants: false, writeBatchMaxDelayMs: 1 });
  try {
    for (const id of ['kept', 'other']) {
      const session = createSession(writer, { id, cwd: '/work/app', createdAt: 1_000 });
      appendExchange(session, { user: `About ${id}.`, assistant: 'Noted.' });
      await writer.flush(session);
    }
  } finally {
    await writer.dispose();
  }
  const ctx = await bootLayers([sessionServices, pluginLayer('persistence', Counted, { root })]);
  return { root, persistence: ctx.get('sessionPersistence') as Counted, ctx };
}

/** Directories listed by one `readStoredRevision` of `id` (its shape check and its log lookup). */
async function readsOf(persistence: Counted, id: string): Promise<number> {
  const before = persistence.directoryReads;
  await persistence.readStoredRevision(SessionId(id));
  return persistence.directoryReads - before;
}

describe('the strict persistence\'s directory listings', () => {
  it('lists no directory for a read of an unchanged root once its directories have settled', async () => {
    const { persistence, ctx } = await rootAndReader();
    try {
      await sleep(SETTLED_MS * 2);
      expect(await readsOf(persistence, 'kept')).toBeGreaterThan(0);
      expect(await readsOf(persistence, 'kept')).toBe(0);
      // Another session of the same project directory needs its own session directory only.
      expect(await readsOf(persistence, 'other')).toBe(1);
      expect(await persistence.load(SessionId('kept'))).toBeDefined();
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it.each([
    {
      change: 'a session directory: a second log beside the session\'s own is refused',
      make: (root: string, log: SessionLog) => writeFileSync(join(root, log.project, log.directory, 'session.jsonl'), ''),
      read: (persistence: Counted) => persistence.readStoredRevision(SessionId('kept')),
      code: 'ROOT_UNCOMPRESSED',
    },
    {
      change: 'the root: a copy of the session under another project directory is refused as a duplicate',
      make: (root: string, log: SessionLog) => cpSync(join(root, log.project, log.directory), join(root, 'another-project', log.directory), { recursive: true }),
      read: (persistence: Counted) => persistence.loadStored(SessionId('kept')),
      code: 'SESSION_LOG_DUPLICATE',
    },
  ])('sees a change to $change', async ({ make, read, code }) => {
    const { root, persistence, ctx } = await rootAndReader();
    try {
      await sleep(SETTLED_MS * 2);
      // Both reads list (and keep) every directory the session's lookup needs before the change.
      await persistence.readStoredRevision(SessionId('kept'));
      await persistence.loadStored(SessionId('kept'));
      make(root, sessionLogs(root).find((found) => found.sessionId === 'kept')!);
      await expect(read(persistence)).rejects.toMatchObject({ code });
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it('sees a session directory removed from its project directory, and forgets it', async () => {
    const { root, persistence, ctx } = await rootAndReader();
    try {
      await sleep(SETTLED_MS * 2);
      expect((await persistence.listSnapshots()).map((snapshot) => snapshot.header.id).sort()).toEqual(['kept', 'other']);
      const log = sessionLogs(root).find((found) => found.sessionId === 'other')!;
      rmSync(join(root, log.project, log.directory), { recursive: true });
      expect((await persistence.listSnapshots()).map((snapshot) => snapshot.header.id)).toEqual(['kept']);
      expect(await persistence.readStoredRevision(SessionId('other'))).toBeUndefined();
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it('lists again, each time, a directory that changed too recently to trust its times', async () => {
    const { persistence, ctx } = await rootAndReader();
    try {
      const listings = new DirectoryListings(60_000);
      const root = persistence.config.root;
      listings.list(root);
      listings.list(root);
      expect(listings.reads).toBe(2);
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it("answers from the first look while a run holds it, and looks again once the last hold is let go", async () => {
    const { root, ctx } = await rootAndReader();
    try {
      // Listings that would never settle: without a hold, every lookup lists again.
      const listings = new DirectoryListings(60_000);
      const log = sessionLogs(root).find((found) => found.sessionId === 'kept')!;
      const outer = listings.holdFirstLook();
      const inner = listings.holdFirstLook();
      const first = listings.revision(log.path, true);
      listings.list(root);
      listings.list(root);
      expect(listings.reads).toBe(1);
      writeFileSync(log.path, 'grown', { flag: 'a' });
      writeFileSync(join(root, 'a-new-project'), '');
      // A nested hold let go keeps the outer one's looks.
      inner();
      expect(listings.revision(log.path, true)).toBe(first);
      expect(listings.list(root).map((entry) => entry.name)).not.toContain('a-new-project');
      outer();
      expect(listings.revision(log.path, true)?.size).toBe(first!.size + 5n);
      expect(listings.list(root).map((entry) => entry.name)).toContain('a-new-project');
      expect(listings.reads).toBe(2);
      // Nothing but a regular file has a log's revision; a directory still has its own.
      expect(listings.revision(root, true)).toBeUndefined();
      expect(listings.revision(root)).toBeDefined();
    } finally {
      await ctx.fiber.dispose();
    }
  });
});
