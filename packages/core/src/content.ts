/**
 * Content discovery text handling: the literal query, phrase matching over
 * projected text, and bounded plain-text snippets. Host-neutral: a host's
 * full-text backend finds candidate messages; these functions decide what a
 * query is, whether a projected text really contains it, and what excerpt of
 * it may be shown.
 *
 * Matching follows the token rules of SQLite FTS5's default `unicode61`
 * tokenizer, which dsh's search backend uses: a token is a run of letters,
 * digits and combining marks; case and diacritics are ignored; everything
 * else separates tokens. A query is one literal phrase: its tokens must
 * appear consecutively. Query syntax (quotes, `OR`, `NEAR`, `*`, `^`, `:`)
 * is text like any other.
 */
import { SessionReferenceError } from './errors.js';

/** Longest accepted content query, in code points after whitespace is normalized. */
export const MAX_CONTENT_QUERY_LENGTH = 256;

/** Longest snippet a content hit carries, in code points. */
export const MAX_SNIPPET_LENGTH = 240;

const ELLIPSIS = '…';

/**
 * The query as searchable text: whitespace runs become one space, the ends
 * are trimmed, lone surrogates become U+FFFD. Returns `''` when nothing
 * searchable is left (no letter or digit), which callers answer with no hits.
 * @throws SESSION_REFERENCE_INVALID_QUERY for a non-string, a NUL character,
 *   or more than {@link MAX_CONTENT_QUERY_LENGTH} code points.
 */
export function normalizeContentQuery(query: unknown): string {
  if (typeof query !== 'string') throw invalidQuery(`a content query must be a string, got ${typeof query}`);
  if (query.includes('\0')) throw invalidQuery('a content query must not contain NUL');
  const normalized = wellFormed(query).replace(/\s+/gu, ' ').trim();
  const length = codePointLength(normalized, MAX_CONTENT_QUERY_LENGTH + 1);
  if (length > MAX_CONTENT_QUERY_LENGTH) {
    throw invalidQuery(`a content query must be at most ${MAX_CONTENT_QUERY_LENGTH} characters long`);
  }
  return phraseTokens(normalized).length === 0 ? '' : normalized;
}

/** A matched span of a text, as UTF-16 offsets `[start, end)`. */
export type TextRange = readonly [start: number, end: number];

interface Token {
  key: string;
  start: number;
  end: number;
}

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;

/** The tokens of `text` with their offsets, folded for comparison. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const key = fold(match[0]);
    // A run of combining marks alone folds to nothing and is no token.
    if (key !== '') tokens.push({ key, start: match.index, end: match.index + match[0].length });
  }
  return tokens;
}

function fold(token: string): string {
  return token.normalize('NFD').replace(MARKS, '').toLowerCase();
}

/** The folded tokens of a query or text, in order. */
export function phraseTokens(text: string): string[] {
  return tokenize(text).map((token) => token.key);
}

/**
 * Every non-overlapping occurrence of the phrase `query` in `text`, left to
 * right: the span from its first token's start to its last token's end. An
 * empty phrase (no tokens) matches nothing.
 */
export function findPhrase(text: string, query: string): TextRange[] {
  const needle = phraseTokens(query);
  if (needle.length === 0) return [];
  const tokens = tokenize(text);
  const ranges: TextRange[] = [];
  for (let at = 0; at + needle.length <= tokens.length; ) {
    let length = 0;
    while (length < needle.length && tokens[at + length]!.key === needle[length]) length += 1;
    if (length === needle.length) {
      ranges.push([tokens[at]!.start, tokens[at + length - 1]!.end]);
      at += length;
    } else {
      at += 1;
    }
  }
  return ranges;
}

/**
 * `text` as one bounded line of plain text: control and format characters
 * and whitespace runs become single spaces, the ends are trimmed, and more
 * than `max` code points are cut with a trailing `…`.
 */
export function boundSnippet(text: string, max = MAX_SNIPPET_LENGTH): string {
  const flat = flatten(text);
  const points = Array.from(flat);
  return points.length <= max ? flat : `${points.slice(0, Math.max(0, max - 1)).join('').trimEnd()}${ELLIPSIS}`;
}

/**
 * A bounded excerpt of `text` around `range` (a match), at most `max` code
 * points including the `…` that marks each cut side; the match is kept whole
 * when it fits, and starts the excerpt when it does not.
 */
export function snippetAround(text: string, range: TextRange, max = MAX_SNIPPET_LENGTH): string {
  const before = Array.from(flatten(text.slice(0, range[0])).trimStart());
  const match = Array.from(flatten(text.slice(range[0], range[1])));
  const after = Array.from(flatten(text.slice(range[1])).trimEnd());
  // Spaces that flatten() trimmed at the match's edges are kept as separators.
  const gapBefore = before.length > 0 && /\s$/u.test(text.slice(0, range[0])) ? [' '] : [];
  const gapAfter = after.length > 0 && /^\s/u.test(text.slice(range[1])) ? [' '] : [];
  const head = [...before, ...gapBefore];
  const tail = [...gapAfter, ...after];
  if (head.length + match.length + tail.length <= max) return [...head, ...match, ...tail].join('');
  if (match.length + 2 >= max) return boundSnippet(match.join(''), max);
  // Room around the match, reserving a `…` for each side; a side that needs
  // no cut gives its reservation back to the other.
  const budget = max - match.length - 2;
  let left = Math.min(head.length, Math.floor(budget / 2));
  let right = Math.min(tail.length, budget - left);
  left = Math.min(head.length, budget - right);
  const cutLeft = left < head.length;
  const cutRight = right < tail.length;
  if (!cutLeft) right = Math.min(tail.length, right + 1);
  if (!cutRight) left = Math.min(head.length, left + 1);
  const start = head.slice(head.length - left).join('').trimStart();
  const end = tail.slice(0, right).join('').trimEnd();
  return `${left < head.length ? ELLIPSIS : ''}${start}${match.join('')}${end}${right < tail.length ? ELLIPSIS : ''}`;
}

/** A content hit's snippet and where the query is in it. */
export interface PlainExcerpt {
  snippet: string;
  /** UTF-16 `[start, end)` spans of the query in `snippet`, in order. */
  ranges: TextRange[];
}

/**
 * An index's excerpt of a projected text as a hit's snippet: one line of
 * plain text (as {@link boundSnippet} flattens it), `…` on each side where
 * the excerpt was cut from the text, at most `max` code points, with the
 * match `ranges` (offsets into `excerpt`) moved onto it, so no caller has to
 * find the query in the snippet again.
 */
export function plainExcerpt(excerpt: string, ranges: readonly TextRange[], cut: { before: boolean; after: boolean }, max = MAX_SNIPPET_LENGTH): PlainExcerpt {
  const { text, at } = flattenMapped(excerpt);
  const lead = cut.before && text.length > 0 ? ELLIPSIS : '';
  const points = Array.from(text);
  const room = max - lead.length - (cut.after ? 1 : 0);
  const fits = points.length <= room;
  const kept = fits ? text : points.slice(0, Math.max(0, max - lead.length - 1)).join('').trimEnd();
  const snippet = `${lead}${kept}${fits && !cut.after ? '' : ELLIPSIS}`;
  const place = (offset: number): number => at[Math.min(Math.max(0, offset), excerpt.length)]!;
  const moved = ranges.flatMap(([start, end]): TextRange[] => {
    const from = place(start) + lead.length;
    const to = Math.min(place(end), kept.length) + lead.length;
    return to > from ? [[from, to]] : [];
  });
  return { snippet, ranges: moved };
}

const BLANK = /^[\s\p{Cc}\p{Cf}\u2028\u2029]$/u;

/**
 * {@link flatten}, with `at[i]`: where the character at offset `i` of `text`
 * (or its end, for `i = text.length`) lands in the result.
 */
function flattenMapped(text: string): { text: string; at: number[] } {
  const at: number[] = [];
  let out = '';
  let gap = false;
  for (const point of wellFormed(text)) {
    const blank = BLANK.test(point);
    // A run of blanks becomes one space, written only once something visible follows it.
    if (!blank && gap && out.length > 0) out += ' ';
    gap = blank;
    for (let unit = 0; unit < point.length; unit += 1) at.push(out.length);
    if (!blank) out += point;
  }
  at.push(out.length);
  return { text: out, at };
}

// Controls (C0, DEL, C1), format characters (bidi overrides, zero-width) and line/paragraph separators.
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

function flatten(text: string): string {
  return wellFormed(text).replace(INVISIBLE, ' ').replace(/\s+/gu, ' ').trim();
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` with every lone surrogate replaced by U+FFFD (`String#toWellFormed`, which ES2023 lacks). */
function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\uFFFD');
}

/** Code points in `text`, counting no further than `limit`. */
function codePointLength(text: string, limit: number): number {
  let count = 0;
  for (const _ of text) if (++count >= limit) break;
  return count;
}

function invalidQuery(message: string): SessionReferenceError {
  return new SessionReferenceError(message, 'SESSION_REFERENCE_INVALID_QUERY');
}
