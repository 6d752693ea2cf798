import type { ContentBlockLike, PreparedReferences, SessionReferenceInput } from './types.js';
import { parseSessionReferenceText } from './uri.js';

/** Readable content of one message and the references its text blocks cite, in order. */
export interface ParsedContent<Block extends ContentBlockLike> {
  content: Block[];
  references: SessionReferenceInput[];
}

/** Parse every text block; other blocks pass through as they are. */
export function parseContentReferences<Block extends ContentBlockLike>(content: readonly Block[]): ParsedContent<Block> {
  const references: SessionReferenceInput[] = [];
  const readable = content.map((block) => {
    if (block.type !== 'text' || !('text' in block)) return block;
    const parsed = parseSessionReferenceText(block.text);
    if (parsed.references.length === 0) return block;
    references.push(...parsed.references);
    return { ...block, text: parsed.text };
  });
  return { content: readable, references };
}

/** How a host's messages are read and rebuilt; sessref never sees their concrete type. */
export interface ReferenceMessageAdapter<Message, Block extends ContentBlockLike> {
  /** Only direct user messages carry mentions that count. */
  isDirectUserMessage(message: Message): boolean;
  contentOf(message: Message): readonly Block[];
  /** The same message (same id) with readable content. */
  withContent(message: Message, content: Block[]): Message;
  /** The context message that follows `cited`. */
  contextMessage(prepared: Required<PreparedReferences<Block>>['context'], cited: Message): Message;
  prepare(content: readonly Block[], references: readonly SessionReferenceInput[]): Promise<PreparedReferences<Block>>;
}

/**
 * Replace canonical mentions in direct user messages and put each prepared
 * context right after the message that cited it. Messages without references
 * come back as the very same objects. Every cited message is prepared before
 * any result is built, so a failure anywhere leaves no partial output.
 */
export async function applySessionReferences<Message, Block extends ContentBlockLike>(
  messages: readonly Message[],
  adapter: ReferenceMessageAdapter<Message, Block>,
): Promise<Message[]> {
  const plans = messages.map((message) => {
    if (!adapter.isDirectUserMessage(message)) return undefined;
    const parsed = parseContentReferences(adapter.contentOf(message));
    return parsed.references.length === 0 ? undefined : parsed;
  });
  if (plans.every((plan) => plan === undefined)) return [...messages];

  const settled = await Promise.allSettled(plans.map((plan) => (plan ? adapter.prepare(plan.content, plan.references) : undefined)));
  const output: Message[] = [];
  settled.forEach((result, index) => {
    if (result.status === 'rejected') throw result.reason;
    const message = messages[index]!;
    const prepared = result.value;
    if (prepared === undefined) {
      output.push(message);
      return;
    }
    output.push(adapter.withContent(message, prepared.content));
    if (prepared.context) output.push(adapter.contextMessage(prepared.context, message));
  });
  return output;
}
