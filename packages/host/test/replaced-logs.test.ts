/**
 * Class 3 of #25: what a long-lived host remembers about a log (the kept
 * headers of its listing, the title index, the content index, dsh's prepared
 * sessions) is keyed by the log's revision and learnt again when the file
 * changes. A session's log is replaced, while a host booted as `sessref
 * serve` boots it (bootHost, file caches, file-system events; and the
 * one-shot host, which walks) is alive, by another log of the SAME id and
 * creation time: renamed over it (a new inode), copied into it in place (the
 * same inode) with its old modification time put back, or its whole session
 * directory swapped for a copy. Listing, titles, snapshots, content hits and
 * candidates must answer from the new file, and the new file's injected
 * plugin message (text no snapshot carries) is never a hit.
 */
import { copyFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import SessionReferenceResolver from '@sessref/dsh';
import { sessionLogs } from '@sessref/dsh/jsonl-root';
import { bootHost } from '@sessref/host';
import { appendExchange, appendInjected, createHost, createSession, endTurn, setTitle } from '@sessref/test-support';
import { temporaryDirectories } from './generation-support.js';

const temp = temporaryDirectories();

const ID = 'swapped';
const CREATED_AT = 1_700_000_000_000;

/**
 * One version of the session: the same id, creation time and shape in every
 * version (and cwd: dsh places a log by it); its words and the word only
 * its injected plugin message holds differ, all of one length, so that
 * versions come out the same size or nearly.
 */
const VERSIONS = ['alpha', 'bravo', 'charl', 'delta'] as const;
type Word = (typeof VERSIONS)[number];
const CWD = '/work/app';
const injectedOf = (word: Word): string => `${word}plant`;

/** The log of a fresh root holding `word`'s version of the session and a neighbour that never changes. */
async function writeVersion(word: Word): Promise<string> {
  const root = join(temp('sessref-replaced-'), 'sessions');
  const writer = await createHost({ root, invariants: false, writeBatchMaxDelayMs: 1 });
  try {
    const session = createSession(writer, { id: ID, cwd: CWD, createdAt: CREATED_AT });
    appendExchange(session, { user: `Please check the ${word}word module.`, assistant: `The ${word}word module is fine.` });
    appendInjected(session, `Plugin note: ${injectedOf(word)} is not for the model.`);
    appendExchange(session, { user: 'Anything else?', assistant: 'Nothing else.' });
    endTurn(session);
    setTitle(session, `Title ${word}`);
    const neighbour = createSession(writer, { id: 'neighbour', cwd: '/work/other', createdAt: CREATED_AT - 1 });
    appendExchange(neighbour, { user: 'An unrelated steady question.', assistant: 'A steady answer.' });
    setTitle(neighbour, 'Neighbour');
    await writer.flush(session);
    await writer.flush(neighbour);
  } finally {
    await writer.dispose();
  }
  return sessionLogs(root, 'zstd').find((file) => file.sessionId === ID)!.path;
}

type Mode = 'rename' | 'copy-in-place' | 'directory';

/** Put the log at `from` in place of the log at `to`, as `mode` does it; the old modification time is put back. */
function replace(mode: Mode, from: string, to: string): void {
  const before = statSync(to);
  if (mode === 'copy-in-place') {
    // cp over an existing file: truncated and rewritten, the same inode.
    writeFileSync(to, readFileSync(from));
    utimesSync(to, before.atime, before.mtime);
    return;
  }
  // A copy staged beside the target, then renamed into place: a new inode (and, for 'directory', a new session directory).
  const staged = mode === 'rename' ? `${to}.staged` : join(dirname(dirname(to)), `.${ID}.staged`);
  const stagedLog = mode === 'rename' ? staged : join(staged, basename(to));
  if (mode === 'directory') mkdirSync(staged);
  copyFileSync(from, stagedLog);
  utimesSync(stagedLog, before.atime, before.mtime);
  if (mode === 'directory') rmSync(dirname(to), { recursive: true });
  renameSync(staged, mode === 'rename' ? to : dirname(to));
}

async function boot(root: string, watchLogs: boolean) {
  const cache = temp('sessref-replaced-cache-');
  const ctx = await bootHost({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.sqlite'), watchLogs });
  const resolver: unknown = ctx.get('sessionReferenceResolver');
  if (!(resolver instanceof SessionReferenceResolver)) throw new Error('the host did not mount @sessref/dsh');
  return { ctx, resolver };
}

const ids = (hits: readonly { sessionId: string }[]): string[] => hits.map((hit) => hit.sessionId);

/** The questions a host answers about the session, each checked against `word`'s version (every other version's words absent). */
const QUESTIONS = {
  // The header (id, creation time, cwd) is the same in every version: the listing must still show the session once.
  async listing(resolver: SessionReferenceResolver, _word: Word) {
    const header = (await resolver.service.listSessions()).find((candidate) => candidate.id === ID);
    expect(header, 'listing').toMatchObject({ id: ID, createdAt: CREATED_AT, cwd: CWD });
  },
  async titles(resolver: SessionReferenceResolver, word: Word) {
    expect(await resolver.service.titlesOf([ID]), 'titles').toEqual([{ sessionId: ID, status: 'fulfilled', title: `Title ${word}` }]);
  },
  async snapshot(resolver: SessionReferenceResolver, word: Word) {
    const view = await resolver.service.snapshotOf(ID);
    expect(view.title, 'snapshot title').toBe(`Title ${word}`);
    const carried = JSON.stringify(view.fit);
    expect(carried, 'snapshot').toContain(`${word}word`);
    for (const other of VERSIONS) {
      if (other !== word) expect(carried, 'snapshot').not.toContain(`${other}word`);
      expect(carried, 'snapshot').not.toContain(injectedOf(other));
    }
  },
  async search(resolver: SessionReferenceResolver, word: Word) {
    const hits = await resolver.searchContent(undefined, `${word}word`);
    expect(ids(hits), 'content hits').toEqual([ID]);
    expect(hits[0], 'content hit').toMatchObject({ label: `Title ${word}`, cwd: CWD, role: 'user' });
    for (const other of VERSIONS) {
      if (other !== word) expect(ids(await resolver.searchContent(undefined, `${other}word`)), `stale hit for ${other}`).toEqual([]);
      expect(ids(await resolver.searchContent(undefined, injectedOf(other))), 'injected text').toEqual([]);
    }
  },
  async candidates(resolver: SessionReferenceResolver, word: Word) {
    const byTitle = await resolver.service.candidatesFor({ id: 'asking', cwd: CWD }, `Title ${word}`);
    expect(byTitle.map(({ sessionId, label, cwd }) => ({ sessionId, label, cwd })), 'title candidates').toEqual([{ sessionId: ID, label: `Title ${word}`, cwd: CWD }]);
    for (const other of VERSIONS) if (other !== word) expect(ids(await resolver.service.candidatesFor({ id: 'asking' }, `Title ${other}`)), 'stale title candidate').toEqual([]);
  },
} as const;
type Question = keyof typeof QUESTIONS;
const QUESTION_NAMES = Object.keys(QUESTIONS) as Question[];

async function ask(resolver: SessionReferenceResolver, word: Word, order: readonly Question[]): Promise<void> {
  for (const question of order) await QUESTIONS[question](resolver, word);
}

describe('a log replaced under a live host by another of the same id and creation time (#25, class 3)', () => {
  const logs = new Map<Word, string>();
  const logOf = async (word: Word): Promise<string> => {
    if (!logs.has(word)) logs.set(word, await writeVersion(word));
    return logs.get(word)!;
  };

  for (const watchLogs of [true, false]) {
 // 'directory, then in place': the directory swapped, then the log in the new directory rewritten (its watch must be the new directory's).
    for (const mode of ['rename', 'copy-in-place', 'directory', 'directory, then in place'] as const) {
      it(`${mode}, ${watchLogs ? 'following file-system events (sessref serve)' : 'walking the root'}: every answer comes from the new file`, async () => {
        const live = await logOf('alpha');
        // The host's root is a copy of the first version's, so every version can be put in its place.
        const root = join(temp('sessref-replaced-root-'), 'sessions');
        const project = basename(dirname(dirname(live)));
        mkdirSync(join(root, project, ID), { recursive: true });
        const target = join(root, project, ID, basename(live));
        copyFileSync(live, target);
        // Whole seconds: every replacement gets exactly this modification time back.
        utimesSync(target, 1_700_000_000, 1_700_000_000);
        const neighbour = sessionLogs(dirname(dirname(dirname(live))), 'zstd').find((file) => file.sessionId === 'neighbour')!.path;
        mkdirSync(join(root, basename(dirname(dirname(neighbour))), 'neighbour'), { recursive: true });
        copyFileSync(neighbour, join(root, basename(dirname(dirname(neighbour))), 'neighbour', basename(neighbour)));

        const { ctx, resolver } = await boot(root, watchLogs);
        try {
          await ask(resolver, 'alpha', QUESTION_NAMES);
          // Each later version in place of the last, the questions in a generated order (the title index's
          // readTitles, say, answering before any listing caught up).
          const orders = fc.sample(fc.shuffledSubarray(QUESTION_NAMES, { minLength: QUESTION_NAMES.length }), { numRuns: 3, seed: 25 });
          for (const [step, word] of (['charl', 'bravo', 'delta'] as const).entries()) {
            const from = await logOf(word);
            replace(mode === 'directory, then in place' ? (step === 0 ? 'directory' : 'copy-in-place') : mode, from, target);
            expect(statSync(target).mtimeMs, 'the old modification time').toBe(1_700_000_000_000);
            await ask(resolver, word, orders[step]!);
          }
        } finally {
          await ctx.fiber.dispose();
        }
      });
    }
  }
});
