/**
 * A derived file that is not used as found (damaged and rebuilt) is said
 * once, naming the file: on the CLI's stderr as `sessref: note: …` (a
 * `{"note": …}` object under `--json`, stdout keeping only the answer), and
 * in `serve`'s log as `note: …`. A search index another process holds
 * locked is waited for once, for SESSREF_INDEX_WAIT_MS, then searched around
 * in memory, and the note says so.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { startServer } from '../src/server/server.js';
import { httpRequest, seedRoot, TARGET } from './inspector/fixture.js';
import { removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';

/** Bytes no SQLite database or JSON file starts with. */
const GARBAGE = Buffer.from('not an index \u0000\u0001\u0002'.repeat(200));

let root: string;

beforeAll(async () => {
  requireBuild();
  root = join(await tempDir('sessref-notices-'), 'sessions');
  await mkdir(root);
  await seedRoot(root);
});

afterAll(removeTemps);

/** A cache directory's environment and the paths of its search index and its title index. */
interface BuiltCache {
  env: Record<string, string>;
  searchIndex: string;
  titleIndex: string;
}

/** A fresh cache for `root`, built by one search. */
async function builtCache(): Promise<BuiltCache> {
  const cache = await tempDir('sessref-notices-cache-');
  const env = { SESSREF_CACHE_DIR: cache };
  expect((await sessref(['search', '--root', root, 'partition'], { env })).code).toBe(0);
  const named = (test: (name: string) => boolean) => join(cache, readdirSync(cache).find(test)!);
  return { env, searchIndex: named((name) => name.endsWith('.sqlite')), titleIndex: named((name) => name.startsWith('titles-')) };
}

/** The stderr lines that are notes, after the root line. */
function notes(stderr: string, json: boolean): string[] {
  const lines = withoutRootLine(stderr).split('\n').filter((line) => line !== '');
  return json ? lines.filter((line) => line.startsWith('{"note":')) : lines.filter((line) => line.startsWith('sessref: note: '));
}

describe('a damaged derived file under the CLI', () => {
  it('search --json: stdout stays the hits as valid JSON, stderr carries one note naming the rebuilt index', async () => {
    const { env, searchIndex } = await builtCache();
    writeFileSync(searchIndex, GARBAGE);
    const result = await sessref(['search', '--root', root, 'partition', '--json'], { env });
    expect(result.code).toBe(0);
    const hits = JSON.parse(result.stdout) as { sessionId: string }[];
    expect(hits.map((hit) => hit.sessionId)).toContain('payments-incident');
    expect(result.stdout).not.toContain('note');
    const [note, ...more] = notes(result.stderr, true);
    expect(more).toEqual([]);
    const { message } = (JSON.parse(note!) as { note: { message: string } }).note;
    expect(message).toContain(`search index ${searchIndex} rebuilt`);
    // Said once: the next run finds the rebuilt file and has nothing to say.
    expect(notes((await sessref(['search', '--root', root, 'partition', '--json'], { env })).stderr, true)).toEqual([]);
  });

  it('search: one plain `sessref: note:` line on stderr naming the file, never on stdout', async () => {
    const { env, searchIndex } = await builtCache();
    writeFileSync(searchIndex, GARBAGE);
    const result = await sessref(['search', '--root', root, 'partition'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('payments-incident');
    expect(result.stdout).not.toContain('note');
    expect(notes(result.stderr, false)).toEqual([expect.stringContaining(`sessref: note: search index ${searchIndex} rebuilt`)]);
  });

  it.each([
    ['a damaged title index', (cache: BuiltCache) => cache.titleIndex, 'title index'],
    ['damaged kept listing headers', (cache: BuiltCache) => `${cache.searchIndex}.headers.json`, 'kept headers'],
  ] as const)('list --json: %s is named in one note, the list is valid JSON', async (_what, fileOf, kind) => {
    const cache = await builtCache();
    const damaged = fileOf(cache);
    writeFileSync(damaged, GARBAGE);
    const result = await sessref(['list', '--root', root, '--json'], { env: cache.env });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { sessionId: string }[]).map((row) => row.sessionId)).toContain(TARGET);
    const [note, ...more] = notes(result.stderr, true);
    expect(more).toEqual([]);
    expect((JSON.parse(note!) as { note: { message: string } }).note.message).toContain(`${kind} ${damaged} not used`);
  });
});

describe('a cache directory that cannot exist (a regular file in its path)', () => {
  it('list --json: every session listed from the logs, each derived file named in a note, never a failure', async () => {
    const parent = await tempDir('sessref-notices-blocked-');
    writeFileSync(join(parent, 'not-a-directory'), '');
    const result = await sessref(['list', '--root', root, '--json'], { env: { SESSREF_CACHE_DIR: join(parent, 'not-a-directory', 'sessref') } });
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { sessionId: string }[]).map((row) => row.sessionId)).toContain(TARGET);
    const messages = notes(result.stderr, true).map((note) => (JSON.parse(note) as { note: { message: string } }).note.message);
    expect(messages).toContainEqual(expect.stringMatching(/^title index .*not-a-directory.* not used/));
    expect(messages).toContainEqual(expect.stringMatching(/^kept headers .*not-a-directory.* could not be saved/));
  });
});

describe('a search index another process holds locked', () => {
  it('search --json waits once, for SESSREF_INDEX_WAIT_MS, then answers from memory with a note naming the file and the wait', async () => {
    const { env, searchIndex } = await builtCache();
    // Another process's exclusive lock: the CLI, a process of its own, can neither write nor read the file.
    const holder = new DatabaseSync(searchIndex);
    holder.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM terms;');
    try {
      const result = await sessref(['search', '--root', root, 'partition', '--json'], { env: { ...env, SESSREF_INDEX_WAIT_MS: '50' } });
      expect(result.code).toBe(0);
      expect((JSON.parse(result.stdout) as { sessionId: string }[]).map((hit) => hit.sessionId)).toContain('payments-incident');
      const [note, ...more] = notes(result.stderr, true);
      expect(more).toEqual([]);
      expect((JSON.parse(note!) as { note: { message: string } }).note.message).toContain(
        `search index ${searchIndex} not used, kept in memory for this process: it is locked by another process past the 50 ms wait`,
      );
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });

  it('refuses a SESSREF_INDEX_WAIT_MS that is not a number of milliseconds', async () => {
    const result = await sessref(['search', '--root', root, 'partition'], { env: { SESSREF_INDEX_WAIT_MS: 'soon' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('SESSREF_INDEX_WAIT_MS must be a whole number of milliseconds, got "soon"');
  });
});

describe('a damaged derived file under serve', () => {
  it('is logged once, as a note naming the file, whichever request met it', async () => {
    const cache = await tempDir('sessref-notices-serve-');
    const searchIndexFile = join(cache, 'search.sqlite');
    writeFileSync(searchIndexFile, GARBAGE);
    const engine = await Engine.open({ root, indexFile: join(cache, 'titles.json'), searchIndexFile });
    const logged: string[] = [];
    const server = await startServer(engine, { log: (line) => logged.push(line) });
    try {
      const search = () =>
        httpRequest(server.port, {
          path: '/api/search',
          method: 'POST',
          headers: { 'x-sessref-token': server.token, 'content-type': 'application/json' },
          body: JSON.stringify({ target: TARGET, query: 'partition leader' }),
        });
      expect((await search()).status).toBe(200);
      expect((await search()).status).toBe(200);
      expect(logged.filter((line) => line.startsWith('note: '))).toEqual([expect.stringContaining(`note: search index ${searchIndexFile} rebuilt`)]);
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
