/**
 * Wire records of the dsh plugin and their registration on the host's maps.
 * @module @sessref/dsh/types
 */
import type { SessionReferenceSource } from '@sessref/core';

export type {
  PreparedReferences,
  SessionReferenceCandidate,
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
