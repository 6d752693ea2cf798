/**
 * Every wait for a session lock ends, whatever stands at the lock's path: the
 * lock is taken (or taken over from a dead owner), or the try ends with a
 * coded error, and no candidate file (`sessref.lock.<nonce>.new`) stays
 * behind. A dangling symbolic link there once made `acquire` spin without
 * ever yielding (`link()` finds the name taken, a read through it finds
 * nothing), past its deadline, and under `serve` that one send stopped every
 * other request.
 *
 * A loop that never yields cannot be interrupted by a timer in its own
 * process, so every try runs in a child process. No test asserts how fast
 * anything ends: each test's own timeout is the guard, and what a test
 * started is killed when it ends, whatever its outcome.
 */
import { execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { lockFilesBeside } from '@sessref/dsh/jsonl-root';
import { HAS_PROC, deadPid, idleProcess, lockRecord, startOf, type Holder } from './processes';
import type { ApiError } from '../src/server/protocol';
import { httpRequest, json, type Reply } from './inspector/fixture';
import { copyRoot, expectFailure, finished, hashTree, logPath, ok, removeTemps, requireBuild, serveInChild, sessref, tempDir } from './support';

const LOCK_MODULE = fileURLToPath(new URL('../dist/engine/session-lock.js', import.meta.url));
const WEBAPP = '/home/dev/webapp';
/** Generous: a try that ends takes a fraction of a second; one that never does fails the test here instead of hanging the suite. */
const TEST_TIMEOUT_MS = 30_000;

/** Aborted after every test, passed or not: kills the processes it started (a spinning one would run on forever). */
let stop: AbortController;
const holders: Holder[] = [];
let dead: number;
let seeded: string;

beforeAll(async () => {
  requireBuild();
  dead = await deadPid();
  seeded = await tempDir('sessref-lock-waits-');
  await ok(['seed', '--root', seeded]);
});

beforeEach(() => {
  stop = new AbortController();
});

afterEach(async () => {
  stop.abort();
  await Promise.all(holders.splice(0).map((holder) => holder.stop()));
});

afterAll(removeTemps);

/** What stands at the lock's path before a try. */
type Kind = 'missing' | 'dead owner' | 'live owner' | 'garbage' | 'dangling link' | 'link to a live lock' | 'link to a dead lock' | 'directory' | 'FIFO';

const TAKEN: readonly Kind[] = ['missing', 'dead owner'];
/** A regular file sessref may have made: its holder is waited for. */
const BUSY: readonly Kind[] = ['live owner', 'garbage'];
/** What sessref never puts there, a link to a lock file included: refused at once. */
const INVALID: readonly Kind[] = ['dangling link', 'link to a live lock', 'link to a dead lock', 'directory', 'FIFO'];

/** The owner record of a process that runs: this one. */
const liveRecord = (): string => lockRecord(process.pid, startOf(process.pid));

/** Put a `kind` at `lock`; what a link points to goes into `outside`. */
function place(kind: Kind, lock: string, outside: string): void {
  switch (kind) {
    case 'missing':
      return;
    case 'dead owner':
      return writeFileSync(lock, lockRecord(dead, '1'));
    case 'live owner':
      return writeFileSync(lock, liveRecord());
    case 'garbage':
      return writeFileSync(lock, 'not an owner record');
    case 'dangling link':
      return symlinkSync(join(outside, 'nowhere'), lock);
    case 'link to a live lock':
    case 'link to a dead lock':
      writeFileSync(join(outside, 'sessref.lock'), kind === 'link to a live lock' ? liveRecord() : lockRecord(dead, '1'));
      return symlinkSync(join(outside, 'sessref.lock'), lock);
    case 'directory':
      return mkdirSync(lock);
    case 'FIFO':
      execFileSync('mkfifo', [lock]);
  }
}

/** Every entry of `dir` by name, with what it is and holds: a link's target, a file's text. */
function entries(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => {
      const path = join(dir, name);
      const stats = lstatSync(path);
      if (stats.isSymbolicLink()) return [name, `link to ${readlinkSync(path)}`];
      return [name, stats.isFile() ? `file ${readFileSync(path, 'utf8')}` : stats.isDirectory() ? 'directory' : 'special'];
    }),
  );
}

interface Outcome {
  /** Taken, then released at once. */
  taken: boolean;
  /** The error's name when the try was refused. */
  refused?: string;
  /** The nonce of the owner a busy lock's error names. */
  owner?: string;
}

/** In one child process, one `FileLock.acquire` per try, in order; a taken lock is released at once. */
const TRIES = `
const { FileLock } = await import(process.env.LOCK_MODULE);
const outcomes = [];
for (const { path, waitMs } of JSON.parse(process.argv[1])) {
  try {
    (await FileLock.acquire(path, { waitMs })).release();
    outcomes.push({ taken: true });
  } catch (error) {
    outcomes.push({ taken: false, refused: error.name, owner: error.owner?.nonce });
  }
}
process.stdout.write(JSON.stringify(outcomes));
`;

async function tryLocks(tries: readonly { path: string; waitMs: number }[]): Promise<Outcome[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', TRIES, JSON.stringify(tries)], {
    env: { ...process.env, LOCK_MODULE },
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: stop.signal,
    killSignal: 'SIGKILL',
  });
  const { code, stdout, stderr } = await finished(child);
  expect(code, stderr).toBe(0);
  return JSON.parse(stdout) as Outcome[];
}

/** A lock's path in a directory of its own, and a directory beside it for what a link points to. */
async function lockSite(): Promise<{ lock: string; outside: string }> {
  const base = await tempDir('sessref-lock-site-');
  mkdirSync(join(base, 'session'));
  mkdirSync(join(base, 'outside'));
  return { lock: join(base, 'session', 'sessref.lock'), outside: join(base, 'outside') };
}

describe.skipIf(!HAS_PROC)('FileLock.acquire, whatever stands at the lock path', () => {
  it(
    'a dangling symbolic link: refused (LockInvalidError) although the wait is long, the link untouched, no candidate file left',
    async () => {
      const { lock, outside } = await lockSite();
      place('dangling link', lock, outside);
      const before = entries(dirname(lock));
      expect(await tryLocks([{ path: lock, waitMs: 60_000 }])).toEqual([{ taken: false, refused: 'LockInvalidError' }]);
      expect(entries(dirname(lock))).toEqual(before);
      expect(readlinkSync(lock)).toBe(join(outside, 'nowhere'));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a lock another live process holds, with a short wait: LockBusyError naming it, the lock untouched, no candidate file left',
    async () => {
      const { lock } = await lockSite();
      const holder = await idleProcess();
      holders.push(holder);
      const record = lockRecord(holder.pid, startOf(holder.pid));
      writeFileSync(lock, record);
      const outcomes = await tryLocks([{ path: lock, waitMs: 50 }]);
      expect(outcomes).toEqual([{ taken: false, refused: 'LockBusyError', owner: (JSON.parse(record) as { nonce: string }).nonce }]);
      expect(entries(dirname(lock))).toEqual({ 'sessref.lock': `file ${record}` });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'generated lock paths: every try ends, taken or refused as its kind says; nothing but the lock itself is ever left, and a refused one is untouched',
    async () => {
      const kinds: Kind[] = [...TAKEN, ...BUSY, ...INVALID];
      const site = fc.record({ kind: fc.constantFrom(...kinds), waitMs: fc.constantFrom(0, 30) });
      await fc.assert(
        fc.asyncProperty(fc.array(site, { minLength: 1, maxLength: 6 }), async (plan) => {
          const sites = await Promise.all(plan.map(async (entry) => ({ ...entry, ...(await lockSite()) })));
          for (const { kind, lock, outside } of sites) place(kind, lock, outside);
          const before = sites.map(({ lock, outside }) => ({ session: entries(dirname(lock)), outside: entries(outside) }));
          const outcomes = await tryLocks(sites.map(({ lock, waitMs }) => ({ path: lock, waitMs })));
          sites.forEach(({ kind, lock, outside }, index) => {
            const outcome = outcomes[index]!;
            if (TAKEN.includes(kind)) {
              expect(outcome, kind).toEqual({ taken: true });
              expect(entries(dirname(lock)), kind).toEqual({});
            } else {
              expect(outcome, kind).toMatchObject({ taken: false, refused: BUSY.includes(kind) ? 'LockBusyError' : 'LockInvalidError' });
              expect(entries(dirname(lock)), kind).toEqual(before[index]!.session);
            }
            expect(entries(outside), kind).toEqual(before[index]!.outside);
          });
        }),
        { numRuns: 12 },
      );
    },
    TEST_TIMEOUT_MS * 2,
  );
});

const lockOf = (root: string): string => lockFilesBeside(logPath(root, 'scratchpad', WEBAPP)).sessref;

describe('sessref send with something else at the session lock', () => {
  it(
    'a dangling link, a link to a live lock, a directory: exit 2 SESSION_LOCK_INVALID naming the lock relative to the root; nothing written, nothing left',
    async () => {
      for (const kind of ['dangling link', 'link to a live lock', 'directory'] as const) {
        const root = await copyRoot(seeded);
        const outside = await tempDir('sessref-lock-outside-');
        place(kind, lockOf(root), outside);
        const before = { root: await hashTree(root), session: entries(dirname(lockOf(root))) };
        const result = await sessref(['send', '--root', root, '--target', 'scratchpad', 'hi'], { env: { SESSREF_LOCK_WAIT_MS: '60000' }, signal: stop.signal });
        const what = kind === 'directory' ? 'a directory' : `a symbolic link (→ ${readlinkSync(lockOf(root))})`;
        expect(expectFailure(result, 2, 'SESSION_LOCK_INVALID'), kind).toBe(
          `session "scratchpad": the session lock --home-dev-webapp--/scratchpad/sessref.lock is ${what}, not a lock file sessref made, so sessref neither waits for it nor removes it`,
        );
        expect(result.stderr).toContain(`(fix: remove ${lockOf(root)}, then retry)`);
        expect(await hashTree(root)).toEqual(before.root);
        expect(entries(dirname(lockOf(root)))).toEqual(before.session);
      }
    },
    TEST_TIMEOUT_MS,
  );

  it.skipIf(!HAS_PROC)(
    'a lock a live sessref holds, with a short wait: exit 1 SESSION_BUSY, nothing written, no candidate file left',
    async () => {
      const root = await copyRoot(seeded);
      const holder = await idleProcess();
      holders.push(holder);
      writeFileSync(lockOf(root), lockRecord(holder.pid, startOf(holder.pid)));
      const before = { root: await hashTree(root), session: entries(dirname(lockOf(root))) };
      const result = await sessref(['send', '--root', root, '--target', 'scratchpad', 'hi'], { env: { SESSREF_LOCK_WAIT_MS: '50' }, signal: stop.signal });
      expect(expectFailure(result, 1, 'SESSION_BUSY')).toContain(`pid ${holder.pid}`);
      expect(await hashTree(root)).toEqual(before.root);
      expect(entries(dirname(lockOf(root)))).toEqual(before.session);
    },
    TEST_TIMEOUT_MS,
  );
});

describe.skipIf(!HAS_PROC)('sessref serve while a send waits on a session lock', () => {
  it(
    'a send waiting for a live holder blocks no other request; a dangling link at another lock answers 502 SESSION_LOCK_INVALID; the waiting send ends once the holder dies',
    async () => {
      const root = await copyRoot(seeded);
      const holder = await idleProcess();
      holders.push(holder);
      const waitedOn = lockFilesBeside(logPath(root, 'quick-question')).sessref;
      writeFileSync(waitedOn, lockRecord(holder.pid, startOf(holder.pid)));
      symlinkSync('nowhere', lockOf(root));
      const linked = { log: readFileSync(logPath(root, 'scratchpad', WEBAPP)), session: entries(dirname(lockOf(root))) };
      const { port, token } = await serveInChild(['--root', root], { env: { SESSREF_LOCK_WAIT_MS: '600000' }, signal: stop.signal });
      const api = (path: string, body?: unknown): Promise<Reply> => {
        const headers = { 'x-sessref-token': token, 'content-type': 'application/json' };
        return httpRequest(port, { path, headers, signal: stop.signal, ...(body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) }) });
      };

      let settled = false;
      const waiting = api('/api/send', { target: 'quick-question', text: 'once the holder is gone' }).finally(() => (settled = true));
      // Its candidate file beside the lock: that send is in its wait now.
      await expect.poll(() => readdirSync(dirname(waitedOn)).some((name) => name.endsWith('.new')), { timeout: TEST_TIMEOUT_MS }).toBe(true);

      const refused = await api('/api/send', { target: 'scratchpad', text: 'hi' });
      const { error } = json<ApiError>(refused);
      expect([refused.status, error.code]).toEqual([502, 'SESSION_LOCK_INVALID']);
      expect(error.message).toContain('the session lock --home-dev-webapp--/scratchpad/sessref.lock is a symbolic link (→ nowhere)');
      expect((await api('/api/sessions')).status).toBe(200);
      expect((await api('/api/messages', { sessionId: 'quick-question' })).status).toBe(200);
      expect(settled).toBe(false);

      await holder.stop();
      expect((await waiting).status).toBe(200);
      expect(readdirSync(dirname(waitedOn))).toEqual(['session.jsonl.zstd']);
      expect(readFileSync(logPath(root, 'scratchpad', WEBAPP)).equals(linked.log)).toBe(true);
      expect(entries(dirname(lockOf(root)))).toEqual(linked.session);
    },
    TEST_TIMEOUT_MS * 2,
  );
});
