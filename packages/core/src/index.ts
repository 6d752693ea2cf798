/**
 * @sessref/core: the host-agnostic session-reference contract, and the seam
 * (`SessionSource`, `combineSources`) through which any place sessions live
 * becomes its one storage port. Helpers only sessref's own packages share are
 * in `@sessref/core/internal`, which is not a stable API.
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
  type ResolvedSessionReferenceConfig,
  type SessionReferenceConfig,
} from './config.js';
export {
  SESSION_REFERENCE_SCHEME,
  decodeSessionReferenceUri,
  encodeSessionReferenceUri,
  formatSessionReferenceMention,
  parseSessionReferenceText,
} from './uri.js';
export { stringifyTagSafeJson } from './serialization.js';
export { labelOf } from './label.js';
export { projectConversation, projectMessage, type ProjectedItem } from './projection.js';
export type { RetainedReference, RetentionInput } from './retention.js';
export { fitSnapshot, type FitOptions, type SnapshotFit } from './fit.js';
export { checkExcerptRequest, formatExcerptSuffix, selectExcerpt } from './excerpt.js';
export type { ExcerptWindow, TextSpan } from './retention.js';
export { redactSecrets, type Redacted } from './redaction.js';
export {
  REFERENCED_SESSIONS_CLOSE_TAG,
  REFERENCED_SESSIONS_HEADING,
  REFERENCED_SESSIONS_OPEN_TAG,
  REFERENCED_SESSIONS_WARNING,
  extractReferencedSessionsJson,
  renderReferencedSessionsPrompt,
} from './prompt.js';
export type { CandidateShape, CandidateTitles } from './discovery.js';
export { createSessionReferenceCore, type CoreOptions, type SessionReferenceCore } from './facade.js';
export type { FullSnapshotRequest, FullSnapshotStore, PrepareOptions } from './prepare.js';
export { DEFAULT_REFERENCE_CONTEXT_FRACTION, modelRelativeBudget, resolveReferenceContextFraction } from './budget.js';
export {
  FULL_SNAPSHOT_HEADING,
  REFERENCE_OMISSIONS_HEADING,
  REFERENCE_EXCERPTS_HEADING,
  type FullSnapshotOutcome,
  type ReferenceExcerpt,
  type ReferenceOmission,
  type SavedSnapshot,
} from './omissions.js';
export { combineSources, type CombineOptions, type CombinedStorage, type SessionSource, type SourceFailure } from './sources.js';
export { applySessionReferences, type ParsedContent, type ReferenceMessageAdapter } from './messages.js';
export {
  MAX_CONTENT_QUERY_LENGTH,
  MAX_SNIPPET_LENGTH,
  normalizeContentQuery,
  excerptAround,
  plainExcerpt,
  type PlainExcerpt,
  type TextRange,
} from './content.js';
