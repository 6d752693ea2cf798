/**
 * `@sessref/dsh/title-index` as a dsh plugin on the real host: it registers
 * `ctx.sessionReferenceCatalog`, answers exactly as `ctx.sessionQuery` does,
 * and follows what another process (another host over the same root) writes.
 */
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { SessionId } from '@deepseek-ai/dsh-session';
import { DEFAULT_LOG_FILE_NAME } from '@sessref/dsh/jsonl-root';
import SessionTitleIndex, { defaultIndexFile } from '@sessref/dsh/title-index';
import { createSession, makeAgent, setTitle, appendUser, type Host } from '@sessref/test-support';
import { loadOurs, useScratch } from './support';

const scratch = useScratch();

async function writeSession(writer: Host, id: string, createdAt: number, title?: string, cwd?: string): Promise<void> {
  const session = createSession(writer, { id, createdAt, ...(cwd === undefined ? {} : { cwd }) });
  appendUser(session, `hello from ${id}`);
  if (title !== undefined) setTitle(session, title);
  await writer.flush(session);
}

/** What the host itself answers: headers in listing order and latest titles. */
async function hostView(host: Host): Promise<{ ids: string[]; titles: (string | undefined)[] }> {
  const records = await host.sessionQuery.listSessions();
  const ids = records.map((record) => record.header.id as string);
  const titles = (await host.sessionQuery.readTitleSnapshots(ids.map(SessionId))).map((result) =>
    result.status === 'fulfilled' ? result.value.title?.title : undefined,
  );
  return { ids, titles };
}

async function catalogView(host: Host): Promise<{ ids: string[]; titles: (string | undefined)[] }> {
  const catalog = host.ctx.get('sessionReferenceCatalog');
  if (catalog === undefined) throw new Error('the title index did not register ctx.sessionReferenceCatalog');
  const ids = (await catalog.listSessions()).map((header) => header.id);
  const titles = (await catalog.readTitles(ids)).map((result) => (result.status === 'fulfilled' ? result.title : undefined));
  return { ids, titles };
}

/** A root holding the session "kept" (titled Kept), the host that wrote it, and where a title index of it may go. */
async function rootWithKeptSession(): Promise<{ root: string; indexFile: string; writer: Host }> {
  const root = await scratch.tempRoot();
  const indexFile = join(await scratch.tempRoot(), 'titles.json');
  const writer = await scratch.host({ root, compression: 'none' });
  await writeSession(writer, 'kept', 1, 'Kept');
  return { root, indexFile, writer };
}

/** A host standing for a new process over `root`, its title index in `indexFile`, and the ids of each title read it makes of the logs. */
async function freshProcess(root: string, indexFile: string): Promise<{ host: Host; reads: string[][] }> {
  const host = await scratch.host({ root, compression: 'none' });
  await host.ctx.plugin(SessionTitleIndex, { root, compression: 'none', indexFile, watch: false });
  const reads: string[][] = [];
  const read = host.sessionQuery.readTitleSnapshots.bind(host.sessionQuery);
  host.sessionQuery.readTitleSnapshots = async (ids, signal) => (reads.push(ids.map(String)), read(ids, signal));
  return { host, reads };
}

describe('the title-index plugin', () => {
  it('answers as ctx.sessionQuery does and follows appends, creations and deletions by another process', async () => {
    const root = await scratch.tempRoot();
    const writer = await scratch.host({ root, compression: 'none' });
    await writeSession(writer, 'alpha', 1, 'Alpha title', '/work');
    await writeSession(writer, 'beta', 2);
    await writeSession(writer, 'gamma', 3, 'Gamma', '/elsewhere');

    const reader = await scratch.host({ root, compression: 'none' });
    await reader.ctx.plugin(SessionTitleIndex, { root, compression: 'none', persist: false });
    expect(await catalogView(reader)).toEqual(await hostView(reader));

    // Another process renames one session, creates one and deletes one.
    setTitle(writer.sessions.get(SessionId('beta'))!, 'Beta renamed');
    await writer.flush(writer.sessions.get(SessionId('beta'))!);
    await writeSession(writer, 'delta', 4, 'Delta');
    await writer.dispose();
    const gammaProject = readdirSync(root).find((project) => project.includes('elsewhere'));
    await rm(join(root, gammaProject!), { recursive: true });

    const view = await catalogView(reader);
    expect(view).toEqual(await hostView(reader));
    expect(view.ids).toEqual(['delta', 'beta', 'alpha']);
    expect(view.titles).toEqual(['Delta', 'Beta renamed', 'Alpha title']);
  });

  it('lists and labels the resolver\'s candidates exactly as without it', async () => {
    const root = await scratch.tempRoot();
    const writer = await scratch.host({ root, compression: 'none' });
    for (const [index, id] of ['one', 'two', 'three'].entries()) await writeSession(writer, id, index + 1, `Title ${id}`, index === 1 ? '/work' : undefined);
    await writer.dispose();

    const plain = await scratch.host({ root, compression: 'none' });
    const indexed = await scratch.host({ root, compression: 'none' });
    await indexed.ctx.plugin(SessionTitleIndex, { root, compression: 'none', persist: false });
    const answers = await Promise.all(
      [plain, indexed].map(async (host) => {
        const resolver = await loadOurs(host);
        const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/work', createdAt: 9 }));
        return JSON.stringify([await resolver.listCandidates(agent), await resolver.listCandidates(agent, 'title t')]);
      }),
    );
    expect(answers[1]).toBe(answers[0]);
  });

  it('persists to a per-root file outside the root and reads only changed logs in a fresh process', async () => {
    const { root, indexFile, writer } = await rootWithKeptSession();
    await writer.dispose();

    const { host: first } = await freshProcess(root, indexFile);
    expect((await catalogView(first)).titles).toEqual(['Kept']);

    const { host: second, reads } = await freshProcess(root, indexFile);
    expect((await catalogView(second)).titles).toEqual(['Kept']);
    expect(reads).toEqual([]);
  });

  it("checks a fresh process's first titles (a search's hits) against those logs alone, and reads a renamed or deleted one again", async () => {
    const { root, indexFile, writer } = await rootWithKeptSession();
    await writeSession(writer, 'renamed', 2, 'Old name');
    await writeSession(writer, 'gone', 3, 'Gone', '/elsewhere');
    const { host: first } = await freshProcess(root, indexFile);
    expect((await catalogView(first)).titles).toEqual(['Gone', 'Old name', 'Kept']);
    setTitle(writer.sessions.get(SessionId('renamed'))!, 'New name');
    await writer.flush(writer.sessions.get(SessionId('renamed'))!);
    await writer.dispose();
    await rm(join(root, readdirSync(root).find((project) => project.includes('elsewhere'))!), { recursive: true });

    const { host: second, reads } = await freshProcess(root, indexFile);
    const catalog = second.ctx.get('sessionReferenceCatalog')!;
    const titleOf = async (id: string) => (await catalog.readTitles([id]))[0];
    const looks = vi.spyOn(PROCESS_LISTINGS, 'revision');
    // The stale entry of "renamed" is not looked at: no log is read for the one title asked, and no other session is even
    // stat'ed (no walk): only the directories on the way to its log, and its log.
    expect(await titleOf('kept')).toEqual({ sessionId: 'kept', status: 'fulfilled', title: 'Kept' });
    expect(reads).toEqual([]);
    const looked = looks.mock.calls.map(([path]) => path);
    expect(looked.filter((path) => path.includes('renamed'))).toEqual([]);
    expect(looked).toContainEqual(expect.stringMatching(/[/\\]kept[/\\]session\.jsonl$/));
    looks.mockRestore();
    // Nor is the entry of "gone", until it is asked for: its log is gone, and so is its title.
    expect(await titleOf('gone')).toMatchObject({ sessionId: 'gone', status: 'rejected' });
    expect(await titleOf('renamed')).toEqual({ sessionId: 'renamed', status: 'fulfilled', title: 'New name' });
    expect(reads.flat()).toContain('renamed');
  });

  it('defaults to zstd logs and a cache file outside the root', () => {
    expect(DEFAULT_LOG_FILE_NAME).toBe('session.jsonl.zstd');
    const file = defaultIndexFile('/home/u/.dsh/sessions', { HOME: '/home/u', XDG_CACHE_HOME: '/home/u/.cache' });
    expect(file.startsWith('/home/u/.cache/sessref/titles-')).toBe(true);
    expect(defaultIndexFile('/r', { SESSREF_CACHE_DIR: '/c' }).startsWith('/c/titles-')).toBe(true);
    expect(defaultIndexFile('/r', { SESSREF_CACHE_DIR: '/c' })).not.toBe(defaultIndexFile('/other', { SESSREF_CACHE_DIR: '/c' }));
  });
});
