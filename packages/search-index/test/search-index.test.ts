import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorCode, redactSecrets, type ContentBlockLike, type SessionSource, type SurfaceMessage } from '@sessref/core';
import { openSearchIndex, type SearchIndex } from '@sessref/search-index';
import { ASCII, foldCodePoint, foldedMappedForm, isUnspaced, mappedForm, searchForm } from '../src/form.js';

// Fake sources: the interface under test's input, built with the core's types.

interface FakeSession {
  createdAt: number;
  cwd?: string;
  messages: SurfaceMessage[];
  /** Bumped on every change: what the stamp is made of. */
  version: number;
  broken?: boolean;
}

interface FakeSource extends SessionSource {
  sessions: Map<string, FakeSession>;
  reads: string[];
  set(id: string, messages: SurfaceMessage[], createdAt?: number, cwd?: string): void;
}

function fakeSource(name = 'fake'): FakeSource {
  const sessions = new Map<string, FakeSession>();
  const reads: string[] = [];
  return {
    name,
    sessions,
    reads,
    set(id, messages, createdAt = sessions.get(id)?.createdAt ?? 1_700_000_000_000 + sessions.size, cwd) {
      sessions.set(id, { createdAt, ...(cwd === undefined ? {} : { cwd }), messages, version: (sessions.get(id)?.version ?? 0) + 1 });
    },
    owns: (id) => sessions.has(id),
    changeStamps: () => Promise.resolve(new Map([...sessions].map(([id, session]) => [id, `v${session.version}`]))),
    listSessions: () => Promise.resolve([...sessions].map(([id, session]) => ({ id, createdAt: session.createdAt }))),
    readTitles: (ids) => Promise.resolve(ids.map((sessionId) => ({ sessionId, status: 'fulfilled' as const, title: undefined }))),
    readSurface(id) {
      const session = sessions.get(id);
      if (session === undefined || session.broken) return Promise.reject(new Error(`cannot read ${id}`));
      reads.push(id);
      const { createdAt, cwd } = session;
      return Promise.resolve({ session: { id, createdAt, ...(cwd === undefined ? {} : { cwd }) }, capturedThroughSeq: null, messages: session.messages });
    },
  };
}

const text = (value: string): ContentBlockLike => ({ type: 'text', text: value });
const user = (value: string): SurfaceMessage => ({ role: 'user', origin: 'direct-user', content: [text(value)] });
const assistant = (value: string): SurfaceMessage => ({ role: 'assistant', origin: 'direct-user', content: [text(value)] });
const checkpoint = (value: string): SurfaceMessage => ({ role: 'user', origin: 'compact-checkpoint', content: [text(value)] });

const open: SearchIndex[] = [];
async function memoryIndex(...sources: SessionSource[]): Promise<SearchIndex> {
  const index = await openSearchIndex({ location: { memory: true }, sources });
  open.push(index);
  return index;
}
async function fileIndex(file: string, ...sources: SessionSource[]): Promise<SearchIndex> {
  const index = await openSearchIndex({ location: { file }, sources });
  open.push(index);
  return index;
}
afterEach(() => {
  for (const index of open.splice(0)) index.close();
});

async function found(index: SearchIndex, query: string, limit = 50): Promise<string[]> {
  return (await index.search({ query, limit })).hits.map((hit) => hit.sessionId);
}

describe('recall: every substring of a carried message finds its session', () => {
  const alphabets = {
    latin: [...'abcdefghijklmnopqrstuvwxyzÀÉÎõüçßĳ', 'e\u0301'],
    cjk: [...'結果は安定していますデータ处理中文字한국어입니다'],
    cyrillic: [...'абвгдежзийклмнопрстуфхцчшщыэюяЁЖ'],
    arabic: [...'ابتثجحخدذرزسشصضطظعغفقكلمنهوي', 'بَ', 'تُ'],
    emoji: ['😀', '🎉', '👍🏽', '👨\u200D👩\u200D👧', '❤️', '🇯🇵', '🚀'],
  };
  const glue = [' ', ' ', ', ', '. ', '\n', '-', ''];
  const piece = fc.oneof(...Object.values(alphabets).map((chars) => fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 8 }).map((cs) => cs.join(''))));
  const message = fc.array(fc.tuple(piece, fc.constantFrom(...glue)), { minLength: 1, maxLength: 12 }).map((parts) => parts.map(([word, sep]) => `${word}${sep}`).join(''));

  it('finds the session for any substring of two or more characters, in any of the scripts', async () => {
    await fc.assert(
      fc.asyncProperty(message, fc.array(message, { maxLength: 3 }), fc.nat(), fc.nat(), async (carried, others, from, length) => {
        const chars = Array.from(carried);
        const start = from % chars.length;
        const substring = chars.slice(start, start + 2 + (length % 12)).join('');
        fc.pre(Array.from(searchForm(substring)).length >= 2);
        // Glued Latin pieces can spell a credential's shape (`sk-` and 20 letters): the index holds it redacted (packages/dsh/test/redaction.test.ts).
        fc.pre([carried, ...others].every((text) => redactSecrets(text).count === 0));
        const source = fakeSource();
        others.forEach((other, at) => source.set(`other-${at}`, [user(other)]));
        source.set('target', [assistant('no match here'), user(carried)]);
        const index = await memoryIndex(source);
        await index.refresh();
        const { hits } = await index.search({ query: substring, limit: 10 });
        index.close();
        const hit = hits.find((candidate) => candidate.sessionId === 'target');
        expect(hit, `"${substring}" in "${carried}"`).toBeDefined();
        // Every hit holds the query in the message it names, at the ranges it gives.
        for (const { ranges, message: where, sessionId } of hits) {
          const held = source.sessions.get(sessionId)!.messages[where.index]!;
          const heldText = (held.content[0] as { text: string }).text;
          expect(searchForm(heldText.slice(ranges[0]![0], ranges[0]![1]))).toBe(searchForm(substring));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('folds mixed text a stretch at a time to exactly the form it folds to one code point at a time', () => {
    // searchForm and mappedForm take native shortcuts through ASCII; the fold one code point at a time is the rule both must keep.
    const mixed = fc.oneof(message, fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-composite' }));
    fc.assert(
      fc.property(fc.array(fc.oneof(mixed, fc.constantFrom('Deploy v2.1 — ', '。', ' 😀!', '\u0301', 'ΣΑΣ ')), { maxLength: 6 }), (parts) => {
        const text = parts.join('');
        expect(searchForm(text)).toBe(foldedMappedForm(text).text);
        expect(mappedForm(text)).toEqual(foldedMappedForm(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('maps ASCII text back to its spans exactly as the fold one code point at a time does', () => {
    const ascii = fc.oneof(fc.string({ unit: fc.constantFrom(...'aZ9 -_.,!\t\n\u0000\u007f'.split('')) }), fc.string({ unit: 'binary-ascii' }));
    fc.assert(
      fc.property(ascii, (text) => {
        expect(mappedForm(text)).toEqual(foldedMappedForm(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('folds every ASCII code point by its table exactly as the Unicode rule folds it, none of them unspaced', () => {
    // The table is made by rule so that ASCII text never compiles the Unicode classes; the rule itself is the reference.
    for (let code = 0; code < 128; code += 1) {
      expect(ASCII[code], `U+${code.toString(16).padStart(4, '0')}`).toEqual(foldCodePoint(code));
      expect(isUnspaced(String.fromCharCode(code))).toBe(false);
    }
    expect(isUnspaced('結果')).toBe(true);
  });

  it('finds a word as it is typed, accents and case aside, and a word inside a longer one', async () => {
    const source = fakeSource();
    source.set('s', [user('Déployer le Snapshot, puis vérifier: 結果は安定しています 😀')]);
    const index = await memoryIndex(source);
    await index.refresh();
    for (const query of ['deployer le snap', 'SNAPSHOT', 'ployer le', 'napsh', '結果', '果は安', '😀', 'verifier 結']) {
      expect(await found(index, query), query).toEqual(['s']);
    }
    const [hit] = (await index.search({ query: 'snap', limit: 8 })).hits;
    expect(hit).toMatchObject({ match: 'prefix', message: { index: 0, role: 'user', checkpoint: false }, ranges: [[12, 16]] });
    expect(hit!.snippet.text.slice(hit!.ranges[0]![0] - hit!.snippet.offset, hit!.ranges[0]![1] - hit!.snippet.offset)).toBe('Snap');
  });
});

describe('precision: only carried text is ever found', () => {
  it('never finds tool output, reasoning, tool calls, injected context or other plugins’ messages', async () => {
    const source = fakeSource();
    source.set('s', [
      user('carried question'),
      { role: 'user', origin: 'other', content: [text('injected walrus context')] },
      { role: 'tool', origin: 'other', content: [text('tool output zebra')] },
      { role: 'assistant', origin: 'direct-user', content: [{ type: 'thinking', thinking: 'reasoning yak' } as ContentBlockLike, { type: 'tool_use', input: 'narwhal' } as ContentBlockLike, text('carried answer')] },
      checkpoint('summary of earlier work'),
    ]);
    const index = await memoryIndex(source);
    await index.refresh();
    for (const query of ['walrus', 'zebra', 'yak', 'narwhal', 'injected', 'output']) expect(await found(index, query), query).toEqual([]);
    expect(await found(index, 'carried answer')).toEqual(['s']);
    expect((await index.search({ query: 'earlier work', limit: 8 })).hits[0]?.message).toMatchObject({ index: 4, checkpoint: true });
  });

  it('never matches across two messages', async () => {
    const source = fakeSource();
    source.set('s', [user('ends with alpha'), assistant('beta starts this one')]);
    const index = await memoryIndex(source);
    await index.refresh();
    expect(await found(index, 'alpha beta')).toEqual([]);
    expect(await found(index, 'pha bet')).toEqual([]);
  });
});

describe('queries', () => {
  it('treats every FTS5 operator character as data', async () => {
    const source = fakeSource();
    source.set('literal', [user('alpha OR beta "quoted" NEAR(x y) body: col* ^start -minus (paren) a+b')]);
    source.set('plain', [user('alpha gamma delta')]);
    const index = await memoryIndex(source);
    await index.refresh();
    for (const query of ['alpha OR beta', '"quoted"', 'NEAR(x y)', 'body: col*', '^start', '-minus', '(paren)', 'a+b', 'OR', 'AND alpha']) {
      const hits = await found(index, query);
      expect(hits, query).toEqual(query === 'AND alpha' ? [] : ['literal']);
    }
    for (const query of ['"', '*', '()', '"""', ':', '-']) expect(await found(index, query), query).toEqual([]);
  });

  it('ranks whole words, then the word being typed, then matches inside a word; newest first within each', async () => {
    const source = fakeSource();
    source.set('inner-new', [user('redeploy today')], 5000);
    source.set('prefix-new', [user('deployment today')], 4000);
    source.set('phrase-old', [user('deploy today')], 1000);
    source.set('phrase-new', [user('we deploy today')], 3000);
    const index = await memoryIndex(source);
    await index.refresh();
    const { hits, complete } = await index.search({ query: 'deploy', limit: 10 });
    expect(hits.map((hit) => [hit.sessionId, hit.match])).toEqual([
      ['phrase-new', 'phrase'],
      ['phrase-old', 'phrase'],
      ['prefix-new', 'prefix'],
      ['inner-new', 'substring'],
    ]);
    expect(complete).toBe(true);
    expect(await found(index, 'deploy', 2)).toEqual(['phrase-new', 'phrase-old']);
    expect((await index.search({ query: 'deploy', limit: 10, exclude: ['phrase-new'] })).hits.map((hit) => hit.sessionId)).not.toContain('phrase-new');
  });

  it('refuses a query that is not text, and stops when cancelled', async () => {
    const index = await memoryIndex(fakeSource());
    await expect(index.search({ query: 'a\0b', limit: 8 })).rejects.toMatchObject({ code: 'SESSION_REFERENCE_INVALID_QUERY' });
    await expect(index.search({ query: 'x'.repeat(300), limit: 8 })).rejects.toMatchObject({ code: 'SESSION_REFERENCE_INVALID_QUERY' });
    await expect(index.search({ query: 'ok', limit: 0 })).rejects.toMatchObject({ code: 'SESSION_REFERENCE_INVALID_REFERENCE' });
    await expect(index.search({ query: 'ok', limit: 8, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'SESSION_REFERENCE_CANCELLED' });
  });
});

describe('incremental refresh', () => {
  it('reads only what changed, re-indexes it alone and forgets what is gone', async () => {
    const source = fakeSource();
    for (let at = 0; at < 20; at += 1) source.set(`s${at}`, [user(`session number ${at} original`)]);
    const index = await memoryIndex(source);
    expect(await index.refresh()).toMatchObject({ sessions: 20, indexed: 20, removed: 0, skipped: [] });
    source.reads.length = 0;
    expect(await index.refresh()).toMatchObject({ indexed: 0, removed: 0 });
    expect(source.reads).toEqual([]);

    source.set('s3', [user('session number 3 rewritten')]);
    source.sessions.delete('s7');
    expect(await index.refresh()).toMatchObject({ sessions: 19, indexed: 1, removed: 1 });
    expect(source.reads).toEqual(['s3']);
    expect(await found(index, 'rewritten')).toEqual(['s3']);
    expect(await found(index, 'number 3 original')).toEqual([]);
    expect(await found(index, 'number 7')).toEqual([]);
    expect((await found(index, 'original')).length).toBe(18);
    expect(await index.stats()).toMatchObject({ sessions: 19 });
  });

  it('skips and reports a session whose read fails, and indexes it once it changes', async () => {
    const source = fakeSource();
    source.set('good', [user('healthy text')]);
    source.set('bad', [user('healthy text too')]);
    source.sessions.get('bad')!.broken = true;
    const index = await memoryIndex(source);
    const report = await index.refresh();
    expect(report).toMatchObject({ indexed: 1, skipped: [{ source: 'fake', sessionId: 'bad' }] });
    expect(await found(index, 'healthy')).toEqual(['good']);
    expect((await index.refresh()).skipped).toEqual([]);
    source.set('bad', [user('healthy text too')]);
    await index.refresh();
    expect((await found(index, 'healthy')).sort()).toEqual(['bad', 'good']);
  });

  it('keeps what it holds of a source whose listing fails, and reports it', async () => {
    const source = fakeSource();
    source.set('kept', [user('still searchable')]);
    const index = await memoryIndex(source);
    await index.refresh();
    source.changeStamps = () => Promise.reject(new Error('listing failed'));
    expect((await index.refresh()).failedSources).toMatchObject([{ source: 'fake' }]);
    expect(await found(index, 'searchable')).toEqual(['kept']);
  });

  it('stops between steps when cancelled, and the next refresh goes on from there', async () => {
    const source = fakeSource();
    for (let at = 0; at < 200; at += 1) source.set(`s${at}`, [user(`text ${at}`)]);
    const index = await memoryIndex(source);
    const stop = new AbortController();
    const progress: number[] = [];
    await expect(
      index.refresh(stop.signal, (step) => {
        progress.push(step.indexed);
        stop.abort();
      }),
    ).rejects.toMatchObject({ code: 'SESSION_REFERENCE_CANCELLED' });
    expect(progress).toEqual([64]);
    source.reads.length = 0;
    expect(await index.refresh()).toMatchObject({ indexed: 136 });
    expect(source.reads).toHaveLength(136);
  });

  it('keeps sessions of two sources apart, ids alike', async () => {
    const one = fakeSource('one');
    const two = fakeSource('two');
    one.set('same', [user('from the first')]);
    two.set('same', [user('from the second')]);
    const index = await memoryIndex(one, two);
    await index.refresh();
    expect((await index.search({ query: 'from the', limit: 8 })).hits.map((hit) => hit.source).sort()).toEqual(['one', 'two']);
  });

  it('gives each hit the creation time and cwd of the header its text was read with, and no cwd where the header has none', async () => {
    const source = fakeSource();
    source.set('placed', [user('a shared phrase')], 1_700_000_000_002, '/work/placed');
    source.set('unplaced', [user('a shared phrase')], 1_700_000_000_001);
    const index = await memoryIndex(source);
    await index.refresh();
    const hits = (await index.search({ query: 'shared phrase', limit: 8 })).hits;
    expect(hits.map(({ sessionId, createdAt, cwd }) => ({ sessionId, createdAt, cwd }))).toEqual([
      { sessionId: 'placed', createdAt: 1_700_000_000_002, cwd: '/work/placed' },
      { sessionId: 'unplaced', createdAt: 1_700_000_000_001, cwd: undefined },
    ]);
    expect(hits[1]).not.toHaveProperty('cwd');
  });
});

describe('the index file', () => {
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'sessref-search-index-'));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  async function populated(file: string): Promise<FakeSource> {
    const source = fakeSource();
    for (let at = 0; at < 50; at += 1) source.set(`s${at}`, [user(`persisted session ${at} with some words`)]);
    const index = await fileIndex(file, source);
    await index.refresh();
    index.close();
    return source;
  }

  it('persists: a new process reads nothing that did not change', async () => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    source.reads.length = 0;
    const index = await fileIndex(file, source);
    expect(index.notices).toEqual([]);
    expect(await index.refresh()).toMatchObject({ indexed: 0 });
    expect(await found(index, 'session 42')).toEqual(['s42']);
  });

  it('sees what another connection wrote to the file', async () => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    const one = await fileIndex(file, source);
    const two = await fileIndex(file, source);
    expect(await one.refresh()).toMatchObject({ indexed: 0 });
    source.set('s1', [user('changed by the other')]);
    source.sessions.delete('s2');
    expect(await two.refresh()).toMatchObject({ indexed: 1, removed: 1 });
    expect(await one.refresh()).toMatchObject({ indexed: 0, removed: 0 });
    expect(await found(one, 'by the other')).toEqual(['s1']);
    expect(await found(one, 'persisted session')).not.toContain('s2');
  });

  it.each([
    ['garbage', (file: string) => writeFileSync(file, 'this is not a database at all, not even close'.repeat(100))],
    ['another application’s database', (file: string) => new DatabaseSync(file).exec('CREATE TABLE other (x); PRAGMA application_id = 42;')],
    ['another schema version', (file: string) => new DatabaseSync(file).exec('PRAGMA user_version = 99;')],
    ['damaged pages', (file: string) => scribble(file)],
  ])('rebuilds a file holding %s, never trusting it', async (_what, damage) => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    damage(file);
    const index = await fileIndex(file, source);
    await index.refresh();
    expect(await found(index, 'session 42')).toEqual(['s42']);
    expect(index.notices.join('\n')).toMatch(/rebuilt/);
  });

  it.each([
    ['a trigger that aborts every insert', "CREATE TRIGGER planted BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'planted'); END;", /rebuilt: damaged: planted/],
    ['a trigger that aborts every delete', "CREATE TRIGGER planted BEFORE DELETE ON messages BEGIN SELECT RAISE(ABORT, 'planted'); END;", /rebuilt: damaged: planted/],
    ['a view in place of a table', "DROP TABLE terms; CREATE VIEW terms AS SELECT 'x' AS reversed;", /rebuilt: damaged: cannot modify terms because it is a view/],
  ])('rebuilds a file holding %s: a write that fails is damage, never an outage', async (_what, plant, notice) => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    const planting = new DatabaseSync(file);
    planting.exec(plant);
    planting.close();
    source.set('s42', [user('changed after the plant')]);
    source.set('s50', [user('new after the plant')]);
    const index = await fileIndex(file, source);
    expect(await index.refresh()).toMatchObject({ sessions: 51 });
    expect(await found(index, 'after the plant')).toEqual(['s50', 's42']);
    expect(await found(index, 'session 7 ')).toEqual(['s7']);
    expect(index.notices.join('\n')).toMatch(notice);
    // What was planted went with the file.
    const rebuilt = new DatabaseSync(file);
    expect(rebuilt.prepare("SELECT name FROM sqlite_schema WHERE type IN ('trigger', 'view')").all()).toEqual([]);
    rebuilt.close();
  });

  it('rebuilds under an index already open when a trigger is planted while it runs', async () => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    const index = await fileIndex(file, source);
    expect(await index.refresh()).toMatchObject({ indexed: 0 });
    const planting = new DatabaseSync(file);
    planting.exec("CREATE TRIGGER planted BEFORE INSERT ON sessions BEGIN SELECT RAISE(ABORT, 'planted'); END;");
    planting.close();
    source.set('s3', [user('changed while open')]);
    await index.refresh();
    expect(await found(index, 'while open')).toEqual(['s3']);
    expect(index.notices.join('\n')).toMatch(/rebuilt: damaged: planted/);
  });

  it('keeps the index in memory, with a notice, when even the rebuilt file refuses writes', async () => {
    const file = join(directory, 'index.sqlite');
    const source = await populated(file);
    const index = await fileIndex(file, source);
    // Every rebuilt file gets the trigger again, as an attacker racing the rebuild would plant it.
    const { IndexTables } = await import('../src/tables.js');
    const put = IndexTables.prototype.put;
    const spy = vi.spyOn(IndexTables.prototype, 'put').mockImplementation(function (this: InstanceType<typeof IndexTables>, ...args: Parameters<typeof put>) {
      if ((this as unknown as { db: DatabaseSync }).db.location() !== null) throw Object.assign(new Error('planted'), { code: 'ERR_SQLITE_ERROR', errcode: 1811 });
      return put.apply(this, args);
    });
    try {
      source.set('s3', [user('changed again')]);
      await index.refresh();
      expect(await found(index, 'changed again')).toEqual(['s3']);
      expect(index.notices.join('\n')).toMatch(/rebuilt: damaged: planted[^]*not used, kept in memory for this process: planted/);
    } finally {
      spy.mockRestore();
    }
  });

  it('never follows a link planted at the index path or its journal', async () => {
    const victim = join(directory, 'victim');
    writeFileSync(victim, 'precious');
    const file = join(directory, 'index.sqlite');
    symlinkSync(victim, file);
    symlinkSync(victim, `${file}-wal`);
    const source = fakeSource();
    source.set('s', [user('linked text')]);
    const index = await fileIndex(file, source);
    await index.refresh();
    expect(await found(index, 'linked')).toEqual(['s']);
    expect(readFileSync(victim, 'utf8')).toBe('precious');
    expect(statSync(file).isFile()).toBe(true);
  });

  it('keeps the index in memory in a directory others can write', async () => {
    const shared = join(directory, 'shared');
    const { mkdirSync, chmodSync } = await import('node:fs');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const source = fakeSource();
    source.set('s', [user('in memory')]);
    const index = await fileIndex(join(shared, 'index.sqlite'), source);
    await index.refresh();
    expect(await found(index, 'memory')).toEqual(['s']);
    expect(index.notices.join('\n')).toMatch(/writable by other users/);
  });

  it('stays correct with two processes refreshing and searching one file', async () => {
    const file = join(directory, 'index.sqlite');
    const spec = join(directory, 'sessions.json');
    const sessions = Object.fromEntries(Array.from({ length: 300 }, (_, at) => [`s${at}`, `shared corpus entry ${at} 共有データ ${at % 7}`]));
    writeFileSync(spec, JSON.stringify(sessions));
    const [first, second] = await Promise.all([child(file, spec), child(file, spec)]);
    for (const result of [first, second]) {
      expect(result.error).toBeUndefined();
      expect(result.searches.every((count: number) => count >= 0)).toBe(true);
    }
    // Together they indexed every session once; neither saw a duplicate or an error.
    expect(first.indexed + second.indexed).toBeGreaterThanOrEqual(300);
    const source = fakeSource();
    for (const [id, value] of Object.entries(sessions)) source.set(id, [user(value)], 1_700_000_000_000);
    source.changeStamps = () => Promise.resolve(new Map(Object.keys(sessions).map((id) => [id, 'v1'])));
    const index = await fileIndex(file, source);
    expect(await index.refresh()).toMatchObject({ indexed: 0, removed: 0 });
    expect(await index.stats()).toMatchObject({ sessions: 300 });
    expect(await found(index, 'corpus entry 123 ')).toEqual(['s123']);
    expect((await index.search({ query: '共有データ 3', limit: 100 })).hits).toHaveLength(43);
  });
});

it('refuses with a coded error where node:sqlite is missing (Node 20)', async () => {
  vi.resetModules();
  vi.doMock('node:sqlite', () => {
    throw new Error('No such built-in module: node:sqlite');
  });
  try {
    const { openSearchIndex: openFresh } = await import('../src/index.js');
    const refusal: unknown = await openFresh({ location: { memory: true }, sources: [] }).catch((error: unknown) => error);
    expect(errorCode(refusal)).toBe('SESSION_REFERENCE_SEARCH_DISABLED');
  } finally {
    vi.doUnmock('node:sqlite');
  }
});

/** Overwrite every page past the first (which holds the file header and schema) with noise from its start: the file opens, its tables do not read. */
function scribble(file: string): void {
  const size = statSync(file).size;
  const descriptor = openSync(file, 'r+');
  try {
    for (let at = 4096; at < size; at += 4096) writeSync(descriptor, Buffer.alloc(512, 0xa5), 0, 512, at);
  } finally {
    closeSync(descriptor);
  }
}

const BUILT = fileURLToPath(new URL('../dist/index.js', import.meta.url));

/**
 * A separate Node process on the same index file: it refreshes from the
 * sessions in `spec` (all created at one instant, stamped `v1`) while
 * searching between batches, and prints what it saw. Runs the built package.
 */
async function child(file: string, spec: string): Promise<{ indexed: number; searches: number[]; error?: string }> {
  const script = `
    import { readFileSync } from 'node:fs';
    const { openSearchIndex } = await import(${JSON.stringify(BUILT)});
    const sessions = JSON.parse(readFileSync(${JSON.stringify(spec)}, 'utf8'));
    const source = {
      name: 'fake',
      owns: (id) => id in sessions,
      changeStamps: async () => new Map(Object.keys(sessions).map((id) => [id, 'v1'])),
      listSessions: async () => [],
      readTitles: async () => [],
      readSurface: async (id) => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { session: { id, createdAt: 1700000000000 }, capturedThroughSeq: null,
          messages: [{ role: 'user', origin: 'direct-user', content: [{ type: 'text', text: sessions[id] }] }] };
      },
    };
    const index = await openSearchIndex({ location: { file: ${JSON.stringify(file)} }, sources: [source] });
    const searches = [];
    try {
      const report = await index.refresh(undefined, () => {
        void index.search({ query: 'corpus entry', limit: 8 }).then((result) => searches.push(result.hits.length));
      });
      searches.push((await index.search({ query: '共有', limit: 50 })).hits.length);
      process.stdout.write(JSON.stringify({ indexed: report.indexed, searches }));
    } catch (error) {
      process.stdout.write(JSON.stringify({ indexed: 0, searches, error: String(error) }));
    } finally {
      index.close();
    }
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { indexed: number; searches: number[]; error?: string };
}
