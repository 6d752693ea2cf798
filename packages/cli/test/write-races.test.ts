/**
 * Writers racing on sessions, end to end with the built binary: many `send`
 * processes at once on one target and on several, another program holding a
 * target's log open for writing or locked, and session locks left by live,
 * crashed or remote sessref processes.
 *
 * After every race each log must load in dsh's own JSONL persistence and hold
 * exactly the messages of the sends that exited 0, each at the seq it
 * reported; a refused send exits 1 with its code and writes nothing.
 */
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionId, type SessionEvent } from '@deepseek-ai/dsh-session';
import { createHost } from '@sessref/test-support';
import { HAS_FLOCK, HAS_PROC, deadPid, holdFlock, holdOpen, idleProcess, lockRecord, startOf } from './processes';
import { copyRoot, emptyRoot, hashTree, logPath, ok, removeTemps, requireBuild, sessref, type RunResult } from './support';

const WEBAPP = '/home/dev/webapp';
const uri = (id: string): string => `dsh-session:${Buffer.from(JSON.stringify(id)).toString('base64url')}`;
/** Demo sessions, with the cwd their log lives under. */
const TARGETS = { scratchpad: WEBAPP, 'flaky-ci': WEBAPP, 'quick-question': undefined } as const;
type Target = keyof typeof TARGETS;

let seeded: string;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot('sessref-races-');
  await ok(['seed', '--root', seeded]);
});

afterAll(removeTemps);

interface Attempt {
  target: Target;
  /** Unique per attempt, and the start of its text. */
  tag: string;
  text: string;
  /** Refused at once when another sessref holds the session, instead of waiting for it. */
  impatient: boolean;
}

interface Outcome extends Attempt {
  result: RunResult;
}

function send(root: string, target: string, text: string, env: Record<string, string> = {}): Promise<RunResult> {
  return sessref(['send', '--root', root, '--target', target, text, '--json'], { env });
}

/** Every stream is one process at a time, running its attempts in order; the streams run at once. */
async function race(root: string, streams: readonly (readonly Attempt[])[]): Promise<Outcome[]> {
  const outcomes = await Promise.all(
    streams.map(async (attempts) => {
      const done: Outcome[] = [];
      for (const attempt of attempts) {
        const result = await send(root, attempt.target, attempt.text, attempt.impatient ? { SESSREF_LOCK_WAIT_MS: '0' } : {});
        done.push({ ...attempt, result });
      }
      return done;
    }),
  );
  return outcomes.flat();
}

/** A session's events as dsh's own persistence loads them (read only; throws on a gap or overlap in seqs). */
async function loadInDsh(root: string, id: string): Promise<readonly SessionEvent[]> {
  const host = await createHost({ root });
  try {
    const { events } = await host.persistence!.inspect(SessionId(id));
    events.forEach((event, index) => expect(event.seq).toBe(index));
    return events;
  } finally {
    await host.dispose();
  }
}

/** The text of every direct user message, by seq. */
function userTexts(events: readonly SessionEvent[]): Map<number, string> {
  const texts = new Map<number, string>();
  for (const event of events) {
    if (event.type !== 'user/message' || event.data.source.kind !== 'user') continue;
    texts.set(event.seq, event.data.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
  }
  return texts;
}

/** Exit 1 with one of `codes`, nothing on stdout. */
function expectRefused(result: RunResult, codes: readonly string[]): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  expect(codes.some((code) => result.stderr.includes(code)), result.stderr).toBe(true);
}

const originalTexts = new Map<string, Map<number, string>>();

/**
 * What every race must leave: each target loads in dsh, its new user messages
 * are exactly the successful sends' (each at the seq `send` reported, with
 * the readable text it printed), a refused send is exit 1 `SESSION_BUSY` with
 * its text nowhere, and no other file under the root changed or appeared (no
 * lock left behind).
 */
async function checkRace(root: string, before: Record<string, string>, outcomes: readonly Outcome[]): Promise<void> {
  const targets = new Set(outcomes.map((outcome) => outcome.target));
  for (const target of targets) {
    const texts = userTexts(await loadInDsh(root, target));
    if (!originalTexts.has(target)) originalTexts.set(target, userTexts(await loadInDsh(seeded, target)));
    const added = [...texts].filter(([seq]) => !originalTexts.get(target)!.has(seq)).map(([, text]) => text);
    const addedTags = added.map((text) => text.slice(0, text.indexOf(' ')));
    const mine = outcomes.filter((outcome) => outcome.target === target);
    for (const outcome of mine) {
      if (outcome.result.code !== 0) {
        expectRefused(outcome.result, ['SESSION_BUSY']);
        continue;
      }
      const { appendedSeqs, messages } = JSON.parse(outcome.result.stdout) as { appendedSeqs: number[]; messages: { content: { text: string }[] }[] };
      expect(texts.get(appendedSeqs[0]!)).toBe(messages[0]!.content[0]!.text);
    }
    const succeeded = mine.filter((outcome) => outcome.result.code === 0).map((outcome) => outcome.tag);
    expect(addedTags.sort()).toEqual(succeeded.sort());
  }
  const after = await hashTree(root);
  expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  for (const path of Object.keys(before)) if (![...targets].some((target) => path.includes(`/${target}/`))) expect(after[path]).toBe(before[path]);
}

describe('many send processes at once', () => {
  it('4 processes x 5 sends on one target: every success is in the log once, every refusal wrote nothing', async () => {
    const root = await copyRoot(seeded);
    const before = await hashTree(root);
    // Two streams wait for the lock; two give up at once, so both outcomes occur.
    const streams = [0, 1, 2, 3].map((stream) =>
      [0, 1, 2, 3, 4].map((index): Attempt => ({ target: 'scratchpad', tag: `#${stream}.${index}`, text: `#${stream}.${index} from stream ${stream}`, impatient: stream >= 2 })),
    );
    const outcomes = await race(root, streams);
    await checkRace(root, before, outcomes);
    const succeeded = outcomes.filter((outcome) => outcome.result.code === 0).length;
    console.info(`one target: ${succeeded}/${outcomes.length} sends succeeded, ${outcomes.length - succeeded} refused with SESSION_BUSY`);
    // Patient sends always get their turn.
    expect(outcomes.filter((outcome) => !outcome.impatient).every((outcome) => outcome.result.code === 0)).toBe(true);
  }, 300_000);

  it('4 processes x 5 sends over three targets, with generated texts and references between them', async () => {
    const targets = Object.keys(TARGETS) as Target[];
    // Any text but mention syntax (and NUL, which no command line can carry).
    const text = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((body) => !/@\[|dsh-session:|\0/.test(body));
    const attempt = fc.record({ target: fc.constantFrom(...targets), body: text, cite: fc.option(fc.constantFrom(...targets), { nil: undefined }), impatient: fc.boolean() });
    const schedule = fc.array(fc.array(attempt, { minLength: 5, maxLength: 5 }), { minLength: 4, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(schedule, async (plan) => {
        const root = await copyRoot(seeded);
        const before = await hashTree(root);
        const streams = plan.map((attempts, stream) =>
          attempts.map(({ target, body, cite, impatient }, index): Attempt => {
            const reference = cite === undefined || cite === target ? '' : ` ${uri(cite)}`;
            return { target, tag: `#${stream}.${index}`, text: `#${stream}.${index} ${body}${reference}`, impatient };
          }),
        );
        await checkRace(root, before, await race(root, streams));
      }),
      { numRuns: 2 },
    );
  }, 600_000);
});

describe.skipIf(!HAS_PROC)('another program writing the target', () => {
  it('a process holding the log open for writing: exit 1 SESSION_IN_USE naming it, nothing written; a reader does not block', async () => {
    const root = await copyRoot(seeded);
    const log = logPath(root, 'scratchpad', WEBAPP);
    const before = await hashTree(root);
    const writer = await holdOpen(log, 'a');
    try {
      const result = await send(root, 'scratchpad', 'while another program writes');
      expectRefused(result, ['SESSION_IN_USE']);
      expect(result.stderr).toContain(`(pid ${writer.pid})`);
      expect(await hashTree(root)).toEqual(before);
    } finally {
      await writer.stop();
    }
    const reader = await holdOpen(log, 'r');
    try {
      expect((await send(root, 'scratchpad', 'beside a reader')).code).toBe(0);
    } finally {
      await reader.stop();
    }
  });

  it.skipIf(!HAS_FLOCK)("a kernel lock on the log or on dsh's session.lock: exit 1 SESSION_IN_USE, nothing written", async () => {
    const root = await copyRoot(seeded);
    const log = logPath(root, 'flaky-ci', WEBAPP);
    for (const locked of [log, join(dirname(log), 'session.lock')]) {
      const holder = await holdFlock(locked);
      const before = await hashTree(root);
      try {
        const result = await send(root, 'flaky-ci', 'while locked');
        expectRefused(result, ['SESSION_IN_USE']);
        expect(result.stderr).toMatch(/holds a lock on this session/);
        expect(await hashTree(root)).toEqual(before);
      } finally {
        await holder.stop();
      }
    }
    expect((await send(root, 'flaky-ci', 'once unlocked')).code).toBe(0);
  });
});

describe.skipIf(!HAS_PROC)('session locks left by other sessref processes', () => {
  const lockOf = (root: string, target: Target) => join(dirname(logPath(root, target, TARGETS[target])), 'sessref.lock');

  it('a crashed holder (dead pid, or a live pid that is not the process that took it) is taken over, its leftovers removed', async () => {
    const root = await copyRoot(seeded);
    const before = await hashTree(root);
    const dead = await deadPid();
    const lock = lockOf(root, 'scratchpad');
    for (const record of [lockRecord(dead, '1'), lockRecord(process.pid, `${startOf(process.pid)}0`)]) {
      await writeFile(lock, record);
      // What a holder that died mid-takeover, and one that died inside acquire, leave.
      await writeFile(`${lock}.${JSON.parse(record).nonce}.claim`, lockRecord(dead, '1'));
      await writeFile(`${lock}.stale.new`, lockRecord(dead, '1'));
      expect((await send(root, 'scratchpad', 'after a crash', { SESSREF_LOCK_WAIT_MS: '0' })).code).toBe(0);
      expect((await readdir(dirname(lock))).sort()).toEqual(['session.jsonl.zstd']);
    }
    const after = await hashTree(root);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
  });

  it('a live holder: waited for; refused with SESSION_BUSY when the wait runs out, and nothing written', async () => {
    const root = await copyRoot(seeded);
    const lock = lockOf(root, 'quick-question');
    const holder = await idleProcess();
    await writeFile(lock, lockRecord(holder.pid, startOf(holder.pid)));
    const before = await hashTree(root);
    try {
      const busy = await send(root, 'quick-question', 'too soon', { SESSREF_LOCK_WAIT_MS: '300' });
      expectRefused(busy, ['SESSION_BUSY']);
      expect(busy.stderr).toContain(`pid ${holder.pid}`);
      expect(busy.stderr).toContain(lock);
      expect(await hashTree(root)).toEqual(before);
      // The holder dies while a patient send waits: its lock goes stale and is taken over.
      const patient = send(root, 'quick-question', 'after the holder died', { SESSREF_LOCK_WAIT_MS: '30000' });
      setTimeout(() => void holder.stop(), 500);
      expect((await patient).code).toBe(0);
    } finally {
      await holder.stop();
    }
    expect(await readFile(lock).catch(() => undefined)).toBeUndefined();
  });

  it("another host's lock is never taken over: SESSION_BUSY names the host and the file to delete", async () => {
    const root = await copyRoot(seeded);
    const lock = lockOf(root, 'flaky-ci');
    await writeFile(lock, lockRecord(await deadPid(), '1', 'build-box.invalid'));
    const before = await hashTree(root);
    const result = await send(root, 'flaky-ci', 'from here', { SESSREF_LOCK_WAIT_MS: '0' });
    expectRefused(result, ['SESSION_BUSY']);
    expect(result.stderr).toContain('on build-box.invalid');
    expect(result.stderr).toContain(`delete ${lock}`);
    expect(await hashTree(root)).toEqual(before);
  });
});
