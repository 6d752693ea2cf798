import { describe, expect, it, vi } from 'vitest';
import { rankByCwd } from '../src/discovery.js';
import { createSessionReferenceCore } from '../src/facade.js';
import type { ReferenceTarget, SessionReferenceCandidate } from '../src/types.js';
import { parseSessionReferenceText } from '../src/uri.js';
import { expectRejection } from './errors.js';
import { MemoryStorage, never, outcomeAfterOneTurn, type MemorySession } from './memory-storage.js';

const TARGET: ReferenceTarget = { id: 'target', cwd: '/work' };

/** Storage order is creation order; the target sits among the others. */
const SESSIONS: MemorySession[] = [
  { id: 'other-1', cwd: '/elsewhere', title: 'Deploy pipeline' },
  { id: 'none-1', title: 'Scratch notes' },
  { id: 'same-1', cwd: '/work', title: 'Fix the parser' },
  { id: 'target', cwd: '/work', title: 'The current session' },
  { id: 'same-2', cwd: '/work', title: 'Deploy docs' },
  { id: 'none-2' },
  { id: 'other-2', cwd: '/srv/Deploy', title: 'Ops' },
];

function setup(sessions: MemorySession[] = SESSIONS, config?: { candidateLimit?: number }) {
  const storage = new MemoryStorage(sessions);
  return { storage, resolver: createSessionReferenceCore(storage, config) };
}

const ids = (candidates: readonly SessionReferenceCandidate[]) => candidates.map((candidate) => candidate.sessionId);

describe('listCandidates with an empty query', () => {
  it('ranks same cwd, then no cwd, then other cwd, in storage order inside each group, without the target', async () => {
    const { resolver } = setup();
    expect(ids(await resolver.listCandidates(TARGET))).toEqual(['same-1', 'same-2', 'none-1', 'none-2', 'other-1', 'other-2']);
  });

  it('cuts to the limit before reading any title, then reads the titles of the cut only', async () => {
    const { storage, resolver } = setup();
    const candidates = await resolver.listCandidates(TARGET, '', 3);
    expect(ids(candidates)).toEqual(['same-1', 'same-2', 'none-1']);
    expect(storage.titleReads).toEqual([['same-1', 'same-2', 'none-1']]);
  });

  it('reads no title at all when no other session exists', async () => {
    const { storage, resolver } = setup([{ id: 'target', cwd: '/work' }]);
    expect(await resolver.listCandidates(TARGET)).toEqual([]);
    expect(storage.titleReads).toEqual([]);
  });

  it('returns the label, cwd and creation time of each candidate', async () => {
    const { resolver } = setup();
    expect(await resolver.listCandidates(TARGET, '', 3)).toEqual([
      { sessionId: 'same-1', label: 'Fix the parser', cwd: '/work', createdAt: 3 },
      { sessionId: 'same-2', label: 'Deploy docs', cwd: '/work', createdAt: 5 },
      { sessionId: 'none-1', label: 'Scratch notes', createdAt: 2 },
    ]);
  });

  it('serializes candidates with the official key order: sessionId, label, cwd, createdAt', async () => {
    const { resolver } = setup();
    expect(JSON.stringify(await resolver.listCandidates(TARGET, '', 3))).toBe(
      '[{"sessionId":"same-1","label":"Fix the parser","cwd":"/work","createdAt":3},' +
        '{"sessionId":"same-2","label":"Deploy docs","cwd":"/work","createdAt":5},' +
        '{"sessionId":"none-1","label":"Scratch notes","createdAt":2}]',
    );
    const [mention] = await resolver.listMentionCandidates(TARGET, '', undefined);
    expect(Object.keys(mention!)).toEqual(['sessionId', 'label', 'cwd', 'createdAt', 'mention']);
  });

  it('omits cwd from a candidate that has none', async () => {
    const { resolver } = setup();
    const [candidate] = await resolver.listCandidates(TARGET, 'none-2');
    expect(candidate).toEqual({ sessionId: 'none-2', label: 'none-2', createdAt: 6 });
    expect(Object.keys(candidate!)).not.toContain('cwd');
  });

  it('ranks cwd-less sessions first for a target without cwd', async () => {
    const { resolver } = setup();
    expect(ids(await resolver.listCandidates({ id: 'target' }))).toEqual(['none-1', 'none-2', 'other-1', 'same-1', 'same-2', 'other-2']);
  });

  it('uses the configured candidate limit by default', async () => {
    const { resolver } = setup(SESSIONS, { candidateLimit: 2 });
    expect(ids(await resolver.listCandidates(TARGET))).toEqual(['same-1', 'same-2']);
  });
});

describe('listCandidates with a query', () => {
  it('reads the titles of every other session, in storage order', async () => {
    const { storage, resolver } = setup();
    await resolver.listCandidates(TARGET, 'deploy', 1);
    expect(storage.titleReads).toEqual([['other-1', 'none-1', 'same-1', 'same-2', 'none-2', 'other-2']]);
  });

  it('filters case-insensitively on title, cwd and id, then ranks', async () => {
    const { resolver } = setup();
    // "Deploy docs" (title, same cwd), "Deploy pipeline" (title, other cwd), "/srv/Deploy" (cwd, other cwd).
    expect(ids(await resolver.listCandidates(TARGET, 'dEPLOY'))).toEqual(['same-2', 'other-1', 'other-2']);
    expect(ids(await resolver.listCandidates(TARGET, 'NONE-'))).toEqual(['none-1', 'none-2']);
    expect(ids(await resolver.listCandidates(TARGET, '/ELSEWHERE'))).toEqual(['other-1']);
  });

  it('cuts to the limit after filtering and ranking', async () => {
    const { resolver } = setup();
    expect(ids(await resolver.listCandidates(TARGET, 'deploy', 2))).toEqual(['same-2', 'other-1']);
  });

  it('never lists the target, even when the query matches it', async () => {
    const { resolver } = setup();
    expect(await resolver.listCandidates(TARGET, 'current session')).toEqual([]);
    expect(await resolver.listCandidates(TARGET, 'TARGET')).toEqual([]);
  });

  it('does not search message bodies', async () => {
    const { resolver } = setup([{ id: 'a', title: 'T', messages: [] }, { id: 'b', title: 'U' }]);
    expect(await resolver.listCandidates(TARGET, 'secret body text')).toEqual([]);
  });

  it('matches nothing when nothing contains the query', async () => {
    const { resolver } = setup();
    expect(await resolver.listCandidates(TARGET, 'zzz')).toEqual([]);
  });
});

describe('listCandidates title fallbacks', () => {
  it('labels a candidate whose title read failed with its id, and still matches its id', async () => {
    const { resolver } = setup([
      { id: 'broken', title: new Error('corrupt log') },
      { id: 'fine', title: 'Fine title' },
      { id: 'untitled' },
      { id: 'blank', title: '' },
    ]);
    const candidates = await resolver.listCandidates(TARGET);
    expect(candidates.map((candidate) => [candidate.sessionId, candidate.label])).toEqual([
      ['broken', 'broken'],
      ['fine', 'Fine title'],
      ['untitled', 'untitled'],
      ['blank', 'blank'],
    ]);
    expect(ids(await resolver.listCandidates(TARGET, 'BROK'))).toEqual(['broken']);
  });
});

describe('listCandidates limits', () => {
  it.each([0, -1, 1.5, NaN, Infinity, 2 ** 53, '3'])('rejects limit %s with INVALID_REFERENCE before reading', async (limit) => {
    const { storage, resolver } = setup();
    await expectRejection(resolver.listCandidates(TARGET, '', limit as number), 'SESSION_REFERENCE_INVALID_REFERENCE');
    expect(storage.listCalls).toBe(0);
  });

  it('accepts the largest safe integer', async () => {
    const { resolver } = setup();
    expect(await resolver.listCandidates(TARGET, '', Number.MAX_SAFE_INTEGER)).toHaveLength(6);
  });
});

describe('listCandidates failures and cancellation', () => {
  it('reports a failed session list as READ_FAILED, keeping the cause', async () => {
    const { storage, resolver } = setup();
    const cause = new Error('disk gone');
    vi.spyOn(storage, 'listSessions').mockRejectedValue(cause);
    const error = await expectRejection(resolver.listCandidates(TARGET), 'SESSION_REFERENCE_READ_FAILED');
    expect(error.cause).toBe(cause);
  });

  it('rejects at once, without reading, when the signal is already aborted', async () => {
    const { storage, resolver } = setup();
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const error = await expectRejection(resolver.listCandidates(TARGET, '', 5, controller.signal), 'SESSION_REFERENCE_CANCELLED');
    expect(error.cause).toBe(controller.signal.reason);
    expect(storage.listCalls).toBe(0);
  });

  it('rejects promptly when aborted while the session list stalls', async () => {
    const { storage, resolver } = setup();
    const listSessions = vi.spyOn(storage, 'listSessions').mockImplementation(never);
    const controller = new AbortController();
    const listing = resolver.listCandidates(TARGET, '', 5, controller.signal);
    expect(await outcomeAfterOneTurn(listing)).toBe('pending');
    expect(listSessions).toHaveBeenCalledWith(controller.signal);
    controller.abort();
    const outcome = await outcomeAfterOneTurn(listing);
    expect(outcome).not.toBe('pending');
    await expectRejection(listing, 'SESSION_REFERENCE_CANCELLED');
  });

  it.each(['', 'deploy'])('rejects promptly when aborted while the title read stalls (query %j)', async (query) => {
    const { storage, resolver } = setup();
    const readTitles = vi.spyOn(storage, 'readTitles').mockImplementation(never);
    const controller = new AbortController();
    const listing = resolver.listCandidates(TARGET, query, 5, controller.signal);
    expect(await outcomeAfterOneTurn(listing)).toBe('pending');
    expect(readTitles).toHaveBeenCalledOnce();
    expect(readTitles.mock.calls[0]![1]).toBe(controller.signal);
    controller.abort();
    expect(await outcomeAfterOneTurn(listing)).not.toBe('pending');
    await expectRejection(listing, 'SESSION_REFERENCE_CANCELLED');
  });
});

describe('listMentionCandidates', () => {
  it('attaches to each candidate the canonical mention that parses back to it', async () => {
    const { resolver } = setup(SESSIONS, { candidateLimit: 4 });
    const candidates = await resolver.listMentionCandidates(TARGET);
    expect(ids(candidates)).toEqual(['same-1', 'same-2', 'none-1', 'none-2']);
    for (const { mention, sessionId, label } of candidates) {
      expect(parseSessionReferenceText(mention)).toEqual({ text: `@${label}`, references: [{ sessionId, label }] });
    }
  });

  it('filters like listCandidates', async () => {
    const { resolver } = setup();
    expect(ids(await resolver.listMentionCandidates(TARGET, 'deploy'))).toEqual(['same-2', 'other-1', 'other-2']);
  });
});

describe('rankByCwd', () => {
  it('is a stable three-group partition', () => {
    const sessions = [{ cwd: 'b' }, {}, { cwd: 'a' }, { cwd: 'b' }, {}, { cwd: 'c' }];
    expect(rankByCwd(sessions, 'b')).toEqual([sessions[0], sessions[3], sessions[1], sessions[4], sessions[2], sessions[5]]);
  });
});
