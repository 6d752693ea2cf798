/**
 * Content discovery (`contentSearch`) on the real host with dsh's own
 * full-text backend, `SqliteSessionQueryEngine` (SQLite FTS5), over roots the
 * real JSONL persistence wrote: what a snapshot would carry is found, nothing
 * else is; `candidates` appends content matches only when the key is on;
 * a host with search off answers with a coded error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it, vi } from 'vitest';
import { SessionId, type SessionEvent } from '@deepseek-ai/dsh-session';
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import { findPhrase, normalizeContentQuery, MAX_SNIPPET_LENGTH, type SessionReferenceContentHit } from '@sessref/core';
import SessionReferenceResolver, { formatSessionReferenceMention, sessionQueryStorage, type Config } from '@sessref/dsh';
import { ContentSearch } from '../src/search';
import {
  appendAssistant,
  appendExchange,
  appendInjected,
  appendToolResult,
  appendUser,
  compact,
  createSession,
  endTurn,
  makeAgent,
  runPreStep,
  setTitle,
  userPrompt,
  type Host,
  type HostOptions,
} from '@sessref/test-support';
import { expectReferenceError, loadOurs, stall, textOf, useScratch } from './support';
import { loadOracle } from './oracle';

const scratch = useScratch();
const ON: Config = { contentSearch: true };
const SEARCH: HostOptions['search'] = { path: ':memory:', openAt: 'first-search' };

/**
 * Write the corpus through a host with JSONL persistence and our plugin
 * (default configuration, to insert a real referenced snapshot), flush it,
 * and keep the writer for later appends. Each marker word lives in exactly one
 * kind of place.
 */
async function writeCorpus(root: string): Promise<Host> {
  const writer = await scratch.host({ root });
  await loadOurs(writer);
  const user = createSession(writer, { id: 'user-text', cwd: '/proj', createdAt: 1 });
  appendExchange(user, { user: 'Please look at the zebracrossing module.', assistant: 'Looking.' });
  setTitle(user, 'Crossings');

  const assistant = createSession(writer, { id: 'assistant-text', cwd: '/proj', createdAt: 2 });
  appendUser(assistant, 'What did you find?');
  const { callIds } = appendAssistant(assistant, {
    reasoning: 'Thinking about reasonmarker first.',
    text: 'The quokkafactor explains the slowdown.',
    toolCalls: [{ name: 'grep', arguments: { pattern: 'argumentmarker' } }],
  });
  appendToolResult(assistant, callIds[0]!, 'tooloutputmarker: 3 matches');
  endTurn(assistant);

  const checkpoint = createSession(writer, { id: 'checkpointed', createdAt: 3 });
  appendExchange(checkpoint, { user: 'The shadowmarker plan was wrong.', assistant: 'Noted, shadowmarker dropped.' });
  compact(checkpoint, 'Summary: we agreed on the narwhalplan instead.');
  appendExchange(checkpoint, { user: 'Continue after the checkpoint.', assistant: 'Continuing.' });

  const injected = createSession(writer, { id: 'injected', cwd: '/other', createdAt: 4 });
  appendUser(injected, 'Hello there.');
  appendInjected(injected, 'Reminder: injectmarker is a plugin note.');
  // Injected context that repeats a word the user also wrote: the user's message is the hit.
  appendInjected(injected, 'bothmarker bothmarker bothmarker in injected context');
  appendUser(injected, 'I said bothmarker once.');
  endTurn(injected);

  const source = createSession(writer, { id: 'snap-source', createdAt: 5 });
  appendExchange(source, { user: 'Remember the snapmarker detail.', assistant: 'Remembered.' });
  setTitle(source, 'Snap source');
  const citing = createSession(writer, { id: 'citing', createdAt: 6 });
  const mention = formatSessionReferenceMention({ sessionId: 'snap-source', label: 'Snap source' });
  const decision = await runPreStep(writer, makeAgent(writer, citing), [userPrompt(`Recall ${mention}`)], { record: true });
  expect(decision.kind).toBe('enter');
  endTurn(citing);

  const mixed = createSession(writer, { id: 'mixed', createdAt: 7 });
  appendUser(mixed, 'Check it.');
  const mixedCall = appendAssistant(mixed, { text: 'The walrusmarker is fine.', toolCalls: [{ name: 'read', arguments: { file: 'walrusmarker.txt' } }] });
  appendToolResult(mixed, mixedCall.callIds[0]!, 'ok');
  endTurn(mixed);

  for (const session of [user, assistant, checkpoint, injected, source, citing, mixed]) await writer.flush(session);
  return writer;
}

/** A fresh host over the root (nothing live), the sqlite backend as ctx.sessionQuery, our plugin, and a target agent. */
async function searcher(root: string, config: Config = ON, search: HostOptions['search'] | null = SEARCH) {
  const host = await scratch.host({ root, ...(search === null ? {} : { search }) });
  const resolver = await loadOurs(host, config);
  const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 100 }));
  return { host, resolver, agent };
}

/** The content blocks of a user or assistant message event. */
function contentOf(event: SessionEvent): ContentBlock[] {
  if (event.type === 'user/message') return event.data.content;
  if (event.type === 'assistant/message') return event.data.message.content;
  return [];
}

const ids = (hits: readonly { sessionId: string }[]) => hits.map((hit) => hit.sessionId);
const signal = () => new AbortController().signal;

describe('what a content search finds', () => {
  it('finds direct user text, assistant text and checkpoint text, each with its message', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);

    const [user] = await resolver.searchContent(agent, 'zebracrossing');
    expect(user).toMatchObject({ sessionId: 'user-text', label: 'Crossings', cwd: '/proj', createdAt: 1, role: 'user', checkpoint: false });
    expect(user!.mention).toBe(formatSessionReferenceMention({ sessionId: 'user-text', label: 'Crossings' }));
    expect(user!.snippet).toBe('Please look at the zebracrossing module.');
    expect(Object.keys(user!)).toEqual(['mention', 'sessionId', 'label', 'cwd', 'createdAt', 'seq', 'role', 'checkpoint', 'snippet']);

    const [assistant] = await resolver.searchContent(agent, 'QUOKKAFACTOR');
    expect(assistant).toMatchObject({ sessionId: 'assistant-text', label: 'assistant-text', role: 'assistant', checkpoint: false });
    expect(assistant!.snippet).toBe('The quokkafactor explains the slowdown.');

    const [checkpoint] = await resolver.searchContent(agent, 'narwhalplan');
    expect(checkpoint).toMatchObject({ sessionId: 'checkpointed', role: 'user', checkpoint: true });
    expect(checkpoint).not.toHaveProperty('cwd');
    expect(checkpoint!.snippet).toContain('narwhalplan');

    // Each hit names the message it found: the event at that seq has the text.
    for (const [hit, word] of [[user!, 'zebracrossing'], [assistant!, 'quokkafactor'], [checkpoint!, 'narwhalplan']] as const) {
      const { target } = await host.sessionQuery.readEvent({ sessionId: SessionId(hit.sessionId), seq: hit.seq });
      expect(findPhrase(textOf({ content: contentOf(target) }), word)).toHaveLength(1);
    }
  });

  it.each([
    ['tool output', 'tooloutputmarker'],
    ['reasoning', 'reasonmarker'],
    ['tool call arguments', 'argumentmarker'],
    ['injected context', 'injectmarker'],
    ['shadowed pre-compaction text', 'shadowmarker'],
  ])('never finds %s', async (_what, word) => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    // The backend itself does find the word somewhere in the logs: the filters and the verification leave it out.
    const anywhere = await host.sessionQuery.searchSessions({ query: word });
    if (word !== 'reasonmarker') expect(anywhere.items.length).toBeGreaterThan(0);
    expect(await resolver.searchContent(agent, word)).toEqual([]);
  });

  it('finds a referenced session by its own text, never the session that holds its snapshot', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    // The citing session's log holds the snapshot with the word, on its current surface.
    const inCiting = await host.sessionQuery.searchEvents({ sessionId: SessionId('citing'), query: 'snapmarker' });
    expect(inCiting.items.map((item) => item.surface)).toContain('current');
    expect(ids(await resolver.searchContent(agent, 'snapmarker'))).toEqual(['snap-source']);
  });

  it('falls back from a best match a snapshot would not carry to the message that has the phrase', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const page = await host.sessionQuery.searchSessions({ query: 'bothmarker' });
    const best = page.items[0]!.bestMatch;
    const [hit] = await resolver.searchContent(agent, 'bothmarker');
    expect(hit).toMatchObject({ sessionId: 'injected', role: 'user', snippet: 'I said bothmarker once.' });
    // The backend ranked the injected message (three matches) first; the hit names the user's message.
    expect(hit!.seq).not.toBe(best.seq);
  });

  it('takes the snippet of an assistant message from its text, never its tool calls', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root);
    const [hit] = await resolver.searchContent(agent, 'walrusmarker');
    expect(hit).toMatchObject({ sessionId: 'mixed', role: 'assistant', snippet: 'The walrusmarker is fine.' });
  });

  it('leaves out the agent\'s own session and cuts to the limit in relevance order', async () => {
    const root = await scratch.tempRoot();
    const writer = await scratch.host({ root });
    for (const [index, text] of ['common word', 'common word and common word again', 'nothing here'].entries()) {
      const session = createSession(writer, { id: `s${index}`, createdAt: index + 1 });
      appendExchange(session, { user: text, assistant: 'ok' });
      await writer.flush(session);
    }
    const host = await scratch.host({ root, search: SEARCH });
    const resolver = await loadOurs(host, ON);
    const s1 = await host.sessionQuery.readTitleSnapshot(SessionId('s1'));
    const agent = makeAgent(host, createSession(host, { id: 'viewer', createdAt: 50, ...(s1.session.cwd ? { cwd: s1.session.cwd } : {}) }));
    expect(ids(await resolver.searchContent(agent, 'common word'))).toEqual(['s1', 's0']);
    expect(ids(await resolver.searchContent(agent, 'common word', 1))).toEqual(['s1']);
    expect(ids(await resolver.searchContent(undefined, 'common word'))).toEqual(['s1', 's0']);
    await expectReferenceError(resolver.searchContent(agent, 'common', 0), 'SESSION_REFERENCE_INVALID_REFERENCE');
  });

  it('finds a session by the text another writer appended to its log since the last search', async () => {
    const root = await scratch.tempRoot();
    const writer = await writeCorpus(root);
    const { resolver, agent } = await searcher(root);
    expect(await resolver.searchContent(agent, 'latecomerword')).toEqual([]);
    const session = writer.sessions.get(SessionId('user-text'))!;
    appendExchange(session, { user: 'A latecomerword arrives.', assistant: 'Seen.' });
    await writer.flush(session);
    expect(await resolver.searchContent(agent, 'latecomerword')).toEqual([expect.objectContaining({ sessionId: 'user-text', snippet: 'A latecomerword arrives.' })]);
  });
});

describe('query handling', () => {
  it('treats FTS5 syntax as literal text', async () => {
    const root = await scratch.tempRoot();
    const writer = await scratch.host({ root });
    const texts = ['alpha beta', 'alpha OR beta appears literally', 'deployment', 'deploy now', 'near miss'];
    for (const [index, text] of texts.entries()) {
      const session = createSession(writer, { id: `q${index}`, createdAt: index + 1 });
      appendExchange(session, { user: text, assistant: 'ok' });
      await writer.flush(session);
    }
    const { resolver, agent } = await searcher(root);
    expect(ids(await resolver.searchContent(agent, 'alpha OR beta'))).toEqual(['q1']);
    expect(ids(await resolver.searchContent(agent, '"alpha" OR "beta"'))).toEqual(['q1']);
    expect(ids(await resolver.searchContent(agent, 'deploy*'))).toEqual(['q3']);
    expect(ids(await resolver.searchContent(agent, 'NEAR(alpha beta)'))).toEqual([]);
    expect(await resolver.searchContent(agent, '***')).toEqual([]);
    expect(await resolver.searchContent(agent, '   ')).toEqual([]);
    await expectReferenceError(resolver.searchContent(agent, 'a\0b'), 'SESSION_REFERENCE_INVALID_QUERY');
    await expectReferenceError(resolver.searchContent(agent, 'x'.repeat(257)), 'SESSION_REFERENCE_INVALID_QUERY');
  });

  it('answers any query with hits whose carried text has the phrase, or a coded refusal (property)', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const fragments = ['"', 'OR', 'NEAR', '*', '(', ')', '^', ':', 'col:', 'zebracrossing', 'quokkafactor', 'marker', 'the', 'snapmarker', '\0', '\u202e', 'é'];
    const query = fc.oneof(
      fc.array(fc.constantFrom(...fragments), { maxLength: 6 }).map((parts) => parts.join(' ')),
      fc.string({ maxLength: 40 }),
    );
    await fc.assert(
      fc.asyncProperty(query, async (text) => {
        let hits: SessionReferenceContentHit[];
        try {
          hits = await resolver.searchContent(agent, text);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('SESSION_REFERENCE_INVALID_QUERY');
          expect(text.includes('\0')).toBe(true);
          return;
        }
        const phrase = normalizeContentQuery(text);
        for (const hit of hits) {
          expect([...hit.snippet].length).toBeLessThanOrEqual(MAX_SNIPPET_LENGTH);
          expect(hit.snippet).not.toMatch(/[\p{Cc}\n]/u);
          const surface = await host.sessionQuery.readSurface(SessionId(hit.sessionId));
          const event = surface.events.find((candidate) => candidate.seq === hit.seq)!;
          expect(findPhrase(textOf({ content: contentOf(event) }), phrase).length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('cancellation', () => {
  it('refuses an aborted signal before any read, and cancels while the backend or a read hangs', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const aborted = new AbortController();
    aborted.abort(new Error('closed'));
    await expectReferenceError(resolver.searchContent(agent, 'zebracrossing', undefined, aborted.signal), 'SESSION_REFERENCE_CANCELLED');

    // The backend observes the signal itself.
    const controller = new AbortController();
    const pending = resolver.searchContent(agent, 'zebracrossing', undefined, controller.signal);
    controller.abort(new Error('next keystroke'));
    await expectReferenceError(pending, 'SESSION_REFERENCE_CANCELLED');

    // A verification read that hangs and ignores the signal: the search settles as cancelled at once.
    const stalled = stall(host.sessionQuery, 'readSurface');
    const reading = new AbortController();
    const verifying = resolver.searchContent(agent, 'quokkafactor', undefined, reading.signal);
    await stalled.called;
    reading.abort(new Error('next keystroke'));
    await expectReferenceError(verifying, 'SESSION_REFERENCE_CANCELLED');
    stalled.restore();
    // Nothing was left half-done: the next search verifies and answers.
    expect(ids(await resolver.searchContent(agent, 'quokkafactor'))).toEqual(['assistant-text']);
  });
});

/** Count `readSurface` calls on the host's query service from now on. */
function countReads(host: Host): { readonly count: number; restore(): void } {
  const spy = vi.spyOn(host.sessionQuery, 'readSurface');
  return {
    get count() {
      return spy.mock.calls.length;
    },
    restore: () => spy.mockRestore(),
  };
}

const MARKERS = ['zebracrossing', 'quokkafactor', 'narwhalplan', 'snapmarker', 'bothmarker', 'walrusmarker', 'injectmarker', 'tooloutputmarker', 'shadowmarker'];

describe('priming a long-lived host', () => {
  it('checks every session once, after which searches read only the index and answer as before', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const cold = await searcher(root);
    const expected = await Promise.all(MARKERS.map((word) => cold.resolver.searchContent(cold.agent, word)));

    const { host, resolver, agent } = await searcher(root);
    const sessions = (await host.sessionQuery.listSessions()).length;
    expect(await resolver.primeContentSearch()).toEqual({ sessions, read: sessions, skipped: 0 });
    const reads = countReads(host);
    const answers = await Promise.all(MARKERS.map((word) => resolver.searchContent(agent, word)));
    expect(answers).toEqual(expected);
    // Best matches a snapshot does not carry (injected context, a held snapshot) or carries only in part
    // (an assistant message with tool calls) are settled from the facts and the index: no log is read.
    expect(reads.count).toBe(0);
    reads.restore();
    // Nothing changed: a second priming reads nothing.
    expect(await resolver.primeContentSearch()).toEqual({ sessions, read: 0, skipped: 0 });
  });

  it('finds the same messages primed as a host that reads every hit (property)', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const primed = await searcher(root);
    await primed.resolver.primeContentSearch();
    const words = [...MARKERS, 'the', 'said', 'once', 'is', 'fine', 'plan', 'module', 'argumentmarker', 'reasonmarker'];
    const located = (hits: readonly SessionReferenceContentHit[]) => hits.map(({ sessionId, seq, role, checkpoint }) => ({ sessionId, seq, role, checkpoint }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 2 }), async (parts) => {
        const query = parts.join(' ');
        const cold = await searcher(root);
        expect(located(await primed.resolver.searchContent(primed.agent, query))).toEqual(located(await cold.resolver.searchContent(cold.agent, query)));
      }),
      { numRuns: 25 },
    );
  });

  it('joins a running priming, and still finds text appended after it', async () => {
    const root = await scratch.tempRoot();
    const writer = await writeCorpus(root);
    const { resolver, agent } = await searcher(root);
    const first = resolver.primeContentSearch();
    expect(resolver.primeContentSearch()).toBe(first);
    await first;
    const session = writer.sessions.get(SessionId('user-text'))!;
    appendExchange(session, { user: 'A latecomerword arrives.', assistant: 'Seen.' });
    await writer.flush(session);
    expect(await resolver.searchContent(agent, 'latecomerword')).toEqual([expect.objectContaining({ sessionId: 'user-text', snippet: 'A latecomerword arrives.' })]);
  });

  it('skips a session it cannot read, stops when cancelled, and refuses when search is off', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver } = await searcher(root);
    const read = host.sessionQuery.readSurface.bind(host.sessionQuery);
    const failing = vi.spyOn(host.sessionQuery, 'readSurface').mockImplementation((id) => (id === 'mixed' ? Promise.reject(new Error('disk error')) : read(id)));
    const sessions = (await host.sessionQuery.listSessions()).length;
    expect(await resolver.primeContentSearch()).toEqual({ sessions, read: sessions - 1, skipped: 1 });
    failing.mockRestore();

    const again = await searcher(root);
    const aborted = new AbortController();
    aborted.abort(new Error('host stopping'));
    await expectReferenceError(again.resolver.primeContentSearch(aborted.signal), 'SESSION_REFERENCE_CANCELLED');
    const stalled = stall(again.host.sessionQuery, 'readSurface');
    const stopping = new AbortController();
    const priming = again.resolver.primeContentSearch(stopping.signal);
    await stalled.called;
    stopping.abort(new Error('host stopping'));
    await expectReferenceError(priming, 'SESSION_REFERENCE_CANCELLED');
    stalled.restore();

    await expectReferenceError((await searcher(root, {})).resolver.primeContentSearch(), 'SESSION_REFERENCE_SEARCH_DISABLED');
    await expectReferenceError((await searcher(root, ON, { path: ':memory:', openAt: 'never' })).resolver.primeContentSearch(), 'SESSION_REFERENCE_SEARCH_DISABLED');
  });
});

describe('what content search remembers is bounded', () => {
  it('primes only what fits, forgets the least recently used sessions beyond the bounds, and answers the same either way', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, agent } = await searcher(root);
    const storage = sessionQueryStorage(() => host.sessionQuery);
    const bounded = new ContentSearch(() => host.sessionQuery, storage, { sessions: 2, text: 1_000 });
    const sessions = (await host.sessionQuery.listSessions()).length;
    expect(await bounded.prime()).toEqual({ sessions, read: 2, skipped: 0 });

    const unbounded = new ContentSearch(() => host.sessionQuery, storage);
    await unbounded.prime();
    for (const word of MARKERS) {
      const request = { query: word, limit: 5, exclude: agent.id };
      expect(await bounded.search(request)).toEqual(await unbounded.search(request));
    }
    // The two sessions remembered last are known: asking again reads nothing.
    const reads = countReads(host);
    await bounded.search({ query: 'walrusmarker', limit: 5 });
    await bounded.search({ query: 'bothmarker', limit: 5 });
    expect(reads.count).toBe(0);
    reads.restore();
  });

  it('keeps no session whose kept text alone exceeds the text bound: its hits are read each time', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host } = await searcher(root);
    // "mixed" keeps its assistant text (the message has a tool call): 25 code units.
    const bounded = new ContentSearch(() => host.sessionQuery, sessionQueryStorage(() => host.sessionQuery), { sessions: 100, text: 10 });
    const reads = countReads(host);
    for (let round = 1; round <= 2; round += 1) {
      expect(ids(await bounded.search({ query: 'walrusmarker', limit: 5 }))).toEqual(['mixed']);
      expect(reads.count).toBe(round);
    }
    reads.restore();
  });
});

describe('search turned off', () => {
  it('answers SESSION_REFERENCE_SEARCH_DISABLED when the host disables search, and candidates keep their title matches', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    // Both ways a dsh host turns search off: a backend that refuses (dsh web's `openAt: never`), and one without search at all.
    for (const search of [{ path: ':memory:', openAt: 'never' } as const, null]) {
      const { resolver, agent } = await searcher(root, ON, search);
      const error = await expectReferenceError(resolver.searchContent(agent, 'zebracrossing'), 'SESSION_REFERENCE_SEARCH_DISABLED');
      expect((error.cause as { code?: string }).code).toBe('SESSION_QUERY_SEARCH_DISABLED');
      expect(error.message).toContain('disabled on this host');
      expect(ids(await resolver.remoteExportCandidates(agent, 'cross', signal()))).toEqual(['user-text']);
      await expectReferenceError(resolver.remoteExportSearch(agent, 'zebracrossing', signal()), 'SESSION_REFERENCE_SEARCH_DISABLED');
    }
  });

  it('with contentSearch off (the default), search refuses and candidates are the official plugin\'s, byte for byte', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, {});
    expect(resolver.contentSearch).toBe(false);
    expect(SessionReferenceResolver.Config({})).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 65536 });
    const error = await expectReferenceError(resolver.searchContent(agent, 'zebracrossing'), 'SESSION_REFERENCE_SEARCH_DISABLED');
    expect(error.message).toContain('contentSearch: true');

    const official = await scratch.host({ root, search: SEARCH });
    const oracle = await loadOracle(official);
    const officialAgent = makeAgent(official, createSession(official, { id: 'target', cwd: '/proj', createdAt: 100 }));
    for (const query of ['', 'zebracrossing', 'snap', 'proj']) {
      const ours = await resolver.remoteExportCandidates(agent, query, signal());
      const theirs = await oracle.resolver.remoteExportCandidates(officialAgent, query, signal());
      expect(JSON.stringify(ours)).toBe(JSON.stringify(theirs));
    }
  });

  it('refuses a contentSearch value that is not a boolean before the service exists', async () => {
    const host = await scratch.host();
    // The schema refuses the type when cordis applies it, as it refuses a string for a number key.
    await expect(host.ctx.plugin(SessionReferenceResolver, { contentSearch: 'yes' } as unknown as Config)).rejects.toThrow(/contentSearch/);
    expect(host.ctx.get('sessionReferenceResolver')).toBeUndefined();
    // Constructed without the schema, the resolver checks it itself, with the configuration code.
    expect(() => new SessionReferenceResolver(host.ctx, { contentSearch: 1 } as unknown as Config)).toThrow(
      expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }),
    );
  });
});

describe('candidates with contentSearch on', () => {
  it('appends content matches after the title matches, in the candidates\' shape, without duplicates, under the limit', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root);
    // "snap" matches a title and an id; "snapmarker" only the source's conversation.
    const titles = await resolver.listCandidates(agent, 'snap');
    expect(ids(titles)).toEqual(['snap-source']);
    const candidates = await resolver.remoteExportCandidates(agent, 'snapmarker', signal());
    expect(candidates).toEqual([
      { sessionId: 'snap-source', label: 'Snap source', createdAt: 5, mention: formatSessionReferenceMention({ sessionId: 'snap-source', label: 'Snap source' }) },
    ]);
    expect(Object.keys(candidates[0]!)).toEqual(['sessionId', 'label', 'createdAt', 'mention']);

    // A title match that also matches in content is listed once, as a title match, first.
    const both = await resolver.remoteExportCandidates(agent, 'crossings', signal());
    expect(ids(both)).toEqual(['user-text']);
    // "the" is in no title or id and in many conversations: content matches only, each session once, never the target.
    const wide = await resolver.remoteExportCandidates(agent, 'the', signal());
    expect(new Set(ids(wide)).size).toBe(wide.length);
    expect(ids(wide)).not.toContain('target');
    // An empty query is the title listing alone.
    expect(ids(await resolver.remoteExportCandidates(agent, '', signal()))).toEqual(ids(await resolver.listCandidates(agent, '')));
  });

  it('never exceeds the candidate limit', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, { contentSearch: true, candidateLimit: 2 });
    const candidates = await resolver.remoteExportCandidates(agent, 'the', signal());
    expect(candidates).toHaveLength(2);
    expect((await resolver.remoteExportSearch(agent, 'the', signal())).length).toBeLessThanOrEqual(2);
  });
});

describe('the dsh bundle patch and the content-search overlay', () => {
  type Row = { id?: string; name?: string; disabled?: boolean; config?: Record<string, unknown>; insert?: Row[] };
  const PACKAGE = join(import.meta.dirname, '..');
  /** Parse a patch file, reading `!!js dshHomePath('x')` as `<home>/x`. */
  function rows(file: string, home: string): Row[] {
    const js = new yaml.Type('tag:yaml.org,2002:js', {
      kind: 'scalar',
      construct: (source: string) => {
        const match = /^dshHomePath\('([^']+)'\)$/.exec(source.trim());
        if (!match) throw new Error(`unexpected !!js expression ${source}`);
        return join(home, match[1]!);
      },
    });
    const schema = yaml.DEFAULT_SCHEMA.extend([js]);
    const parsed = yaml.load(readFileSync(join(PACKAGE, file), 'utf8'), { schema }) as Row[];
    return parsed.flatMap((row) => (row.insert ? row.insert : [row]));
  }

  it('ships the bundle patch with search as dsh configures it (off), and the resolver with the official defaults', async () => {
    const home = await scratch.tempRoot();
    const bundle = rows('cordis.patch.yml', home);
    expect(bundle.find((row) => row.id === 'session-query-sqlite')).toBeUndefined();
    const resolverRow = bundle.find((row) => row.name === '@sessref/dsh')!;
    expect(resolverRow.config?.contentSearch).toBeUndefined();
    // dsh web's own row: an in-memory index that never opens. Under it the plugin adds nothing and refuses search.
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, resolverRow.config ?? {}, { path: ':memory:', openAt: 'never' });
    expect(ids(await resolver.remoteExportCandidates(agent, 'zebracrossing', signal()))).toEqual([]);
    await expectReferenceError(resolver.remoteExportSearch(agent, 'zebracrossing', signal()), 'SESSION_REFERENCE_SEARCH_DISABLED');
  });

  it('turns search on with the overlay: a derived index under the dsh home, opened at the first search, and the key on', async () => {
    const home = await scratch.tempRoot();
    const overlay = rows('content-search.patch.yml', home);
    const query = overlay.find((row) => row.id === 'session-query-sqlite')!;
    expect(query.config).toEqual({ path: join(home, 'session-query', 'index.sqlite'), openAt: 'first-search' });
    const ours = overlay.find((row) => row.id === 'sessref-session-reference')!;
    expect(ours.config).toEqual({ contentSearch: true });
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, ours.config, query.config as unknown as HostOptions['search']);
    expect(ids(await resolver.remoteExportCandidates(agent, 'zebracrossing', signal()))).toEqual(['user-text']);
    expect(readFileSync(join(home, 'session-query', 'index.sqlite')).length).toBeGreaterThan(0);
  });
});
