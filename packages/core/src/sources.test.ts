import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStorage, type MemorySession } from '../test/memory-storage.js';
import { userMessage } from '../test/surface.js';
import { combineSources, type SessionSource, type SourceFailure } from './sources.js';

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
});
