/**
 * Qwen Code's sessions (#33): the real session Qwen Code 0.24.4 wrote
 * offline, the uuid chain walked from its last record, `chat_compression`
 * replacing the history, the titles, properties over generated records, and
 * hostile files.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectMessage } from '@sessref/core';
import { isTextBlock } from '@sessref/core/internal';
import { transcriptSource, type Transcript } from '@sessref/sources';
import { qwenCodeFormat } from '../src/qwen-code/index.js';
import { carried, itFoldsAHugeMessage, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

const SAMPLES = samplesOf('qwen-code');
const SAMPLE_HOME = join(SAMPLES, 'real-0.24.4');
const SAMPLE_ID = '8b417513-45f5-4f4f-8874-8b8b196520fa';
const ACK = 'Got it. Thanks for the additional context!';
const TRAILER = 'Resume the prior task using the summary above. Continue from the last in-flight step; do not acknowledge the summary, do not re-introduce, do not greet the user again.';

const scratch = scratchFolder('sessref-qwen-');

function fold(text: string): Transcript {
  return qwenCodeFormat.fold(text, { nativeId: 'x', path: '/h/.qwen/projects/-w/chats/s.jsonl', home: '/h/.qwen/projects' });
}

const jsonl = (...records: unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');
const TIME = '2026-12-06T06:01:27.052Z';
const base = (uuid: string, parentUuid: string | null) => ({ uuid, parentUuid, sessionId: 'sid', timestamp: TIME, cwd: '/work', version: '0.24.4' });
const user = (uuid: string, parentUuid: string | null, text: string) => ({ ...base(uuid, parentUuid), type: 'user', provenance: 'real_user', message: { role: 'user', parts: [{ text }] } });
const assistant = (uuid: string, parentUuid: string | null, text: string) => ({ ...base(uuid, parentUuid), type: 'assistant', provenance: 'assistant_output', message: { role: 'model', parts: [{ text }] } });
const system = (uuid: string, parentUuid: string | null, subtype: string, systemPayload: unknown) => ({ ...base(uuid, parentUuid), type: 'system', provenance: 'system', subtype, systemPayload });
const summaryTurn = (summary: string) => [
  { role: 'user', parts: [{ text: `${summary}\n\n${TRAILER}` }] },
  { role: 'model', parts: [{ text: ACK }] },
];
const compression = (uuid: string, parentUuid: string | null, compressedHistory: unknown) =>
  system(uuid, parentUuid, 'chat_compression', { info: { compressionStatus: 1 }, compressedHistory, completedToolCallIds: [] });

describe('the shared Qwen Code samples', () => {
  const project = '.qwen/projects/-home-user-project';
  const session = `${project}/chats/${SAMPLE_ID}.jsonl`;
  const expectations: Record<string, () => void | Promise<void>> = {
    // A prompt with a run_shell_command call, `-c` prompt, `-c "/compress"` (recorded chat_compression), `-c` prompt.
    [`real-0.24.4/${session}`]: () => {
      const transcript = fold(readFileSync(join(SAMPLE_HOME, session), 'utf8'));
      expect(carried(transcript)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 6)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 7)'],
      ]);
      expect(transcript).toMatchObject({ createdAt: Date.parse('2026-12-06T06:01:27.052Z'), cwd: '/home/user/project', title: 'first prompt: say hi', throughRecord: 20 });
    },
    // Qwen Code's project metadata, memory extraction state and settings beside `chats/`: no session, so the sample home lists exactly the one above.
    [`real-0.24.4/${project}/extract-cursor.json`]: () => sampleHomeListsOneSession(),
    [`real-0.24.4/${project}/memory/MEMORY.md`]: () => sampleHomeListsOneSession(),
    [`real-0.24.4/${project}/meta.json`]: () => sampleHomeListsOneSession(),
    'real-0.24.4/.qwen/settings.json': () => sampleHomeListsOneSession(),
  };

  async function sampleHomeListsOneSession(): Promise<void> {
    const source = transcriptSource(qwenCodeFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [{ id: `qwen-code:${SAMPLE_ID}`, createdAt: Date.parse('2026-12-06T06:01:27.052Z'), cwd: '/home/user/project' }],
      titles: ['Qwen Code · first prompt: say hi'],
      problems: [],
    });
  }

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('walks parentUuid from the last record, so a rewound branch is not carried; lines sharing a uuid are one record placed by its first line', () => {
    const text = jsonl(user('u1', null, 'start'), assistant('a1', 'u1', 'old answer'), assistant('a2', 'u1', 'new answer'), user('u2', 'a2', 'go on'), user('u2', 'gone', 'and more'));
    expect(carried(fold(text))).toEqual([
      ['user', 'start'],
      ['assistant', 'new answer'],
      ['user', 'go on\nand more'],
    ]);
  });

  it('carries typed user text and assistant text only: never thoughts, tool calls, tool results, notifications, cron or goal prompts, or hook context', () => {
    const text = jsonl(
      user('u1', null, 'list files'),
      { ...base('a1', 'u1'), type: 'assistant', message: { role: 'model', parts: [{ text: 'THOUGHT', thought: true }, { functionCall: { id: 'c', name: 'run_shell_command', args: { command: 'CALL' } } }] } },
      { ...base('t1', 'a1'), type: 'tool_result', message: { role: 'user', parts: [{ functionResponse: { id: 'c', name: 'run_shell_command', response: { output: 'RESULT' } } }] } },
      system('s1', 't1', 'ui_telemetry', { uiEvent: { 'event.name': 'TELEMETRY' } }),
      { ...base('n1', 's1'), type: 'user', subtype: 'notification', provenance: 'system', message: { role: 'user', parts: [{ text: 'NOTIFICATION' }] } },
      { ...base('c1', 'n1'), type: 'user', subtype: 'cron', provenance: 'system', message: { role: 'user', parts: [{ text: 'CRON' }] } },
      { ...base('g1', 'c1'), type: 'user', subtype: 'goal_runtime', provenance: 'goal_runtime', message: { role: 'user', parts: [{ text: 'GOAL' }] } },
      assistant('a2', 'g1', 'two files'),
      { ...user('u2', 'a2', 'read @notes.txt'), message: { role: 'user', parts: [{ text: 'read @notes.txt' }, { text: '\n--- Content from referenced files ---' }, { text: 'FILE CONTENT' }] } },
      { ...user('u3', 'u2', 'x'), message: { role: 'user', parts: [{ text: 'hooked prompt' }, { text: '<qwen:user-prompt-submit-context>\nHOOK\n</qwen:user-prompt-submit-context>' }] } },
      { ...base('m1', 'u3'), type: 'user', subtype: 'mid_turn_user_message', message: { role: 'user', parts: [{ text: 'EXPANDED' }] }, systemPayload: { displayText: 'also this' } },
    );
    expect(carried(fold(text))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'read @notes.txt'],
      ['user', 'hooked prompt'],
      ['user', 'also this'],
    ]);
  });

  it('a compression replaces the history: its summary is the checkpoint, restored files and the acknowledgement are not carried, prompts a fast compression keeps are', () => {
    const restored = { role: 'user', parts: [{ text: 'Recently accessed file (full current content embedded):\n\n## a.ts\n\n```\nRESTORED\n```' }] };
    const text = jsonl(
      user('u1', null, 'first'),
      assistant('a1', 'u1', 'reply one'),
      compression('c1', 'a1', [...summaryTurn('SUMMARY'), restored]),
      user('u2', 'c1', 'second'),
      assistant('a2', 'u2', 'reply two'),
      compression('c2', 'a2', [...summaryTurn('SUMMARY'), restored, { role: 'user', parts: [{ text: 'second' }] }, { role: 'model', parts: [{ text: 'reply two' }] }]),
      user('u3', 'c2', 'third'),
    );
    expect(carried(fold(text))).toEqual([
      ['checkpoint', 'SUMMARY'],
      ['user', 'second'],
      ['assistant', 'reply two'],
      ['user', 'third'],
    ]);
  });

  it('a slash command answered locally takes back its raw prompt; one sent to the model does not', () => {
    const result = (sentToModel: boolean) => ({ phase: 'result', rawCommand: '/stats', sentToModel, outputHistoryItems: [{ type: 'assistant', text: 'stats' }] });
    const session = (sentToModel: boolean) => jsonl(user('u1', null, 'hello'), user('u2', 'u1', '/stats'), system('s1', 'u2', 'slash_command', result(sentToModel)), user('u3', 's1', 'bye'));
    expect(carried(fold(session(false)))).toEqual([
      ['user', 'hello'],
      ['user', 'bye'],
    ]);
    expect(carried(fold(session(true)))).toEqual([
      ['user', 'hello'],
      ['user', '/stats'],
      ['user', 'bye'],
    ]);
  });

  it('titles a session by its latest custom_title, else its first prompt on one line, cut after 200 code points as Qwen Code cuts it', () => {
    const named = (title: string) => system('t1', 'u1', 'custom_title', { customTitle: title, titleSource: 'manual' });
    expect(fold(jsonl(user('u1', null, ' fix the\n  build '))).title).toBe('fix the build');
    expect(fold(jsonl(user('u1', null, 'fix'), named('Build'), named(''))).title).toBe('Build');
    expect(fold(jsonl(user('u1', null, '界'.repeat(250)))).title).toBe(`${'界'.repeat(200)}...`);
    expect(fold(jsonl(system('s1', null, 'ui_telemetry', {}))).title).toBeUndefined();
  });

  it('reads lines as Qwen Code does: unparsable ones skipped, two records glued on one line both read, records of two sessions refused', () => {
    const glued = `${JSON.stringify(assistant('a1', 'u1', 'two'))}${JSON.stringify(user('u2', 'a1', 'three'))}`;
    expect(carried(fold(`${jsonl(user('u1', null, 'one'))}{not json\n${glued}\n{"uuid":"torn`))).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
      ['user', 'three'],
    ]);
    expect(() => fold(jsonl(user('u1', null, 'one'), { ...user('u2', 'u1', 'two'), sessionId: 'other' }))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(() => fold('')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(jsonl({ ...user('u1', null, 'one'), timestamp: 'soon' }))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(jsonl(user('u1', null, 'one'), compression('c1', 'u1', 'not a list')))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });
});

describe('properties', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
  const text = words;
  const parent = fc.option(ids, { nil: null });
  /** A record of any kind Qwen Code writes, linked anywhere (cycles, missing parents and repeated uuids included). */
  const anyRecord = fc.oneof(
    fc.tuple(ids, parent, text).map(([id, up, words]) => user(id, up, words)),
    fc.tuple(ids, parent, text).map(([id, up, words]) => assistant(id, up, words)),
    fc.tuple(ids, parent, text).map(([id, up, words]) => compression(id, up, summaryTurn(words))),
  );

  it('the fold never throws on arbitrary lines after a first record, and only ever carries text it was given', () => {
    const line = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), anyRecord.map((value) => JSON.stringify(value)), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const source = `${JSON.stringify(user('first', null, 'start'))}\n${lines.join('\n')}`;
        // Block by block: lines sharing a uuid carry all their parts as one message.
        const blocks = fold(source).messages.filter((message) => projectMessage(message) !== undefined).flatMap((message) => message.content);
        for (const block of blocks) expect(source).toContain(JSON.stringify(isTextBlock(block) ? block.text : '').slice(1, -1));
      }),
    );
  });

  type Message = ReturnType<typeof user>;

  /** The reference walk: from the last record, each parent looked up as the first record of that uuid by a scan of the file, stopping at a repeat or a missing parent. */
  function referenceChain(records: readonly Message[]): Message[] {
    const path: Message[] = [];
    let current = records.at(-1);
    while (current !== undefined && !path.some((found) => found.uuid === current!.uuid)) {
      path.unshift(current);
      const up = current.parentUuid;
      current = up === null ? undefined : records.find((candidate) => candidate.uuid === up);
    }
    return path;
  }

  it('the chain equals the reference model on any tree of messages with distinct uuids', () => {
    const message = fc.tuple(fc.boolean(), parent, text).map(([isUser, up, words]) => ({ isUser, up, words }));
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(ids, message), { selector: ([id]) => id, minLength: 1, maxLength: 6 }), (drawn) => {
        const records = drawn.map(([id, { isUser, up, words }]) => (isUser ? user : assistant)(id, up, words));
        const expected = referenceChain(records).map((found): Item => [found.type as 'user' | 'assistant', found.message.parts[0]!.text]);
        expect(carried(fold(jsonl(...records)))).toEqual(expected);
      }),
    );
  });

  it('a compression keeps exactly its summary and what follows it on the chain', () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 8 }), text, fc.array(text, { maxLength: 5 }), (before, summary, after) => {
        const chain = before.map((words, index) => (index % 2 === 0 ? user : assistant)(`m${index}`, index === 0 ? null : `m${index - 1}`, words));
        const cut = compression('c', chain.length === 0 ? null : `m${chain.length - 1}`, summaryTurn(summary));
        const later = after.map((words, index) => user(`l${index}`, index === 0 ? 'c' : `l${index - 1}`, words));
        const expected: Item[] = [['checkpoint', summary], ...after.map((words): Item => ['user', words])];
        expect(carried(fold(jsonl(user('first', null, 'start'), ...chain.map((record, index) => (index === 0 ? { ...record, parentUuid: 'first' } : record)), cut, ...later)))).toEqual(expected);
      }),
    );
  });
});

describe('hostile Qwen Code files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(jsonl(user('u1', null, huge))));

  it('deep nesting refuses the file before it is parsed, whole or glued', () => {
    expect(() => fold(`${jsonl(user('u1', null, 'one'))}${'['.repeat(100_000)}\n`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(() => fold(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}{}\n`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  it('a cycle in parentUuid cuts the chain instead of looping', () => {
    expect(carried(fold(jsonl(user('a', 'b', 'one'), assistant('b', 'a', 'two'))))).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
    ]);
    expect(carried(fold(jsonl(user('a', 'a', 'self'))))).toEqual([['user', 'self']]);
  });

  it('a chain of 300,000 records folds in linear time', () => {
    const records = Array.from({ length: 300_000 }, (_, index) => (index % 2 === 0 ? user : assistant)(`e${index}`, index === 0 ? null : `e${index - 1}`, `t${index}`));
    const started = performance.now();
    // Joined here: spread into jsonl(), 300,000 arguments would overflow the stack.
    expect(carried(fold(records.map((record) => JSON.stringify(record)).join('\n')))).toHaveLength(300_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('a file over the size bound is refused, and a link out of the projects folder is not followed', async () => {
    const home = join(scratch, 'hostile');
    const chats = join(home, '.qwen', 'projects', '-w', 'chats');
    mkdirSync(chats, { recursive: true });
    const big = '00000000-0000-0000-0000-00000000000b';
    writeFileSync(join(chats, `${big}.jsonl`), jsonl(user('u1', null, 'y'.repeat(4096))));
    writeFileSync(join(scratch, 'outside.jsonl'), jsonl(user('u1', null, 'outside')));
    symlinkSync(join(scratch, 'outside.jsonl'), join(chats, '00000000-0000-0000-0000-00000000000c.jsonl'));
    const source = transcriptSource(qwenCodeFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    expect(await source.listSessions()).toEqual([]);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([[`qwen-code:${big}`, 'SOURCE_SESSION_TOO_LARGE']]);
  });
});

describe('a Qwen Code home', () => {
  it('reads $QWEN_RUNTIME_DIR, else $QWEN_HOME (a leading ~ is the home), else ~/.qwen; archived sessions and ledgers are not sessions', async () => {
    const home = join(scratch, 'moved');
    const id = '11111111-2222-3333-4444-555555555555';
    const chats = join(home, 'qwen-home', 'projects', '-w', 'chats');
    mkdirSync(join(chats, 'archive'), { recursive: true });
    writeFileSync(join(chats, `${id}.jsonl`), jsonl(user('u1', null, 'moved here')));
    writeFileSync(join(chats, `${id}.ledger.jsonl`), jsonl(user('u1', null, 'ledger')));
    writeFileSync(join(chats, 'archive', '99999999-2222-3333-4444-555555555555.jsonl'), jsonl(user('u1', null, 'archived')));
    const source = transcriptSource(qwenCodeFormat, { environment: { home, env: { QWEN_HOME: '~/qwen-home' } }, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['Qwen Code · moved here'], problems: [] });
    expect(qwenCodeFormat.home({ home, env: {} })).toBe(join(home, '.qwen', 'projects'));
    expect(qwenCodeFormat.home({ home, env: { QWEN_HOME: '/q', QWEN_RUNTIME_DIR: '/r' } })).toBe(join('/r', 'projects'));
  });
});
