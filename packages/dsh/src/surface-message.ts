/**
 * One folded surface event in the core's host-neutral shape: the one mapping
 * every read of a dsh surface goes through (the plugin's `ctx.sessionQuery`
 * read, and sessref's own read of a log in `@sessref/dsh/own-surface`). Its own
 * entry point, so a read without a dsh host loads only what it names.
 * @module @sessref/dsh/surface
 */
import { isCompactCheckpointSource } from '@deepseek-ai/dsh-compaction';
import type { MessageSource } from '@deepseek-ai/dsh-llm';
import type { SurfaceEvent } from '@deepseek-ai/dsh-session';
import type { MessageOrigin, SurfaceMessage } from '@sessref/core';

/** One folded surface event in the core's host-neutral shape, with its raw-log seq (what a content hit reports). */
export function toSurfaceMessage(event: SurfaceEvent): SurfaceMessage {
  switch (event.type) {
    case 'user/message':
      return { role: 'user', origin: originOf(event.data.source), content: event.data.content, seq: event.seq };
    case 'assistant/message':
      return { role: 'assistant', origin: 'other', content: event.data.message.content, seq: event.seq };
    default:
      return { role: 'tool', origin: 'other', content: event.data.message.content, seq: event.seq };
  }
}

function originOf(source: MessageSource): MessageOrigin {
  if (source.kind === 'user') return 'direct-user';
  return isCompactCheckpointSource(source) ? 'compact-checkpoint' : 'other';
}
