/**
 * Excerpts: a reference that carries the part of a session around a phrase,
 * or a range of its messages, instead of its newest messages. This module
 * only decides which part; retention (retention.ts) fits that part into the
 * same budget with the same serialization, and the context says the rest of
 * the session was left out (omissions.ts).
 */
import { normalizeContentQuery } from './content.js';
import { SessionReferenceError } from './errors.js';
import type { ProjectedItem } from './projection.js';
import type { ExcerptWindow } from './retention.js';
import type { ExcerptRequest, ParsedSessionReferenceText } from './types.js';
import { SESSION_REFERENCE_SCHEME, parseSessionReferenceText } from './uri.js';

/**
 * Which part of the whole conversation `request` names, for retention to
 * fit. Pure: the same items and request always give the same window.
 * @throws SESSION_REFERENCE_INVALID_QUERY for a phrase that is not
 *   searchable text (see `normalizeContentQuery`: no letter or digit, a NUL,
 *   over 256 characters); SESSION_REFERENCE_INVALID_EXCERPT for a request
 *   that is neither shape, or a range that is not two positive integers in
 *   order; SESSION_REFERENCE_EXCERPT_NOT_FOUND when no carried message holds
 *   the phrase, or the range starts past the conversation's end.
 */
export function selectExcerpt(items: readonly ProjectedItem[], request: ExcerptRequest): ExcerptWindow {
  checkExcerptRequest(request);
  if ('around' in request) return aroundPhrase(items, request.around);
  const { firstMessage, lastMessage } = request;
  if (firstMessage > items.length) {
    throw notFound(`a reference carries ${items.length} message${items.length === 1 ? '' : 's'} of it; message ${firstMessage} is past the end`);
  }
  // A range that runs past the end means "to the end": the session may have grown since the range was chosen.
  return { kind: 'range', first: firstMessage - 1, last: Math.min(lastMessage, items.length) - 1 };
}

/**
 * Reject a malformed request before anything is read, as `prepare()` checks
 * its references: the shape of `request`, a phrase's text, a range's bounds.
 */
export function checkExcerptRequest(request: unknown): asserts request is ExcerptRequest {
  if (typeof request !== 'object' || request === null) throw invalidExcerpt('an excerpt must be { around } or { firstMessage, lastMessage }');
  if ('around' in request) {
    if (normalizeContentQuery(request.around) === '') throw invalidPhrase();
    return;
  }
  const { firstMessage, lastMessage } = request as { firstMessage?: unknown; lastMessage?: unknown };
  if (!isPosition(firstMessage) || !isPosition(lastMessage) || firstMessage > lastMessage) {
    throw invalidExcerpt(`an excerpt's range must be two positive integers, first to last, got ${String(firstMessage)} to ${String(lastMessage)}`);
  }
}

/** The first item holding `phrase`, and where in its text. */
function aroundPhrase(items: readonly ProjectedItem[], phrase: string): ExcerptWindow {
  const pattern = phrasePattern(normalizeContentQuery(phrase));
  for (let index = 0; index < items.length; index++) {
    const match = pattern.exec(items[index]!.text);
    if (match !== null) return { kind: 'around', index, span: { start: match.index, end: match.index + match[0].length } };
  }
  throw notFound(`no message a reference carries holds "${phrase}"`);
}

/**
 * The phrase as a case-insensitive pattern over the original text, so the
 * match's offsets are the text's own (lower-casing the text could move them):
 * its words literal, each space matching any run of whitespace, control and
 * format characters, the run a search snippet flattens to one space (see
 * `plainExcerpt`), so a phrase copied from a snippet finds its message.
 */
function phrasePattern(normalized: string): RegExp {
  const words = normalized.split(' ').map((word) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  return new RegExp(words.join('[\\s\\p{Cc}\\p{Cf}]+'), 'iu');
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

function invalidPhrase(): SessionReferenceError {
  return new SessionReferenceError("an excerpt's phrase needs a letter or a digit", 'SESSION_REFERENCE_INVALID_QUERY');
}

function invalidExcerpt(message: string): SessionReferenceError {
  return new SessionReferenceError(message, 'SESSION_REFERENCE_INVALID_EXCERPT');
}

function notFound(message: string): SessionReferenceError {
  return new SessionReferenceError(message, 'SESSION_REFERENCE_EXCERPT_NOT_FOUND');
}

/**
 * How a message asks for an excerpt of a session it mentions: right after
 * the mention (or bare URI), or after one space (as an editor that keeps a
 * space after a mention writes it), `{around: "PHRASE"}` (the phrase a JSON
 * string) or `{messages: FIRST-LAST}`. Plain text to any parser of
 * mentions that does not know it, the official plugin's included, so a log
 * holding one reads the same without sessref.
 */
const EXCERPT_SUFFIX = / ?\{(?:around: ?("(?:[^"\\\r\n]|\\.)*")|messages: ?(\d{1,15})-(\d{1,15}))\}/y;

/**
 * The suffix that asks for `request` after a mention. A phrase is written
 * as a JSON string whose scheme-like text is escaped (`dsh-session\u003a`),
 * so no parser of mentions ever reads a URI inside it.
 */
export function formatExcerptSuffix(request: ExcerptRequest): string {
  if ('around' in request) return `{around: ${JSON.stringify(request.around).replaceAll(SESSION_REFERENCE_SCHEME, 'dsh-session\\u003a')}}`;
  return `{messages: ${request.firstMessage}-${request.lastMessage}}`;
}

/**
 * {@link parseSessionReferenceText}, each reference followed (right away or
 * after one space) by an excerpt suffix (see {@link formatExcerptSuffix}) carrying that
 * excerpt. The readable text is the same: the suffix stays in it, as the
 * user wrote it. A suffix that is not valid JSON asks for nothing.
 */
export function parseExcerptMentions(text: string): ParsedSessionReferenceText {
  const ends: number[] = [];
  const parsed = parseSessionReferenceText(text, ends);
  const references = parsed.references.map((reference, index) => {
    EXCERPT_SUFFIX.lastIndex = ends[index]!;
    const match = EXCERPT_SUFFIX.exec(text);
    const excerpt = match === null ? undefined : excerptOfSuffix(match);
    return excerpt === undefined ? reference : { ...reference, excerpt };
  });
  return { text: parsed.text, references };
}

function excerptOfSuffix([, phrase, first, last]: RegExpExecArray): ExcerptRequest | undefined {
  if (phrase === undefined) return { firstMessage: Number(first), lastMessage: Number(last) };
  try {
    return { around: JSON.parse(phrase) as string };
  } catch {
    return undefined;
  }
}
