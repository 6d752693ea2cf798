/**
 * pi's sessions (#33): the real session pi 0.73.1 wrote offline, the JSONL
 * tree walked from its last entry, the latest compaction's kept entries, the
 * titles, properties over generated records, and hostile files.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transcriptSource, type Transcript } from '@sessref/sources';
import { piFormat } from '../src/pi/index.js';
import { carried, itFoldsAHugeMessage, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

const SAMPLES = samplesOf('pi');
const SAMPLE_HOME = join(SAMPLES, 'real-0.73.1');
const SAMPLE_ID = '01a249d8-a5af-7223-99e0-32009016f9c6';

const scratch = scratchFolder('sessref-pi-');

function fold(text: string): Transcript {
  return piFormat.fold(text, { nativeId: 'x', path: '/h/.pi/agent/sessions/--w--/s.jsonl', home: '/h/.pi/agent/sessions' });
}

const jsonl = (...records: unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');
const HEADER = { type: 'session', version: 3, id: 'sid', timestamp: '2026-12-06T05:34:24.688Z', cwd: '/work' };
const TIME = '2026-12-06T05:35:00.000Z';
const entry = <Fields extends object>(id: string, parentId: string | null, fields: Fields) => ({ id, parentId, timestamp: TIME, ...fields });
const user = (id: string, parentId: string | null, text: string) => entry(id, parentId, { type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });
const assistant = (id: string, parentId: string | null, text: string) => entry(id, parentId, { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text }] } });
const compaction = (id: string, parentId: string | null, summary: string, firstKeptEntryId: string) => entry(id, parentId, { type: 'compaction', summary, firstKeptEntryId, tokensBefore: 1 });

describe('the shared pi samples', () => {
  const session = `.pi/agent/sessions/--home-user-project--/2026-12-06T05-34-24-688Z_${SAMPLE_ID}.jsonl`;
  const expectations: Record<string, () => void | Promise<void>> = {
    // `-p` with a bash call, `-c -p`, an RPC compaction keeping the tail from the second prompt, a prompt, `set_session_name`.
    [`real-0.73.1/${session}`]: () => {
      const transcript = fold(readFileSync(join(SAMPLE_HOME, session), 'utf8'));
      expect(carried(transcript)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 4)'],
        ['user', 'second prompt: thanks'],
        ['assistant', 'Hello from the fake model. (request 3)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 5)'],
      ]);
      expect(transcript).toMatchObject({ createdAt: Date.parse('2026-12-06T05:34:24.688Z'), cwd: '/home/user/project', title: 'Fake scouting session', throughRecord: 12 });
    },
    // pi's settings and providers beside `sessions/`: no session, so the sample home lists exactly the one above.
    'real-0.73.1/.pi/agent/models.json': () => sampleHomeListsOneSession(),
    'real-0.73.1/.pi/agent/settings.json': () => sampleHomeListsOneSession(),
  };

  async function sampleHomeListsOneSession(): Promise<void> {
    const source = transcriptSource(piFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [{ id: `pi:${SAMPLE_ID}`, createdAt: Date.parse('2026-12-06T05:34:24.688Z'), cwd: '/home/user/project' }],
      titles: ['pi · Fake scouting session'],
      problems: [],
    });
  }

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('walks from the last entry of the file, so an abandoned branch is not carried', () => {
    const text = jsonl(HEADER, user('u1', null, 'start'), assistant('a1', 'u1', 'old answer'), assistant('a2', 'u1', 'new answer'), user('u2', 'a2', 'go on'));
    expect(carried(fold(text))).toEqual([
      ['user', 'start'],
      ['assistant', 'new answer'],
      ['user', 'go on'],
    ]);
  });

  it('carries typed user text and assistant text only: never thinking, tool calls, tool results, shell runs, extension text or branch summaries', () => {
    const text = jsonl(
      HEADER,
      user('u1', null, 'list files'),
      entry('a1', 'u1', { type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'THOUGHT' }, { type: 'toolCall', id: 'c', name: 'bash', arguments: { command: 'CALL' } }] } }),
      entry('t1', 'a1', { type: 'message', message: { role: 'toolResult', toolCallId: 'c', toolName: 'bash', content: [{ type: 'text', text: 'RESULT' }] } }),
      entry('b1', 't1', { type: 'message', message: { role: 'bashExecution', command: 'ls', output: 'SHELL' } }),
      entry('x1', 'b1', { type: 'custom_message', customType: 'ext', content: 'EXTENSION', display: true }),
      entry('s1', 'x1', { type: 'branch_summary', fromId: 'u1', summary: 'BRANCH' }),
      entry('m1', 's1', { type: 'model_change', provider: 'p', modelId: 'm' }),
      entry('a2', 'm1', { type: 'message', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 'THOUGHT' }, { type: 'text', text: 'two files' }] } }),
      entry('u2', 'a2', { type: 'message', message: { role: 'user', content: 'plain string prompt' } }),
    );
    expect(carried(fold(text))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'plain string prompt'],
    ]);
  });

  it('titles a session by its latest session_info name (a blank one clears it), else its first user message on one line', () => {
    const base = [HEADER, user('u1', null, ' fix the\n  build '), assistant('a1', 'u1', 'ok')];
    expect(fold(jsonl(...base)).title).toBe('fix the build');
    expect(fold(jsonl(...base, entry('n1', 'a1', { type: 'session_info', name: 'Build' }))).title).toBe('Build');
    expect(fold(jsonl(...base, entry('n1', 'a1', { type: 'session_info', name: 'Build' }), entry('n2', 'n1', { type: 'session_info', name: ' ' }))).title).toBe('fix the build');
    expect(fold(jsonl(HEADER, entry('m', null, { type: 'model_change' }))).title).toBeUndefined();
  });

  it('reads a version 1 file as pi migrates it: entries chained in file order, firstKeptEntryIndex naming the kept entry', () => {
    const v1 = { type: 'session', id: 'old', timestamp: HEADER.timestamp, cwd: '/w' };
    const bare = (record: { id: string; parentId: string | null }) => ({ ...record, id: undefined, parentId: undefined });
    const text = jsonl(v1, bare(user('', null, 'one')), bare(assistant('', null, 'two')), bare(user('', null, 'three')), { type: 'compaction', summary: 'S', firstKeptEntryIndex: 3 }, bare(assistant('', null, 'four')));
    expect(carried(fold(text))).toEqual([
      ['checkpoint', 'S'],
      ['user', 'three'],
      ['assistant', 'four'],
    ]);
  });

  it('skips lines that are not JSON as pi does, and refuses a file without a session header or start time', () => {
    expect(carried(fold(`${jsonl(HEADER, user('u1', null, 'one'))}{not json\n${jsonl(assistant('a1', 'u1', 'two'))}{"type":"message","id":"u2`))).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
    ]);
    expect(() => fold(jsonl(user('u1', null, 'one')))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold('')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(jsonl({ ...HEADER, timestamp: 'soon' }))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
  });
});

describe('properties', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f');
  const text = words;
  /** An entry of any kind pi writes, linked anywhere (cycles, missing parents and repeated ids included). */
  const anyEntry = fc.oneof(
    fc.tuple(ids, fc.option(ids, { nil: null }), text).map(([id, parent, words]) => user(id, parent, words)),
    fc.tuple(ids, fc.option(ids, { nil: null }), text).map(([id, parent, words]) => assistant(id, parent, words)),
    fc.tuple(ids, fc.option(ids, { nil: null }), text, ids).map(([id, parent, words, kept]) => compaction(id, parent, words, kept)),
  );

  it('the fold never throws on arbitrary records after a header, and only ever carries text it was given', () => {
    const line = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), anyEntry.map((value) => JSON.stringify(value)), fc.string({ maxLength: 12 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const text = `${JSON.stringify(HEADER)}\n${lines.join('\n')}`;
        for (const [, words] of carried(fold(text))) expect(text).toContain(JSON.stringify(words).slice(1, -1));
      }),
    );
  });

  /** The reference walk: from the last entry, each parent looked up as the last entry of that id by a scan of the file, stopping at a repeat. */
  function referenceBranch(entries: readonly ReturnType<typeof user>[]): ReturnType<typeof user>[] {
    const path: ReturnType<typeof user>[] = [];
    let current = entries.at(-1);
    while (current !== undefined && !path.includes(current)) {
      path.unshift(current);
      const parent = current.parentId;
      current = parent === null ? undefined : entries.findLast((candidate) => candidate.id === parent);
    }
    return path;
  }

  it('the leaf walk equals the reference model on any tree of messages', () => {
    const message = fc.tuple(fc.boolean(), ids, fc.option(ids, { nil: null }), text).map(([isUser, id, parent, words]) => (isUser ? user : assistant)(id, parent, words));
    fc.assert(
      fc.property(fc.array(message, { maxLength: 20 }), (entries) => {
        const expected = referenceBranch(entries).map((found): Item => [found.message.role as 'user' | 'assistant', found.message.content[0]!.text]);
        expect(carried(fold(jsonl(HEADER, ...entries)))).toEqual(expected);
      }),
    );
  });

  it('a compaction keeps exactly its summary, the entries from firstKeptEntryId up to it, and what follows', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.nat(), fc.boolean(), fc.array(text, { maxLength: 5 }), (before, keptAt, keptKnown, after) => {
        const chain = before.map((words, index) => (index % 2 === 0 ? user : assistant)(`m${index}`, index === 0 ? null : `m${index - 1}`, words));
        const kept = keptAt % before.length;
        const cut = compaction('c', `m${before.length - 1}`, 'SUMMARY', keptKnown ? `m${kept}` : 'gone');
        const later = after.map((words, index) => user(`l${index}`, index === 0 ? 'c' : `l${index - 1}`, words));
        const expected: Item[] = [
          ['checkpoint', 'SUMMARY'],
          ...(keptKnown ? chain.slice(kept) : []).map((found): Item => [found.message.role as 'user' | 'assistant', found.message.content[0]!.text]),
          ...after.map((words): Item => ['user', words]),
        ];
        expect(carried(fold(jsonl(HEADER, ...chain, cut, ...later)))).toEqual(expected);
      }),
    );
  });
});

describe('hostile pi files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(jsonl(HEADER, user('u1', null, huge))));

  it('deep nesting refuses the file before it is parsed', () => {
    expect(() => fold(`${jsonl(HEADER)}${'['.repeat(100_000)}\n`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(() => fold(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}\n`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  it('a cycle in parentId cuts the branch instead of looping', () => {
    expect(carried(fold(jsonl(HEADER, user('a', 'b', 'one'), assistant('b', 'a', 'two'))))).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
    ]);
    expect(carried(fold(jsonl(HEADER, user('a', 'a', 'self'))))).toEqual([['user', 'self']]);
  });

  it('a chain of 300,000 entries folds in linear time', () => {
    const entries = Array.from({ length: 300_000 }, (_, index) => (index % 2 === 0 ? user : assistant)(`e${index}`, index === 0 ? null : `e${index - 1}`, `t${index}`));
    const started = performance.now();
    // Joined here: spread into jsonl(), 300,000 arguments would overflow the stack.
    expect(carried(fold([HEADER, ...entries].map((record) => JSON.stringify(record)).join('\n')))).toHaveLength(300_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('a file over the size bound is refused, and a link out of the sessions folder is not followed', async () => {
    const home = join(scratch, 'hostile');
    const folder = join(home, '.pi', 'agent', 'sessions', '--w--');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '2026-12-06T05-34-24-688Z_big.jsonl'), jsonl(HEADER, user('u1', null, 'y'.repeat(4096))));
    writeFileSync(join(scratch, 'outside.jsonl'), jsonl(HEADER, user('u1', null, 'outside')));
    symlinkSync(join(scratch, 'outside.jsonl'), join(folder, '2026-12-06T05-34-24-688Z_out.jsonl'));
    const source = transcriptSource(piFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    expect(await source.listSessions()).toEqual([]);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([['pi:big', 'SOURCE_SESSION_TOO_LARGE']]);
  });
});

describe('a pi home', () => {
  it('reads $PI_CODING_AGENT_DIR (a leading ~ is the home) instead of ~/.pi/agent', async () => {
    const home = join(scratch, 'moved');
    const folder = join(home, 'agent-dir', 'sessions', '--w--');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, '2026-12-06T05-34-24-688Z_moved.jsonl'), jsonl(HEADER, user('u1', null, 'moved here')));
    const source = transcriptSource(piFormat, { environment: { home, env: { PI_CODING_AGENT_DIR: '~/agent-dir' } }, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['pi · moved here'], problems: [] });
    expect(piFormat.home({ home, env: {} })).toBe(join(home, '.pi', 'agent', 'sessions'));
  });
});
