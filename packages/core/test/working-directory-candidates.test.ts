/**
 * Candidates of sessions that changed working directory (dsh 0.2.1+): the
 * directory a session is in now (`workingDirectory`, else the header's
 * `cwd`) is what ranks it, what `sameWorkspace` compares and what the picker
 * shows; a session that never moved answers as before. The sessions are
 * synthetic: no real dsh log with a directory change exists to take them from.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listCandidates, rankByCwd } from '../src/discovery.js';
import type { ReferenceTarget, SessionHeaderLike, SessionReferenceStorage } from '../src/types.js';

function storageOf(headers: readonly SessionHeaderLike[]): SessionReferenceStorage {
  return {
    listSessions: async () => headers,
    readTitles: async (ids) => ids.map((sessionId) => ({ sessionId, status: 'fulfilled' as const, title: `title of ${sessionId}` })),
    readSurface: async () => {
      throw new Error('discovery reads no surface');
    },
  };
}

/** Storage order; `moved-*` sessions started in one directory and are now in another. */
const HEADERS: SessionHeaderLike[] = [
  { id: 'moved-away', createdAt: 1, cwd: '/work/webapp', workingDirectory: '/work/webapp-fix' },
  { id: 'no-cwd', createdAt: 2 },
  { id: 'still-here', createdAt: 3, cwd: '/work/webapp' },
  { id: 'moved-here', createdAt: 4, cwd: '/work/infra', workingDirectory: '/work/webapp' },
  { id: 'elsewhere', createdAt: 5, cwd: '/srv/ops' },
];

const TARGET: ReferenceTarget = { id: 'target', cwd: '/work/webapp' };

async function candidates(target: ReferenceTarget, query = '') {
  return listCandidates(storageOf(HEADERS), { target, query, limit: 50, shape: 'workspace' });
}

describe('candidates of sessions that changed working directory', () => {
  it('rank and compare each session by the directory it is in now, and show that directory', async () => {
    const found = await candidates(TARGET);
    expect(found.map((candidate) => [candidate.sessionId, candidate.cwd, candidate.sameWorkspace])).toEqual([
      ['still-here', '/work/webapp', true],
      ['moved-here', '/work/webapp', true],
      ['no-cwd', undefined, false],
      ['moved-away', '/work/webapp-fix', false],
      ['elsewhere', '/srv/ops', false],
    ]);
  });

  it('take the target where it is now too', async () => {
    const found = await candidates({ id: 'target', cwd: '/work/infra', workingDirectory: '/work/webapp-fix' });
    expect(found.filter((candidate) => candidate.sameWorkspace).map((candidate) => candidate.sessionId)).toEqual(['moved-away']);
    expect(found[0]?.sessionId).toBe('moved-away');
  });

  it('keep the key order of the contract, with no key for the directory the session started in', async () => {
    const [first] = await candidates(TARGET);
    expect(Object.keys(first!)).toEqual(['sessionId', 'label', 'displayTitle', 'cwd', 'sameWorkspace', 'createdAt']);
    const rc8 = await listCandidates(storageOf(HEADERS), { target: TARGET, query: '', limit: 50 });
    expect(rc8.find((candidate) => candidate.sessionId === 'moved-away')).toEqual({ sessionId: 'moved-away', label: 'title of moved-away', cwd: '/work/webapp-fix', createdAt: 1 });
  });

  it('find a session by the directory it started in or the one it is in now', async () => {
    expect((await candidates(TARGET, 'webapp-fix')).map((candidate) => candidate.sessionId)).toEqual(['moved-away']);
    expect((await candidates(TARGET, 'infra')).map((candidate) => candidate.sessionId)).toEqual(['moved-here']);
  });
});

describe('rankByCwd with working-directory changes (properties)', () => {
  const cwd = fc.constantFrom('/a', '/b', '/c');
  const session = fc.record({ cwd: fc.option(cwd, { nil: undefined }), workingDirectory: fc.option(cwd, { nil: undefined }) }, { requiredKeys: [] });

  it('ranks a session that never moved exactly as by its header cwd alone', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ cwd: fc.option(cwd, { nil: undefined }) }, { requiredKeys: [] })), fc.option(cwd, { nil: undefined }), (sessions, target) => {
        const ranked = rankByCwd(sessions, target);
        const same = sessions.filter((s) => s.cwd !== undefined && s.cwd === target);
        const none = sessions.filter((s) => s.cwd === undefined);
        const other = sessions.filter((s) => s.cwd !== undefined && s.cwd !== target);
        expect(ranked).toEqual([...same, ...none, ...other]);
      }),
    );
  });

  it('ranks a session that moved as one that started where it moved to', () => {
    fc.assert(
      fc.property(fc.array(session), fc.option(cwd, { nil: undefined }), (sessions, target) => {
        const asStarted = sessions.map((s) => {
          const now = s.workingDirectory ?? s.cwd;
          return now === undefined ? {} : { cwd: now };
        });
        const order = (list: readonly object[]) => rankByCwd(list as { cwd?: string }[], target).map((s) => list.indexOf(s));
        expect(order(sessions)).toEqual(order(asStarted));
      }),
    );
  });
});
