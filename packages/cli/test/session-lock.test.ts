/**
 * The session lock file: stale generations taken over and live ones waited
 * for (a generated model of what a crash can leave beside the lock), and
 * mutual exclusion between real processes that die while holding it.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileLock, LockBusyError, type LockOwner } from '../src/engine/session-lock';
import { HAS_PROC, deadPid, startOf } from './processes';
import { removeTemps, requireBuild, tempDir } from './support';

let dead: number;

beforeAll(async () => {
  dead = await deadPid();
});

afterAll(removeTemps);

type Holder = 'dead' | 'reused-pid' | 'other-host' | 'live' | 'garbage';

function owner(holder: Exclude<Holder, 'garbage'>): LockOwner {
  const nonce = randomUUID();
  switch (holder) {
    case 'dead':
      return { pid: dead, host: hostname(), start: '1', nonce };
    case 'reused-pid': // this pid runs, but it is not the process that took the lock
      return { pid: process.pid, host: hostname(), start: `${startOf(process.pid)}0`, nonce };
    case 'other-host': // its pid is dead here, which says nothing about that machine
      return { pid: dead, host: 'elsewhere.invalid', start: '1', nonce };
    case 'live':
      return { pid: process.pid, host: hostname(), start: startOf(process.pid), nonce };
  }
}

const holders: Holder[] = ['dead', 'reused-pid', 'other-host', 'live', 'garbage'];

describe.skipIf(!HAS_PROC)('what a crash leaves beside the lock', () => {
  it('a stale lock is taken over and every dead leftover removed; a live or unknown one is left alone', async () => {
    const scenario = fc.record({
      lock: fc.option(fc.constantFrom(...holders), { nil: undefined }),
      // A contender that died while taking the stale lock over.
      deadClaim: fc.boolean(),
      // Files of contenders that died inside acquire, or that are still in it.
      leftovers: fc.array(fc.record({ kind: fc.constantFrom('new', 'claim'), alive: fc.boolean() }), { maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ lock, deadClaim, leftovers }) => {
        const dir = await tempDir('sessref-lock-');
        const path = join(dir, 'sessref.lock');
        const record = lock === undefined || lock === 'garbage' ? undefined : owner(lock);
        if (lock !== undefined) writeFileSync(path, record === undefined ? 'not an owner record' : JSON.stringify(record));
        if (deadClaim && record !== undefined) writeFileSync(`${path}.${record.nonce}.claim`, JSON.stringify(owner('dead')));
        const live = new Set<string>();
        for (const leftover of leftovers) {
          const file = `${path}.${randomUUID()}.${leftover.kind}`;
          writeFileSync(file, JSON.stringify(owner(leftover.alive ? 'live' : 'dead')));
          if (leftover.alive) live.add(file.slice(dir.length + 1));
        }
        const before = readdirSync(dir).sort();

        const free = lock === undefined || lock === 'dead' || lock === 'reused-pid';
        if (free) {
          const held = await FileLock.acquire(path, { waitMs: 0 });
          expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual(held.owner);
          held.release();
          // Only the files of processes still running stay.
          expect(readdirSync(dir).sort()).toEqual([...live].sort());
        } else {
          const error = await FileLock.acquire(path, { waitMs: 0 }).catch((thrown: unknown) => thrown);
          expect(error).toBeInstanceOf(LockBusyError);
          expect((error as LockBusyError).owner).toEqual(record);
          // Nothing is touched while someone else may hold the lock.
          expect(readdirSync(dir).sort()).toEqual(before);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('waits for a live holder and gets the lock once it is released', async () => {
    const path = join(await tempDir('sessref-lock-'), 'sessref.lock');
    const first = await FileLock.acquire(path, { waitMs: 0 });
    const second = FileLock.acquire(path, { waitMs: 5_000 });
    setTimeout(() => first.release(), 50);
    const held = await second;
    expect(held.owner.nonce).not.toBe(first.owner.nonce);
    held.release();
    expect(existsSync(path)).toBe(false);
  });

  it('stops waiting when its signal aborts', async () => {
    const path = join(await tempDir('sessref-lock-'), 'sessref.lock');
    const first = await FileLock.acquire(path, { waitMs: 0 });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 20);
    await expect(FileLock.acquire(path, { waitMs: 60_000, signal: abort.signal })).rejects.toThrow(/abort/i);
    first.release();
    expect(readdirSync(join(path, '..'))).toEqual([]);
  });
});

const LOCK_MODULE = fileURLToPath(new URL('../dist/engine/session-lock.js', import.meta.url));

/**
 * One contender: once every contender is ready, takes the lock `rounds`
 * times; inside, it creates a marker that must not exist (another holder
 * would have it) and counts the round. In round `crashAt` it dies holding the lock.
 */
const CONTENDER = `
import { appendFileSync, closeSync, existsSync, openSync, unlinkSync } from 'node:fs';
const { FileLock } = await import(process.env.LOCK_MODULE);
const [path, rounds, crashAt] = process.argv.slice(1);
process.stdout.write('ready\\n');
while (!existsSync(path + '-go')) await new Promise((resolve) => setTimeout(resolve, 2));
for (let round = 0; round < Number(rounds); round++) {
  const lock = await FileLock.acquire(path, { waitMs: 60_000 });
  try {
    closeSync(openSync(path + '-inside', 'wx'));
  } catch {
    process.exit(3);
  }
  appendFileSync(path + '-rounds', process.pid + '\\n');
  await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
  unlinkSync(path + '-inside');
  if (round === Number(crashAt)) process.exit(9);
  lock.release();
}
`;

/** Start a contender and wait until it is ready; `exit` settles with its exit code. */
async function contend(path: string, rounds: number, crashAt: number | null): Promise<{ exit: Promise<number | null> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CONTENDER, path, String(rounds), String(crashAt ?? -1)], {
    env: { ...process.env, LOCK_MODULE },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return { exit };
}

describe.skipIf(!HAS_PROC)('processes racing for one lock', () => {
  beforeAll(requireBuild);

  it('one holder at a time, and a holder that dies never blocks the others', async () => {
    const ROUNDS = 8;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.nat({ max: ROUNDS - 1 }), { nil: null }), { minLength: 3, maxLength: 4 }), async (crashes) => {
        const dir = await tempDir('sessref-lock-race-');
        const path = join(dir, 'sessref.lock');
        const contenders = await Promise.all(crashes.map((crashAt) => contend(path, ROUNDS, crashAt)));
        writeFileSync(`${path}-go`, '');
        const exits = await Promise.all(contenders.map((contender) => contender.exit));
        expect(exits).toEqual(crashes.map((crashAt) => (crashAt === null ? 0 : 9)));
        const rounds = readFileSync(`${path}-rounds`, 'utf8').trim().split('\n');
        expect(rounds).toHaveLength(crashes.reduce<number>((sum, crashAt) => sum + (crashAt === null ? ROUNDS : crashAt + 1), 0));
        // The last holder to die may have left its lock: the next taker takes it over, and leaves nothing behind.
        (await FileLock.acquire(path, { waitMs: 0 })).release();
        expect(readdirSync(dir).sort()).toEqual(['sessref.lock-go', 'sessref.lock-rounds']);
      }),
      { numRuns: 4 },
    );
  });
});
