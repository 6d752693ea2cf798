/**
 * sessref's content index in the hosts `sessref` boots: a long-lived one
 * (`watchLogs`, as `sessref serve`) builds it in the background at boot, after
 * which no query reads a log; a one-shot one builds it at its first search,
 * and the next process over the same cache reads nothing; stopping the host
 * stops a build that is still running, and nothing is written to the root.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import SessionReferenceResolver from '@sessref/dsh';
import { bootHost } from '@sessref/host';
import { appendExchange, createHost, createSession, setTitle } from '@sessref/test-support';
import { removeTemps, tempDir } from './support';

const SESSIONS = 30;
let root: string;

beforeAll(async () => {
  root = join(await tempDir('sessref-refresh-'), 'sessions');
  const writer = await createHost({ root, invariants: false });
  try {
    for (let index = 0; index < SESSIONS; index += 1) {
      const session = createSession(writer, { id: `s${index}`, cwd: '/work/app', createdAt: 1_000 + index });
      appendExchange(session, { user: `Topic ${index}: the marker${index} plan.`, assistant: `Noted marker${index}, and the shared word heron.` });
      setTitle(session, `Session ${index}`);
      await writer.flush(session);
    }
  } finally {
    await writer.dispose();
  }
});

afterAll(removeTemps);

/** Every file under the root with its bytes' hash. */
function fingerprint(directory: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    else files[path] = createHash('sha256').update(readFileSync(path)).digest('hex');
  };
  walk(directory);
  return files;
}

async function host(watchLogs: boolean, cache?: string) {
  cache ??= await tempDir('sessref-refresh-cache-');
  const ctx = await bootHost({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'search.sqlite'), watchLogs });
  // The suite also loads the official plugin's typings, which claim the same service name: narrow to ours.
  const resolver: unknown = ctx.get('sessionReferenceResolver');
  if (!(resolver instanceof SessionReferenceResolver)) throw new Error('the host did not mount @sessref/dsh');
  return { ctx, resolver, cache, reads: vi.spyOn(ctx.get('sessionQuery')!, 'readSurface') };
}

describe('the content index in the hosts sessref boots', () => {
  it('is built at boot in a long-lived host, after which new queries read no log', async () => {
    const before = fingerprint(root);
    const { ctx, resolver, reads } = await host(true);
    try {
      // Joins (or follows) the refresh the host started at boot.
      expect(await resolver.service.refreshContentIndex()).toMatchObject({ sessions: SESSIONS, skipped: [], failedSources: [] });
      reads.mockClear();
      for (const index of [3, 17, 29]) {
        const hits = await resolver.searchContent(undefined, `marker${index} plan`);
        expect(hits.map((hit) => hit.sessionId)).toEqual([`s${index}`]);
      }
      expect((await resolver.searchContent(undefined, 'heron', 50)).length).toBe(SESSIONS);
      expect(reads).not.toHaveBeenCalled();
    } finally {
      await ctx.fiber.dispose();
    }
    expect(fingerprint(root)).toEqual(before);
  });

  it('is built by the first search of a one-shot host, and kept for the next process', async () => {
    const first = await host(false);
    try {
      const hits = await first.resolver.searchContent(undefined, 'marker5 plan');
      expect(hits.map((hit) => hit.sessionId)).toEqual(['s5']);
      expect(first.reads).toHaveBeenCalledTimes(SESSIONS);
    } finally {
      await first.ctx.fiber.dispose();
    }
    const next = await host(false, first.cache);
    try {
      expect((await next.resolver.searchContent(undefined, 'marker7 plan')).map((hit) => hit.sessionId)).toEqual(['s7']);
      expect(next.reads).not.toHaveBeenCalled();
    } finally {
      await next.ctx.fiber.dispose();
    }
  });

  it('stops a running build when the host stops', async () => {
    const before = fingerprint(root);
    const { ctx, resolver } = await host(true);
    const building = resolver.service.refreshContentIndex();
    await ctx.fiber.dispose();
    await expect(building).rejects.toMatchObject({ code: 'SESSION_REFERENCE_CANCELLED' });
    expect(fingerprint(root)).toEqual(before);
  });
});
