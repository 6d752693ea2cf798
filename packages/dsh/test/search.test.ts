/**
 * Content discovery (`contentSearch`) on the real host, over roots the real
 * JSONL persistence wrote, through sessref's own index (no dsh search
 * backend needed; where one is mounted, it only shows that the words are in
 * the logs): what a snapshot would carry is found, nothing else is;
 * `candidates` appends content matches only when the key is on, and keeps
 * its title matches whatever content search does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import yaml from 'js-yaml';
import { describe, expect, it, vi } from 'vitest';
import { SessionId, type SessionEvent } from '@deepseek-ai/dsh-session';
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import { MAX_SNIPPET_LENGTH, type SessionReferenceContentHit } from '@sessref/core';
import SessionReferenceResolver, { formatSessionReferenceMention, type Config } from '@sessref/dsh';
import SessionTitleIndex from '@sessref/dsh/title-index';
import {
  appendAssistant,
  appendExchange,
  appendInjected,
  appendToolResult,
  appendUser,
  appendCompactedTurns,
  appendInjectedNote,
  appendToolTurn,
  createSession,
  endTurn,
  makeAgent,
  MARKERS,
  UNCARRIED_MARKERS,
  runPreStep,
  setTitle,
  userPrompt,
  type Host,
  type HostOptions,
} from '@sessref/test-support';
import { expectReferenceError, loadOurs, stall, textOf, useScratch, worldOf } from './support';
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
  appendExchange(user, { user: `Please look at the ${MARKERS.userText} module.`, assistant: 'Looking.' });
  setTitle(user, 'Crossings');

  const assistant = createSession(writer, { id: 'assistant-text', cwd: '/proj', createdAt: 2 });
  appendToolTurn(assistant, { user: 'What did you find?', assistant: `The ${MARKERS.assistantText} explains the slowdown.` });

  const checkpoint = createSession(writer, { id: 'checkpointed', createdAt: 3 });
  appendCompactedTurns(checkpoint);

  const injected = createSession(writer, { id: 'injected', cwd: '/other', createdAt: 4 });
  appendUser(injected, 'Hello there.');
  appendInjectedNote(injected);
  // Injected context that repeats a word the user also wrote: the user's message is the hit.
  appendInjected(injected, 'bothmarker bothmarker bothmarker in injected context');
  appendUser(injected, 'I said bothmarker once.');
  endTurn(injected);

  const source = createSession(writer, { id: 'snap-source', createdAt: 5 });
  appendExchange(source, { user: `Remember the ${MARKERS.referencedSnapshot} detail.`, assistant: 'Remembered.' });
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

/**
 * A fresh host over the root (nothing live), our plugin, and a target agent;
 * `ctx.sessionQuery` without search unless `search` mounts dsh's backend.
 */
async function searcher(root: string, config: Config = ON, search: HostOptions['search'] | null = null) {
  return worldOf(await scratch.host({ root, ...(search === null ? {} : { search }) }), config);
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

    const [user] = await resolver.searchContent(agent, MARKERS.userText);
    expect(user).toMatchObject({ sessionId: 'user-text', label: 'Crossings', cwd: '/proj', createdAt: 1, role: 'user', checkpoint: false });
    expect(user!.mention).toBe(formatSessionReferenceMention({ sessionId: 'user-text', label: 'Crossings' }));
    expect(user!.snippet).toBe('Please look at the zebracrossing module.');
    expect(user!.ranges.map(([start, end]) => user!.snippet.slice(start, end))).toEqual([MARKERS.userText]);
    expect(Object.keys(user!)).toEqual(['mention', 'sessionId', 'label', 'cwd', 'createdAt', 'seq', 'role', 'checkpoint', 'snippet', 'ranges']);

    const [assistant] = await resolver.searchContent(agent, 'QUOKKAFACTOR');
    expect(assistant).toMatchObject({ sessionId: 'assistant-text', label: 'assistant-text', role: 'assistant', checkpoint: false });
    expect(assistant!.snippet).toBe('The quokkafactor explains the slowdown.');

    const [checkpoint] = await resolver.searchContent(agent, MARKERS.checkpoint);
    expect(checkpoint).toMatchObject({ sessionId: 'checkpointed', role: 'user', checkpoint: true });
    expect(checkpoint).not.toHaveProperty('cwd');
    expect(checkpoint!.snippet).toContain(MARKERS.checkpoint);

    // Each hit names the message it found: the event at that seq has the text.
    for (const [hit, word] of [[user!, MARKERS.userText], [assistant!, MARKERS.assistantText], [checkpoint!, MARKERS.checkpoint]] as const) {
      const { target } = await host.sessionQuery.readEvent({ sessionId: SessionId(hit.sessionId), seq: hit.seq });
      expect(textOf({ content: contentOf(target) }).toLowerCase()).toContain(word);
    }
  });

  it.each(UNCARRIED_MARKERS)('never finds %s', async (_what, word) => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root, ON, SEARCH);
    // dsh's backend does find the word somewhere in the logs: the index never held it.
    const anywhere = await host.sessionQuery.searchSessions({ query: word });
    if (word !== MARKERS.reasoning) expect(anywhere.items.length).toBeGreaterThan(0);
    expect(await resolver.searchContent(agent, word)).toEqual([]);
  });

  it('finds a referenced session by its own text, never the session that holds its snapshot', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root, ON, SEARCH);
    // The citing session's log holds the snapshot with the word, on its current surface.
    const inCiting = await host.sessionQuery.searchEvents({ sessionId: SessionId('citing'), query: MARKERS.referencedSnapshot });
    expect(inCiting.items.map((item) => item.surface)).toContain('current');
    expect(ids(await resolver.searchContent(agent, MARKERS.referencedSnapshot))).toEqual(['snap-source']);
  });

  it('names the message a snapshot carries, never injected context that repeats the phrase', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root, ON, SEARCH);
    const page = await host.sessionQuery.searchSessions({ query: 'bothmarker' });
    const best = page.items[0]!.bestMatch;
    const [hit] = await resolver.searchContent(agent, 'bothmarker');
    expect(hit).toMatchObject({ sessionId: 'injected', role: 'user', snippet: 'I said bothmarker once.' });
    // dsh's backend ranks the injected message (three matches) first; the hit names the user's message.
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
    const host = await scratch.host({ root });
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
    // The word being typed: "deploy" whole first, then as the start of "deployment" (dsh's backend found whole words only).
    expect(ids(await resolver.searchContent(agent, 'deploy*'))).toEqual(['q3', 'q2']);
    expect(ids(await resolver.searchContent(agent, 'NEAR(alpha beta)'))).toEqual([]);
    expect(await resolver.searchContent(agent, '***')).toEqual([]);
    expect(await resolver.searchContent(agent, '   ')).toEqual([]);
    await expectReferenceError(resolver.searchContent(agent, 'a\0b'), 'SESSION_REFERENCE_INVALID_QUERY');
    await expectReferenceError(resolver.searchContent(agent, 'x'.repeat(257)), 'SESSION_REFERENCE_INVALID_QUERY');
  });

  it('answers any query with hits whose carried message holds the snippet and its ranges, or a coded refusal (property)', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const fragments = ['"', 'OR', 'NEAR', '*', '(', ')', '^', ':', 'col:', MARKERS.userText, MARKERS.assistantText, 'marker', 'the', MARKERS.referencedSnapshot, '\0', '\u202e', 'é'];
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
        for (const hit of hits) {
          expect([...hit.snippet].length).toBeLessThanOrEqual(MAX_SNIPPET_LENGTH);
          expect(hit.snippet).not.toMatch(/[\p{Cc}\n]/u);
          expect(hit.ranges.length).toBeGreaterThan(0);
          for (const [start, end] of hit.ranges) expect(0 <= start && start < end && end <= hit.snippet.length).toBe(true);
          const surface = await host.sessionQuery.readSurface(SessionId(hit.sessionId));
          const event = surface.events.find((candidate) => candidate.seq === hit.seq)!;
          expect(event.type === 'user/message' || event.type === 'assistant/message').toBe(true);
          expect(textOf({ content: contentOf(event) }).replace(/\s+/gu, ' ')).toContain(hit.snippet.replace(/^…|…$/gu, ''));
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
    await expectReferenceError(resolver.searchContent(agent, MARKERS.userText, undefined, aborted.signal), 'SESSION_REFERENCE_CANCELLED');

    // The search observes the signal while the index is brought up to date.
    const controller = new AbortController();
    const pending = resolver.searchContent(agent, MARKERS.userText, undefined, controller.signal);
    controller.abort(new Error('next keystroke'));
    await expectReferenceError(pending, 'SESSION_REFERENCE_CANCELLED');

    // A read that hangs and ignores the signal: the search settles as cancelled at once.
    const stalled = stall(host.sessionQuery, 'readSurface');
    const reading = new AbortController();
    const verifying = resolver.searchContent(agent, MARKERS.assistantText, undefined, reading.signal);
    await stalled.called;
    reading.abort(new Error('next keystroke'));
    await expectReferenceError(verifying, 'SESSION_REFERENCE_CANCELLED');
    stalled.restore();
    // The hanging refresh was stopped with its last waiter: the next search reads again and answers.
    expect(ids(await resolver.searchContent(agent, MARKERS.assistantText))).toEqual(['assistant-text']);
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

describe('the index follows the root', () => {
  it('with the title index mounted, reads only the sessions whose log changed since the last search, and lists none', async () => {
    const root = await scratch.tempRoot();
    const writer = await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    await host.ctx.plugin(SessionTitleIndex, { root, persist: false, watch: false });
    const sessions = (await host.sessionQuery.listSessions()).length;
    // The title index stamps the sessions and names the hits; the index keeps what else a hit shows (its cwd and creation).
    const catalog = host.ctx.get('sessionReferenceCatalog')!;
    const listings = [vi.spyOn(host.sessionQuery, 'listSessions'), vi.spyOn(catalog, 'listSessions')];
    let reads = countReads(host);
    expect(await resolver.searchContent(agent, MARKERS.userText)).toMatchObject([{ sessionId: 'user-text', label: 'Crossings', cwd: '/proj', createdAt: 1 }]);
    expect(reads.count).toBe(sessions);
    reads.restore();
    reads = countReads(host);
    expect(ids(await resolver.searchContent(agent, MARKERS.assistantText))).toEqual(['assistant-text']);
    expect(reads.count).toBe(0);
    for (const listing of listings) {
      expect(listing).not.toHaveBeenCalled();
      listing.mockRestore();
    }
    reads.restore();
    const session = writer.sessions.get(SessionId('user-text'))!;
    appendExchange(session, { user: 'A latecomerword arrives.', assistant: 'Seen.' });
    await writer.flush(session);
    reads = countReads(host);
    expect(ids(await resolver.searchContent(agent, 'latecomerword'))).toEqual(['user-text']);
    expect(reads.count).toBe(1);
    reads.restore();
  });

  it('skips a session it cannot read, and finds it once it can be read again', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const read = host.sessionQuery.readSurface.bind(host.sessionQuery);
    const failing = vi.spyOn(host.sessionQuery, 'readSurface').mockImplementation((id) => (id === 'mixed' ? Promise.reject(new Error('torn log')) : read(id)));
    expect(await resolver.searchContent(agent, 'walrusmarker')).toEqual([]);
    expect(ids(await resolver.searchContent(agent, MARKERS.userText))).toEqual(['user-text']);
    failing.mockRestore();
    // Without the title index's stamps every search reads every session again.
    expect(ids(await resolver.searchContent(agent, 'walrusmarker'))).toEqual(['mixed']);
  });

  it('refreshes on demand, reporting what it read, and refuses when search is off', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver } = await searcher(root);
    const sessions = (await host.sessionQuery.listSessions()).length;
    const progress: number[] = [];
    const report = await resolver.service.refreshContentIndex(undefined, ({ indexed }) => progress.push(indexed));
    expect(report).toMatchObject({ sessions, indexed: sessions, removed: 0, skipped: [], failedSources: [] });
    expect(progress.at(-1)).toBe(sessions);
    await expectReferenceError((await searcher(root, {})).resolver.service.refreshContentIndex(), 'SESSION_REFERENCE_SEARCH_DISABLED');
  });
});

describe('search turned off', () => {
  it('needs no search on the host: both ways a dsh host turns its own off still find content', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    // dsh web's `openAt: never`, and a backend without search at all (dsh's backend refused both).
    for (const search of [{ path: ':memory:', openAt: 'never' } as const, null]) {
      const { resolver, agent } = await searcher(root, ON, search);
      expect(ids(await resolver.remoteExportSearch(agent, MARKERS.userText, signal()))).toEqual(['user-text']);
      expect(ids(await resolver.remoteExportCandidates(agent, MARKERS.userText, signal()))).toEqual(['user-text']);
    }
  });

  it('with contentSearch off (the default), search refuses and candidates are the official plugin\'s, byte for byte', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, {});
    expect(resolver.service.contentSearch).toBe(false);
    expect(SessionReferenceResolver.Config({})).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 65536 });
    const error = await expectReferenceError(resolver.searchContent(agent, MARKERS.userText), 'SESSION_REFERENCE_SEARCH_DISABLED');
    expect(error.message).toContain('contentSearch: true');

    const official = await scratch.host({ root });
    const oracle = await loadOracle(official);
    const officialAgent = makeAgent(official, createSession(official, { id: 'target', cwd: '/proj', createdAt: 100 }));
    for (const query of ['', MARKERS.userText, 'snap', 'proj']) {
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
    const candidates = await resolver.remoteExportCandidates(agent, MARKERS.referencedSnapshot, signal());
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

  it('keeps the title matches when content search fails: a torn log never makes candidates reject (#25)', async () => {
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { host, resolver, agent } = await searcher(root);
    const titles = ids(await resolver.remoteExportCandidates(agent, 'cross', signal()));
    expect(titles).toEqual(['user-text']);
    // A log that tears under the content search: its session is skipped, the rest answer.
    const read = host.sessionQuery.readSurface.bind(host.sessionQuery);
    const torn = vi.spyOn(host.sessionQuery, 'readSurface').mockImplementation((id) => (id === 'user-text' ? Promise.reject(new Error('torn log')) : read(id)));
    expect(ids(await resolver.remoteExportCandidates(agent, 'cross', signal()))).toEqual(titles);
    torn.mockRestore();
    // Any other failure of the content search: the title matches alone.
    const broken = vi.spyOn(resolver, 'searchContent').mockRejectedValue(new Error('disk error'));
    expect(ids(await resolver.remoteExportCandidates(agent, 'cross', signal()))).toEqual(titles);
    broken.mockRestore();
    // Cancellation is still the caller's own.
    const aborted = new AbortController();
    aborted.abort(new Error('closed'));
    await expect(resolver.remoteExportCandidates(agent, 'cross', aborted.signal)).rejects.toBeDefined();
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

describe('the dsh bundle patch', () => {
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

  it('ships the bundle patch with content search on over dsh\'s own row (its search off), off with one key', async () => {
    const home = await scratch.tempRoot();
    const bundle = rows('cordis.patch.yml', home);
    expect(bundle.find((row) => row.id === 'session-query-sqlite')).toBeUndefined();
    const resolverRow = bundle.find((row) => row.name === '@sessref/dsh')!;
    expect(resolverRow.config).toMatchObject({ contentSearch: true });
    // The row's other agents (its `sources`) are test/foreign.test.ts's: here dsh's sessions alone, whatever this machine's HOME holds.
    const config = { ...resolverRow.config, sources: [] };
    expect(bundle.find((row) => row.name === '@sessref/dsh/title-index')?.config).toEqual({ root: join(home, 'sessions') });
    // dsh web's own row: an in-memory dsh index that never opens. sessref's index answers all the same.
    const root = await scratch.tempRoot();
    await writeCorpus(root);
    const { resolver, agent } = await searcher(root, config, { path: ':memory:', openAt: 'never' });
    expect(ids(await resolver.remoteExportCandidates(agent, MARKERS.userText, signal()))).toEqual(['user-text']);
    expect(ids(await resolver.remoteExportSearch(agent, MARKERS.userText, signal()))).toEqual(['user-text']);
    // The documented line that turns it off: the official plugin's candidates again.
    const off = await searcher(root, { ...config, contentSearch: false });
    expect(await off.resolver.remoteExportCandidates(off.agent, MARKERS.userText, signal())).toEqual([]);
    expect(readFileSync(join(PACKAGE, 'cordis.patch.yml'), 'utf8')).toContain('      contentSearch: false\n');
  });
});
