/**
 * `@sessref/core/internal`: helpers sessref's own packages share (JSON and
 * text-block guards, UTF-8 length, discovery's candidate steps, the
 * inspector's views of the context text, the retention steps
 * `fitSnapshot` runs, the words of a text). Internal to
 * sessref's packages and not a stable API: anything here may change or go in
 * any release. The contract is the main entry, `@sessref/core`.
 * @module @sessref/core/internal
 */
export { invalidConfig } from './config.js';
export { isJsonObject } from './json-object.js';
export { isTextBlock } from './text-block.js';
export { utf8Length } from './utf8.js';
export { messageText } from './projection.js';
export { cutText, omissionNotice, retainReference } from './retention.js';
export { checkCandidateLimit, toCandidate } from './discovery.js';
export { withMention } from './facade.js';
export { prettyReferencedSessionsPrompt, renderReferencedSessionsDisplay } from './prompt.js';
export { renderReferenceExcerpts } from './omissions.js';
export { phraseTokens } from './content.js';
