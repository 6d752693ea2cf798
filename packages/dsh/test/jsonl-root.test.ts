/**
 * The JSONL root's format module: directory names round-trip, log names
 * parse back to the generation they were built from, dsh's choice of a
 * session's log (the highest canonical generation of the root's
 * compression, nothing else), and the walk and revision built on them.
 */
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { childPath, DirectoryListings, fileToken, readRevision, sameFile, sameRevision } from '@sessref/platform';
import { currentLogOf, decodeSessionDirectory, encodeSessionDirectory, flatLogSessionId, lockFilesBeside, LogFileTracker, logFileName, parseLogFileName, sessionLogs, sessionLogsOf, type Compression } from '@sessref/dsh/jsonl-root';

const dir = mkdtempSync(join(tmpdir(), 'sessref-jsonl-root-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const compression = fc.constantFrom<Compression>('zstd', 'none');
const generation = fc.nat({ max: 40 });

describe('session directory names', () => {
  it('decode to the id they encode, and use only safe characters (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'binary' }), (id) => {
        const encoded = encodeSessionDirectory(id)!;
        expect(encoded).toMatch(/^(?:[A-Za-z0-9._-]|~[0-9A-F]{4})+$/);
        expect(encoded === '.' || encoded === '..').toBe(false);
        expect(decodeSessionDirectory(encoded)).toBe(id);
      }),
    );
  });

  it('name no directory for the empty id', () => {
    expect(encodeSessionDirectory('')).toBeUndefined();
  });
});

describe('log file names', () => {
  it('parse back to the generation and compression they were built from (property)', () => {
    fc.assert(
      fc.property(compression, generation, (kind, version) => {
        expect(parseLogFileName(logFileName(kind, version))).toEqual({ generation: version, compression: kind });
      }),
    );
  });

  it.each(['session.v0.jsonl.zstd', 'session.v04.jsonl', 'session.V2.jsonl', 'session.jsonl.zstd.tmp', 'session.lock', 'session.migration.ab12.jsonl.zstd.tmp', 'sessions.jsonl'])(
    'are canonical only: %s is no log',
    (name) => expect(parseLogFileName(name)).toBeUndefined(),
  );

  it('name rc.8 logs session.jsonl.zstd and later generations session.v<N>', () => {
    expect([logFileName(), logFileName('none'), logFileName('zstd', 4)]).toEqual(['session.jsonl.zstd', 'session.jsonl', 'session.v4.jsonl.zstd']);
  });

  it("pick the highest canonical generation of the root's compression (property)", () => {
    const name = fc.oneof(
      fc.tuple(compression, generation).map(([kind, version]) => logFileName(kind, version)),
      fc.constantFrom('session.lock', 'session.v07.jsonl.zstd', 'notes.txt', 'session.v3.jsonl.zstd.tmp'),
    );
    fc.assert(
      fc.property(fc.array(name, { maxLength: 8 }), compression, (names, kind) => {
        const versions = names.map(parseLogFileName).filter((parsed) => parsed?.compression === kind).map((parsed) => parsed!.generation);
        const current = currentLogOf(names, kind);
        if (versions.length === 0) expect(current).toBeUndefined();
        else expect(current).toEqual({ fileName: logFileName(kind, Math.max(...versions)), generation: Math.max(...versions) });
      }),
    );
  });

  it('tell a flat pre-release log by its name', () => {
    expect(flatLogSessionId('abc~0020d.jsonl.zstd')).toBe('abc d');
    expect(flatLogSessionId('abc.txt')).toBeUndefined();
  });
});

describe('a root on disk', () => {
  const root = join(dir, 'root');
  const session = (project: string, id: string, names: string[]) => {
    const path = join(root, project, encodeSessionDirectory(id)!);
    mkdirSync(path, { recursive: true });
    for (const name of names) writeFileSync(join(path, name), name);
    return path;
  };

  it("lists each session directory's current log, and none for a directory without one", () => {
    session('--p--', 'old', ['session.jsonl.zstd']);
    session('--p--', 'new one', ['session.jsonl.zstd', 'session.v2.jsonl.zstd', 'session.v4.jsonl.zstd', 'session.lock']);
    session('--q--', 'empty', ['sessref.lock']);
    const logs = sessionLogs(root).map((log) => [log.sessionId, log.generation, log.fileName]);
    expect(logs.sort()).toEqual([
      ['new one', 4, 'session.v4.jsonl.zstd'],
      ['old', 0, 'session.jsonl.zstd'],
    ]);
    expect(sessionLogsOf(root, 'new one').map((log) => log.path)).toEqual([join(root, '--p--', 'new~0020one', 'session.v4.jsonl.zstd')]);
    expect(sessionLogsOf(root, '')).toEqual([]);
    expect(lockFilesBeside(join(root, '--p--', 'old', 'session.jsonl.zstd'))).toEqual({
      dsh: join(root, '--p--', 'old', 'session.lock'),
      sessref: join(root, '--p--', 'old', 'sessref.lock'),
    });
  });

  it('looks for a session only in the projects whose listing names it: one listing per project, never one per project for each id', () => {
    const many = join(dir, 'many-projects');
    for (let project = 0; project < 30; project += 1) mkdirSync(join(many, `--p${project}--`, `s${project}`), { recursive: true });
    writeFileSync(join(many, '--p7--', 's7', 'session.jsonl.zstd'), 'log');
    const listings = new DirectoryListings();
    const letGo = listings.holdFirstLook();
    try {
      expect(sessionLogsOf(many, 's7', 'zstd', listings.list).map((log) => log.path)).toEqual([join(many, '--p7--', 's7', 'session.jsonl.zstd')]);
      // The root, its 30 projects and the one session directory that is there.
      expect(listings.reads).toBe(32);
      for (const id of ['s7', 's8', 'missing']) sessionLogsOf(many, id, 'zstd', listings.list);
      // s8's directory, holding no log; nothing for an id no project names.
      expect(listings.reads).toBe(33);
    } finally {
      letGo();
    }
  });

  it('lists a path that is not there once under a hold, and again once the hold is let go', () => {
    const listings = new DirectoryListings();
    const missing = join(dir, 'not-there');
    const letGo = listings.holdFirstLook();
    expect([listings.list(missing), listings.list(missing)]).toEqual([[], []]);
    expect(listings.reads).toBe(1);
    letGo();
    mkdirSync(join(missing, 'now'), { recursive: true });
    expect(listings.list(missing).map((entry) => entry.name)).toEqual(['now']);
  });

  it('gives a revision that an append changes, and a replacement changes as a file', () => {
    const path = join(session('--r--', 'r', ['session.jsonl.zstd']), 'session.jsonl.zstd');
    const before = readRevision(path)!;
    expect(sameRevision(before, readRevision(path))).toBe(true);
    appendFileSync(path, 'more');
    const appended = readRevision(path)!;
    expect(sameRevision(before, appended)).toBe(false);
    expect(sameFile(before, appended)).toBe(true);
    writeFileSync(`${path}.new`, 'other');
    renameSync(`${path}.new`, path);
    const replaced = readRevision(path)!;
    expect(sameFile(appended, replaced)).toBe(false);
    expect(fileToken(replaced)).not.toBe(fileToken(appended));
    expect(readRevision(join(root, 'missing'))).toBeUndefined();
    expect(readRevision(join(root, '--r--'), true)).toBeUndefined();
  });
});

describe('the log tracker walking again', () => {
  type Change = { kind: 'write' | 'append' | 'remove session' | 'remove project'; project: number; session: number; generation: number };
  const change: fc.Arbitrary<Change> = fc.record({
    kind: fc.constantFrom('write' as const, 'append' as const, 'remove session' as const, 'remove project' as const),
    project: fc.nat({ max: 1 }),
    session: fc.nat({ max: 3 }),
    generation: fc.nat({ max: 4 }),
  });

  it('finds after any change what a first walk of the root finds: sessions added, grown, moved on a generation, removed alone or with their project (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 12 }), async (changes) => {
        const root = join(dir, `tracked-${(run += 1)}`);
        const tracker = new LogFileTracker(root, 'zstd', false);
        for (const { kind, project, session, generation } of changes) {
          const projectPath = join(root, `--p${project}--`);
          const sessionPath = join(projectPath, `p${project}-s${session}`);
          if (kind === 'remove project') rmSync(projectPath, { recursive: true, force: true });
          else if (kind === 'remove session') rmSync(sessionPath, { recursive: true, force: true });
          else {
            mkdirSync(sessionPath, { recursive: true });
            if (kind === 'append') appendFileSync(join(sessionPath, logFileName('zstd', 0)), 'more');
            else writeFileSync(join(sessionPath, logFileName('zstd', generation)), `${kind} ${generation}`);
          }
          // What a walk that knows nothing of the root finds (listings of its own), and each log's revision now.
          const expected = sessionLogs(root, 'zstd', new DirectoryListings().list).map((log) => [log.sessionId, readRevision(log.path)]);
          expect([...(await tracker.revisions())].sort()).toEqual(expected.sort());
        }
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });
});

describe('childPath', () => {
  const segment = fc.stringMatching(/^[^/\0]+$/).filter((name) => name !== '.' && name !== '..');

  it('is join(parent, name) for a normalized parent and a name of one segment, as a listing gives', () => {
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 4 }), fc.boolean(), fc.boolean(), segment, (segments, absolute, trailing, name) => {
        const parent = `${absolute ? '/' : ''}${segments.join('/')}${trailing && segments.length > 0 ? '/' : ''}` || '/';
        expect(childPath(parent, name)).toBe(join(parent, name));
      }),
    );
  });
});
