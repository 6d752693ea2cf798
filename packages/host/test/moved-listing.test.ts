/**
 * A listing places a dsh 0.2.1+ session where it is now: the last
 * `working-directory/change` its log records, else its header's `cwd`, and
 * dates a v4 session by the last message its user sent, after every append,
 * in the process that saw the append and in a new process over the headers
 * an earlier one kept. Only what changed is read: an unchanged
 * root reads no log, an append to a v4 log reads that log alone, and an
 * append to an older generation's log (which cannot record a move) is
 * confirmed by its head as before.
 *
 * SYNTHETIC: no real log with the event exists in ../shared/dsh-log-samples;
 * the logs are written by the test-side generation writer, with changes in
 * the shape upstream's `packages/session/working-directory` declares (see
 * working-directory.test.ts).
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeSessionDirectory, logFileName, projectDirectoryName } from '@sessref/dsh/jsonl-root';
import { effectiveCwd, readSessionLog } from '@sessref/dsh/log-generations';
import { KeptHeaders, RootLogs } from '@sessref/dsh/reading';
import { framePerRecord, writeGeneration } from '@sessref/test-support';
import { temporaryDirectories } from './generation-support.js';

afterEach(() => vi.restoreAllMocks());
const temp = temporaryDirectories();

const ORIGIN = '/work/webapp';
const CREATED_AT = 1_786_707_340_000;

/**
 * What is appended after the opening exchange: a move, a message the user
 * sent, a message injected by the runtime (not the user's), or a title.
 */
type Appended = { kind: 'move'; cwd: string } | { kind: 'sent' | 'injected' | 'title'; text: string };

/** The source of a user message of `kind`: the user's own, or runtime context dsh 0.2 injects. */
const SOURCES = { sent: { kind: 'user' }, injected: { kind: 'runtime-context' } } as const;

/** The session's opening exchange as `generation` writes it, and the seq its first appended event takes. */
function opening(id: string, generation: number): { text: string; nextSeq: number } {
  const text = writeGeneration(generation, [{ kind: 'exchange', user: 'Where are we?', assistant: 'In the webapp.' }], { id, createdAt: CREATED_AT, cwd: ORIGIN });
  return { text, nextSeq: text.trimEnd().split('\n').length - 1 };
}

/** The lines of `appended`, seqs from `firstSeq`. */
function appendedLines(appended: readonly Appended[], firstSeq: number): string[] {
  return appended.map((entry, index) => {
    const seq = firstSeq + index;
    const time = CREATED_AT + seq;
    if (entry.kind === 'move') return JSON.stringify({ type: 'working-directory/change', data: { cwd: entry.cwd }, seq, time });
    if (entry.kind === 'title') return JSON.stringify({ type: 'session/title', data: { title: entry.text, messageSeqs: [], source: { kind: 'user' } }, seq, time });
    const message = { id: `m${seq}`, role: 'user', content: [{ type: 'text', text: entry.text }], source: SOURCES[entry.kind] };
    return JSON.stringify({ type: 'user/message', surfaceOp: 'append', data: message, seq, time });
  });
}

/** A root holding session `id`'s log of `generation`, its opening written; the log's path. */
function rootWith(id: string, generation: number, text: string): { root: string; log: string } {
  const root = join(temp('sessref-moved-'), 'sessions');
  const directory = join(root, projectDirectoryName(ORIGIN), encodeSessionDirectory(id)!);
  mkdirSync(directory, { recursive: true });
  const log = join(directory, logFileName('zstd', generation));
  writeFileSync(log, framePerRecord(text));
  return { root, log };
}

/** Append `lines` to the log as one batch, a zstd frame per record as dsh writes them. */
function append(log: string, lines: readonly string[]): void {
  appendFileSync(log, framePerRecord(lines.map((line) => `${line}\n`).join('')));
}

/** The directory the listing places each session in: where it moved to, else its header's. */
async function placed(kept: KeptHeaders): Promise<Map<string, string | undefined>> {
  return new Map((await kept.entries()).map((entry) => [entry.header.id, entry.workingDirectory ?? entry.header.cwd]));
}

/** Where the listing places each session and when it says its user last sent. */
async function listed(kept: KeptHeaders): Promise<Map<string, { cwd: string | undefined; lastSentAt: number | undefined }>> {
  return new Map((await kept.entries()).map((entry) => [entry.header.id, { cwd: entry.workingDirectory ?? entry.header.cwd, lastSentAt: entry.lastSentAt }]));
}

const directory = fc.constantFrom('/work/webapp-fix', '/work/webapp-review', '/srv/checkout', ORIGIN);
const appendedEntry: fc.Arbitrary<Appended> = fc.oneof(
  fc.record({ kind: fc.constant('move' as const), cwd: directory }),
  fc.record({ kind: fc.constantFrom('sent' as const, 'injected' as const, 'title' as const), text: fc.string({ minLength: 1, maxLength: 8 }) }),
);
/** What is appended, cut into the batches dsh appends it in. */
const batches = fc.array(fc.array(appendedEntry, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 });

describe('a listing of a v4 session that moves and is written to (synthetic logs)', () => {
  it('places it where its last move took it and dates it by its last send after every append, in this process and in the next over the kept headers', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(batches, async (appends) => {
        const id = `moving-${(run += 1)}`;
        const { text, nextSeq } = opening(id, 4);
        const { root, log } = rootWith(id, 4, text);
        const headersFile = join(temp('sessref-moved-cache-'), 'content.sqlite.headers.json');
        const live = new KeptHeaders(new RootLogs(root), { headersFile });
        // The opening exchange's question is the user's first send.
        const opened = readSessionLog(log, 4);
        let expected = { cwd: ORIGIN, lastSentAt: opened.lastSentAt };
        expect(expected.lastSentAt).toBe(opened.events.find((event) => event.type === 'user/message')?.time);
        expect(await listed(live)).toEqual(new Map([[id, expected]]));
        let seq = nextSeq;
        for (const batch of appends) {
          const lines = appendedLines(batch, seq);
          append(log, lines);
          const times = lines.map((line) => (JSON.parse(line) as { time: number }).time);
          seq += batch.length;
          expected = {
            cwd: batch.filter((entry) => entry.kind === 'move').at(-1)?.cwd ?? expected.cwd,
            lastSentAt: times.filter((_, index) => batch[index]!.kind === 'sent').at(-1) ?? expected.lastSentAt,
          };
          // The rule the listing keeps is the reader's fold of the whole log.
          const read = readSessionLog(log, 4);
          expect({ cwd: effectiveCwd(read), lastSentAt: read.lastSentAt }).toEqual(expected);
          expect(await listed(live)).toEqual(new Map([[id, expected]]));
          expect(await listed(new KeptHeaders(new RootLogs(root), { headersFile }))).toEqual(new Map([[id, expected]]));
        }
        live.close();
      }),
      { numRuns: 25 },
    );
  });

  it('a process that kept the headers before the move lists the session where it moved', async () => {
    const id = 'moved-later';
    const { text, nextSeq } = opening(id, 4);
    const { root, log } = rootWith(id, 4, text);
    const headersFile = join(temp('sessref-moved-cache-'), 'content.sqlite.headers.json');
    expect(await placed(new KeptHeaders(new RootLogs(root), { headersFile }))).toEqual(new Map([[id, ORIGIN]]));
    append(log, appendedLines([{ kind: 'move', cwd: '/work/webapp-fix' }], nextSeq));
    expect(await placed(new KeptHeaders(new RootLogs(root), { headersFile }))).toEqual(new Map([[id, '/work/webapp-fix']]));
  });
});

describe('a forked v4 session', () => {
  it("is not dated by the sends it inherited from its parent, only by its own", () => {
    const header = { type: 'session', version: 4, id: 'forked', createdAt: CREATED_AT, cwd: ORIGIN, isSeeded: true, delegationDepth: 0 };
    const inherited = [...appendedLines([{ kind: 'sent', text: 'The parent asked this.' }], 0), JSON.stringify({ type: 'session/end-seed', data: { inherited: true }, seq: 1, time: CREATED_AT + 1 })];
    const { log } = rootWith('forked', 4, [JSON.stringify(header), ...inherited, ''].join('\n'));
    expect(readSessionLog(log, 4).lastSentAt).toBeUndefined();
    const own = appendedLines([{ kind: 'sent', text: 'The fork asks this.' }], 2);
    append(log, own);
    expect(readSessionLog(log, 4).lastSentAt).toBe((JSON.parse(own[0]!) as { time: number }).time);
  });
});

describe('older generations', () => {
  it('are dated by their creation as before: no last send is read from a v0-v3 log', () => {
    for (const generation of [0, 1, 2, 3]) {
      const { log } = rootWith(`gen${generation}`, generation, opening(`gen${generation}`, generation).text);
      expect(readSessionLog(log, generation).lastSentAt).toBeUndefined();
    }
  });
});

describe('what a listing reads', () => {
  it('reads no log of an unchanged root, the appended v4 log alone after an append, and only the head of an older generation', async () => {
    const moving = opening('moving', 4);
    const still = opening('still', 0);
    const { root, log } = rootWith('moving', 4, moving.text);
    const older = join(root, projectDirectoryName(ORIGIN), 'still', logFileName('zstd', 0));
    mkdirSync(join(older, '..'));
    writeFileSync(older, framePerRecord(still.text));
    const kept = new KeptHeaders(new RootLogs(root));
    expect(await placed(kept)).toEqual(
      new Map([
        ['moving', ORIGIN],
        ['still', ORIGIN],
      ]),
    );
    const whole = vi.spyOn(RootLogs.prototype, 'list');
    const single = vi.spyOn(RootLogs.prototype, 'listOne');

    await kept.entries();
    expect([whole.mock.calls.length, single.mock.calls.length]).toEqual([0, 0]);

    append(log, appendedLines([{ kind: 'move', cwd: '/work/webapp-fix' }], moving.nextSeq));
    expect((await placed(kept)).get('moving')).toBe('/work/webapp-fix');
    expect(single.mock.calls.map(([id]) => id)).toEqual(['moving']);

    // A v0 log grows by an event of its own generation; its head still answers for its header.
    append(older, appendedLines([{ kind: 'title', text: 'Still here' }], still.nextSeq));
    expect((await placed(kept)).get('still')).toBe(ORIGIN);
    expect(single.mock.calls.map(([id]) => id)).toEqual(['moving']);
    expect(whole).not.toHaveBeenCalled();
    kept.close();
  });
});
