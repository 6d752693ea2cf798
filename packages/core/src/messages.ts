import { parseExcerptMentions } from './excerpt.js';
import { isTextBlock } from './text-block.js';
import type { ContentBlockLike, PreparedReferences, SessionReferenceInput } from './types.js';
import { parseSessionReferenceText } from './uri.js';

/** Readable content of one message and the references its text blocks cite, in order. */
export interface ParsedContent<Block extends ContentBlockLike> {
  content: Block[];
  references: SessionReferenceInput[];
}

/** Parse every text block (each mention's excerpt suffix too, with `excerpts`); other blocks pass through as they are. */
export function parseContentReferences<Block extends ContentBlockLike>(content: readonly Block[], excerpts = false): ParsedContent<Block> {
  const references: SessionReferenceInput[] = [];
  const parse = excerpts ? parseExcerptMentions : parseSessionReferenceText;
  const readable = content.map((block) => {
    if (!isTextBlock(block)) return block;
    const parsed = parse(block.text);
    if (parsed.references.length === 0) return block;
    references.push(...parsed.references);
    return { ...block, text: parsed.text };
  });
  return { content: readable, references };
}

/** How a host's messages are read and rebuilt; sessref never sees their concrete type. */
export interface ReferenceMessageAdapter<Message, Block extends ContentBlockLike> {
  /**
   * Read an excerpt suffix after a mention (`{around: "…"}`, see
   * `formatExcerptSuffix`) as a request for that part of the session; off,
   * it is plain text, as the contract reads it.
   */
  excerpts?: boolean;
  /** Only direct user messages carry mentions that count. */
  isDirectUserMessage(message: Message): boolean;
  contentOf(message: Message): readonly Block[];
  /** The same message (same id) with readable content. */
  withContent(message: Message, content: Block[]): Message;
  /** The context message that follows `cited`. */
  contextMessage(prepared: Required<PreparedReferences<Block>>['context'], cited: Message): Message;
  /**
   * Throw whatever `prepare` would reject one message's references with
   * before reading (see `SessionReferenceCore.checkReferences`), so such
   * failures are decided in message order before anything is read. Optional:
   * without it they surface from `prepare` like any other failure.
   */
  check?(references: readonly SessionReferenceInput[]): void;
  prepare(content: readonly Block[], references: readonly SessionReferenceInput[]): Promise<PreparedReferences<Block>>;
}

/**
 * Replace canonical mentions in direct user messages and put each prepared
 * context right after the message that cited it. Messages without references
 * come back as the very same objects. Every cited message is prepared before
 * any result is built, so a failure anywhere leaves no partial output.
 *
 * What can be decided without reading fails first, in message order: an
 * invalid mention anywhere, then the first message whose references fail
 * their check. The messages are then prepared concurrently and the step fails
 * with the first failure that happens, without waiting for the others.
 */
export async function applySessionReferences<Message, Block extends ContentBlockLike>(
  messages: readonly Message[],
  adapter: ReferenceMessageAdapter<Message, Block>,
): Promise<Message[]> {
  const plans = messages.map((message) => {
    if (!adapter.isDirectUserMessage(message)) return undefined;
    const parsed = parseContentReferences(adapter.contentOf(message), adapter.excerpts === true);
    return parsed.references.length === 0 ? undefined : parsed;
  });
  if (plans.every((plan) => plan === undefined)) return [...messages];
  for (const plan of plans) if (plan) adapter.check?.(plan.references);

  const prepared = await Promise.all(plans.map((plan) => (plan ? adapter.prepare(plan.content, plan.references) : undefined)));
  return messages.flatMap((message, index) => {
    const result = prepared[index];
    if (result === undefined) return [message];
    const readable = adapter.withContent(message, result.content);
    return result.context ? [readable, adapter.contextMessage(result.context, message)] : [readable];
  });
}
