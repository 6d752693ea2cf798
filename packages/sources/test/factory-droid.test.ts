/**
 * Factory Droid's sessions (#33): the real sessions droid 0.225.2 wrote
 * offline (an `exec` prompt and a TUI prompt, then `/compress` starting a
 * child session), injected `context-` messages never carried, the
 * compaction summary at the top of the child, titles, properties over
 * generated records, and hostile files.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptSource, type Transcript } from '@sessref/sources';
import { factoryDroidFormat } from '../src/factory-droid/index.js';
import { carried, expectCarriesOnlyTextOf, itFoldsAHugeMessage, itFoldsManyMessagesInLinearTime, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

const SAMPLES = samplesOf('factory-droid');
const SAMPLE_HOME = join(SAMPLES, 'real-0.225.2');
const PARENT_ID = 'c4f76b19-7a19-473d-8ce2-e813f6e53328';
const CHILD_ID = 'f8073260-10f4-4ffe-a1ce-2fdf090de4ee';
const PARENT_STARTED = '2026-12-06T06:12:10.175Z';
const CHILD_STARTED = '2026-12-06T06:12:53.686Z';

const scratch = scratchFolder('sessref-factory-droid-');

function fold(text: string): Transcript {
  return factoryDroidFormat.fold(text, { nativeId: 's', path: '/h/.factory/sessions/-w/s.jsonl', home: '/h/.factory/sessions' });
}

const jsonl = (...records: unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');
const TIME = '2026-12-06T06:12:10.175Z';
const START = { type: 'session_start', id: 's', title: 'the title', owner: 'unknown', version: 2, cwd: '/work', isSessionTitleManuallySet: false };
const message = (id: string, role: string, content: unknown, extra: object = {}) => ({ type: 'message', id, timestamp: TIME, message: { role, content, ...extra } });
const context = (promptId: string) => message(`context-${promptId}`, 'user', [{ type: 'text', text: '<system-reminder>\nINJECTED tools and date\n</system-reminder>' }], { visibility: 'llm_only' });
const user = (id: string, text: string) => message(id, 'user', [{ type: 'text', text }]);
const assistant = (id: string, text: string) => message(id, 'assistant', [{ type: 'text', text }]);
const compaction = (summaryText: string) => ({ type: 'compaction_state', id: 'c', timestamp: TIME, summaryText, summaryKind: 'llm_summary', removedCount: 7, systemInfoText: '<system-reminder>SYSTEM INFO</system-reminder>' });

describe('the shared Factory Droid samples', () => {
  const folder = 'real-0.225.2/.factory/sessions/-home-user-project';
  const read = (name: string) => fold(readFileSync(join(SAMPLES, folder, name), 'utf8'));
  const expectations: Record<string, () => void | Promise<void>> = {
    // `droid exec` with an LS call, then a TUI prompt: the `context-` reminder before the first prompt and the tool traffic are not carried.
    [`${folder}/${PARENT_ID}.jsonl`]: () => {
      const transcript = read(`${PARENT_ID}.jsonl`);
      expect(carried(transcript)).toEqual([
        ['user', 'first prompt: say hi'],
        ['assistant', 'Hello from the fake model. (request 2)'],
        ['user', 'second prompt: thanks'],
        ['assistant', 'Hello from the fake model. (request 3)'],
      ]);
      expect(transcript).toMatchObject({ createdAt: Date.parse(PARENT_STARTED), cwd: '/home/user/project', title: 'first prompt: say hi', throughRecord: 9 });
    },
    // `/compress` started this child: its compaction_state summary, then its own prompt and reply; the parent's records are in the parent alone.
    [`${folder}/${CHILD_ID}.jsonl`]: () => {
      const transcript = read(`${CHILD_ID}.jsonl`);
      expect(carried(transcript)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 4)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 6)'],
      ]);
      // Its title is the one the (fake) model generated after the first prompt.
      expect(transcript).toMatchObject({ createdAt: Date.parse(CHILD_STARTED), cwd: '/home/user/project', title: 'Hello from the fake model. (request 5)', throughRecord: 5 });
    },
    // Model, autonomy and token usage beside each session, and droid's settings: no sessions, so the sample home lists exactly the two above.
    [`${folder}/${PARENT_ID}.settings.json`]: () => sampleHomeListsBothSessions(),
    [`${folder}/${CHILD_ID}.settings.json`]: () => sampleHomeListsBothSessions(),
    'real-0.225.2/.factory/settings.json': () => sampleHomeListsBothSessions(),
  };

  /** Both sessions are offered, as droid offers both to resume ("You can still come back to this session later"), the child first. */
  async function sampleHomeListsBothSessions(): Promise<void> {
    const source = transcriptSource(factoryDroidFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [
        { id: `factory-droid:${CHILD_ID}`, createdAt: Date.parse(CHILD_STARTED), cwd: '/home/user/project' },
        { id: `factory-droid:${PARENT_ID}`, createdAt: Date.parse(PARENT_STARTED), cwd: '/home/user/project' },
      ],
      titles: ['Factory Droid · Hello from the fake model. (request 5)', 'Factory Droid · first prompt: say hi'],
      problems: [],
    });
  }

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('carries typed user text and assistant text only: never injected context, reminders, tool calls or results, thinking', () => {
    const text = jsonl(
      START,
      context('u1'),
      { ...user('u1', 'list files'), parentId: 'context-u1' },
      message('a1', 'assistant', [{ type: 'thinking', thinking: 'THOUGHT' }, { type: 'tool_use', id: 'call', name: 'LS', input: { directory_path: 'CALL' } }]),
      message('t1', 'user', [{ type: 'tool_result', tool_use_id: 'call', content: 'RESULT <system-reminder>NOTE</system-reminder>' }]),
      message('a2', 'assistant', [{ type: 'thinking', thinking: 'THOUGHT' }, { type: 'text', text: 'two files' }]),
      { type: 'agent_turn_outcome', turnId: 'u1', reason: 'completed', resultKind: 'text' },
      message('u2', 'user', [{ type: 'text', text: 'typed' }, { type: 'text', text: '<system-reminder>REMINDER</system-reminder>' }]),
      message('u3', 'user', [{ type: 'text', text: 'not typed' }], { visibility: 'llm_only' }),
      message('u4', 'user', 'plain string prompt'),
    );
    expect(carried(fold(text))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'typed'],
      ['user', 'plain string prompt'],
    ]);
  });

  it('a compaction_state stands for everything before it; a blank summary leaves no checkpoint', () => {
    expect(carried(fold(jsonl(START, user('u1', 'before'), compaction('SUMMARY'), user('u2', 'after'))))).toEqual([
      ['checkpoint', 'SUMMARY'],
      ['user', 'after'],
    ]);
    expect(carried(fold(jsonl(START, user('u1', 'before'), compaction(' '), assistant('a1', 'after'))))).toEqual([['assistant', 'after']]);
  });

  it('titles a session by its own title, not the placeholder of a fresh child (unless the user set it), else the first typed prompt on one line', () => {
    const body = [context('u1'), user('u1', ' fix the\n  build ')];
    expect(fold(jsonl(START, ...body)).title).toBe('the title');
    expect(fold(jsonl({ ...START, title: 'New Session' }, ...body)).title).toBe('fix the build');
    expect(fold(jsonl({ ...START, title: 'New Session', isSessionTitleManuallySet: true }, ...body)).title).toBe('New Session');
    expect(fold(jsonl({ ...START, title: '  ' }, ...body)).title).toBe('fix the build');
    expect(fold(jsonl({ ...START, title: undefined }, compaction('S'))).title).toBeUndefined();
  });

  it('refuses a file without session_start first or without a timestamped record, and a complete line that is not JSON; a torn last line is left out', () => {
    expect(() => fold(jsonl(user('u1', 'one')))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold('')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(jsonl(START))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED', message: expect.stringContaining('-w/s.jsonl has no timestamped record') }));
    expect(() => fold(`${jsonl(START, user('u1', 'one'))}{not json\n${jsonl(assistant('a1', 'two'))}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(carried(fold(`${jsonl(START, user('u1', 'one'))}{"type":"message","id":"a1`))).toEqual([['user', 'one']]);
  });
});

describe('properties', () => {
  const text = words;
  /** The records droid writes, in any order and number. */
  const anyRecord = fc.oneof(
    text.map((words) => ({ kind: 'user' as const, words, record: user('u', words) })),
    text.map((words) => ({ kind: 'assistant' as const, words, record: assistant('a', words) })),
    text.map((words) => ({ kind: 'compaction' as const, words, record: compaction(words) })),
    text.map((words) => ({ kind: 'injected' as const, words, record: message(`context-${words}`, 'user', [{ type: 'text', text: words }]) })),
    fc.constant({ kind: 'tool' as const, words: '', record: message('t', 'user', [{ type: 'tool_result', tool_use_id: 'c', content: 'RESULT' }]) }),
  );

  it('the fold never throws on arbitrary records after session_start, and only ever carries text it was given', () => {
    const line = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), anyRecord.map((drawn) => JSON.stringify(drawn.record)));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const source = [JSON.stringify(START), JSON.stringify(user('u0', 'first')), ...lines].join('\n');
        expectCarriesOnlyTextOf(source, fold(source));
      }),
    );
  });

  it('equals the reference model: from the latest compaction (its summary), every typed prompt and assistant text after it, in order, never injected text', () => {
    fc.assert(
      fc.property(fc.array(anyRecord, { maxLength: 20 }), (drawn) => {
        const cut = drawn.findLastIndex((found) => found.kind === 'compaction');
        const after = drawn.slice(cut + 1).filter((found) => found.kind === 'user' || found.kind === 'assistant');
        const before: Item[] = cut >= 0 ? [['checkpoint', drawn[cut]!.words]] : [['user', 'first']];
        const expected = [...before, ...after.map((found): Item => [found.kind, found.words])];
        expect(carried(fold(jsonl(START, user('u0', 'first'), ...drawn.map((found) => found.record))))).toEqual(expected);
      }),
    );
  });
});

describe('hostile Factory Droid files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(jsonl(START, user('u1', huge))));

  it('deep nesting refuses the file before it is parsed', () => {
    expect(() => fold(`${jsonl(START)}${'['.repeat(100_000)}\n${jsonl(user('u1', 'one'))}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  itFoldsManyMessagesInLinearTime(
    (index) => (index % 2 === 0 ? user : assistant)(`m${index}`, `t${index}`),
    // Joined here: spread into jsonl(), 300,000 arguments would overflow the stack.
    (records) => fold([START, ...records].map((record) => JSON.stringify(record)).join('\n')),
  );

  it('a file over the size bound is refused, and a link out of the sessions folder is not followed', async () => {
    const home = join(scratch, 'hostile');
    const folder = join(home, '.factory', 'sessions', '-w');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'big.jsonl'), jsonl(START, user('u1', 'y'.repeat(4096))));
    writeFileSync(join(folder, 'big.settings.json'), '{}');
    writeFileSync(join(scratch, 'outside.jsonl'), jsonl(START, user('u1', 'outside')));
    symlinkSync(join(scratch, 'outside.jsonl'), join(folder, 'out.jsonl'));
    const source = transcriptSource(factoryDroidFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    expect(await source.listSessions()).toEqual([]);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([['factory-droid:big', 'SOURCE_SESSION_TOO_LARGE']]);
  });
});

describe('a Factory Droid home', () => {
  it('reads .factory under $FACTORY_HOME_OVERRIDE (a leading ~ is the home) instead of under the home', async () => {
    const home = join(scratch, 'moved');
    const folder = join(home, 'elsewhere', '.factory', 'sessions', '-w');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'moved.jsonl'), jsonl({ ...START, title: '' }, context('u1'), user('u1', 'moved here')));
    const source = transcriptSource(factoryDroidFormat, { environment: { home, env: { FACTORY_HOME_OVERRIDE: '~/elsewhere' } }, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['Factory Droid · moved here'], problems: [] });
    expect(factoryDroidFormat.home({ home, env: {} })).toBe(join(home, '.factory', 'sessions'));
    expect(factoryDroidFormat.home({ home, env: { FACTORY_HOME_OVERRIDE: '' } })).toBe(join(home, '.factory', 'sessions'));
  });
});
