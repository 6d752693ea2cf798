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
import { appendExchange, createHost, createSession, framePerRecord, setTitle, writeGeneration, type Step } from '@sessref/test-support';
import { copyRoot, expectFailure, hashTree, json, logPath, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';

const uri = (id: string): string => `dsh-session:${Buffer.from(JSON.stringify(id)).toString('base64url')}`;
const APP = '/work/app';
const SUPPORTED = 'sessref reads dsh logs, <project>/<session>/session.jsonl.zstd to session.v4.jsonl.zstd (zstd, log formats v0-v4)';

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

describe('log generations of later dsh releases', () => {
  /** A session's conversation: one exchange and a title, all named after `word`. */
  const conversation = (word: string): Step[] => [
    { kind: 'exchange', user: `Question about ${word}?`, assistant: `Answer about ${word}.` },
    { kind: 'title', title: `About ${word}` },
  ];

  /** Session `id` written as `generation` in its directory, one zstd frame per record as dsh writes it. */
  async function writeLog(root: string, id: string, generation: number, steps: readonly Step[], createdAt = 1_700_000_005_000): Promise<string> {
    const directory = dirname(logPath(root, id, APP));
    await mkdir(directory, { recursive: true });
    const path = join(directory, generation === 0 ? 'session.jsonl.zstd' : `session.v${generation}.jsonl.zstd`);
    await writeFile(path, framePerRecord(writeGeneration(generation, steps, { id, createdAt, cwd: APP })));
    return path;
  }

  const shown = async (root: string, id: string) => (await json<{ conversation: { role: string; text: string }[] }>(['show', id, '--json', '--root', root])).conversation;

  it('list, show and prepare read v0, v2, v3 and v4 sessions; a v5 one is flagged and the rest answer, nothing written', async () => {
    const root = await copyRoot(zstdRoot);
    for (const generation of [0, 2, 3, 4]) await writeLog(root, `gen${generation}`, generation, conversation(`v${generation}`), 1_700_000_010_000 + generation);
    await writeLog(root, 'gen5', 5, conversation('v5'));
    const before = await hashTree(root);

    const result = await sessref(['list', '--json', '--root', root]);
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as { sessionId: string; title?: string; readError?: { code: string; message: string } }[];
    const byId = new Map(rows.map((row) => [row.sessionId, row]));
    for (const generation of [0, 2, 3, 4]) expect(byId.get(`gen${generation}`)).toMatchObject({ title: `About v${generation}` });
    expect(byId.get('gen5')?.readError).toEqual(
      expect.objectContaining({
        code: 'SESSION_LOG_UNSUPPORTED',
        message: 'session "gen5": log --work-app--/gen5/session.v5.jsonl.zstd: its file name says it was written by a dsh newer than sessref knows: v5',
      }),
    );
    expect(byId.has('alpha') && byId.has('beta') && byId.has('target')).toBe(true);

    for (const generation of [0, 2, 3, 4]) {
      expect(await shown(root, `gen${generation}`)).toEqual([
        expect.objectContaining({ role: 'user', text: `Question about v${generation}?` }),
        expect.objectContaining({ role: 'assistant', text: `Answer about v${generation}.` }),
      ]);
    }
    const prepared = await ok(['prepare', '--root', root, '--target', 'target', `Compare ${uri('gen3')} with ${uri('gen4')}`]);
    expect(prepared).toContain('Answer about v3.');
    expect(prepared).toContain('Answer about v4.');
    expect(expectFailure(await sessref(['show', 'gen5', '--root', root]), 2, 'SESSION_LOG_UNSUPPORTED')).toMatch(/newer than sessref knows: v5/);
    expect(await hashTree(root)).toEqual(before);
  });

  it("beside an older log, the newer generation is the session's log: the superseded file is never read", async () => {
    const root = await copyRoot(zstdRoot);
    await writeLog(root, 'moved', 0, conversation('the old file'));
    await writeLog(root, 'moved', 4, conversation('the current file'));
    expect(await shown(root, 'moved')).toEqual([
      expect.objectContaining({ text: 'Question about the current file?' }),
      expect.objectContaining({ text: 'Answer about the current file.' }),
    ]);
    const rows = await json<{ sessionId: string; title?: string }[]>(['list', '--json', '--root', root]);
    expect(rows.filter((row) => row.sessionId === 'moved')).toEqual([expect.objectContaining({ title: 'About the current file' })]);
  });

  it('a root holding only sessions of a later generation has sessions: listed, no "no sessions" hint', async () => {
    const root = join(await tempDir('sessref-shapes-'), 'sessions');
    await writeLog(root, 'only-v4', 4, conversation('v4'));
    const result = await sessref(['list', '--root', root]);
    expect(result.code).toBe(0);
    expect(withoutRootLine(result.stderr)).toBe('');
    expect(result.stdout).toMatch(/^only-v4 +dsh +About v4 /m);
  });

  it('send refuses a session a later dsh wrote, before locking or writing anything', async () => {
    const root = await copyRoot(zstdRoot);
    await writeLog(root, 'current', 3, conversation('v3'));
    const before = await hashTree(root);
    const message = expectFailure(await sessref(['send', '--root', root, '--target', 'current', 'hello']), 1, 'SESSION_WRITE_UNSUPPORTED');
    expect(message).toBe("session \"current\": this session's log is session.v3.jsonl.zstd, log format v3 of a dsh release newer than 0.1.0-rc.8; sessref writes only log format v0");
    expect(await hashTree(root)).toEqual(before);
  });
});

describe('one session id in two project directories', () => {
  it('refuses that session only, naming both copies, where dsh fails the whole listing; nothing written', async () => {
    const root = await copyRoot(zstdRoot);
    // A backup copy of a session directory left under another project.
    await cp(dirname(logPath(root, 'alpha', APP)), join(root, '--backup--', 'alpha'), { recursive: true });
    const before = await hashTree(root);
    const listed = await sessref(['list', '--json', '--root', root]);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { sessionId: string; readError?: { code: string; message: string } }[];
    expect(rows.map((row) => row.sessionId).sort()).toEqual(['alpha', 'beta', 'target']);
    const message = 'session "alpha": session "alpha" has a log in 2 project directories (--backup--/alpha/session.jsonl.zstd, --work-app--/alpha/session.jsonl.zstd); dsh refuses such a root';
    expect(rows.find((row) => row.sessionId === 'alpha')!.readError).toMatchObject({ code: 'SESSION_LOG_DUPLICATE', message });
    expect(expectFailure(await sessref(['show', 'alpha', '--root', root]), 2, 'SESSION_LOG_DUPLICATE')).toBe(message);
    await ok(['show', 'beta', '--root', root]);
    expect(await hashTree(root)).toEqual(before);
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
    // sessref reads the log itself (as it reads every generation): the name and the header disagree, so it is damaged.
    const message = 'session "gamma": log --work-app--/gamma/session.jsonl.zstd: its file name identifies v0 (dsh 0.0.1 to 0.1.2), but its header identifies v1 (intermediate dsh builds only)';
    expect(rows.find((row) => row.sessionId === 'gamma')!.readError).toMatchObject({ code: 'SESSION_LOG_CORRUPT', message });
    expect(expectFailure(await sessref(['show', 'gamma', '--root', root]), 2, 'SESSION_LOG_CORRUPT')).toBe(message);
    expect(expectFailure(await sessref(['prepare', '--root', root, '--target', 'target', uri('gamma')]), 2, 'SESSION_LOG_CORRUPT')).toBe(message);
    await ok(['prepare', '--root', root, '--target', 'target', uri('alpha')]);
    expect(await hashTree(root)).toEqual(before);
  });
});
