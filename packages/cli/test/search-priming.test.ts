/**
 * The long-lived host `sessref serve` boots (`watchLogs`) gets content search
 * ready in the background: once its priming settles, a query it has never
 * seen reads no log; a one-shot host does not prime; stopping the host stops
 * a priming that is still running, and nothing is written to the root.
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
  root = join(await tempDir('sessref-priming-'), 'sessions');
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

async function host(watchLogs: boolean) {
  const cache = await tempDir('sessref-priming-cache-');
  const ctx = await bootHost({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'search.sqlite'), watchLogs });
  // The suite also loads the official plugin's typings, which claim the same service name: narrow to ours.
  const resolver: unknown = ctx.get('sessionReferenceResolver');
  if (!(resolver instanceof SessionReferenceResolver)) throw new Error('the host did not mount @sessref/dsh');
  return { ctx, resolver, reads: vi.spyOn(ctx.get('sessionQuery')!, 'readSurface') };
}

describe('priming content search in a long-lived host', () => {
  it('primes at boot, after which new queries read no log', async () => {
    const before = fingerprint(root);
    const { ctx, resolver, reads } = await host(true);
    try {
      // Joins the priming the host started at boot: every session was checked by it.
      const joined = await resolver.primeContentSearch();
      expect(joined).toEqual({ sessions: SESSIONS, read: SESSIONS, skipped: 0 });
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

  it('does not prime a one-shot host', async () => {
    const { ctx, resolver, reads } = await host(false);
    try {
      const hits = await resolver.searchContent(undefined, 'marker5 plan');
      expect(hits.map((hit) => hit.sessionId)).toEqual(['s5']);
      expect(reads).toHaveBeenCalledTimes(1);
      // Only the session the search checked is known; priming now reads the others.
      expect(await resolver.primeContentSearch()).toEqual({ sessions: SESSIONS, read: SESSIONS - 1, skipped: 0 });
    } finally {
      await ctx.fiber.dispose();
    }
  });

  it('stops a running priming when the host stops', async () => {
    const before = fingerprint(root);
    const { ctx, resolver } = await host(true);
    const priming = resolver.primeContentSearch();
    await ctx.fiber.dispose();
    await expect(priming).rejects.toMatchObject({ code: 'SESSION_REFERENCE_CANCELLED' });
    expect(fingerprint(root)).toEqual(before);
  });
});
