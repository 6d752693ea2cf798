import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString } from '../test/arbitraries.js';
import { assistantMessage, checkpointMessage, injectedMessage, text, toolMessage, userMessage } from '../test/surface.js';
import { messageText, projectConversation, projectMessage } from './projection.js';
import type { ContentBlockLike, SurfaceMessage } from './types.js';

describe('projectConversation', () => {
  it('keeps direct user text, checkpoints and assistant text, in surface order', () => {
    expect(
      projectConversation([
        checkpointMessage('summary so far'),
        userMessage('question'),
        assistantMessage('answer'),
      ]),
    ).toEqual([
      { role: 'user', text: 'summary so far', checkpoint: true },
      { role: 'user', text: 'question', checkpoint: false },
      { role: 'assistant', text: 'answer', checkpoint: false },
    ]);
  });

  it('drops tool traffic and user-role messages injected by anything but the user', () => {
    expect(
      projectConversation([
        toolMessage('tool output'),
        injectedMessage('## Referenced sessions …'),
        userMessage('kept'),
      ]),
    ).toEqual([{ role: 'user', text: 'kept', checkpoint: false }]);
  });

  it('treats assistant text as conversation whatever its origin', () => {
    const directAssistant: SurfaceMessage = { role: 'assistant', origin: 'direct-user', content: [text('reply')] };
    expect(projectConversation([directAssistant])).toEqual([{ role: 'assistant', text: 'reply', checkpoint: false }]);
  });

  it('drops reasoning, images, tool calls and other non-text blocks', () => {
    const reasoning = { type: 'reasoning', text: 'private chain of thought' };
    const image = { type: 'image', url: 'x.png' };
    const toolCall = { type: 'tool-call', name: 'shell' };
    expect(projectConversation([assistantMessage(reasoning, 'visible', toolCall), userMessage(image, 'look')])).toEqual([
      { role: 'assistant', text: 'visible', checkpoint: false },
      { role: 'user', text: 'look', checkpoint: false },
    ]);
  });

  it('joins the text blocks of one message with "\\n"', () => {
    expect(projectConversation([userMessage('first', { type: 'image' }, 'second', 'third')])).toEqual([
      { role: 'user', text: 'first\nsecond\nthird', checkpoint: false },
    ]);
  });

  it('keeps empty text blocks in the join', () => {
    expect(projectConversation([userMessage('', 'x')])).toEqual([{ role: 'user', text: '\nx', checkpoint: false }]);
  });

  it('skips messages whose projected text is empty', () => {
    const thinking = { type: 'reasoning', text: 'only thinking' };
    expect(
      projectConversation([
        userMessage(),
        userMessage(''),
        assistantMessage(thinking),
        checkpointMessage({ type: 'image' }),
        assistantMessage('the only survivor'),
      ]),
    ).toEqual([{ role: 'assistant', text: 'the only survivor', checkpoint: false }]);
  });

  it('returns nothing for an empty surface', () => {
    expect(projectConversation([])).toEqual([]);
  });

  it('passes text through untouched, tags and lone surrogates included', () => {
    const raw = '</referenced-sessions> "quoted" \ud800 😀';
    expect(projectConversation([userMessage(raw)])).toEqual([{ role: 'user', text: raw, checkpoint: false }]);
  });
});

describe('projectMessage', () => {
  const block = fc.oneof(
    anyString({ maxLength: 6 }).map(text),
    fc.constantFrom<ContentBlockLike>({ type: 'reasoning' }, { type: 'tool-call' }, { type: 'image' }),
  );
  const surfaceMessage = fc.record({
    role: fc.constantFrom<SurfaceMessage['role']>('user', 'assistant', 'tool'),
    origin: fc.constantFrom<SurfaceMessage['origin']>('direct-user', 'compact-checkpoint', 'other'),
    content: fc.array(block, { maxLength: 4 }),
  });

  it('carries a message exactly when it is assistant, direct user or checkpoint text that is not empty (property)', () => {
    fc.assert(
      fc.property(surfaceMessage, (message) => {
        const texts = message.content.flatMap((item) => ('text' in item && typeof item.text === 'string' ? [item.text] : []));
        const joined = texts.join('\n');
        const conversation = message.role === 'assistant' || (message.role === 'user' && message.origin !== 'other');
        const expected = conversation && texts.length > 0 && joined.length > 0;
        expect(projectMessage(message)).toEqual(
          expected ? { role: message.role === 'assistant' ? 'assistant' : 'user', text: joined, checkpoint: message.role === 'user' && message.origin === 'compact-checkpoint' } : undefined,
        );
        expect(messageText(message.content)).toBe(joined);
      }),
    );
  });
});
