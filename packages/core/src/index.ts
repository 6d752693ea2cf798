/**
 * @sessref/core: the host-agnostic session-reference contract.
 * @module @sessref/core
 */
export * from './types.js';
export { SessionReferenceError, SESSION_REFERENCE_ERROR_CODES, errorCode, isSessionReferenceError, type SessionReferenceErrorCode } from './errors.js';
export { raceCancellation, throwIfCancelled } from './cancellation.js';
export {
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
  MAX_REFERENCES,
  resolveConfig,
  invalidConfig,
  isPositiveSafeInteger,
  type ResolvedSessionReferenceConfig,
  type SessionReferenceConfig,
} from './config.js';
export {
  SESSION_REFERENCE_SCHEME,
  decodeSessionReferenceUri,
  encodeSessionReferenceUri,
  formatSessionReferenceMention,
  parseSessionReferenceText,
  readableMention,
} from './uri.js';
export { stringifyTagSafeJson } from './serialization.js';
export { labelOf } from './label.js';
export { messageText, projectConversation, projectMessage, type ProjectedItem } from './projection.js';
export { retainReference, cutText, omissionNotice, type RetainedReference, type RetentionInput } from './retention.js';
export { fitSnapshot, type SnapshotFit } from './fit.js';
export {
  REFERENCED_SESSIONS_CLOSE_TAG,
  REFERENCED_SESSIONS_HEADING,
  REFERENCED_SESSIONS_OPEN_TAG,
  REFERENCED_SESSIONS_WARNING,
  extractReferencedSessionsJson,
  prettyReferencedSessionsPrompt,
  renderReferencedSessionsDisplay,
  renderReferencedSessionsPrompt,
} from './prompt.js';
export { isTextBlock } from './text-block.js';
export { isJsonObject } from './json-object.js';
export { checkCandidateLimit, rankByCwd, toCandidate, type CandidateShape, type CandidateTitles } from './discovery.js';
export { createSessionReferenceCore, withMention, type CoreOptions, type SessionReferenceCore } from './facade.js';
export type { FullSnapshotRequest, FullSnapshotStore, PrepareOptions } from './prepare.js';
export { DEFAULT_REFERENCE_CONTEXT_FRACTION, modelRelativeBudget, resolveReferenceContextFraction } from './budget.js';
export {
  FULL_SNAPSHOT_HEADING,
  REFERENCE_OMISSIONS_HEADING,
  TRANSCRIPT_FRAGMENT_CODE_POINTS,
  renderFullSnapshotTranscript,
  renderReferenceOmissions,
  type FullSnapshotOutcome,
  type ReferenceOmission,
  type SavedSnapshot,
} from './omissions.js';
export { combineSources, type CombineOptions, type CombinedStorage, type SessionSource, type SourceFailure } from './sources.js';
export { applySessionReferences, parseContentReferences, type ParsedContent, type ReferenceMessageAdapter } from './messages.js';
export { utf8Length } from './utf8.js';
export { MAX_TITLE_LENGTH, SessionInputError, checkMessageText, checkTitle, untitled, type SessionInputCode } from './session-input.js';
export {
  MAX_CONTENT_QUERY_LENGTH,
  MAX_SNIPPET_LENGTH,
  normalizeContentQuery,
  phraseTokens,
  plainExcerpt,
  type PlainExcerpt,
  type TextRange,
} from './content.js';
