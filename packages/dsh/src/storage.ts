import { isCompactCheckpointSource } from '@deepseek-ai/dsh-compaction';
import type { MessageSource } from '@deepseek-ai/dsh-llm';
import { SessionId, type SurfaceEvent } from '@deepseek-ai/dsh-session';
import type { SessionQueryEngine } from '@deepseek-ai/dsh-session-query';
import type { MessageOrigin, SessionReferenceStorage, SurfaceMessage, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from './catalog.js';

/**
 * The core's read-only storage port over `ctx.sessionQuery`: the host owns the
 * log format, folding and corpus observation; this only renames fields.
 * Discovery goes through the host's catalog when it registered one.
 */
export function sessionQueryStorage(
  query: () => SessionQueryEngine,
  catalog: () => SessionReferenceCatalog | undefined = () => undefined,
): SessionReferenceStorage {
  return {
    async listSessions(signal) {
      const indexed = catalog();
      if (indexed) return indexed.listSessions(signal);
      const records = await query().listSessions(signal);
      return records.map((record) => record.header);
    },
    async readTitles(sessionIds, signal) {
      const indexed = catalog();
      if (indexed) return indexed.readTitles(sessionIds, signal);
      const results = await query().readTitleSnapshots(sessionIds.map(SessionId), signal);
      return results.map(
        (result): TitleReadResult =>
          result.status === 'fulfilled'
            ? { sessionId: result.sessionId, status: 'fulfilled', title: result.value.title?.title }
            : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
      );
    },
    async readSurface(sessionId) {
      const snapshot = await query().readSurface(SessionId(sessionId));
      return {
        session: snapshot.session,
        capturedThroughSeq: snapshot.capturedThroughSeq,
        messages: snapshot.events.map(toSurfaceMessage),
      };
    },
  };
}

/** One folded surface event in the core's host-neutral shape. */
export function toSurfaceMessage(event: SurfaceEvent): SurfaceMessage {
  switch (event.type) {
    case 'user/message':
      return { role: 'user', origin: originOf(event.data.source), content: event.data.content };
    case 'assistant/message':
      return { role: 'assistant', origin: 'other', content: event.data.message.content };
    default:
      return { role: 'tool', origin: 'other', content: event.data.message.content };
  }
}

function originOf(source: MessageSource): MessageOrigin {
  if (source.kind === 'user') return 'direct-user';
  return isCompactCheckpointSource(source) ? 'compact-checkpoint' : 'other';
}
