/**
 * A step's messages without booting dsh, for `prepare`: the plugin's own
 * expansion of an entered step (`expandStepMessages`, what its
 * `agent/pre-step` listener runs) over the engine's service, for one direct
 * user message. In the host an engine boots for a step, that listener and
 * dsh's default `enter` are the whole pre-step chain, so this is the step's
 * outcome; `own-step.test.ts` compares the two over generated roots. A 0.1.7
 * or 0.2 contract's parts (the model-relative budget, the spill store) come
 * from the host, so such an engine steps through it.
 */
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm';
import type { PreparedContext, SessionHeaderLike } from '@sessref/core';
import { expandStepMessages, preparedContextOf } from '@sessref/dsh/messages';
import type { ReferenceService } from '@sessref/dsh/service';

/** One message of a step, as it would enter history. */
export interface StepMessage {
  message: UserMessage;
  /** For a context message, what the plugin prepared for it: each source's entry, data object and budgeted size. */
  prepared?: PreparedContext;
}

/** `text` typed by the user in the session `header` heads, as a step would enter it (nothing is written). */
export async function stepWithoutHost(service: ReferenceService, header: SessionHeaderLike, text: string, signal: AbortSignal): Promise<StepMessage[]> {
  const typed = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } });
  const target = header.cwd === undefined ? { id: header.id } : { id: header.id, cwd: header.cwd };
  const messages = await expandStepMessages(service.core, target, [typed], signal, service.prepareOptions(), service.excerpts);
  return messages.map(stepMessage);
}

/** A step's message with the plugin's own record of it, when it is a context message the plugin built. */
export function stepMessage(message: UserMessage): StepMessage {
  const prepared = preparedContextOf(message);
  return prepared === undefined ? { message } : { message, prepared };
}
