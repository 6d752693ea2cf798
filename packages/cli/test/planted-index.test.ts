/**
 * sessref's content index is a disposable file in the cache directory; a
 * trigger or view planted in it (issue #37, item 5) made every write fail:
 * `sessref search` exited 2 with `ERR_SQLITE_ERROR`, `/api/search` answered
 * 500, and MCP completion lost its title matches with the content ones.
 * Such a file is now damage: rebuilt, with a notice, and the search answers.
 * MCP completion keeps its title matches whenever content search fails.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReferenceService } from '@sessref/dsh';
import { CitableSessions } from '../src/mcp/sessions.js';
import { Engine } from '../src/engine/engine.js';
import { startServer } from '../src/server/server.js';
import { emptyRoot, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';
import { postJson } from './inspector/fixture.js';

const PLANTS = [
  ['a trigger that aborts every insert', "CREATE TRIGGER planted BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'planted'); END;"],
  ['a view in place of a table', "DROP TABLE terms; CREATE VIEW terms AS SELECT 'x' AS reversed;"],
] as const;

let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
});

afterAll(removeTemps);

/** The content index file in `cache`, once a search made it. */
function contentIndex(cache: string): string {
  const name = readdirSync(cache).find((entry) => /^content-[0-9a-f]+\.v1\.sqlite$/.test(entry));
  if (name === undefined) throw new Error(`no content index in ${cache}`);
  return join(cache, name);
}

function plant(file: string, sql: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe('a planted content index', () => {
  it.each(PLANTS)('sessref search: %s is rebuilt away with a notice, and the search answers', async (_what, sql) => {
    const cache = await tempDir('sessref-planted-cache-');
    const env = { SESSREF_CACHE_DIR: cache };
    await ok(['search', 'price fetch', '--root', root], { env });
    plant(contentIndex(cache), sql);
    // A new session, so the refresh before the query writes.
    const id = (await ok(['new', '--root', root, '--title', 'After the plant'], { env })).trim();
    const result = await sessref(['search', 'price fetch', '--root', root, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { sessionId: string }[]).map((hit) => hit.sessionId)).toEqual(['flaky-ci']);
    expect(withoutRootLine(result.stderr)).toMatch(/"note":\{"message":"search index .*content-[0-9a-f]+\.v1\.sqlite rebuilt: damaged: (planted|cannot modify terms because it is a view)"/);
    expect(result.stderr).not.toMatch(/ERR_SQLITE_ERROR|\n\s+at /);
    await ok(['show', id, '--root', root], { env });
  });

  it.each(PLANTS)('/api/search: %s is rebuilt away, and the route answers 200', async (_what, sql) => {
    const cache = await tempDir('sessref-planted-api-');
    const files = { indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content-0.v1.sqlite') };
    const engine = await Engine.open({ root, ...files });
    try {
      await engine.search('price fetch');
      plant(files.searchIndexFile, sql);
      // New words in a session, so the refresh before the query writes to every table.
      await engine.send('scratchpad', `a word no session held before the plant: x${randomUUID().replaceAll('-', '')}`);
      const logged: string[] = [];
      const server = await startServer(engine, { log: (line) => logged.push(line) });
      try {
        const reply = await postJson(server, '/api/search', { target: 'oauth-migration', query: 'price fetch' });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.text).toContain('"sessionId":"flaky-ci"');
        // The server's log says why the file was replaced, once (written as the request ends, just after its answer).
        await expect.poll(() => logged.filter((line) => /^note: search index .* rebuilt: damaged/.test(line))).toHaveLength(1);
      } finally {
        await server.close();
      }
    } finally {
      await engine.close();
    }
  });
});

describe('MCP completion', () => {
  it('keeps its title matches when content search fails, and says why once', async () => {
    const cache = await tempDir('sessref-planted-mcp-');
    const lines: string[] = [];
    const sessions = await CitableSessions.open(
      { root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.v1.sqlite') },
      root,
      (line) => lines.push(line),
    );
    const failing = vi
      .spyOn(ReferenceService.prototype, 'searchContentFor')
      .mockRejectedValue(Object.assign(new Error('the index refused a write'), { code: 'ERR_SQLITE_ERROR' }));
    try {
      const titled = await sessions.suggestions('migration');
      expect(titled.length).toBeGreaterThan(0);
      // A title match (the id is oauth-migration); content matches would follow it.
      expect(titled.join('\n')).toContain('@[Migrate auth to OAuth]');
      expect(failing).toHaveBeenCalled();
      await sessions.suggestions('migrat');
      expect(lines).toEqual(['content matches left out of completions: ERR_SQLITE_ERROR: the index refused a write']);
    } finally {
      failing.mockRestore();
      await sessions.close();
    }
  });

  it('still passes a cancellation on', async () => {
    const cache = await tempDir('sessref-planted-mcp-');
    const sessions = await CitableSessions.open({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.v1.sqlite') }, root);
    const controller = new AbortController();
    const failing = vi.spyOn(ReferenceService.prototype, 'searchContentFor').mockImplementation(() => {
      controller.abort();
      return Promise.reject(new Error('cancelled'));
    });
    try {
      await expect(sessions.suggestions('migration', controller.signal)).rejects.toThrow('cancelled');
    } finally {
      failing.mockRestore();
      await sessions.close();
    }
  });
});
