import { isTextBlock } from './text-block.js';
import type { ContentBlockLike, ReferencedConversationItem, SurfaceMessage } from './types.js';

/** A projected item, with whether it is a compaction checkpoint (never dropped by retention). */
export interface ProjectedItem extends ReferencedConversationItem {
  checkpoint: boolean;
}

/**
 * The conversation a reference carries: direct user text, compaction
 * checkpoints and assistant text, in surface order. Tool traffic, injected
 * context, other plugins' messages, reasoning and non-text blocks never pass.
 */
export function projectConversation(messages: readonly SurfaceMessage[]): ProjectedItem[] {
  return messages.flatMap((message) => projectMessage(message) ?? []);
}

/**
 * One surface message as a snapshot carries it, or `undefined` when no
 * snapshot carries it: the one rule every reader of "what a reference
 * carries" applies (snapshots, content search, inspectors). Text blocks join
 * with "\n"; a message whose text is empty is not carried.
 */
export function projectMessage(message: SurfaceMessage): ProjectedItem | undefined {
  const kind = conversationKind(message);
  if (kind === undefined) return undefined;
  const text = messageText(message.content);
  if (text.length === 0) return undefined;
  return { role: kind === 'assistant' ? 'assistant' : 'user', text, checkpoint: kind === 'checkpoint' };
}

/** A message's text: its text blocks joined with "\n"; every other block is dropped. */
export function messageText(content: readonly ContentBlockLike[]): string {
  let text: string | undefined;
  for (const block of content) {
    if (!isTextBlock(block)) continue;
    text = text === undefined ? block.text : `${text}\n${block.text}`;
  }
  return text ?? '';
}

function conversationKind(message: SurfaceMessage): 'user' | 'assistant' | 'checkpoint' | undefined {
  if (message.role === 'assistant') return 'assistant';
  if (message.role !== 'user') return undefined;
  if (message.origin === 'direct-user') return 'user';
  if (message.origin === 'compact-checkpoint') return 'checkpoint';
  return undefined;
}
