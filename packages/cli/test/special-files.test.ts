/**
 * Special files where the root holds logs and directories, and where the
 * cache holds the title index: a FIFO, a unix socket and a character device
 * (made with mknod as /dev/zero's numbers, 1:5, so a read of it would never
 * end). Every command runs in a child process under a deadline, so a command
 * that waited on one would fail the test instead of hanging the suite.
 *
 * In a log's place the session is flagged by `list` (SESSION_LOG_NOT_A_FILE)
 * and every command that must read it exits 2 in one line naming the session
 * and the file; in a directory's place it is no session at all; in the title
 * index's place it is no index. Nothing is ever written to the root, and the
 * inspector keeps answering while requests touch such a session.
 */
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, rmSync, symlinkSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeSessionReferenceUri } from '@sessref/core';
import { defaultIndexFile, defaultSearchIndexFile } from '@sessref/dsh/title-index';
import { deviceSupport } from '@sessref/test-support';
import { BIN, NO_DSH_HOME, copyRoot, emptyRoot, finished, hashTree, logPath, ok, removeTemps, requireBuild, tempDir, withoutRootLine, type RunResult } from './support';

const WEBAPP = '/home/dev/webapp';
/** A command that has not answered by then is waiting on something it must never wait on. */
const DEADLINE_MS = 30_000;

type Kind = 'FIFO' | 'socket' | 'device';

const DEVICE = deviceSupport();

const KINDS: { kind: Kind; says: string }[] = [
  { kind: 'FIFO', says: 'a FIFO (named pipe)' },
  { kind: 'socket', says: 'a socket' },
  { kind: 'device', says: 'a character device' },
];

const sockets: Server[] = [];

/** Put a special file of `kind` at `path` (which must not exist). */
async function makeSpecial(kind: Kind, path: string): Promise<void> {
  if (kind === 'FIFO') execFileSync('mkfifo', [path]);
  else if (kind === 'device') execFileSync('mknod', [path, 'c', '1', '5']);
  else {
    const server = createServer();
    sockets.push(server);
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  }
}

function skipFor(kind: Kind): boolean {
  return kind === 'device' && !DEVICE.ok;
}

/** A test's name, with why it is skipped where it is. */
function named(kind: Kind, title: string): string {
  return skipFor(kind) ? `${title} (skipped: ${DEVICE.reason})` : title;
}

const CACHE = join(tmpdir(), `sessref-special-cache-${process.pid}`);

/** `sessref ...args` in a child process, killed at the deadline (then `timedOut`). */
function run(args: readonly string[], env: Record<string, string> = {}): Promise<RunResult & { timedOut: boolean }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, NO_COLOR: '1', SESSREF_CACHE_DIR: CACHE, DSH_HOME: NO_DSH_HOME, SESSREF_ROOT: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: DEADLINE_MS,
    killSignal: 'SIGKILL',
  });
  return finished(child).then(({ code, stdout, stderr, signal }) => ({ code, stdout, stderr, timedOut: signal === 'SIGKILL' }));
}

/** Exit `exit` with one `error CODE: message (fix: …)` line and nothing on stdout; returns the message. */
function failure(result: RunResult & { timedOut: boolean }, exit: number, code: string): string {
  expect(result.timedOut, 'the command waited until it was killed').toBe(false);
  expect(result.code, result.stderr).toBe(exit);
  expect(result.stdout).toBe('');
  const lines = withoutRootLine(result.stderr).split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  const match = /^error ([A-Z_]+): (.+) \(fix: .+\)$/.exec(lines[0]!);
  expect(match, result.stderr).not.toBeNull();
  expect(match![1]).toBe(code);
  return match![2]!;
}

function succeeded(result: RunResult & { timedOut: boolean }): string {
  expect(result.timedOut, 'the command waited until it was killed').toBe(false);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
}

const uri = encodeSessionReferenceUri;
let seeded: string;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot();
  await ok(['seed', '--root', seeded]);
});

afterAll(async () => {
  await Promise.all(sockets.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  rmSync(CACHE, { recursive: true, force: true });
  await removeTemps();
});

describe.each(KINDS)('a $kind in place of a log', ({ kind, says }) => {
  it.skipIf(skipFor(kind))(named(kind, `is flagged by list; every command that must read it exits 2 in one line; the rest of the root works; nothing is written`), async () => {
    const root = await copyRoot(seeded);
    const log = logPath(root, 'flaky-ci', WEBAPP);
    await rm(log);
    await makeSpecial(kind, log);
    const before = await hashTree(root);
    const message = `session "flaky-ci": log --home-dev-webapp--/flaky-ci/session.jsonl.zstd is ${says}, not a regular file; sessref never opens it`;

    // Listed by its directory, flagged, named in the warning; every healthy session listed.
    const listed = await run(['list', '--root', root]);
    const out = succeeded(listed);
    expect(out).toMatch(/^flaky-ci +dsh +\(unreadable: SESSION_LOG_NOT_A_FILE\) +- +-$/m);
    expect(out.trimEnd().split('\n')).toHaveLength(9);
    expect(withoutRootLine(listed.stderr)).toBe(`warning SESSION_LOG_NOT_A_FILE: ${message} (fix: put the session's log file back in its place, or move this one out of the root)\n`);
    const rows = JSON.parse(succeeded(await run(['list', '--root', root, '--json']))) as { sessionId: string; readError?: { code: string; message: string } }[];
    expect(rows.find((row) => row.sessionId === 'flaky-ci')?.readError).toMatchObject({ code: 'SESSION_LOG_NOT_A_FILE', message });

    // Every command that must read it.
    for (const args of [
      ['show', 'flaky-ci'],
      ['mention', 'flaky-ci'],
      ['prepare', '--target', 'scratchpad', `see ${uri('flaky-ci')}`],
      ['send', '--target', 'scratchpad', `see ${uri('flaky-ci')}`],
      ['prepare', '--target', 'flaky-ci', 'hi'],
      ['send', '--target', 'flaky-ci', 'hi'],
      ['list', '--target', 'flaky-ci'],
      ['search', 'price', '--target', 'flaky-ci'],
    ]) {
      expect(failure(await run([...args, '--root', root]), 2, 'SESSION_LOG_NOT_A_FILE'), args.join(' ')).toBe(message);
    }

    // Everything else works.
    expect(succeeded(await run(['show', 'scratchpad', '--root', root]))).toMatch(/^Scratchpad\n/);
    const candidates = JSON.parse(succeeded(await run(['list', '--target', 'scratchpad', '--root', root, '--json']))) as { sessionId: string }[];
    expect(candidates.map((candidate) => candidate.sessionId)).not.toContain('flaky-ci');
    expect(candidates).toHaveLength(6);
    succeeded(await run(['prepare', '--target', 'scratchpad', `see ${uri('billing-schema')}`, '--root', root]));
    succeeded(await run(['search', 'price', '--root', root]));

    expect(await hashTree(root)).toEqual(before);
    expect(kindOf(log)).toBe(kind);
  });
});

function kindOf(path: string): Kind | 'other' {
  const stats = lstatSync(path);
  return stats.isFIFO() ? 'FIFO' : stats.isSocket() ? 'socket' : stats.isCharacterDevice() ? 'device' : 'other';
}

describe('a symbolic link to a FIFO in place of a log', () => {
  it('is refused as what it points to', async () => {
    const root = await copyRoot(seeded);
    const log = logPath(root, 'flaky-ci', WEBAPP);
    const fifo = join(await tempDir(), 'elsewhere.zstd');
    await makeSpecial('FIFO', fifo);
    await rm(log);
    symlinkSync(fifo, log);
    const message = failure(await run(['show', 'flaky-ci', '--root', root]), 2, 'SESSION_LOG_NOT_A_FILE');
    expect(message).toMatch(/is a FIFO \(named pipe\), not a regular file/);
    expect(succeeded(await run(['list', '--root', root]))).toMatch(/^flaky-ci +dsh +\(unreadable: SESSION_LOG_NOT_A_FILE\)/m);
  });
});

describe.each(KINDS)('a $kind in place of a directory', ({ kind }) => {
  it.skipIf(skipFor(kind))(named(kind, `of a session or of a project holds no session: the rest of the root works`), async () => {
    const root = await copyRoot(seeded);
    // The session directory of flaky-ci, and the whole project of terraform-cleanup and oauth-migration.
    const session = dirname(logPath(root, 'flaky-ci', WEBAPP));
    await rm(session, { recursive: true });
    await makeSpecial(kind, session);
    const project = join(root, '--home-dev-infra--');
    await rm(project, { recursive: true });
    await makeSpecial(kind, project);
    const before = await hashTree(root);

    const ids = succeeded(await run(['list', '--root', root])).trimEnd().split('\n').slice(1).map((line) => line.split(' ')[0]);
    expect(ids.sort()).toEqual(['billing-schema', 'pasted-issue', 'quick-question', 'research-log', 'scratchpad']);
    for (const id of ['flaky-ci', 'oauth-migration']) failure(await run(['show', id, '--root', root]), 1, 'SESSION_QUERY_SESSION_NOT_FOUND');
    succeeded(await run(['list', '--target', 'scratchpad', '--root', root]));
    succeeded(await run(['send', '--target', 'scratchpad', 'hello', '--root', root]));
    const after = await hashTree(root);
    for (const [path, hash] of Object.entries(before)) if (!path.includes('/scratchpad/')) expect(after[path], path).toBe(hash);
  });
});

describe.each(KINDS)('a $kind at a cache file', ({ kind }) => {
  it.skipIf(skipFor(kind))(named(kind, 'the title index, the kept headers or the content index: no cache; candidates and hits are read from the logs and the cache is written anew'), async () => {
    const root = await copyRoot(seeded);
    const cache = await tempDir('sessref-special-index-');
    const env = { SESSREF_CACHE_DIR: cache };
    const expected = succeeded(await run(['list', '--target', 'scratchpad', '--root', root, '--json'], env));
    const search = defaultSearchIndexFile(root, env);
    const hits = succeeded(await run(['search', 'price fetch', '--root', root, '--json'], env));
    for (const file of [defaultIndexFile(root, env), `${search}.headers.json`, search]) {
      await rm(file, { force: true });
      await makeSpecial(kind, file);
      expect(succeeded(await run(['list', '--target', 'scratchpad', '--root', root, '--json'], env)), file).toBe(expected);
      succeeded(await run(['list', '--root', root], env));
      expect(succeeded(await run(['search', 'price fetch', '--root', root, '--json'], env)), file).toBe(hits);
      // Saved in its place: a regular file now.
      const after = lstatSync(file, { throwIfNoEntry: false });
      expect(after === undefined || after.isFile(), file).toBe(true);
    }
  });
});

describe('a FIFO in place of the session lock', () => {
  it('is no lock file: SESSION_LOCK_INVALID, exit 2, without waiting out a long wait; nothing written', async () => {
    const root = await copyRoot(seeded);
    const lock = join(dirname(logPath(root, 'scratchpad', WEBAPP)), 'sessref.lock');
    await makeSpecial('FIFO', lock);
    const before = await hashTree(root);
    const message = failure(await run(['send', '--target', 'scratchpad', 'hi', '--root', root], { SESSREF_LOCK_WAIT_MS: '600000' }), 2, 'SESSION_LOCK_INVALID');
    expect(message).toBe(
      'session "scratchpad": the session lock --home-dev-webapp--/scratchpad/sessref.lock is a FIFO (named pipe), not a lock file sessref made, so sessref neither waits for it nor removes it',
    );
    expect(await hashTree(root)).toEqual(before);
    expect(kindOf(lock)).toBe('FIFO');
  });
});

describe('the inspector with a FIFO in place of a log', () => {
  it('answers 24 concurrent requests that touch that session with its code, and keeps answering every other request', async () => {
    const root = await copyRoot(seeded);
    const log = logPath(root, 'flaky-ci', WEBAPP);
    await rm(log);
    await makeSpecial('FIFO', log);
    // A second damaged session of another kind: a socket.
    const other = logPath(root, 'billing-schema', WEBAPP);
    await rename(other, `${other}.moved`);
    await makeSpecial('socket', other);

    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--root', root], {
      env: { ...process.env, NO_COLOR: '1', SESSREF_CACHE_DIR: CACHE, DSH_HOME: NO_DSH_HOME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8');
          if (out.includes('\n')) resolve(new URL(out.split('\n')[0]!));
        });
        child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const token = url.searchParams.get('token')!;
      const api = (path: string, body?: unknown) =>
        new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
          const req = request(
            { host: '127.0.0.1', port: Number(url.port), path, method: body === undefined ? 'GET' : 'POST', headers: { 'x-sessref-token': token, 'content-type': 'application/json' }, signal: AbortSignal.timeout(DEADLINE_MS) },
            (res) => {
              let text = '';
              res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
            },
          );
          req.on('error', reject);
          req.end(body === undefined ? undefined : JSON.stringify(body));
        });

      const touching = Array.from({ length: 24 }, (_, index) => {
        const id = index % 2 === 0 ? 'flaky-ci' : 'billing-schema';
        switch (index % 4) {
          case 0:
          case 1:
            return api('/api/messages', { sessionId: id });
          case 2:
            return api('/api/preview', { target: 'scratchpad', text: `see ${uri(id)}` });
          default:
            return api('/api/candidates', { target: id, query: '' });
        }
      });
      const healthy = [api('/api/sessions'), api('/api/messages', { sessionId: 'scratchpad' }), api('/api/candidates', { target: 'scratchpad', query: '' })];
      const answers = await Promise.all(touching);
      for (const answer of answers) {
        expect(answer.status).toBe(502);
        expect((answer.body.error as { code: string }).code).toBe('SESSION_LOG_NOT_A_FILE');
      }
      const [sessions, messages, candidates] = await Promise.all(healthy);
      expect(sessions!.status).toBe(200);
      const flagged = (sessions!.body.sessions as { sessionId: string; readError?: { code: string } }[]).filter((session) => session.readError);
      expect(flagged.map((session) => [session.sessionId, session.readError!.code]).sort()).toEqual([
        ['billing-schema', 'SESSION_LOG_NOT_A_FILE'],
        ['flaky-ci', 'SESSION_LOG_NOT_A_FILE'],
      ]);
      expect(messages!.status).toBe(200);
      expect(candidates!.status).toBe(200);
      // And after the burst, another round of healthy reads.
      for (let round = 0; round < 3; round++) expect((await api('/api/messages', { sessionId: 'oauth-migration' })).status).toBe(200);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
