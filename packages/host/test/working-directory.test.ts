/**
 * The working directory a dsh 0.2.1+ session moved to: a v4
 * `working-directory/change` event `{ cwd }` per change, the header's `cwd`
 * left as the directory the session started in, the last change in effect.
 *
 * SYNTHETIC: no real log with this event exists in ../shared/dsh-log-samples,
 * so every log here is written by this file in the shape upstream's
 * `packages/session/working-directory` declares (event type and data), around
 * v4 events shaped like the shared v4 samples.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveCwd, readSessionLog } from '@sessref/dsh/log-generations';
import { writeGeneration, type Step } from '@sessref/test-support';
import { framePerRecord, projectThroughRc8, scratchDirectory, titleOf } from './generation-support.js';

const write = scratchDirectory();

const ORIGIN = '/work/webapp';

/** A v4 session that moves to a worktree during its second turn, then to a sibling checkout. (synthetic) */
const SYNTHETIC_MOVED_SESSION = [
  { type: 'session', version: 4, id: 'moved-session', createdAt: 1786707340000, cwd: ORIGIN, delegationDepth: 0, isSeeded: false },
  { type: 'turn/start', data: { turn: 1 }, seq: 0, time: 1786707340000 },
  { type: 'user/message', surfaceOp: 'append', data: { id: 'u1', role: 'user', content: [{ type: 'text', text: 'Where are we?' }], source: { kind: 'user' } }, seq: 1, time: 1786707340001 },
  { type: 'step/start', data: { turn: 1, step: 1 }, seq: 2, time: 1786707340002 },
  { type: 'assistant/message', surfaceOp: 'append', data: { turn: 1, step: 1, message: { id: 'a1', role: 'assistant', content: [{ type: 'text', text: 'In the webapp.' }], source: { kind: 'model', provider: 'p', model: 'm' } } }, seq: 3, time: 1786707340003 },
  { type: 'step/end', data: { turn: 1, step: 1 }, seq: 4, time: 1786707340004 },
  { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } }, seq: 5, time: 1786707340005 },
  { type: 'turn/start', data: { turn: 2 }, seq: 6, time: 1786707340006 },
  { type: 'user/message', surfaceOp: 'append', data: { id: 'u2', role: 'user', content: [{ type: 'text', text: 'Work in the fix worktree.' }], source: { kind: 'user' } }, seq: 7, time: 1786707340007 },
  { type: 'working-directory/change', data: { cwd: '/work/webapp-fix' }, seq: 8, time: 1786707340008 },
  { type: 'step/start', data: { turn: 2, step: 1 }, seq: 9, time: 1786707340009 },
  { type: 'assistant/message', surfaceOp: 'append', data: { turn: 2, step: 1, message: { id: 'a2', role: 'assistant', content: [{ type: 'text', text: 'Moved.' }], source: { kind: 'model', provider: 'p', model: 'm' } } }, seq: 10, time: 1786707340010 },
  { type: 'step/end', data: { turn: 2, step: 1 }, seq: 11, time: 1786707340011 },
  { type: 'turn/end', data: { turn: 2, reason: { kind: 'completed' } }, seq: 12, time: 1786707340012 },
  { type: 'working-directory/change', data: { cwd: '/work/webapp-review' }, seq: 13, time: 1786707340013 },
];

function jsonl(records: readonly unknown[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join('');
}

/** The same session as {@link SYNTHETIC_MOVED_SESSION} without its changes, seqs renumbered. */
function withoutChanges(records: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  let seq = 0;
  return records.filter((record) => record['type'] !== 'working-directory/change').map((record) => (record['type'] === 'session' ? record : { ...record, seq: seq++ }));
}

describe('a session that changed its working directory (synthetic v4 log)', () => {
  it('keeps the header cwd as the origin and the last change as the directory in effect', () => {
    const read = readSessionLog(write('moved.v4.jsonl', jsonl(SYNTHETIC_MOVED_SESSION)), 4);
    expect(read.header.cwd).toBe(ORIGIN);
    expect(read.workingDirectory).toBe('/work/webapp-review');
    expect(effectiveCwd(read)).toBe('/work/webapp-review');
  });

  it('reads the same, compressed a frame per record as dsh writes it', () => {
    const read = readSessionLog(write('moved.v4.jsonl.zstd', framePerRecord(jsonl(SYNTHETIC_MOVED_SESSION))), 4);
    expect(effectiveCwd(read)).toBe('/work/webapp-review');
  });

  it('keeps each change at its seq as an event rc.8 ignores, and the conversation as it was', () => {
    const moved = readSessionLog(write('moved-seqs.v4.jsonl', jsonl(SYNTHETIC_MOVED_SESSION)), 4);
    const still = readSessionLog(write('still.v4.jsonl', jsonl(withoutChanges(SYNTHETIC_MOVED_SESSION))), 4);
    expect(moved.events.map((event) => event.seq)).toEqual(SYNTHETIC_MOVED_SESSION.slice(1).map((record) => record.seq));
    expect(moved.events.filter((event) => event.type === 'sessref/omitted').map((event) => [event.seq, event.ignorable])).toEqual([
      [8, true],
      [13, true],
    ]);
    expect(projectThroughRc8(moved)).toEqual(projectThroughRc8(still));
    expect(still.workingDirectory).toBeUndefined();
    expect(Object.hasOwn(still, 'workingDirectory')).toBe(false);
    expect(effectiveCwd(still)).toBe(ORIGIN);
  });

  it('refuses a change that names no absolute directory as damage', () => {
    for (const data of [{}, { cwd: 'relative/dir' }, { cwd: 7 }, 'elsewhere']) {
      const records = [...SYNTHETIC_MOVED_SESSION.slice(0, -1), { type: 'working-directory/change', data, seq: 13, time: 1786707340013 }];
      expect(() => readSessionLog(write('bad-change.v4.jsonl', jsonl(records)), 4)).toThrow(expect.objectContaining({ code: 'SESSION_LOG_CORRUPT' }));
    }
  });

  it('reads the event in an older generation as any unknown event, with no directory change (only dsh 0.2.1+ writes it, in v4)', () => {
    const log = writeGeneration(3, [{ kind: 'exchange', user: 'hi', assistant: 'hello' }], { id: 'v3-session', createdAt: 1, cwd: ORIGIN });
    const seq = log.trimEnd().split('\n').length - 1;
    const read = readSessionLog(write('v3.v3.jsonl', `${log}${JSON.stringify({ type: 'working-directory/change', data: { cwd: '/elsewhere' }, seq, time: seq })}\n`), 3);
    expect(read.workingDirectory).toBeUndefined();
    expect(effectiveCwd(read)).toBe(ORIGIN);
  });
});

const text = fc.string({ minLength: 1, maxLength: 12 }).filter((value) => value.trim().length > 0);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('exchange' as const), user: text, assistant: text, tool: fc.option(text, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), span: fc.integer({ min: 1, max: 6 }), summary: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('title' as const), title: text }) },
);
const directory = fc.array(fc.stringMatching(/^[a-z0-9._-]{1,8}$/), { minLength: 1, maxLength: 3 }).map((parts) => `/${parts.join('/')}`);

/** A generated v4 log (synthetic) whose session then changes directory to each of `changes`, in order. */
function movedLog(steps: readonly Step[], cwd: string | undefined, changes: readonly string[]): string {
  const log = writeGeneration(4, steps, { id: 'generated', createdAt: 1, ...(cwd === undefined ? {} : { cwd }) });
  const first = log.trimEnd().split('\n').length - 1;
  return log + jsonl(changes.map((changed, index) => ({ type: 'working-directory/change', data: { cwd: changed }, seq: first + index, time: first + index })));
}

describe('the working-directory fold (properties, synthetic v4 logs)', () => {
  it('puts the session in its last change, or in the header cwd when it never changed', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 6 }), fc.option(directory, { nil: undefined }), fc.array(directory, { maxLength: 4 }), fc.boolean(), (steps, cwd, changes, zstd) => {
        const text = movedLog(steps, cwd, changes);
        const read = readSessionLog(write('fold.v4.jsonl', zstd ? framePerRecord(text) : text), 4);
        expect(read.header.cwd).toBe(cwd);
        expect(effectiveCwd(read)).toBe(changes.length > 0 ? changes.at(-1) : cwd);
        expect(Object.hasOwn(read, 'workingDirectory')).toBe(changes.length > 0);
      }),
      { numRuns: 60 },
    );
  });

  it('changes nothing rc.8 reads: the same snapshot and title with or without changes', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 6 }), directory, fc.array(directory, { minLength: 1, maxLength: 4 }), (steps, cwd, changes) => {
        const moved = readSessionLog(write('moved-fold.v4.jsonl', movedLog(steps, cwd, changes)), 4);
        const still = readSessionLog(write('still-fold.v4.jsonl', movedLog(steps, cwd, [])), 4);
        expect(moved.header).toEqual(still.header);
        expect(projectThroughRc8(moved)).toEqual(projectThroughRc8(still));
        expect(titleOf(moved)).toEqual(titleOf(still));
      }),
      { numRuns: 40 },
    );
  });
});
