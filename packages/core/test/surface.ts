/** Builders of host-neutral surface messages. */
import type { ContentBlockLike, SurfaceMessage } from '../src/types.js';

export function text(value: string): ContentBlockLike {
  return { type: 'text', text: value };
}

function message(role: SurfaceMessage['role'], origin: SurfaceMessage['origin'], content: readonly (string | ContentBlockLike)[]): SurfaceMessage {
  return { role, origin, content: content.map((block) => (typeof block === 'string' ? text(block) : block)) };
}

/** A direct user message; strings become text blocks. */
export const userMessage = (...content: (string | ContentBlockLike)[]) => message('user', 'direct-user', content);
/** A compaction checkpoint (a user-role message carrying the checkpoint marker). */
export const checkpointMessage = (...content: (string | ContentBlockLike)[]) => message('user', 'compact-checkpoint', content);
/** A user-role message injected by something other than the user. */
export const injectedMessage = (...content: (string | ContentBlockLike)[]) => message('user', 'other', content);
export const assistantMessage = (...content: (string | ContentBlockLike)[]) => message('assistant', 'other', content);
export const toolMessage = (...content: (string | ContentBlockLike)[]) => message('tool', 'other', content);
