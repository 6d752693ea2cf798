/**
 * Continue's sessions (#33): the real session `cn` 1.5.47 wrote offline
 * (headless prompts, an unsaved headless `/compact`), the TUI's destructive
 * compaction (the summary item first), start times from `sessions.json`,
 * titles, properties over generated histories, and hostile files.
 */
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptSource, type Transcript } from '@sessref/sources';
import { continueFormat } from '../src/continue/index.js';
import { carried, expectCarriesOnlyTextOf, itFoldsAHugeMessage, itFoldsManyMessagesInLinearTime, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

const SAMPLES = samplesOf('continue');
const SAMPLE_HOME = join(SAMPLES, 'real-1.5.47-print');
const SAMPLE_ID = 'af4c5285-065b-4475-ae03-23c1547a7fcb';
const SAMPLE_CREATED = 1796537192701;
const CREATED = Date.parse('2026-12-06T06:00:00.000Z');

const scratch = scratchFolder('sessref-continue-');

/** Fold a session document as the walk hands it over, with the start time found beside it (none: `null`). */
function fold(session: unknown, createdAt: number | null = CREATED): Transcript {
  const text = typeof session === 'string' ? session : JSON.stringify(session);
  return continueFormat.fold(text, { nativeId: 's', path: '/h/.continue/sessions/s.json', home: '/h/.continue/sessions', ...(createdAt === null ? {} : { createdAt }) });
}

const session = (...history: unknown[]) => ({ sessionId: 's', title: 'Untitled Session', workspaceDirectory: '/work', history });
const user = (text: unknown) => ({ message: { role: 'user', content: text }, contextItems: [], editorState: text });
const assistant = (text: string) => ({ message: { role: 'assistant', content: text }, contextItems: [] });
const toolCall = () => ({
  message: { role: 'assistant', content: '', toolCalls: [{ id: 'call', type: 'function', function: { name: 'Bash', arguments: '{"command":"CALL"}' } }] },
  contextItems: [],
  toolCallStates: [{ toolCallId: 'call', status: 'done', output: [{ content: 'RESULT', name: 'Tool Result' }] }],
});
const summary = (text: string) => ({ message: { role: 'assistant', content: text }, contextItems: [], conversationSummary: text });

describe('the shared Continue samples', () => {
  const sessions = 'real-1.5.47-print/.continue/sessions';
  const expectations: Record<string, () => void | Promise<void>> = {
    // A headless prompt with a Bash call, a `--resume` prompt, `-p "/compact"` (compacted in memory only: the file kept every item), a `--resume` prompt.
    [`${sessions}/${SAMPLE_ID}.json`]: () => {
      const transcript = fold(readFileSync(join(SAMPLES, sessions, `${SAMPLE_ID}.json`), 'utf8'), SAMPLE_CREATED);
      expect(carried(transcript)).toEqual([
        ['user', 'first prompt: say hi'],
        ['assistant', 'Hello from the fake model. (request 2)'],
        ['user', 'second prompt: thanks'],
        ['assistant', 'Hello from the fake model. (request 3)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 5)'],
      ]);
      // Headless runs keep the placeholder title: the first prompt names the session instead.
      expect(transcript).toMatchObject({ createdAt: SAMPLE_CREATED, cwd: '/home/user/project', title: 'first prompt: say hi', throughRecord: 6 });
    },
    // The index: the session's start time comes from its dateCreated.
    [`${sessions}/sessions.json`]: () => sampleHomeListsOneSession(),
    // The CLI's config beside `sessions/`: no session.
    'real-1.5.47-print/.continue/config.yaml': () => sampleHomeListsOneSession(),
  };

  async function sampleHomeListsOneSession(): Promise<void> {
    const source = transcriptSource(continueFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [{ id: `continue:${SAMPLE_ID}`, createdAt: SAMPLE_CREATED, cwd: '/home/user/project' }],
      titles: ['Continue · first prompt: say hi'],
      problems: [],
    });
  }

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('carries typed user text and assistant text only: never tool calls, their outputs, tool messages, reasoning or system items', () => {
    const history = [
      { message: { role: 'system', content: 'SYSTEM' }, contextItems: [] },
      { ...user('list files'), contextItems: [{ name: 'notes.txt', content: 'ATTACHED' }] },
      toolCall(),
      { message: { role: 'tool', content: 'TOOL OUTPUT', toolCallId: 'call' }, contextItems: [] },
      { message: { role: 'thinking', content: 'THOUGHT' }, contextItems: [] },
      assistant('two files'),
      user([{ type: 'text', text: 'parts' }, { type: 'imageUrl', imageUrl: { url: 'data:' } }, { type: 'text', text: 'prompt' }]),
    ];
    expect(carried(fold(session(...history)))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'parts\nprompt'],
    ]);
  });

  it("after the TUI's /compact, the history from the summary item on: the summary is the checkpoint", () => {
    // What the TUI saved (format page): the summary first, then the later turns.
    expect(carried(fold(session(summary('SUMMARY'), user('third'), assistant('reply'))))).toEqual([
      ['checkpoint', 'SUMMARY'],
      ['user', 'third'],
      ['assistant', 'reply'],
    ]);
    // Items before the summary (a system item, or any the file kept) are not sent to the model; the first summary item is where it starts.
    expect(carried(fold(session(user('before'), summary('FIRST'), user('middle'), summary('SECOND'), user('after'))))).toEqual([
      ['checkpoint', 'FIRST'],
      ['user', 'middle'],
      ['checkpoint', 'SECOND'],
      ['user', 'after'],
    ]);
  });

  it('titles a session by its own title unless it is the placeholder, else the first user message on one line', () => {
    expect(fold({ ...session(user(' fix the\n build ')), title: 'Build Fix Chat' }).title).toBe('Build Fix Chat');
    expect(fold(session(user(' fix the\n build '))).title).toBe('fix the build');
    expect(fold({ ...session(summary('S'), user('after')), title: ' ' }).title).toBe('after');
    expect(fold(session(assistant('only'))).title).toBeUndefined();
  });

  it('refuses what is not a session, not JSON or has no start time; an empty history is a session with no conversation', () => {
    expect(() => fold({ sessionId: 's' })).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold([])).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold('{"history": [')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(() => fold(session(user('one')), null)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED', message: 's.json has no start time: no sessions.json entry and no file time' }));
    expect(fold(session())).toMatchObject({ messages: [], throughRecord: null, cwd: '/work' });
  });
});

describe('properties', () => {
  const text = words;
  const anyItem = fc.oneof(
    text.map((words) => ({ kind: 'user' as const, words, item: user(words) })),
    text.map((words) => ({ kind: 'assistant' as const, words, item: assistant(words) })),
    text.map((words) => ({ kind: 'summary' as const, words, item: summary(words) })),
    fc.constant({ kind: 'tool' as const, words: '', item: toolCall() }),
    text.map((words) => ({ kind: 'thinking' as const, words, item: { message: { role: 'thinking', content: words }, contextItems: [] } })),
  );

  it('the fold never throws on arbitrary history items, and only ever carries text it was given', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.jsonValue({ maxDepth: 4 }), anyItem.map((drawn) => drawn.item)), { maxLength: 25 }), (history) => {
        const source = JSON.stringify(session(...history));
        expectCarriesOnlyTextOf(source, fold(source));
      }),
    );
  });

  it('equals the reference model: from the first summary item (its text the checkpoint), every user and assistant text, in order', () => {
    fc.assert(
      fc.property(fc.array(anyItem, { maxLength: 20 }), (drawn) => {
        const first = drawn.findIndex((found) => found.kind === 'summary');
        const expected = drawn.slice(Math.max(first, 0)).flatMap((found): Item[] => (found.kind === 'summary' ? [['checkpoint', found.words]] : found.kind === 'user' || found.kind === 'assistant' ? [[found.kind, found.words]] : []));
        expect(carried(fold(session(...drawn.map((found) => found.item))))).toEqual(expected);
      }),
    );
  });
});

describe('hostile Continue files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(session(user(huge))));

  it('deep nesting refuses the file before it is parsed', () => {
    expect(() => fold(`{"history":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  itFoldsManyMessagesInLinearTime(
    (index) => (index % 2 === 0 ? user : assistant)(`t${index}`),
    // Not spread into session(): 300,000 arguments would overflow the stack.
    (history) => fold({ ...session(), history }),
  );

  it('a file over the size bound is refused, a link out of the sessions folder is not followed, and an index nested too deep or linked from outside gives no times', async () => {
    const home = join(scratch, 'hostile');
    const sessions = join(home, '.continue', 'sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 'big.json'), JSON.stringify(session(user('y'.repeat(4096)))));
    writeFileSync(join(sessions, 'small.json'), JSON.stringify(session(user('small'))));
    writeFileSync(join(sessions, 'sessions.json'), `${'['.repeat(1000)}${']'.repeat(1000)}`);
    writeFileSync(join(scratch, 'outside.json'), JSON.stringify(session(user('outside'))));
    symlinkSync(join(scratch, 'outside.json'), join(sessions, 'out.json'));
    const source = transcriptSource(continueFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    const stats = statSync(join(sessions, 'small.json'));
    expect(await source.listSessions()).toEqual([{ id: 'continue:small', createdAt: stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.mtimeMs, cwd: '/work' }]);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([['continue:big', 'SOURCE_SESSION_TOO_LARGE']]);
    // An index linked in from outside the folder is not read: its planted time is not used.
    const linked = join(home, 'linked', 'sessions');
    mkdirSync(linked, { recursive: true });
    writeFileSync(join(linked, 'small.json'), JSON.stringify(session(user('small'))));
    writeFileSync(join(scratch, 'planted-index.json'), JSON.stringify([{ sessionId: 'small', dateCreated: String(CREATED) }]));
    symlinkSync(join(scratch, 'planted-index.json'), join(linked, 'sessions.json'));
    const [header] = await transcriptSource(continueFormat, { environment: { home, env: { CONTINUE_GLOBAL_DIR: join(home, 'linked') } }, watch: false }).listSessions();
    expect(header?.createdAt).not.toBe(CREATED);
  });
});

describe('a Continue home', () => {
  it('reads $CONTINUE_GLOBAL_DIR instead of ~/.continue; sessions.json is the index, never a session', async () => {
    const home = join(scratch, 'moved');
    const sessions = join(home, 'continue-global', 'sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 'moved.json'), JSON.stringify(session(user('moved here'))));
    writeFileSync(join(sessions, 'sessions.json'), JSON.stringify([{ sessionId: 'moved', title: 'Untitled Session', dateCreated: String(CREATED), workspaceDirectory: '/work' }]));
    const source = transcriptSource(continueFormat, { environment: { home, env: { CONTINUE_GLOBAL_DIR: join(home, 'continue-global') } }, watch: false });
    expect(await listing(source)).toEqual({ headers: [{ id: 'continue:moved', createdAt: CREATED, cwd: '/work' }], titles: ['Continue · moved here'], problems: [] });
    expect(continueFormat.home({ home, env: {} })).toBe(join(home, '.continue', 'sessions'));
    expect(continueFormat.home({ home, env: { CONTINUE_GLOBAL_DIR: '' } })).toBe(join(home, '.continue', 'sessions'));
  });

  it('a start time the index gives later replaces the file time, in this process and through the listing cache', async () => {
    const home = join(scratch, 'late-index');
    const sessions = join(home, '.continue', 'sessions');
    mkdirSync(sessions, { recursive: true });
    writeFileSync(join(sessions, 'late.json'), JSON.stringify(session(user('late'))));
    const listingCacheFile = join(scratch, 'late-index-listing.json');
    const source = transcriptSource(continueFormat, { environment: { home, env: {} }, listingCacheFile, watch: false });
    const [before] = await source.listSessions();
    expect(before?.createdAt).not.toBe(CREATED);
    // Continue writes the session file first and the index right after: the session file does not change again.
    writeFileSync(join(sessions, 'sessions.json'), JSON.stringify([{ sessionId: 'late', dateCreated: String(CREATED) }]));
    expect(await source.listSessions()).toEqual([{ id: 'continue:late', createdAt: CREATED, cwd: '/work' }]);
    // The first listing's save (later ones wait 10 s) holds the file time under the file's entry.
    const saved = JSON.parse(readFileSync(listingCacheFile, 'utf8')) as { entries: Record<string, { createdAt?: number }> };
    expect(Object.values(saved.entries).map((entry) => entry.createdAt)).toEqual([before?.createdAt]);
    // A later process starts from the saved entry and still sees the index's time.
    const later = transcriptSource(continueFormat, { environment: { home, env: {} }, listingCacheFile, watch: false });
    expect(await later.listSessions()).toEqual([{ id: 'continue:late', createdAt: CREATED, cwd: '/work' }]);
  });
});
