/**
 * Wire records of the dsh plugin and their registration on the host's maps.
 * Type-only: the built module is empty, and its declarations import only the
 * type subpaths of dsh-llm, so a browser bundle can import it.
 * @module @sessref/dsh/types
 */
import type { UserMessage } from '@deepseek-ai/dsh-llm/message';
import type { ContentBlock } from '@deepseek-ai/dsh-llm/types';
import type { SessionReferenceSource, SnapshotFit, SurfaceSnapshot } from '@sessref/core';

export type {
  SessionReferenceCandidate,
  SessionReferenceContentHit,
  SessionReferenceInput,
  SessionReferenceMentionCandidate,
  SessionReferenceSource,
  ReferencedConversationItem,
  ReferencedSessionData,
} from '@sessref/core';

declare module '@deepseek-ai/dsh-llm' {
  interface MessageSourceMap {
    'session-reference': SessionReferenceSource;
  }
}

/** What `prepare()` returns: detached readable content and, when anything was cited, the context message. */
export interface PreparedReferencedMessage {
  content: ContentBlock[];
  additionalContext?: UserMessage;
}

/** What a reference to one session would carry right now, as a host's own inspector shows it. */
export interface SessionSnapshotView {
  /** The session's current surface, read once as `prepare()` reads it. */
  snapshot: SurfaceSnapshot;
  /** Its latest title, when it has one. */
  title: string | undefined;
  /** Its projection and the part of it that fits the configured budget. */
  fit: SnapshotFit;
}
