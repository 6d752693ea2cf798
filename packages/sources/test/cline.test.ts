/**
 * Cline's sessions (#33): the real session the Cline CLI 3.0.65 wrote
 * offline, the compaction sidecar projected as Cline projects it (prefix
 * hash, legacy boundary key), the manifest's facts, properties over
 * generated messages, and hostile files.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agentFolders, transcriptSource, type Transcript } from '@sessref/sources';
import { clineFormat } from '../src/cline/index.js';
import { displayUserInput } from '../src/cline/user-input.js';
import { carried, itFoldsAHugeMessage, itReadsEverySample, listing, samplesOf, scratchFolder, words, type Item } from './support.js';

const SAMPLES = samplesOf('cline');
const SAMPLE_HOME = join(SAMPLES, 'real-3.0.65');
const SAMPLE_ID = '1796536653507_cccr6';
const STARTED = '2026-12-06T05:57:33.525Z';

const scratch = scratchFolder('sessref-cline-');

const FOLDER = '/h/.cline/data/sessions/s';
const FILE = { nativeId: 's', path: `${FOLDER}/s.json`, home: '/h/.cline/data/sessions', companions: [`${FOLDER}/s.messages.json`, `${FOLDER}/s.compaction.json`] };
const MANIFEST = { version: 1, session_id: 's', started_at: STARTED, cwd: '/work', metadata: { title: 'the title' } };

/** Fold a session from its manifest, messages and sidecar (each left out when `undefined`). */
function fold(manifest: unknown, messages?: unknown, compaction?: unknown): Transcript {
  const companions = new Map<string, string>();
  const put = (path: string, value: unknown) => value !== undefined && companions.set(path, typeof value === 'string' ? value : JSON.stringify(value));
  put(FILE.companions[0]!, messages);
  put(FILE.companions[1]!, compaction);
  return clineFormat.fold(typeof manifest === 'string' ? manifest : JSON.stringify(manifest), FILE, companions);
}

const transcript = (...messages: unknown[]) => ({ version: 1, agent: 'lead', sessionId: 's', messages });
const user = (id: string, text: string) => ({ id, role: 'user', content: [{ type: 'text', text: `<user_input mode="act">${text}</user_input>` }], ts: 1 });
const assistant = (id: string, text: string) => ({ id, role: 'assistant', content: [{ type: 'text', text }], ts: 2 });
const summary = (text: string) => ({ role: 'user', content: [{ type: 'text', text: `Context summary:\n\n${text}` }], metadata: { kind: 'compaction_summary', displayRole: 'system', summary: text } });
const sidecar = (count: number, messages: unknown[], anchor: { source_prefix_hash?: string; source_last_message_key?: string }) => ({ version: 1, updated_at: STARTED, source_message_count: count, ...anchor, messages });

describe('the shared Cline samples', () => {
  const data = 'real-3.0.65/.cline/data';
  const folder = `${data}/sessions/${SAMPLE_ID}`;
  const conversation: Item[] = [
    ['checkpoint', 'Hello from the fake model. (request 4)\n\n## Files\nRead:\n- none\nModified:\n- none'],
    ['assistant', 'Hello from the fake model. (request 2)'],
    ['user', 'second prompt: thanks'],
    ['assistant', 'Hello from the fake model. (request 3)'],
    ['user', 'third prompt after compaction'],
    ['assistant', 'Hello from the fake model. (request 5)'],
  ];
  // A headless prompt with a run_commands call, a TUI prompt, `/compact`, a TUI prompt: the sidecar's prefix hash matches, so its summary and kept tail come first, as in the request Cline sent.
  const session = async () => {
    const source = transcriptSource(clineFormat, { environment: { home: SAMPLE_HOME, env: {} }, watch: false });
    expect(await listing(source)).toEqual({
      headers: [{ id: `cline:${SAMPLE_ID}`, createdAt: Date.parse(STARTED), cwd: '/home/user/project' }],
      titles: ['Cline · first prompt: say hi'],
      problems: [],
    });
    const snapshot = await source.readSurface(`cline:${SAMPLE_ID}`);
    expect(carried({ createdAt: 0, messages: [...snapshot.messages], throughRecord: null })).toEqual(conversation);
    expect(snapshot.capturedThroughSeq).toBe(7);
  };
  const expectations: Record<string, () => void | Promise<void>> = {
    [`${folder}/${SAMPLE_ID}.json`]: session,
    [`${folder}/${SAMPLE_ID}.messages.json`]: session,
    [`${folder}/${SAMPLE_ID}.compaction.json`]: () => {
      const read = (name: string) => readFileSync(join(SAMPLES, folder, `${SAMPLE_ID}.${name}`), 'utf8');
      expect(carried(fold(read('json'), read('messages.json'), read('compaction.json')))).toEqual(conversation);
      // Without the sidecar, Cline would send the whole transcript.
      expect(carried(fold(read('json'), read('messages.json')))[0]).toEqual(['user', 'first prompt: say hi']);
    },
    // The session index, provider settings (a dummy key) and global settings are not read.
    [`${data}/db/sessions.db`]: session,
    [`${data}/settings/providers.json`]: session,
    [`${data}/settings/global-settings.json`]: session,
  };

  itReadsEverySample(SAMPLES, expectations);
});

describe('the fold', () => {
  it('carries what the user typed and assistant text only: never tool calls or results, reasoning, or text Cline injects', () => {
    const messages = transcript(
      user('u1', 'list files'),
      { id: 'a1', role: 'assistant', content: [{ type: 'thinking', thinking: 'THOUGHT' }, { type: 'tool_use', id: 'c', name: 'run_commands', input: { commands: ['CALL'] } }] },
      { id: 't1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: [{ query: 'ls', result: 'RESULT' }] }] },
      { id: 'x1', role: 'user', content: [{ type: 'text', text: 'INJECTED' }] },
      assistant('a2', 'two files'),
      { id: 'u2', role: 'user', content: '<user_input mode="plan">plan it<mode_notice>NOTICE</mode_notice></user_input>' },
      { id: 'u3', role: 'user', content: [{ type: 'text', text: '<user_command slash="review">the diff</user_command>' }] },
    );
    expect(carried(fold(MANIFEST, messages))).toEqual([
      ['user', 'list files'],
      ['assistant', 'two files'],
      ['user', 'plan it'],
      ['user', '/review the diff'],
    ]);
  });

  it('a sidecar is used only when its anchor matches: a wrong hash, a count past the transcript or a wrong boundary key leaves the transcript whole', () => {
    const source = transcript(user('u1', 'one'), assistant('a1', 'reply'), user('u2', 'two'));
    const whole: Item[] = [
      ['user', 'one'],
      ['assistant', 'reply'],
      ['user', 'two'],
    ];
    expect(carried(fold(MANIFEST, source, sidecar(2, [summary('S')], { source_prefix_hash: 'sha256:0' })))).toEqual(whole);
    expect(carried(fold(MANIFEST, source, sidecar(4, [summary('S')], { source_last_message_key: 'id:a1' })))).toEqual(whole);
    expect(carried(fold(MANIFEST, source, sidecar(2, [summary('S')], { source_last_message_key: 'id:u1' })))).toEqual(whole);
    expect(carried(fold(MANIFEST, source, { ...sidecar(2, [summary('S')], { source_last_message_key: 'id:a1' }), version: 2 }))).toEqual(whole);
    expect(carried(fold(MANIFEST, source, '{not json'))).toEqual(whole);
    // A legacy sidecar (no hash) whose boundary key names the last compacted message.
    expect(carried(fold(MANIFEST, source, sidecar(2, [summary('S')], { source_last_message_key: 'id:a1' })))).toEqual([
      ['checkpoint', 'S'],
      ['user', 'two'],
    ]);
  });

  it("takes the manifest's title, start time and cwd; else the first prompt; refuses a manifest that is not one", () => {
    const messages = transcript(user('u1', ' fix the\n  build '));
    expect(fold(MANIFEST, messages)).toMatchObject({ title: 'the title', createdAt: Date.parse(STARTED), cwd: '/work', throughRecord: 0 });
    expect(fold({ ...MANIFEST, metadata: {} }, messages).title).toBe('fix the build');
    expect(fold({ ...MANIFEST, metadata: {} })).toMatchObject({ messages: [], throughRecord: null });
    expect(fold({ ...MANIFEST, is_subagent: true }).offered).toBe(false);
    expect(() => fold({ version: 1 })).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold({ ...MANIFEST, started_at: 'soon' })).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_UNSUPPORTED' }));
    expect(() => fold('{not json')).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(() => fold(MANIFEST, { messages: 'none' })).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
  });

  it('shows user input as formatDisplayUserInput does', () => {
    expect(displayUserInput('<user_input mode="act">hi</user_input>')).toBe('hi');
    expect(displayUserInput('<user_input mode="act">unclosed')).toBe('unclosed');
    expect(displayUserInput('<user_command slash="team">spawn a team of agents for the following task: ship it</user_command>')).toBe('/team ship it');
    expect(displayUserInput('<user_command slash="compact"></user_command>')).toBe('/compact');
    expect(displayUserInput('<user_input>a<environment_notice>E</environment_notice>b</user_input>')).toBe('ab');
  });
});

describe('properties', () => {
  const text = words;
  const message = fc.tuple(fc.boolean(), text).map(([isUser, words]) => ({ isUser, words }));

  it('the fold never throws on arbitrary messages and sidecars, and only ever carries text it was given', () => {
    const anyValue = fc.jsonValue({ maxDepth: 4 });
    fc.assert(
      fc.property(fc.array(fc.oneof(anyValue, message.map(({ isUser, words }) => (isUser ? user : assistant)('m', words))), { maxLength: 12 }), anyValue, (messages, compaction) => {
        const given = JSON.stringify([messages, compaction]);
        for (const [, words] of carried(fold(MANIFEST, transcript(...messages), compaction))) for (const line of words.split('\n')) expect(given).toContain(JSON.stringify(line).slice(1, -1));
      }),
    );
  });

  it('equals the reference projection: a matching legacy sidecar gives its messages then the transcript after its count, a stale one the whole transcript', () => {
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 10 }), fc.nat(), text, fc.boolean(), (drawn, cut, words, stale) => {
        const messages = drawn.map(({ isUser, words: said }, index) => (isUser ? user : assistant)(`m${index}`, said));
        const count = 1 + (cut % messages.length);
        const state = sidecar(count, [summary(words)], { source_last_message_key: stale ? 'id:gone' : `id:m${count - 1}` });
        const item = ({ isUser, words: said }: { isUser: boolean; words: string }): Item => [isUser ? 'user' : 'assistant', said];
        const expected: Item[] = stale ? drawn.map(item) : [['checkpoint', words], ...drawn.slice(count).map(item)];
        expect(carried(fold(MANIFEST, transcript(...messages), state))).toEqual(expected);
      }),
    );
  });
});

describe('hostile Cline files stay bounded', () => {
  itFoldsAHugeMessage((huge) => fold(MANIFEST, transcript(user('u1', huge))));

  it('a prompt that opens a wrapper a million times without closing it is read in bounded time', () => {
    const started = performance.now();
    const opened = '<user_input mode="act">'.repeat(1_000_000);
    expect(carried(fold(MANIFEST, transcript({ id: 'u', role: 'user', content: opened })))).toHaveLength(0);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('deep nesting refuses the messages, and leaves a sidecar unread', () => {
    expect(() => fold(MANIFEST, `{"messages":${'['.repeat(100_000)}`)).toThrow(expect.objectContaining({ code: 'SOURCE_SESSION_CORRUPT' }));
    expect(carried(fold(MANIFEST, transcript(user('u1', 'one')), `${'['.repeat(100_000)}`))).toEqual([['user', 'one']]);
  });

  it('a companion over the size bound is refused by name, and a session folder linked from outside is not followed', async () => {
    const home = join(scratch, 'hostile');
    const sessions = join(home, '.cline', 'data', 'sessions');
    const big = join(sessions, 'big');
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, 'big.json'), JSON.stringify({ ...MANIFEST, session_id: 'big' }));
    writeFileSync(join(big, 'big.messages.json'), JSON.stringify(transcript(user('u1', 'y'.repeat(4096)))));
    mkdirSync(join(scratch, 'outside'));
    writeFileSync(join(scratch, 'outside', 'out.json'), JSON.stringify(MANIFEST));
    symlinkSync(join(scratch, 'outside'), join(sessions, 'out'));
    const source = transcriptSource(clineFormat, { environment: { home, env: {} }, maxFileBytes: 1024, watch: false });
    expect(await source.listSessions()).toEqual([]);
    expect(source.problems().map((problem) => [problem.sessionId, problem.error.code, problem.error.message])).toEqual([['cline:big', 'SOURCE_SESSION_TOO_LARGE', expect.stringContaining('big/big.messages.json is') as unknown]]);
  });
});

describe('companions and the listing cache', () => {
  it('what the fold made of the messages is kept only while they are unchanged: a refusal goes once they are rewritten, in this process and the next', async () => {
    const home = join(scratch, 'cached');
    const folder = join(home, '.cline', 'data', 'sessions', 's1');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 's1.json'), JSON.stringify({ ...MANIFEST, session_id: 's1', metadata: {} }));
    writeFileSync(join(folder, 's1.messages.json'), '{"messages": [');
    const open = () => transcriptSource(clineFormat, { environment: { home, env: {} }, listingCacheFile: join(scratch, 'cline-listing.json'), watch: false });
    const first = open();
    expect(await first.listSessions()).toEqual([]);
    expect(first.problems().map((problem) => problem.error.code)).toEqual(['SOURCE_SESSION_CORRUPT']);
    const stamp = (await first.changeStamps()).get('cline:s1');
    writeFileSync(join(folder, 's1.messages.json'), JSON.stringify(transcript(user('u1', 'saved at last'))));
    expect((await listing(first)) as object).toMatchObject({ titles: ['Cline · saved at last'], problems: [] });
    expect((await first.changeStamps()).get('cline:s1')).not.toBe(stamp);
    expect((await listing(open())) as object).toMatchObject({ titles: ['Cline · saved at last'], problems: [] });
  });
});

describe('a Cline home', () => {
  it('reads $CLINE_SESSION_DATA_DIR, else $CLINE_DATA_DIR/sessions, else $CLINE_DIR/data/sessions, else ~/.cline/data/sessions', async () => {
    const home = join(scratch, 'moved');
    const folder = join(home, 'cline-data', 'sessions', 's1');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 's1.json'), JSON.stringify({ ...MANIFEST, session_id: 's1', metadata: {} }));
    writeFileSync(join(folder, 's1.messages.json'), JSON.stringify(transcript(user('u1', 'moved here'))));
    const source = transcriptSource(clineFormat, { environment: { home, env: { CLINE_DATA_DIR: ` ${join(home, 'cline-data')} ` } }, watch: false });
    expect((await listing(source)) as object).toMatchObject({ titles: ['Cline · moved here'], problems: [] });
    expect(clineFormat.home({ home, env: {} })).toBe(join(home, '.cline', 'data', 'sessions'));
    expect(clineFormat.home({ home, env: { CLINE_DIR: '/c' } })).toBe('/c/data/sessions');
    expect(clineFormat.home({ home, env: { CLINE_DIR: '/c', CLINE_SESSION_DATA_DIR: '/s' } })).toBe('/s');
    // What commands that write refuse as a root: the sessions folder, never the folder around one the variable names.
    expect(agentFolders({ home, env: { CLINE_SESSION_DATA_DIR: '/s' } }).filter((folder) => folder.name === 'cline').map((folder) => folder.folder)).toEqual(['/s', join(home, '.cline', 'data', 'sessions')]);
  });
});
