import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type MemorySession } from '../test/memory-storage.js';
import { userMessage } from '../test/surface.js';
import { combineSources, type SessionSource, type SourceFailure } from './sources.js';
import type { SessionReferenceStorage, TitleReadResult } from './types.js';

/** A foreign source over memory sessions whose ids carry its `<name>:` prefix. */
function memorySource(name: string, sessions: readonly MemorySession[], failing = false): SessionSource & { storage: MemoryStorage } {
  const storage = new MemoryStorage(sessions);
  return {
    name,
    storage,
    owns: (sessionId) => sessionId.startsWith(`${name}:`),
    changeStamps: async () => new Map(sessions.map((session) => [session.id, 'stamp'])),
    listSessions: (signal) => (failing ? Promise.reject(new Error(`${name} is unreadable`)) : storage.listSessions(signal)),
    readTitles: (ids, signal) => storage.readTitles(ids, signal),
    readSurface: (id, signal) => storage.readSurface(id, signal),
  };
}

describe('combineSources', () => {
  it("lists the host's sessions first, then each foreign source's, in the order given", async () => {
    const own = new MemoryStorage([{ id: 'a' }, { id: 'b' }]);
    const combined = combineSources(own, [memorySource('claude-code', [{ id: 'claude-code:1' }]), memorySource('codex', [{ id: 'codex:1' }])]);
    expect((await combined.listSessions()).map((header) => header.id)).toEqual(['a', 'b', 'claude-code:1', 'codex:1']);
  });

  it('routes every read to the source that owns the id, and names that source', async () => {
    const own = new MemoryStorage([{ id: 'a', title: 'Own', messages: [userMessage('own text')] }]);
    const claude = memorySource('claude-code', [{ id: 'claude-code:1', title: 'Claude Code · Fix', messages: [userMessage('foreign text')] }]);
    const combined = combineSources(own, [claude]);
    await combined.listSessions();
    expect(await combined.readTitles(['claude-code:1', 'a'])).toEqual([
      { sessionId: 'claude-code:1', status: 'fulfilled', title: 'Claude Code · Fix' },
      { sessionId: 'a', status: 'fulfilled', title: 'Own' },
    ]);
    expect((await combined.readSurface('claude-code:1')).messages).toEqual([userMessage('foreign text')]);
    expect((await combined.readSurface('a')).messages).toEqual([userMessage('own text')]);
    expect([combined.sourceOf('a'), combined.sourceOf('claude-code:1'), combined.sourceOf('unknown')]).toEqual(['dsh', 'claude-code', 'dsh']);
    expect(claude.storage.surfaceReads).toEqual(['claude-code:1']);
    expect(own.surfaceReads).toEqual(['a']);
  });

  it("keeps a host session whose id a foreign source's prefix would claim", async () => {
    const own = new MemoryStorage([{ id: 'codex:1', title: 'A dsh session' }]);
    const codex = memorySource('codex', [{ id: 'codex:1', title: 'Codex · other' }, { id: 'codex:2' }]);
    const combined = combineSources(own, [codex], { primaryName: 'host' });
    expect((await combined.listSessions()).map((header) => header.id)).toEqual(['codex:1', 'codex:2']);
    expect(combined.sourceOf('codex:1')).toBe('host');
    expect(await combined.readTitles(['codex:1'])).toEqual([{ sessionId: 'codex:1', status: 'fulfilled', title: 'A dsh session' }]);
    expect(codex.storage.titleReads).toEqual([]);
  });

  it("lists the foreign sources alone beside host ids it is given, without listing the host, and routes reads by those ids", async () => {
    const own = new MemoryStorage([{ id: 'codex:1', title: 'A dsh session' }]);
    const codex = memorySource('codex', [{ id: 'codex:1', title: 'Codex · other' }, { id: 'codex:2', title: 'Codex · two' }]);
    const combined = combineSources(own, [codex], { primaryName: 'host' });
    expect((await combined.listForeign(new Set(['codex:1']))).map((header) => header.id)).toEqual(['codex:2']);
    expect(own.listCalls).toBe(0);
    expect([combined.sourceOf('codex:1'), combined.sourceOf('codex:2')]).toEqual(['host', 'codex']);
    expect(await combined.readTitles(['codex:2'])).toEqual([{ sessionId: 'codex:2', status: 'fulfilled', title: 'Codex · two' }]);
  });

  it('leaves a failing foreign source out of the listing and reports it; the rest answer', async () => {
    const failures: SourceFailure[] = [];
    const combined = combineSources(new MemoryStorage([{ id: 'a' }]), [memorySource('gemini-cli', [{ id: 'gemini-cli:1' }], true), memorySource('codex', [{ id: 'codex:1' }])], {
      onFailure: (failure) => failures.push(failure),
    });
    expect((await combined.listSessions()).map((header) => header.id)).toEqual(['a', 'codex:1']);
    expect(failures).toEqual([{ source: 'gemini-cli', reason: new Error('gemini-cli is unreadable') }]);
  });

  it("propagates the host's own listing failure and a cancellation", async () => {
    const own = new MemoryStorage([]);
    own.listSessions = () => Promise.reject(new Error('root unreadable'));
    await expect(combineSources(own, []).listSessions()).rejects.toThrow('root unreadable');
    const controller = new AbortController();
    controller.abort();
    const cancelled = memorySource('codex', [], true);
    await expect(combineSources(new MemoryStorage([]), [cancelled]).listSessions(controller.signal)).rejects.toThrow('codex is unreadable');
  });

  it('answers titles in input order across sources, and a title no source read is a rejection (property)', async () => {
    const own = new MemoryStorage([{ id: 'a', title: 'A' }, { id: 'b' }]);
    const combined = combineSources(own, [memorySource('x', [{ id: 'x:1', title: 'X' }])]);
    own.readTitles = async (ids) => ids.filter((id) => id !== 'b').map((sessionId) => ({ sessionId, status: 'fulfilled' as const, title: sessionId.toUpperCase() }));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.constantFrom('a', 'b', 'x:1'), { minLength: 1 }), async (ids) => {
        const results = await combined.readTitles(ids);
        expect(results.map((result) => result.sessionId)).toEqual(ids);
        for (const result of results) expect(result.status).toBe(result.sessionId === 'b' ? 'rejected' : 'fulfilled');
      }),
    );
  });

  it("reads each source's titles once, for its ids in first-seen order, answering what that source answered (property)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('a', 'b', 'c', 'x:1', 'x:2', 'y:1', 'y:2'), { maxLength: 30 }), async (ids) => {
        const own = titleEcho('own');
        const x = { ...titleEcho('x'), name: 'x', owns: (id: string) => id.startsWith('x:'), changeStamps: async () => new Map<string, string>() };
        const y = { ...titleEcho('y'), name: 'y', owns: (id: string) => id.startsWith('y:'), changeStamps: async () => new Map<string, string>() };
        const results = await combineSources(own, [x, y]).readTitles(ids);
        const owner = (id: string): string => (id.startsWith('x:') ? 'x' : id.startsWith('y:') ? 'y' : 'own');
        expect(results).toEqual(ids.map((id) => ({ sessionId: id, status: 'fulfilled', title: `${owner(id)}/${id}` })));
        for (const storage of [own, x, y]) {
          const mine = [...new Set(ids)].filter((id) => owner(id) === storage.label);
          expect(storage.calls).toEqual(mine.length === 0 ? [] : [mine]);
        }
      }),
    );
  });

  it('groups the ids of a title read in time linear in their number (no copy of a group per id)', async () => {
    const own = titleEcho('own');
    const x = { ...titleEcho('x'), name: 'x', owns: (id: string) => id.startsWith('x:'), changeStamps: async () => new Map<string, string>() };
    const combined = combineSources(own, [x]);
    const n = 4_000;
    const ids = Array.from({ length: n }, (_, index) => (index % 2 === 0 ? `own-${index}` : `x:${index}`));
    const { result, steps } = await arrayStepsOver(new Set(ids), () => combined.readTitles(ids));
    expect(result).toHaveLength(n);
    // Copying a group for every id steps through about n²/4 ids (4,000,000 here); building each group once, a small multiple of n.
    expect(steps).toBeLessThanOrEqual(8 * n);
  });
});

/** A storage answering every title as `<label>/<id>`, recording each batch it is asked for. */
function titleEcho(label: string): SessionReferenceStorage & { label: string; calls: string[][] } {
  const calls: string[][] = [];
  return {
    label,
    calls,
    listSessions: async () => [],
    readTitles: async (sessionIds) => {
      calls.push(Array.prototype.slice.call(sessionIds) as string[]);
      return sessionIds.map((sessionId): TitleReadResult => ({ sessionId, status: 'fulfilled', title: `${label}/${sessionId}` }));
    },
    readSurface: () => Promise.reject(new Error('not read here')),
  };
}

/**
 * How many of `values` every iteration over an array during `run` stepped
 * through (spread, `for…of`, `new Set(array)`, destructuring): a count of the
 * work done, independent of the machine's speed.
 */
async function arrayStepsOver<T>(values: ReadonlySet<unknown>, run: () => Promise<T>): Promise<{ result: T; steps: number }> {
  const original = Object.getOwnPropertyDescriptor(Array.prototype, Symbol.iterator)!;
  const iterate = original.value as (this: unknown[]) => Iterator<unknown>;
  let steps = 0;
  Object.defineProperty(Array.prototype, Symbol.iterator, {
    ...original,
    value: function counted(this: unknown[]): IterableIterator<unknown> {
      const inner = iterate.call(this);
      return {
        next() {
          const step = inner.next();
          if (step.done !== true && values.has(step.value)) steps += 1;
          return step;
        },
        [Symbol.iterator]() {
          return this;
        },
      };
    },
  });
  try {
    return { result: await run(), steps };
  } finally {
    Object.defineProperty(Array.prototype, Symbol.iterator, original);
  }
}
