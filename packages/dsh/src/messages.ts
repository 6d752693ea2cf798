import type { Agent } from '@deepseek-ai/dsh-agent';
import { createUserMessage, type ContentBlock, type UserMessage } from '@deepseek-ai/dsh-llm';
import { applySessionReferences, type PrepareOptions, type PreparedContext, type ReferenceTarget, type SessionReferenceCore } from '@sessref/core';
import { deepFreeze } from '@sessref/platform';

/**
 * Rewrite an entered step's batch: each direct user message with canonical
 * mentions becomes a frozen message with the same id and readable text,
 * followed by its frozen context message. Every other message is returned as
 * the very same object. `target` is the session the step is in (see
 * {@link targetOf}); `options` carry the 0.1.7 / 0.2 contract's parts;
 * `excerpts` reads a mention's excerpt suffix (the `excerpts` key).
 */
export function expandStepMessages(
  core: SessionReferenceCore,
  target: ReferenceTarget,
  messages: readonly UserMessage[],
  signal: AbortSignal,
  options?: PrepareOptions,
  excerpts = false,
): Promise<UserMessage[]> {
  return applySessionReferences<UserMessage, ContentBlock>(messages, {
    excerpts,
    isDirectUserMessage: (message) => message.source.kind === 'user',
    contentOf: (message) => message.content,
    withContent: (message, content) => deepFreeze({ ...message, content }),
    contextMessage: (context) => contextMessage(context),
    check: (references) => core.checkReferences(target, references, signal),
    prepare: (content, references) => core.prepare(target, content, references, signal, options),
  });
}

/** The core's view of a dsh agent. */
export function targetOf(agent: Agent): ReferenceTarget {
  const cwd = agent.session.header.cwd;
  return cwd === undefined ? { id: agent.id } : { id: agent.id, cwd };
}

/** What the core prepared for each context message built here; the entry lives as long as the message. */
const prepared = new WeakMap<UserMessage, PreparedContext>();

/**
 * The durable user-role message that carries the snapshots, under a fresh id,
 * built by the host's own message factory (so its fields are laid out like
 * the official plugin's: source, content, role, id).
 */
export function contextMessage(context: PreparedContext): UserMessage {
  const message = deepFreeze(createUserMessage({ source: context.source, content: [{ type: 'text', text: context.text }] }));
  prepared.set(message, context);
  return message;
}

/**
 * What was prepared for a context message this process built: each source's
 * entry, data object and serialized size. The message carries the data only
 * as model-facing text, which no one but the core's prompt module reads, so a
 * host inspecting a step asks here instead. `undefined` for any other
 * message, such as one read back from a log.
 */
export function preparedContextOf(message: UserMessage): PreparedContext | undefined {
  return prepared.get(message);
}
