/**
 * Class 4 of #25 for the title index's saved file: whatever is found at its
 * path (damaged, truncated, of another version or root, a directory, a FIFO,
 * unreadable, or in a directory others can write), the index answers exactly
 * as the host does, from the logs, with a notice naming the file, never
 * failing; and an entry edited to claim another title is never trusted when
 * its revision is not the log's.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import SessionTitleIndex from '@sessref/dsh/title-index';
import { appendUser, createSession, setTitle, type Host } from '@sessref/test-support';
import { useScratch } from './support';

const scratch = useScratch();

/** A root of three titled sessions. */
async function writtenRoot(): Promise<string> {
  const root = await scratch.tempRoot();
  const writer = await scratch.host({ root });
  for (const [at, id] of ['one', 'two', 'three'].entries()) {
    const session = createSession(writer, { id, createdAt: at + 1, cwd: '/work' });
    appendUser(session, `hello from ${id}`);
    setTitle(session, `Title of ${id}`);
    await writer.flush(session);
  }
  await writer.dispose();
  return root;
}

async function withIndex(root: string, indexFile: string): Promise<{ host: Host; index: SessionTitleIndex }> {
  const host = await scratch.host({ root });
  await host.ctx.plugin(SessionTitleIndex, { root, indexFile, watch: false });
  const index = host.ctx.get('sessionReferenceCatalog');
  if (!(index instanceof SessionTitleIndex)) throw new Error('the title index did not register');
  return { host, index };
}

/** Ids and titles as the index answers them, and as the host itself does. */
async function views(host: Host, index: SessionTitleIndex) {
  const ids = (await index.listSessions()).map((header) => header.id);
  const titles = (await index.readTitles(ids)).map((result) => (result.status === 'fulfilled' ? result.title : `rejected`));
  const records = await host.sessionQuery.listSessions();
  const hostIds = records.map((record) => record.header.id as string);
  const hostTitles = (await host.sessionQuery.readTitleSnapshots(hostIds.map(SessionId))).map((result) => (result.status === 'fulfilled' ? result.value.title?.title : 'rejected'));
  return { index: { ids, titles }, host: { ids: hostIds, titles: hostTitles } };
}

/** A saved index for `root` at a fresh path in a private directory. */
async function savedIndex(root: string): Promise<string> {
  const indexFile = join(await scratch.tempRoot(), 'titles.json');
  const { host, index } = await withIndex(root, indexFile);
  await index.listSessions();
  await host.dispose();
  return indexFile;
}

const isRoot = process.getuid?.() === 0;

describe('the title index over a saved file it cannot use (#25, class 4)', () => {
  const cases: [string, (file: string) => void, RegExp | undefined][] = [
    ['random bytes', (file) => writeFileSync(file, Buffer.from(Array.from({ length: 600 }, (_, at) => (at * 31) % 256))), /not used/],
    ['truncated to half', (file) => truncateSync(file, Math.floor(readFileSync(file).length / 2)), /not used/],
    ['emptied', (file) => truncateSync(file, 0), /not used/],
    ['of another version', (file) => writeFileSync(file, readFileSync(file, 'utf8').replace('"version":1', '"version":7')), /version 7/],
    ['a JSON array', (file) => writeFileSync(file, '[1,2,3]'), /not a saved title index/],
    ['a directory', (file) => (rmSync(file), mkdirSync(file)), /is a directory/],
    ['a FIFO', (file) => (rmSync(file), execFileSync('mkfifo', [file])), /FIFO/],
  ];
  if (!isRoot) cases.push(['unreadable', (file) => chmodSync(file, 0), /not used/]);

  it.each(cases)('%s: answers as the host does, from the logs, the notice naming the file', async (_what, damage, notice) => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    damage(file);
    const { host, index } = await withIndex(root, file);
    const seen = await views(host, index);
    expect(seen.index).toEqual(seen.host);
    expect(seen.index.titles).toEqual(['Title of three', 'Title of two', 'Title of one']);
    expect(index.notices.length).toBeGreaterThan(0);
    for (const line of index.notices) expect(line).toContain(file);
    expect(index.notices[0]).toMatch(notice!);
  });

  it('in a directory others can write: its entries are not trusted, and nothing is written there', async () => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    // Planted (or edited) by anyone who can write the directory: another title under the logs' current revisions.
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('Title of two', 'Planted title'));
    chmodSync(join(file, '..'), 0o777);
    const { host, index } = await withIndex(root, file);
    const seen = await views(host, index);
    expect(seen.index).toEqual(seen.host);
    expect(seen.index.titles).not.toContain('Planted title');
    expect(index.notices[0]).toContain(file);
    expect(index.notices[0]).toMatch(/writable by other users/);
    expect(readFileSync(file, 'utf8')).toContain('Planted title');
  });
});

describe('an edited title-index entry is never trusted over its log when their revisions disagree (#25, class 4)', () => {
  it('a title claimed under a revision that is not the log\'s (generated)', async () => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    const saved = readFileSync(file, 'utf8');
    const { entries } = JSON.parse(saved) as { entries: Record<string, { revision: string; title?: string }> };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('one', 'two', 'three'),
        fc.string({ minLength: 1, maxLength: 20 }),
        // A revision token that is not the log's: another field changed, or not a token at all.
        fc.oneof(fc.nat({ max: 4 }).map((field) => ({ field })), fc.string().map((token) => ({ token }))),
        async (id, claimed, stale) => {
          const real = entries[id]!.revision;
          const parts = real.split(':');
          const revision = 'token' in stale ? stale.token : parts.map((part, at) => (at === stale.field ? String(BigInt(part) + 1n) : part)).join(':');
          fc.pre(revision !== real && claimed !== `Title of ${id}`);
          const edited = { ...JSON.parse(saved), entries: { ...entries, [id]: { ...entries[id], title: claimed, revision } } };
          writeFileSync(file, JSON.stringify(edited));
          const { host, index } = await withIndex(root, file);
          const seen = await views(host, index);
          expect(seen.index).toEqual(seen.host);
          expect(seen.index.titles).not.toContain(claimed);
          await host.dispose();
        },
      ),
      { numRuns: 12, seed: 25 },
    );
  });
});

describe("a fresh index's first titles come from the asked sessions' own entries (#31)", () => {
  /** The titles a fresh index (a new process's) gives `ids`, before anything lists the root; and its notices. */
  async function firstTitles(root: string, file: string, ids: string[]): Promise<{ titles: (string | undefined)[]; notices: string[] }> {
    const { host, index } = await withIndex(root, file);
    const titles = (await index.readTitles(ids)).map((result) => (result.status === 'fulfilled' ? result.title : 'rejected'));
    await host.dispose();
    return { titles, notices: [...index.notices] };
  }

  it("reads the asked entries' lines alone: another line damaged in place costs nothing, the asked one's damage a rebuild", async () => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    const saved = readFileSync(file, 'utf8');
    const { entries } = JSON.parse(saved) as { entries: Record<string, unknown> };
    writeFileSync(file, saved.replace(JSON.stringify(entries['one']), '{"revision":'));
    // The whole file no longer parses, yet two and three are answered from their lines, without a notice.
    expect(await firstTitles(root, file, ['two', 'three'])).toEqual({ titles: ['Title of two', 'Title of three'], notices: [] });
    const asked = await firstTitles(root, file, ['one']);
    expect(asked.titles).toEqual(['Title of one']);
    expect(asked.notices[0]).toMatch(/not used/);
  });

  it('never trusts a line edited to claim another title under a revision that is not the log\'s', async () => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    const saved = readFileSync(file, 'utf8');
    const { entries } = JSON.parse(saved) as { entries: Record<string, { revision: string; title: string }> };
    const claimed = { ...entries['two']!, revision: `${entries['two']!.revision}0`, title: 'Planted title' };
    writeFileSync(file, saved.replace(JSON.stringify(entries['two']), JSON.stringify(claimed)));
    expect((await firstTitles(root, file, ['two'])).titles).toEqual(['Title of two']);
  });

  it('lays out anew, when it first reads it whole, a file an earlier build saved on one line', async () => {
    const root = await writtenRoot();
    const file = await savedIndex(root);
    const laidOut = readFileSync(file, 'utf8');
    writeFileSync(file, JSON.stringify(JSON.parse(laidOut)));
    expect(await firstTitles(root, file, ['two'])).toEqual({ titles: ['Title of two'], notices: [] });
    expect(readFileSync(file, 'utf8')).toBe(laidOut);
  });
});
