/**
 * GitHub Copilot CLI's sessions (#33): the real session Copilot CLI 1.0.102
 * wrote offline, the latest applied compaction standing for what came
 * before, `workspace.yaml` names as titles, properties over generated
 * events, and hostile files.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type * as Platform from '@sessref/platform';
import { transcriptSource, type Transcript } from '@sessref/sources';
import { copilotFormat } from '../src/copilot/index.js';
import { workspaceName } from '../src/copilot/workspace-name.js';
import { carried, itFoldsAHugeMessage, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

/** The `workspace.yaml` files read, in order: every read of a regular file goes through the platform's bounded read. */
const workspaceReads = vi.hoisted((): string[] => []);
vi.mock('@sessref/platform', async (importOriginal) => {
  const platform = await importOriginal<typeof Platform>();
  const readRegularFile: typeof platform.readRegularFile = (path, maxBytes) => {
    if (path.endsWith('workspace.yaml')) workspaceReads.push(path);
    return platform.readRegularFile(path, maxBytes);
  };
  return { ...platform, readRegularFile };
});

const SAMPLES = samplesOf('copilot');
const SAMPLE_HOME = join(SAMPLES, 'real-1.0.102');
const SAMPLE_ID = 'd5ef058c-73ff-4d5b-9d85-3bb30bc835e3';
const STARTED = '2026-12-06T05:50:53.995Z';

const scratch = scratchFolder('sessref-copilot-');

function fold(text: string): Transcript {
  return copilotFormat.fold(text, { nativeId: 'x', path: '/h/.copilot/session-state/x/events.jsonl', home: '/h/.copilot/session-state' });
}

const jsonl = (...records: unknown[]): string => records.map((record) => `${JSON.stringify(record)}\n`).join('');
let counter = 0;
const event = (type: string, data: object, extra: object = {}) => ({ type, data, id: `e${(counter += 1)}`, timestamp: STARTED, parentId: null, ...extra });
const START = event('session.start', { sessionId: 'sid', version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', startTime: STARTED, context: { cwd: '/work' } });
const user = (content: string, data: object = {}) => event('user.message', { content, transformedContent: `<current_datetime>now</current_datetime>\n\n${content}`, ...data });
const assistant = (content: string, data: object = {}) => event('assistant.message', { messageId: 'm', content, toolRequests: [], ...data });
const compacted = (summaryContent: string, data: object = {}) => event('session.compaction_complete', { success: true, outcome: 'applied', summaryContent, ...data });

describe('the shared Copilot CLI samples', () => {
  const folder = `real-1.0.102/.copilot/session-state/${SAMPLE_ID}`;
  const expectations: Record<string, () => void | Promise<void>> = {
    // `-p` with a bash call, `--continue -p`, `--continue -p "/compact"`, `--continue -p` after it.
    [`${folder}/events.jsonl`]: () => {
      const transcript = fold(readFileSync(join(SAMPLES, folder, 'events.jsonl'), 'utf8'));
      expect(carried(transcript)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 4)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 5)'],
      ]);
      expect(transcript).toMatchObject({ createdAt: Date.parse(STARTED), cwd: '/home/user/project', title: 'first prompt: say hi', throughRecord: 39 });
    },
    // The session's name, as Copilot wrote it.
    [`${folder}/workspace.yaml`]: () => {
      expect(workspaceName(readFileSync(join(SAMPLES, folder, 'workspace.yaml'), 'utf8'))).toBe('first prompt: say hi');
      return sampleHomeListsOneSession();
    },
    // The checkpoint files hold the same summary as the event; the databases, the rewind tracking and the config are not read.
    [`${folder}/checkpoints/001-session-d5ef058c.md`]: () => sampleHomeListsOneSession(),
    [`${folder}/checkpoints/index.md`]: () => sampleHomeListsOneSession(),
    [`${folder}/rewind-file-snapshots/tracking.json`]: () => sampleHomeListsOneSession(),
    [`${folder}/session.db`]: () => sampleHomeListsOneSession(),
    'real-1.0.102/.copilot/session-store.db': () => sampleHomeListsOneSession(),
    'real-1.0.102/.copilot/config.json': () => sampleHomeListsOneSession(),
  };

  async function sampleHomeListsOneSession(): Promise<void> {
    const source = transcriptSource(copilotFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [{ id: `copilot:${SAMPLE_ID}`, createdAt: Date.parse(STARTED), cwd: '/home/user/project' }],
      titles: ['Copilot CLI · first prompt: say hi'],
      problems: [],
    });
  }

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('carries typed user text and assistant text only: never reasoning, tool calls or results, injected or autopilot prompts, sub-agents, the system prompt', () => {
    const text = jsonl(
      START,
      user('list files'),
      event('system.message', { role: 'system', content: 'SYSTEM PROMPT' }),
      assistant('', { reasoningText: 'THOUGHT', toolRequests: [{ toolCallId: 'c', name: 'bash', arguments: { command: 'CALL' } }] }),
      event('tool.execution_start', { toolCallId: 'c', toolName: 'bash', arguments: { command: 'CALL' } }),
      event('tool.execution_complete', { toolCallId: 'c', success: true, result: { content: 'RESULT' } }),
      event('assistant.reasoning', { reasoningId: 'r', content: 'REASONING' }),
      assistant('two files', { reasoningText: 'THOUGHT' }),
      user('SKILL', { source: 'skill-pdf' }),
      user('CONTINUE', { isAutopilotContinuation: true }),
      assistant('SUBAGENT', { parentToolCallId: 'c' }),
      { ...assistant('SUBAGENT'), agentId: 'a1' },
      { ...assistant('EPHEMERAL'), ephemeral: true },
      user('thanks'),
    );
    expect(carried(fold(text))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'thanks'],
    ]);
  });

  it('an applied compaction stands for everything before it; a failed or not applied one changes nothing; /clear drops what came before', () => {
    const before = [user('one'), assistant('reply one')];
    expect(carried(fold(jsonl(START, ...before, compacted('SUMMARY'), user('two'))))).toEqual([
      ['checkpoint', 'SUMMARY'],
      ['user', 'two'],
    ]);
    const kept: Item[] = [
      ['user', 'one'],
      ['assistant', 'reply one'],
      ['user', 'two'],
    ];
    expect(carried(fold(jsonl(START, ...before, compacted('S', { success: false }), user('two'))))).toEqual(kept);
    expect(carried(fold(jsonl(START, ...before, compacted('S', { outcome: 'cancelled' }), user('two'))))).toEqual(kept);
    expect(carried(fold(jsonl(START, ...before, event('session.context_cleared', { messagesCleared: 2 }), user('two'))))).toEqual([['user', 'two']]);
  });

  it('titles a session by its first typed prompt on one line when the workspace names none', () => {
    expect(fold(jsonl(START, user('SKILL', { source: 'skill-pdf' }), user(' fix the\n  build '), compacted('S'), user('later'))).title).toBe('fix the build');
    expect(fold(jsonl(START)).title).toBeUndefined();
  });

  it('reads workspace.yaml names as the yaml package writes them: plain, quoted, folded over lines, block scalars', () => {
    expect(workspaceName('id: x\nname: fix the build\nuser_named: false\n')).toBe('fix the build');
    expect(workspaceName("name: 'it''s: here'\n")).toBe("it's: here");
    expect(workspaceName('name: "tab\\there \\"quoted\\""\n')).toBe('tab here "quoted"');
    expect(workspaceName('name: a long prompt that the yaml writer folds onto\n  the next line at eighty columns\nuser_named: false\n')).toBe('a long prompt that the yaml writer folds onto the next line at eighty columns');
    expect(workspaceName('name: |-\n  first line\n  second line\ncwd: /w\n')).toBe('first line second line');
    expect(workspaceName("name: ''\n")).toBeUndefined();
    expect(workspaceName('cwd: /w\n')).toBeUndefined();
  });

  it('refuses a file that is not a Copilot session, and a complete line that is not JSON; a torn last line is left out', () => {
    expect(() => fold(jsonl(user('one')))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold('')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(jsonl({ ...START, data: { context: {} }, timestamp: 'soon' }))).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold(`${jsonl(START)}{not json\n${jsonl(user('one'))}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(carried(fold(`${jsonl(START, user('one'))}{"type":"user.message","data":{"content":"to`))).toEqual([['user', 'one']]);
  });
});

describe('properties', () => {
  const text = words;
  /** The events that make a conversation, in any order and number. */
  const anyEvent = fc.oneof(
    text.map((words) => ({ kind: 'user' as const, words, event: user(words) })),
    text.map((words) => ({ kind: 'assistant' as const, words, event: assistant(words) })),
    text.map((words) => ({ kind: 'compaction' as const, words, event: compacted(words) })),
    fc.constant({ kind: 'clear' as const, words: '', event: event('session.context_cleared', { messagesCleared: 1 }) }),
    fc.constant({ kind: 'tool' as const, words: '', event: event('tool.execution_complete', { toolCallId: 'c', success: true, result: { content: 'RESULT' } }) }),
  );

  it('the fold never throws on arbitrary events after session.start, and only ever carries text it was given', () => {
    const line = fc.oneof(fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)), anyEvent.map((drawn) => JSON.stringify(drawn.event)));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (lines) => {
        const source = [JSON.stringify(START), ...lines].join('\n');
        for (const [, words] of carried(fold(source))) expect(source).toContain(JSON.stringify(words).slice(1, -1));
      }),
    );
  });

  it('equals the reference model: from the latest compaction (its summary) or clear, every user and assistant text after it, in order', () => {
    fc.assert(
      fc.property(fc.array(anyEvent, { maxLength: 20 }), (drawn) => {
        const cut = drawn.findLastIndex((found) => found.kind === 'compaction' || found.kind === 'clear');
        const after = drawn.slice(cut + 1).filter((found) => found.kind === 'user' || found.kind === 'assistant');
        const expected: Item[] = [...(drawn[cut]?.kind === 'compaction' ? [['checkpoint', drawn[cut].words] satisfies Item] : []), ...after.map((found): Item => [found.kind, found.words])];
        expect(carried(fold(jsonl(START, ...drawn.map((found) => found.event))))).toEqual(expected);
      }),
    );
  });
});

describe('hostile Copilot CLI files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(jsonl(START, user(huge))));

  it('deep nesting refuses the file before it is parsed', () => {
    expect(() => fold(`${jsonl(START)}${'['.repeat(100_000)}\n${jsonl(user('one'))}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  it('300,000 events fold in linear time', () => {
    const events = Array.from({ length: 300_000 }, (_, index) => (index % 2 === 0 ? user : assistant)(`t${index}`));
    const started = performance.now();
    // Joined here: spread into jsonl(), 300,000 arguments would overflow the stack.
    expect(carried(fold([START, ...events].map((record) => JSON.stringify(record)).join('\n')))).toHaveLength(300_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('a file over the size bound is refused, links out of session-state are not followed, and a huge or linked workspace.yaml names nothing', async () => {
    const home = join(scratch, 'hostile');
    const state = join(home, '.copilot', 'session-state');
    const big = join(state, 'big');
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, 'events.jsonl'), jsonl(START, user('y'.repeat(4096))));
    writeFileSync(join(big, 'workspace.yaml'), `name: ${'z'.repeat(128 * 1024)}\n`);
    const named = join(state, 'named');
    mkdirSync(named);
    writeFileSync(join(named, 'events.jsonl'), jsonl(START, user('own prompt')));
    writeFileSync(join(scratch, 'outside.yaml'), 'name: planted\n');
    symlinkSync(join(scratch, 'outside.yaml'), join(named, 'workspace.yaml'));
    mkdirSync(join(scratch, 'outside-session'));
    writeFileSync(join(scratch, 'outside-session', 'events.jsonl'), jsonl(START, user('outside')));
    symlinkSync(join(scratch, 'outside-session'), join(state, 'out'));
    const source = transcriptSource(copilotFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['Copilot CLI · own prompt'] });
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code])).toEqual([['copilot:big', 'SOURCE_SESSION_TOO_LARGE']]);
  });
});

describe('a Copilot CLI home', () => {
  it('keeps each name with the listing cache: a new process reads no workspace.yaml but a changed one', async () => {
    const home = join(scratch, 'kept-names');
    const state = join(home, '.copilot', 'session-state');
    for (const [id, name] of [['s1', 'First'], ['s2', 'Second']] as const) {
      mkdirSync(join(state, id), { recursive: true });
      writeFileSync(join(state, id, 'events.jsonl'), jsonl(START, user(`prompt of ${id}`)));
      writeFileSync(join(state, id, 'workspace.yaml'), `id: ${id}\nname: ${name}\n`);
    }
    mkdirSync(join(scratch, 'kept-names-cache'), { mode: 0o700 });
    const options = { environment: { home, env: {} }, listingCacheFile: join(scratch, 'kept-names-cache', 'copilot.json'), watch: false };
    const titles = async () => ((await listing(transcriptSource(copilotFormat, options))) as { titles: string[] }).titles.sort();
    expect(await titles()).toEqual(['Copilot CLI · First', 'Copilot CLI · Second']);
    workspaceReads.length = 0;
    expect(await titles()).toEqual(['Copilot CLI · First', 'Copilot CLI · Second']);
    expect(workspaceReads).toEqual([]);
    writeFileSync(join(state, 's2', 'workspace.yaml'), 'id: s2\nname: Renamed\n');
    expect(await titles()).toEqual(['Copilot CLI · First', 'Copilot CLI · Renamed']);
    expect(workspaceReads).toEqual([join(state, 's2', 'workspace.yaml')]);
    // A long-lived source follows a rename through its watch, and lists again with no name read.
    const watched = transcriptSource(copilotFormat, { environment: { home, env: {} } });
    try {
      expect(((await listing(watched)) as { titles: string[] }).titles.sort()).toEqual(['Copilot CLI · First', 'Copilot CLI · Renamed']);
      writeFileSync(join(state, 's1', 'workspace.yaml'), 'id: s1\nname: Renamed too\n');
      expect(((await listing(watched)) as { titles: string[] }).titles.sort()).toEqual(['Copilot CLI · Renamed', 'Copilot CLI · Renamed too']);
      workspaceReads.length = 0;
      await listing(watched);
      expect(workspaceReads).toEqual([]);
    } finally {
      watched.close();
    }
  });

  it('reads $COPILOT_HOME instead of ~/.copilot; dot folders and folders without events.jsonl are no sessions', async () => {
    const home = join(scratch, 'moved');
    const state = join(home, 'copilot-home', 'session-state');
    mkdirSync(join(state, 's1'), { recursive: true });
    mkdirSync(join(state, 'empty'));
    mkdirSync(join(state, '.session-operation-locks'));
    writeFileSync(join(state, 's1', 'events.jsonl'), jsonl(START, user('moved here')));
    writeFileSync(join(state, 's1', 'workspace.yaml'), 'id: s1\nname: Renamed\nuser_named: true\n');
    writeFileSync(join(state, '.session-operation-locks', 'events.jsonl'), jsonl(START));
    const source = transcriptSource(copilotFormat, { environment: { home, env: { COPILOT_HOME: join(home, 'copilot-home') } }, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['Copilot CLI · Renamed'], problems: [] });
    expect(copilotFormat.home({ home, env: {} })).toBe(join(home, '.copilot', 'session-state'));
  });
});
