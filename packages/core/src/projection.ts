import { isTextBlock } from './text-block.js';
import type { ReferencedConversationItem, SurfaceMessage } from './types.js';

/** A projected item, with whether it is a compaction checkpoint (never dropped by retention). */
export interface ProjectedItem extends ReferencedConversationItem {
  checkpoint: boolean;
}

/**
 * The conversation a reference carries: direct user text, compaction
 * checkpoints and assistant text, in surface order. Tool traffic, injected
 * context, other plugins' messages, reasoning and non-text blocks never pass.
 * Text blocks join with "\n"; a message whose text is empty is skipped.
 */
export function projectConversation(messages: readonly SurfaceMessage[]): ProjectedItem[] {
  const items: ProjectedItem[] = [];
  for (const message of messages) {
    const kind = conversationKind(message);
    if (kind === undefined) continue;
    const text = joinText(message);
    if (text.length === 0) continue;
    items.push({ role: kind === 'assistant' ? 'assistant' : 'user', text, checkpoint: kind === 'checkpoint' });
  }
  return items;
}

function conversationKind(message: SurfaceMessage): 'user' | 'assistant' | 'checkpoint' | undefined {
  if (message.role === 'assistant') return 'assistant';
  if (message.role !== 'user') return undefined;
  if (message.origin === 'direct-user') return 'user';
  if (message.origin === 'compact-checkpoint') return 'checkpoint';
  return undefined;
}

function joinText(message: SurfaceMessage): string {
  let text: string | undefined;
  for (const block of message.content) {
    if (!isTextBlock(block)) continue;
    text = text === undefined ? block.text : `${text}\n${block.text}`;
  }
  return text ?? '';
}
