import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isCompactCheckpointSource } from '@deepseek-ai/dsh-compaction';
import type { SessionId, SurfaceEvent } from '@deepseek-ai/dsh-session';
import { formatSessionReferenceMention } from '@deepseek-ai/dsh-session-reference';
import {
  appendAssistant,
  appendExchange,
  appendInjected,
  appendToolResult,
  appendUser,
  compact,
  createHost,
  createSession,
  endTurn,
  makeAgent,
  runPreStep,
  setTitle,
  userPrompt,
} from '@sessref/test-support';
import type { Host } from '@sessref/test-support';
import { loadOracle } from './oracle';

const hosts: Host[] = [];
const dirs: string[] = [];

async function host(options?: Parameters<typeof createHost>[0]): Promise<Host> {
  const created = await createHost(options);
  hosts.push(created);
  return created;
}

async function tempRoot(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sessref-host-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const created of hosts.splice(0)) await created.dispose();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** Text blocks of a surface event's message, joined with "\n". */
function surfaceText(event: SurfaceEvent): string {
  const message = event.type === 'user/message' ? event.data : event.data.message;
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

/** Write the standard three-session fixture: a (cwd /proj), b (no cwd), c (/other). */
function writeFixture(target: Host): void {
  const a = createSession(target, { id: 'a', cwd: '/proj', createdAt: 1_000 });
  appendUser(a, 'List the files');
  const { callIds } = appendAssistant(a, {
    reasoning: 'I should call ls',
    text: 'Listing.',
    toolCalls: [{ id: 'call-1', name: 'ls', arguments: { path: '.' } }],
  });
  appendToolResult(a, callIds[0] as string, 'README.md\nsrc');
  appendAssistant(a, { text: 'There are two entries.' });
  endTurn(a);
  appendInjected(a, 'AGENTS.md changed', { plugin: 'file-watch' });
  appendAssistant(a, { text: 'Noted.' });
  endTurn(a);
  setTitle(a, 'Listing files');

  const b = createSession(target, { id: 'b', createdAt: 3_000 });
  appendExchange(b, { user: 'hello', assistant: 'hi' });

  createSession(target, { id: 'c', cwd: '/other', createdAt: 2_000 });
}

async function expectFixtureReadable(target: Host, live: boolean): Promise<void> {
  const records = await target.sessionQuery.listSessions();
  expect(records.map((record) => record.header.id)).toEqual(live ? ['b', 'c', 'a'] : ['b', 'a']);
  expect(records.every((record) => record.live === live)).toBe(true);

  const surface = await target.sessionQuery.readSurface('a' as SessionId);
  expect(surface.session).toMatchObject({ id: 'a', cwd: '/proj', createdAt: 1_000 });
  expect(surface.capturedThroughSeq).toBeGreaterThan(0);
  expect(surface.events.map((event) => event.type)).toEqual([
    'user/message',
    'assistant/message',
    'tool/result',
    'assistant/message',
    'user/message',
    'assistant/message',
  ]);
  expect(surface.events.map(surfaceText)).toEqual([
    'List the files',
    'Listing.',
    '',
    'There are two entries.',
    'AGENTS.md changed',
    'Noted.',
  ]);
  const [user, assistant, , , injected] = surface.events;
  expect(user?.type === 'user/message' && user.data.source).toEqual({ kind: 'user' });
  expect(injected?.type === 'user/message' && injected.data.source).toEqual({ kind: 'plugin', plugin: 'file-watch' });
  expect(assistant?.type === 'assistant/message' && assistant.data.message.content.map((block) => block.type))
    .toEqual(['reasoning', 'text', 'tool-call']);

  const titles = await target.sessionQuery.readTitleSnapshots(['a', 'b', 'missing'] as SessionId[]);
  expect(titles.map((result) => [result.sessionId, result.status])).toEqual([
    ['a', 'fulfilled'],
    ['b', 'fulfilled'],
    ['missing', 'rejected'],
  ]);
  const [titled, untitled] = titles;
  expect(titled?.status === 'fulfilled' && titled.value.title).toMatchObject({
    title: 'Listing files',
    messageSeqs: [],
    source: { kind: 'user' },
  });
  expect(untitled?.status === 'fulfilled' && untitled.value.title).toBeUndefined();
}

describe('host harness', () => {
  it('writes and reads sessions in memory', async () => {
    const target = await host();
    writeFixture(target);
    expect(target.persistence).toBeUndefined();
    await expectFixtureReadable(target, true);
  });

  it('mounts the real invariant companions', async () => {
    const target = await host();
    const session = createSession(target);
    appendUser(session, 'hello');
    expect(() => session.append('session/title', { title: 'x', messageSeqs: [], source: { kind: 'fallback' } }))
      .toThrow(/cite at least one message seq/);
    expect(() => setTitle(session, 'Hello', { source: { kind: 'fallback' } })).not.toThrow();
  });

  it('round-trips sessions through JSONL persistence and a fresh host', async () => {
    const root = await tempRoot();
    const writer = await host({ root });
    writeFixture(writer);
    for (const session of writer.sessions.list()) await writer.flush(session);
    await writer.dispose();

    const files = await readdir(root, { recursive: true });
    expect(files.filter((file) => file.endsWith('session.jsonl.zstd'))).toHaveLength(2);

    const reader = await host({ root });
    expect(reader.sessions.list()).toHaveLength(0);
    await expectFixtureReadable(reader, false);
  });

  it('shows a compaction checkpoint instead of the shadowed surface', async () => {
    const root = await tempRoot();
    const writer = await host({ root });
    const session = createSession(writer, { id: 'compacted', cwd: '/proj', createdAt: 1 });
    appendExchange(session, { user: 'old secret question', assistant: 'old secret answer' });
    const result = compact(session, 'Summary: the user asked a question.');
    appendExchange(session, { user: 'new question', assistant: 'new answer' });
    await writer.flush(session);
    expect(result.shadowedSeqs).toHaveLength(2);

    const check = async (target: Host): Promise<void> => {
      const surface = await target.sessionQuery.readSurface(session.id);
      const [checkpoint, ...rest] = surface.events;
      expect(checkpoint?.type).toBe('user/message');
      if (checkpoint?.type !== 'user/message') return;
      expect(isCompactCheckpointSource(checkpoint.data.source)).toBe(true);
      expect(checkpoint.surfaceOp).toEqual({ op: 'replace', start: result.shadowedSeqs[0], end: result.shadowedSeqs[1] });
      expect(checkpoint.sourceEventSeqs).toEqual([result.startSeq, result.summarySeq, ...result.shadowedSeqs]);
      expect(surfaceText(checkpoint)).toContain('Summary: the user asked a question.');
      expect(rest.map(surfaceText)).toEqual(['new question', 'new answer']);
      expect(JSON.stringify(surface.events)).not.toContain('old secret');
    };
    await check(writer);
    await writer.dispose();
    await check(await host({ root }));
  });

  it('drives the official oracle through prepare(), listCandidates() and agent/pre-step', async () => {
    const target = await host();
    const source = createSession(target, { id: 'source', cwd: '/proj', createdAt: 1 });
    appendExchange(source, { user: 'Fix the <b> parser', assistant: { reasoning: 'hidden', text: 'Fixed.' } });
    setTitle(source, 'Parser fix');
    createSession(target, { id: 'elsewhere', cwd: '/other', createdAt: 2 });
    const session = createSession(target, { id: 'target', cwd: '/proj', createdAt: 3 });
    const agent = makeAgent(target, session);
    expect(target.ctx.agents.get(agent.id)).toBe(agent);

    const { resolver } = await loadOracle(target);
    const candidates = await resolver.listCandidates(agent, '', 10);
    expect(candidates.map((candidate) => [candidate.sessionId, candidate.label])).toEqual([
      ['source', 'Parser fix'],
      ['elsewhere', 'elsewhere'],
    ]);

    const prepared = await resolver.prepare(agent, [{ type: 'text', text: 'see @Parser fix' }], [
      { sessionId: source.id, label: 'Parser fix' },
    ]);
    expect(prepared.content).toEqual([{ type: 'text', text: 'see @Parser fix' }]);
    expect(prepared.additionalContext?.source).toMatchObject({
      kind: 'session-reference',
      form: 'recall',
      version: 1,
      references: [{ sessionId: 'source', label: 'Parser fix', compacted: false, retainedMessages: 2, inputIndex: 0 }],
    });

    const mention = formatSessionReferenceMention({ sessionId: source.id, label: 'Parser fix' });
    const prompt = userPrompt(`compare with ${mention}`);
    const decision = await runPreStep(target, agent, [prompt], { record: true });
    expect(decision.kind).toBe('enter');
    if (decision.kind !== 'enter') return;
    const [readable, context] = decision.messages;
    expect(decision.messages).toHaveLength(2);
    expect(readable).toMatchObject({ id: prompt.id, source: { kind: 'user' } });
    expect(readable?.content).toEqual([{ type: 'text', text: 'compare with @Parser fix' }]);
    expect(context?.source.kind).toBe('session-reference');
    const contextText = context?.content.map((block) => (block.type === 'text' ? block.text : '')).join('') ?? '';
    expect(contextText).toContain('<referenced-sessions>');
    expect(contextText).toContain('Fix the \\u003cb> parser');
    expect(contextText).not.toContain('hidden');

    const surface = await target.sessionQuery.readSurface(session.id);
    expect(surface.events.map((event) => event.type === 'user/message' && event.data.source.kind)).toEqual([
      'user',
      'session-reference',
    ]);
  });

  it('lets a downstream listener reject before the oracle reads any source', async () => {
    const target = await host();
    const session = createSession(target, { id: 'target' });
    const agent = makeAgent(target, session);
    await loadOracle(target);
    const mention = formatSessionReferenceMention({ sessionId: 'no-such-session' as SessionId, label: 'x' });
    const decision = await runPreStep(target, agent, [userPrompt(`see ${mention}`)], { reject: true, record: true });
    expect(decision).toEqual({ kind: 'reject' });
    expect(session.events.map((event) => event.type)).toEqual(['turn/start', 'turn/end']);
  });

  it('snapshots a compacted source as its checkpoint plus the retained tail', async () => {
    const target = await host();
    const source = createSession(target, { id: 'source', createdAt: 1 });
    appendExchange(source, { user: 'shadowed question', assistant: 'shadowed answer' });
    compact(source, 'Earlier: a question was answered.');
    appendExchange(source, { user: 'retained question', assistant: 'retained answer' });
    const agent = makeAgent(target, createSession(target, { id: 'target', createdAt: 2 }));
    const { resolver } = await loadOracle(target);

    const prepared = await resolver.prepare(agent, [{ type: 'text', text: 'x' }], [{ sessionId: source.id }]);
    const text = prepared.additionalContext?.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text).toContain('Earlier: a question was answered.');
    expect(text).toContain('retained answer');
    expect(text).not.toContain('shadowed');
    expect(prepared.additionalContext?.source).toMatchObject({
      references: [{ compacted: true, originalMessages: 3, retainedMessages: 3 }],
    });
  });
});
