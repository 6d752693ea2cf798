/**
 * Every on-disk shape a session root takes, and the answer `sessref` gives
 * for it. Roots are written by the real dsh JSONL persistence (zstd, or
 * `compression: 'none'`); the shapes a dsh 0.1.0-rc.8 host cannot write (a
 * newer generation, flat pre-release files) are added beside those logs as a
 * later or earlier dsh leaves them. Every test proves that no byte of its root
 * changed, whatever the commands answered.
 */
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendExchange, createHost, createSession, setTitle } from '@sessref/test-support';
import { copyRoot, expectFailure, hashTree, json, logPath, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';

const uri = (id: string): string => `dsh-session:${Buffer.from(JSON.stringify(id)).toString('base64url')}`;
const APP = '/work/app';
const SUPPORTED = 'sessref reads dsh 0.1.0-rc.8 logs, <project>/<session>/session.jsonl.zstd (zstd, log format v0)';

/** Every command that opens a root, each reading or writing something different. */
const COMMANDS: readonly (readonly string[])[] = [
  ['list'],
  ['list', '--json'],
  ['list', '--target', 'target'],
  ['show', 'alpha'],
  ['show', 'beta'],
  ['mention', 'beta'],
  ['prepare', '--target', 'target', `Use ${uri('alpha')}`],
  ['send', '--target', 'target', 'hi'],
  ['new', '--title', 'Another'],
  ['seed', '--force'],
];

/** A root of three sessions, written and flushed by the dsh JSONL persistence. */
async function writeRoot(compression?: 'none'): Promise<string> {
  const root = join(await tempDir('sessref-shapes-'), 'sessions');
  const host = await createHost({ root, ...(compression === undefined ? {} : { compression }) });
  try {
    const alpha = createSession(host, { id: 'alpha', cwd: APP, createdAt: 1_700_000_000_000 });
    appendExchange(alpha, { user: 'Plan the cache layer.', assistant: 'Use an LRU with a 10k entry cap.' });
    setTitle(alpha, 'Cache layer plan');
    const beta = createSession(host, { id: 'beta', createdAt: 1_700_000_001_000 });
    appendExchange(beta, { user: 'Note to self: rotate keys.', assistant: 'Noted.' });
    const target = createSession(host, { id: 'target', cwd: APP, createdAt: 1_700_000_002_000 });
    appendExchange(target, { user: 'Start here.', assistant: 'Ready.' });
    for (const session of [alpha, beta, target]) await host.flush(session);
  } finally {
    await host.dispose();
  }
  return root;
}

/** A log of `version` as a later dsh writes it: a zstd header frame whose `version` is not 0, then one event frame. */
function foreignLog(id: string, version: number, cwd?: string): Buffer {
  const header = { type: 'session', version, id, ...(cwd === undefined ? {} : { cwd }), createdAt: 1_700_000_000_500, delegationDepth: 0 };
  const event = { seq: 0, time: 1_700_000_000_600, type: 'turn/start', data: { turn: 1 } };
  return Buffer.concat([zstdCompressSync(`${JSON.stringify(header)}\n`), zstdCompressSync(`${JSON.stringify(event)}\n`)]);
}

/** Run every command: each fails with `code` at exit 2, in one line (JSON under --json), and the root keeps every byte. */
async function expectRefused(root: string, code: string, message: string): Promise<void> {
  const before = await hashTree(root);
  for (const args of COMMANDS) {
    const result = await sessref([...args, '--root', root]);
    if (args.includes('--json')) {
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(JSON.parse(withoutRootLine(result.stderr))).toEqual({ error: { code, message, hint: expect.any(String), exitCode: 2 } });
    } else {
      expect(expectFailure(result, 2, code), args.join(' ')).toBe(message);
    }
  }
  expect(await hashTree(root)).toEqual(before);
}

let zstdRoot: string;

beforeAll(async () => {
  requireBuild();
  zstdRoot = await writeRoot();
});

afterAll(removeTemps);

describe('a root as dsh 0.1.0-rc.8 writes it', () => {
  it('is read, and transient .tmp files beside a log are left alone', async () => {
    const root = await copyRoot(zstdRoot);
    const log = logPath(root, 'alpha', APP);
    // dsh stages its first write in a temporary file beside the log; one may be left behind.
    await writeFile(`${log}.0a1b2c3d4e5f.tmp`, (await readFile(log)).subarray(0, 30));
    const before = await hashTree(root);
    const listed = await json<{ sessionId: string; title?: string }[]>(['list', '--root', root]);
    expect(listed.map((s) => [s.sessionId, s.title])).toEqual([
      ['target', undefined],
      ['beta', undefined],
      ['alpha', 'Cache layer plan'],
    ]);
    expect(await ok(['show', 'alpha', '--root', root])).toMatch(/^Cache layer plan\n/);
    await ok(['prepare', '--root', root, '--target', 'target', `Use ${uri('alpha')}`]);
    expect(await hashTree(root)).toEqual(before);
  });
});

describe('a newer generation of a session log', () => {
  it('beside the older log: refused for every command, naming the file; the superseded log is never read', async () => {
    const root = await copyRoot(zstdRoot);
    // A later dsh wrote the session's current log as v3 and kept the older file beside it.
    await writeFile(join(dirname(logPath(root, 'alpha', APP)), 'session.v3.jsonl.zstd'), foreignLog('alpha', 3, APP));
    await expectRefused(
      root,
      'ROOT_NEWER_FORMAT',
      `--work-app--/alpha/session.v3.jsonl.zstd holds log format v3, written by a dsh release newer than 0.1.0-rc.8; ${SUPPORTED}`,
    );
  });

  it('alone, uncompressed, and in several sessions: the message counts the others', async () => {
    const root = await copyRoot(zstdRoot);
    const gamma = join(root, '--work-app--', 'gamma');
    await mkdir(gamma);
    await writeFile(join(gamma, 'session.v4.jsonl'), '{"type":"session","version":4,"id":"gamma","createdAt":1,"delegationDepth":0}\n');
    await writeFile(join(dirname(logPath(root, 'beta')), 'session.v4.jsonl.zstd'), foreignLog('beta', 4));
    const result = await sessref(['list', '--root', root]);
    expect(expectFailure(result, 2, 'ROOT_NEWER_FORMAT')).toMatch(
      /^(?:--work-app--\/gamma\/session\.v4\.jsonl|_no-cwd\/beta\/session\.v4\.jsonl\.zstd) \(and 1 more\) holds log format v4, written by a dsh release newer than 0\.1\.0-rc\.8; /,
    );
    await expectRefused(root, 'ROOT_NEWER_FORMAT', expectFailure(result, 2, 'ROOT_NEWER_FORMAT'));
  });
});

describe('an uncompressed root', () => {
  it("written with dsh's compression: 'none' is refused for every command, naming a log", async () => {
    const root = await writeRoot('none');
    expect(Object.keys(await hashTree(root)).every((path) => path.endsWith('/session.jsonl'))).toBe(true);
    const result = await sessref(['list', '--root', root]);
    const found = /^(\S+\/session\.jsonl) /.exec(expectFailure(result, 2, 'ROOT_UNCOMPRESSED'))![1]!;
    expect(['--work-app--/alpha/session.jsonl', '--work-app--/target/session.jsonl', '_no-cwd/beta/session.jsonl']).toContain(found);
    await expectRefused(root, 'ROOT_UNCOMPRESSED', `${found} is an uncompressed log (dsh's compression: 'none'); ${SUPPORTED}`);
  });
});

describe("dsh's flat pre-release layout", () => {
  it('a <project>/<id>.jsonl.zstd file is refused for every command, naming it', async () => {
    const root = await copyRoot(zstdRoot);
    await cp(logPath(root, 'alpha', APP), join(root, '--work-app--', 'old-session.jsonl.zstd'));
    await expectRefused(root, 'ROOT_FLAT_LAYOUT', `--work-app--/old-session.jsonl.zstd is a flat log file of dsh's pre-release layout; ${SUPPORTED}`);
  });

  it('a <project>/<id>.jsonl file is refused the same way', async () => {
    const root = await copyRoot(zstdRoot);
    await writeFile(join(root, '--work-app--', 'old-session.jsonl'), '{"type":"session","version":0,"id":"old-session","createdAt":1,"delegationDepth":0}\n');
    const message = expectFailure(await sessref(['show', 'alpha', '--root', root]), 2, 'ROOT_FLAT_LAYOUT');
    expect(message).toBe(`--work-app--/old-session.jsonl is a flat log file of dsh's pre-release layout; ${SUPPORTED}`);
  });
});

describe('a log whose header carries another format version', () => {
  it('is flagged by list, its reads are exit 2, and every other session works', async () => {
    const root = await copyRoot(zstdRoot);
    const path = logPath(root, 'gamma', APP);
    await mkdir(dirname(path));
    await writeFile(path, foreignLog('gamma', 1, APP));
    const before = await hashTree(root);
    const listed = await sessref(['list', '--root', root, '--json']);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { sessionId: string; readError?: { code: string; message: string } }[];
    expect(rows.map((row) => row.sessionId).sort()).toEqual(['alpha', 'beta', 'gamma', 'target']);
    const message = 'session "gamma": log --work-app--/gamma/session.jsonl.zstd is log format v1, which dsh 0.1.0-rc.8 does not write; sessref reads log format v0';
    expect(rows.find((row) => row.sessionId === 'gamma')!.readError).toMatchObject({ code: 'SESSION_LOG_UNSUPPORTED', message });
    expect(expectFailure(await sessref(['show', 'gamma', '--root', root]), 2, 'SESSION_LOG_UNSUPPORTED')).toBe(message);
    expect(expectFailure(await sessref(['prepare', '--root', root, '--target', 'target', uri('gamma')]), 2, 'SESSION_LOG_UNSUPPORTED')).toBe(message);
    await ok(['prepare', '--root', root, '--target', 'target', uri('alpha')]);
    expect(await hashTree(root)).toEqual(before);
  });
});
