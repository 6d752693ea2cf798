import { describe, expect, it, vi } from 'vitest';
import { expectRejection } from '../test/errors.js';
import { MemoryStorage } from '../test/memory-storage.js';
import { assistantMessage, text, userMessage } from '../test/surface.js';
import { applySessionReferences, parseContentReferences, type ReferenceMessageAdapter } from './messages.js';
import { extractReferencedSessionsJson } from './prompt.js';
import { createSessionReferenceCore } from './facade.js';
import type { ContentBlockLike, PreparedReferences, SessionReferenceInput } from './types.js';
import { encodeSessionReferenceUri, formatSessionReferenceMention } from './uri.js';

/** A host message: only `direct` user messages count as cited. */
interface Message {
  id: string;
  role: 'user' | 'assistant' | 'system';
  direct?: boolean;
  content: ContentBlockLike[];
  contextOf?: string;
}

const mention = (sessionId: string, label?: string) => formatSessionReferenceMention({ sessionId, label });
const IMAGE: ContentBlockLike = { type: 'image', url: 'x.png' } as ContentBlockLike;

const direct = (id: string, ...content: ContentBlockLike[]): Message => ({ id, role: 'user', direct: true, content });

type Prepare = (content: readonly ContentBlockLike[], references: readonly SessionReferenceInput[]) => Promise<PreparedReferences>;

/** A fake preparation whose context names the ids it was asked for. */
const fakePrepare: Prepare = async (content, references) => ({
  content: structuredClone([...content]),
  context: {
    text: `context of ${references.map((reference) => reference.sessionId).join(',')}`,
    source: { kind: 'session-reference', form: 'recall', version: 1, references: [] },
    sources: [],
  },
});

function adapterWith(prepare: Prepare = fakePrepare) {
  const prepareSpy = vi.fn(prepare);
  const adapter: ReferenceMessageAdapter<Message, ContentBlockLike> = {
    isDirectUserMessage: (message) => message.role === 'user' && message.direct === true,
    contentOf: (message) => message.content,
    withContent: (message, content) => ({ ...message, content }),
    contextMessage: (context, cited) => ({ id: `${cited.id}/context`, role: 'user', content: [text(context.text)], contextOf: cited.id }),
    prepare: prepareSpy,
  };
  return { adapter, prepare: prepareSpy };
}

describe('applySessionReferences', () => {
  const system: Message = { id: 's', role: 'system', content: [text(`system mentions ${mention('alpha')}`)] };
  const cited = direct('u1', text(`look at ${mention('alpha', 'Alpha')} please`));
  const assistant: Message = { id: 'a1', role: 'assistant', content: [text(`I saw ${mention('alpha')}`)] };
  const injected: Message = { id: 'i1', role: 'user', content: [text(mention('beta'))] };
  const plain = direct('u2', text('no mention here'), IMAGE);
  const twice = direct('u3', text(`compare ${encodeSessionReferenceUri('beta')}`), IMAGE, text(`with ${mention('gamma', 'G')}`));
  const messages = [system, cited, assistant, injected, plain, twice];

  it('rewrites cited direct user messages and puts each context right after its message', async () => {
    const { adapter } = adapterWith();
    const output = await applySessionReferences(messages, adapter);
    expect(output).toEqual([
      system,
      { ...cited, content: [text('look at @Alpha please')] },
      { id: 'u1/context', role: 'user', content: [text('context of alpha')], contextOf: 'u1' },
      assistant,
      injected,
      plain,
      { ...twice, content: [text('compare @beta'), IMAGE, text('with @G')] },
      { id: 'u3/context', role: 'user', content: [text('context of beta,gamma')], contextOf: 'u3' },
    ]);
  });

  it('returns every other message as the very same object', async () => {
    const { adapter } = adapterWith();
    const output = await applySessionReferences(messages, adapter);
    expect(output[0]).toBe(system);
    expect(output[3]).toBe(assistant);
    expect(output[4]).toBe(injected);
    expect(output[5]).toBe(plain);
    expect(output[1]).not.toBe(cited);
    expect(output[1]!.id).toBe(cited.id);
  });

  it('prepares each cited message once, with its readable content and its references in order', async () => {
    const { adapter, prepare } = adapterWith();
    await applySessionReferences(messages, adapter);
    expect(prepare.mock.calls).toEqual([
      [[text('look at @Alpha please')], [{ sessionId: 'alpha', label: 'Alpha' }]],
      [
        [text('compare @beta'), IMAGE, text('with @G')],
        [
          { sessionId: 'beta', label: 'beta' },
          { sessionId: 'gamma', label: 'G' },
        ],
      ],
    ]);
  });

  it('reads an excerpt suffix after a mention only with the adapter\'s excerpts on, and keeps it in the readable text either way', async () => {
    const asking = direct('u4', text(`see ${mention('alpha', 'Alpha')}{around: "retry budget"} now`));
    for (const excerpts of [false, true]) {
      const { adapter, prepare } = adapterWith();
      const output = await applySessionReferences([asking], { ...adapter, excerpts });
      expect(output[0]!.content).toEqual([text('see @Alpha{around: "retry budget"} now')]);
      const reference = { sessionId: 'alpha', label: 'Alpha' };
      expect(prepare.mock.calls[0]![1]).toEqual([excerpts ? { ...reference, excerpt: { around: 'retry budget' } } : reference]);
    }
  });

  it('leaves the input messages untouched', async () => {
    const { adapter } = adapterWith();
    const snapshot = structuredClone(messages);
    await applySessionReferences(messages, adapter);
    expect(messages).toEqual(snapshot);
  });

  it('returns the same messages, preparing nothing, when nothing is cited', async () => {
    const { adapter, prepare } = adapterWith();
    const uncited = [system, assistant, plain];
    const output = await applySessionReferences(uncited, adapter);
    expect(output).not.toBe(uncited);
    expect(output).toHaveLength(3);
    output.forEach((message, index) => expect(message).toBe(uncited[index]));
    expect(prepare).not.toHaveBeenCalled();
  });

  it('adds no context message when preparation yields none', async () => {
    const { adapter } = adapterWith(async (content) => ({ content: [...content] }));
    expect(await applySessionReferences([cited, plain], adapter)).toEqual([{ ...cited, content: [text('look at @Alpha please')] }, plain]);
  });

  it('rejects the whole call when one message fails, returning nothing', async () => {
    const failure = new Error('source unreadable');
    const { adapter } = adapterWith(async (content, references) => {
      if (references[0]!.sessionId === 'beta') throw failure;
      return fakePrepare(content, references);
    });
    await expect(applySessionReferences(messages, adapter)).rejects.toBe(failure);
  });

  // The official resolver fails a step with whichever preparation fails first
  // (a quick failed read beats a slower budget failure of an earlier message).
  it('rejects with the first failure to happen, without waiting for slower messages', async () => {
    const sooner = new Error('second, but sooner');
    const { adapter } = adapterWith(async (_content, references) => {
      if (references[0]!.sessionId === 'alpha') return new Promise<never>(() => {});
      throw sooner;
    });
    await expect(applySessionReferences(messages, adapter)).rejects.toBe(sooner);
  });

  it('checks every cited message before preparing any, failing on the first that does not pass', async () => {
    const { adapter, prepare } = adapterWith();
    const checked: string[] = [];
    adapter.check = (references) => {
      checked.push(references[0]!.sessionId);
      if (references[0]!.sessionId === 'beta') throw new Error('beta is not allowed');
    };
    await expect(applySessionReferences(messages, adapter)).rejects.toThrow('beta is not allowed');
    expect(checked).toEqual(['alpha', 'beta']);
    expect(prepare).not.toHaveBeenCalled();
  });

  it('rejects an invalid mention in a direct message before preparing anything', async () => {
    const { adapter, prepare } = adapterWith();
    const broken = direct('u9', text('@[x](dsh-session:ImE)'));
    await expectRejection(applySessionReferences([cited, broken], adapter), 'SESSION_REFERENCE_INVALID_REFERENCE');
    expect(prepare).not.toHaveBeenCalled();
  });

  it('ignores invalid mentions outside direct user messages', async () => {
    const { adapter } = adapterWith();
    const quoted: Message = { id: 'a9', role: 'assistant', content: [text('@[x](dsh-session:ImE)')] };
    const output = await applySessionReferences([quoted], adapter);
    expect(output[0]).toBe(quoted);
  });

  it('works end to end with a resolver: the context carries the cited session’s snapshot', async () => {
    const storage = new MemoryStorage([{ id: 'alpha', messages: [userMessage('hello'), assistantMessage('hi')] }]);
    const resolver = createSessionReferenceCore(storage);
    const { adapter } = adapterWith((content, references) => resolver.prepare({ id: 'target' }, content, references));
    const [rewritten, context] = await applySessionReferences([cited], adapter);
    expect(rewritten!.content).toEqual([text('look at @Alpha please')]);
    const json = extractReferencedSessionsJson((context!.content[0] as { text: string }).text);
    expect(JSON.parse(json!)).toEqual([
      { sessionId: 'alpha', label: 'Alpha', cwd: null, capturedThroughSeq: 2, conversation: [{ role: 'user', text: 'hello' }, { role: 'assistant', text: 'hi' }] },
    ]);
  });
});

describe('parseContentReferences', () => {
  it('keeps non-text blocks and unreferencing text blocks as the same objects', () => {
    const unchanged = text('plain');
    const { content, references } = parseContentReferences([unchanged, IMAGE]);
    expect(content[0]).toBe(unchanged);
    expect(content[1]).toBe(IMAGE);
    expect(references).toEqual([]);
  });

  it('rewrites referencing text blocks into new blocks that keep their other fields', () => {
    const block = { type: 'text', text: `see ${mention('alpha')}`, cacheHint: true } as ContentBlockLike;
    const { content } = parseContentReferences([block]);
    expect(content[0]).toEqual({ type: 'text', text: 'see @alpha', cacheHint: true });
    expect(content[0]).not.toBe(block);
    expect(block).toEqual({ type: 'text', text: `see ${mention('alpha')}`, cacheHint: true });
  });

  it('collects references across blocks in appearance order, duplicates included', () => {
    const { references } = parseContentReferences([text(`${mention('b')} ${mention('a')}`), IMAGE, text(mention('b', 'again'))]);
    expect(references).toEqual([
      { sessionId: 'b', label: 'b' },
      { sessionId: 'a', label: 'a' },
      { sessionId: 'b', label: 'again' },
    ]);
  });
});
