/**
 * `sessref search` and the engine's content search, on roots written by the
 * real dsh JSONL persistence: what a reference would carry is found, tool
 * output, reasoning, injected context, referenced snapshots and shadowed
 * pre-compaction text never are; text another process appends is found by
 * the next query of a long-lived engine; the derived index lives in the
 * cache directory, never in the root.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatSessionReferenceMention, type SessionReferenceContentHit } from '@sessref/core';
import {
  MARKERS,
  UNCARRIED_MARKERS,
  appendCompactedTurns,
  appendExchange,
  appendInjected,
  appendInjectedNote,
  appendToolTurn,
  createHost,
  createSession,
  endTurn,
  setTitle,
} from '@sessref/test-support';
import { expectFailure, hostOf, json, ok, openEngineOnHost, removeTemps, requireBuild, sessref, tempDir } from './support';

let root: string;
let cache: string;

/** A root written through the real host: each marker word in exactly one kind of place. */
async function writeRoot(directory: string): Promise<void> {
  const host = await createHost({ root: directory, invariants: false });
  try {
    const notes = createSession(host, { id: 'notes', cwd: '/work/app', createdAt: 1_000 });
    appendExchange(notes, { user: `Why does the ${MARKERS.userText} test flake?`, assistant: `The ${MARKERS.assistantText} retry races the timer.` });
    setTitle(notes, 'Flaky test notes');

    const tools = createSession(host, { id: 'tools', cwd: '/work/app', createdAt: 2_000 });
    appendToolTurn(tools, { user: 'Search the repository.', assistant: 'Searching now.' });
    appendInjectedNote(tools);
    // A referenced snapshot pasted as injected context, with no session it was taken from.
    appendInjected(tools, `## Referenced sessions\n<referenced-sessions>\n[{"conversation":[{"role":"user","text":"${MARKERS.referencedSnapshot}"}]}]\n</referenced-sessions>`);
    endTurn(tools);

    const compacted = createSession(host, { id: 'compacted', createdAt: 3_000 });
    appendCompactedTurns(compacted);

    const scratch = createSession(host, { id: 'scratch', cwd: '/work/app', createdAt: 4_000 });
    appendExchange(scratch, { user: 'Scratch space.', assistant: 'Ready.' });
    setTitle(scratch, 'Scratch');

    for (const session of [notes, tools, compacted, scratch]) await host.flush(session);
  } finally {
    await host.dispose();
  }
}

beforeAll(async () => {
  requireBuild();
  root = join(await tempDir('sessref-search-'), 'sessions');
  cache = await tempDir('sessref-search-cache-');
  await writeRoot(root);
});

afterAll(removeTemps);

const env = () => ({ env: { SESSREF_CACHE_DIR: cache } });
const ids = (hits: readonly { sessionId: string }[]) => hits.map((hit) => hit.sessionId);

describe('sessref search', () => {
  it('finds user, assistant and checkpoint text, with label, message and snippet', async () => {
    const user = await json<SessionReferenceContentHit[]>(['search', MARKERS.userText, '--root', root], env());
    expect(user).toEqual([
      {
        mention: formatSessionReferenceMention({ sessionId: 'notes', label: 'Flaky test notes' }),
        sessionId: 'notes',
        label: 'Flaky test notes',
        cwd: '/work/app',
        createdAt: 1_000,
        seq: expect.any(Number),
        role: 'user',
        checkpoint: false,
        snippet: 'Why does the zebracrossing test flake?',
        ranges: [[13, 26]],
      },
    ]);
    expect(await json<SessionReferenceContentHit[]>(['search', 'Quokkafactor', '--root', root], env())).toEqual([
      expect.objectContaining({ sessionId: 'notes', role: 'assistant', snippet: 'The quokkafactor retry races the timer.' }),
    ]);
    expect(await json<SessionReferenceContentHit[]>(['search', MARKERS.checkpoint, '--root', root], env())).toEqual([
      expect.objectContaining({ sessionId: 'compacted', label: 'compacted', role: 'user', checkpoint: true }),
    ]);
    // The derived index is in the cache directory, never in the root.
    expect(readdirSync(cache).some((name) => /^content-[0-9a-f]{16}\.v1\.sqlite$/.test(name))).toBe(true);
    expect(readdirSync(root, { recursive: true }).map(String).filter((name) => /sqlite|\.owner$/.test(name))).toEqual([]);
  });

  it.each([...UNCARRIED_MARKERS, ['a referenced snapshot', MARKERS.referencedSnapshot] as const])('never finds %s', async (_what, word) => {
    expect(await json<unknown[]>(['search', word, '--root', root], env())).toEqual([]);
  });

  it('keeps --json output clean: the hits on stdout, nothing on stderr when it is not a terminal', async () => {
    const result = await sessref(['search', MARKERS.userText, '--json', '--root', root], env());
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(ids(JSON.parse(result.stdout) as SessionReferenceContentHit[])).toEqual(['notes']);
  });

  it('prints a table: session, label, message, age and the snippet', async () => {
    const out = await ok(['search', MARKERS.userText, '--root', root], env());
    const [head, row, end] = out.split('\n');
    expect(head).toMatch(/^SESSION +LABEL +MESSAGE +AGE +SNIPPET$/);
    expect(row).toMatch(/^notes +Flaky test notes +#\d+ user +.+ago +Why does the zebracrossing test flake\?$/);
    expect(end).toBe('');
    expect(await ok(['search', 'nothing like this', '--root', root], env())).toBe('no matches\n');
  });

  it('honours --limit and --target, and treats query syntax as text', async () => {
    const all = await json<SessionReferenceContentHit[]>(['search', 'the', '--root', root], env());
    expect(all.length).toBeGreaterThan(1);
    expect(ids(await json<SessionReferenceContentHit[]>(['search', 'the', '--limit', '1', '--root', root], env()))).toEqual(ids(all).slice(0, 1));
    expect(ids(await json<SessionReferenceContentHit[]>(['search', 'the', '--target', 'notes', '--root', root], env()))).not.toContain('notes');
    expect(await json<unknown[]>(['search', 'zebracrossing OR quokkafactor', '--root', root], env())).toEqual([]);
    expect(ids(await json<SessionReferenceContentHit[]>(['search', '"zebracrossing"', '--root', root], env()))).toEqual(['notes']);
  });

  it('refuses a missing, empty or over-long query and a bad limit with one coded line', async () => {
    expectFailure(await sessref(['search', '--root', root], env()), 1, 'USAGE');
    expectFailure(await sessref(['search', '  ', '--root', root], env()), 1, 'USAGE');
    expectFailure(await sessref(['search', 'x'.repeat(300), '--root', root], env()), 1, 'SESSION_REFERENCE_INVALID_QUERY');
    expectFailure(await sessref(['search', 'x', '--limit', '0', '--root', root], env()), 1, 'USAGE');
  });

  it('documents itself in --help and in the command list', async () => {
    const help = await ok(['search', '--help']);
    expect(help.startsWith('sessref search QUERY')).toBe(true);
    expect(help).toMatch(/\n {2}Examples?:\n {4}sessref search /);
    expect(await ok(['--help'])).toMatch(/^ {2}search +find sessions by what their conversation says$/m);
  });
});

describe('a long-lived engine (as `sessref serve` runs)', () => {
  it('finds a session by the text another process appended since its last query', async () => {
    const copy = join(await tempDir('sessref-search-append-'), 'sessions');
    await writeRoot(copy);
    const engine = await openEngineOnHost({ root: copy, indexFile: join(cache, 'append-titles.json'), searchIndexFile: join(cache, 'append.sqlite') });
    try {
      expect(await engine.search('latecomerword')).toEqual([]);
      // Another process appends a turn to `scratch` (sessref send writes through the dsh persistence).
      await ok(['send', '--target', 'scratch', 'A latecomerword arrives here.', '--root', copy], env());
      const hits = await engine.search('latecomerword');
      expect(hits).toEqual([expect.objectContaining({ sessionId: 'scratch', label: 'Scratch', role: 'user', snippet: 'A latecomerword arrives here.' })]);
      // A target's own session is left out.
      expect(await engine.search('latecomerword', { target: 'scratch' })).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('shares its index file with another process searching meanwhile (dsh\'s backend allowed one owner)', async () => {
    const file = join(cache, 'shared.sqlite');
    const engine = await openEngineOnHost({ root, indexFile: join(cache, 'shared-titles.json'), searchIndexFile: file });
    try {
      expect(ids(await engine.search(MARKERS.userText))).toEqual(['notes']);
      const second = await openEngineOnHost({ root, indexFile: join(cache, 'shared-titles-2.json'), searchIndexFile: file });
      try {
        expect(ids(await second.search(MARKERS.assistantText))).toEqual(['notes']);
        expect(ids(await engine.search(MARKERS.checkpoint))).toEqual(['compacted']);
      } finally {
        await second.close();
      }
    } finally {
      await engine.close();
    }
    expect(existsSync(file)).toBe(true);
    expect(existsSync(`${file}.owner`)).toBe(false);
  });

  it('keeps title candidates free of content matches (the inspector asks for both separately)', async () => {
    const engine = await openEngineOnHost({ root, indexFile: join(cache, 'cand-titles.json'), searchIndexFile: join(cache, 'cand.sqlite') });
    try {
      expect(await engine.candidates('scratch', MARKERS.userText)).toEqual([]);
      expect(ids(await engine.search(MARKERS.userText, { target: 'scratch' }))).toEqual(['notes']);
      // The plugin's own Remote face, as the dsh Web picker calls it, appends them.
      const agent = { id: 'scratch', session: { header: { cwd: '/work/app' } } } as never;
      expect(ids(await hostOf(engine).sessionReferenceResolver.remoteExportCandidates(agent, MARKERS.userText, new AbortController().signal))).toEqual(['notes']);
    } finally {
      await engine.close();
    }
  });
});

describe('the listing the search backend reconciles with', () => {
  /** What dsh's own JSONL backend lists for the root: ids and headers. */
  async function dshListing(directory: string): Promise<Record<string, unknown>> {
    const host = await createHost({ root: directory, invariants: false });
    try {
      const headers = await host.persistence!.list();
      return Object.fromEntries(headers.map((header) => [header.id, header]));
    } finally {
      await host.dispose();
    }
  }

  it('answers as dsh\'s backend does, follows appends, new and deleted sessions, and keeps headers for the next process', async () => {
    const copy = join(await tempDir('sessref-search-listing-'), 'sessions');
    await writeRoot(copy);
    const searchIndexFile = join(cache, 'listing.sqlite');
    const open = () => openEngineOnHost({ root: copy, indexFile: join(cache, 'listing-titles.json'), searchIndexFile });
    let engine = await open();
    try {
      const persistence = hostOf(engine).get('sessionPersistence')!;
      const listed = async () => Object.fromEntries((await persistence.list()).map((header) => [header.id, header]));
      expect(await listed()).toEqual(await dshListing(copy));
      const before = new Map<string, unknown>((await persistence.listSnapshots()).map((snapshot) => [snapshot.header.id, snapshot.revision]));
      // Another process appends to one session and creates another.
      await ok(['send', '--target', 'scratch', 'More text.', '--root', copy], env());
      await ok(['new', '--title', 'Fresh one', '--root', copy], env());
      const after = new Map<string, unknown>((await persistence.listSnapshots()).map((snapshot) => [snapshot.header.id, snapshot.revision]));
      expect(after.size).toBe(before.size + 1);
      expect(after.get('scratch')).not.toBe(before.get('scratch'));
      expect(after.get('notes')).toBe(before.get('notes'));
      // This process creates one: listed at once.
      const mine = await engine.create({ title: 'Mine' });
      expect(Object.keys(await listed())).toContain(mine);
      expect(await listed()).toEqual(await dshListing(copy));
      // A deleted session drops out.
      rmSync(join(copy, '_no-cwd', 'compacted'), { recursive: true });
      expect(Object.keys(Object.fromEntries((await persistence.listSnapshots()).map((snapshot) => [snapshot.header.id, 1])))).not.toContain('compacted');
    } finally {
      await engine.close();
    }
    // The headers are kept beside the derived index, and a new process lists the same,
    // even when kept headers were tampered with: those are read again from their logs.
    const keptFile = `${searchIndexFile}.headers.json`;
    expect(existsSync(keptFile)).toBe(true);
    const kept = JSON.parse(readFileSync(keptFile, 'utf8')) as { headers: Record<string, { header: Record<string, unknown> }> };
    kept.headers['notes']!.header['createdAt'] = 'yesterday';
    kept.headers['tools']!.header['injected'] = true;
    writeFileSync(keptFile, JSON.stringify(kept));
    engine = await open();
    try {
      expect(Object.fromEntries((await hostOf(engine).get('sessionPersistence')!.list()).map((header) => [header.id, header]))).toEqual(await dshListing(copy));
      expect(ids(await engine.search(MARKERS.userText))).toEqual(['notes']);
    } finally {
      await engine.close();
    }
  });
});
