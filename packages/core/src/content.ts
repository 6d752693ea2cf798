/**
 * Content discovery text handling: what a query is, and the snippet a hit
 * shows. Host-neutral: an index finds the matches (sessref's own, in
 * `@sessref/search-index`, says where each is); these functions validate the
 * query and turn an excerpt into the bounded plain-text line a hit carries.
 *
 * A query is literal text: query syntax (quotes, `OR`, `NEAR`, `*`, `^`,
 * `:`) is text like any other.
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

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
const MARKS = /\p{M}/gu;

/**
 * The words of a query or text, folded (case and accents dropped), in order:
 * runs of letters, digits and marks, as SQLite FTS5's `unicode61` tokenizer
 * cuts them; a run of combining marks alone is none.
 */
export function phraseTokens(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((match) => match[0].normalize('NFD').replace(MARKS, '').toLowerCase()).filter((key) => key !== '');
}

/** A content hit's snippet and where the query is in it. */
export interface PlainExcerpt {
  snippet: string;
  /** UTF-16 `[start, end)` spans of the query in `snippet`, in order. */
  ranges: TextRange[];
}

/**
 * An index's excerpt of a projected text as a hit's snippet: one line of
 * plain text (controls, format characters and whitespace runs become one
 * space, the ends trimmed, lone surrogates U+FFFD), `…` on each side where
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

/**
 * A hit's snippet in at most `max` code points around its first match (cut
 * between code points, `…` where cut, the ranges moved along), so a face
 * with room for less than a whole snippet still shows what matched: a table
 * cell of `sessref search`, a two-line row of the inspector's `@` menu.
 */
export function excerptAround({ snippet, ranges }: PlainExcerpt, max: number): PlainExcerpt {
  const points = Array.from(snippet);
  if (points.length <= max) return { snippet, ranges };
  // UTF-16 offset where each code point starts, and the end.
  const offsets = [0];
  for (const point of points) offsets.push(offsets.at(-1)! + point.length);
  const [from, to] = ranges[0] ?? [0, 0];
  // Room for an ellipsis on each side.
  const width = max - 2;
  const first = offsets.findIndex((offset) => offset >= from);
  const length = offsets.findIndex((offset) => offset >= to) - first;
  const start = Math.max(0, Math.min(first - Math.floor((width - length) / 2), points.length - width));
  const [begin, end] = [offsets[start]!, offsets[start + width]!];
  const moved = ranges.map(([a, b]): TextRange => [a - begin, b - begin]);
  return plainExcerpt(snippet.slice(begin, end), moved, { before: begin > 0, after: end < snippet.length }, max);
}

// Whitespace, controls (C0, DEL, C1), format characters (bidi overrides, zero-width) and line/paragraph separators.
const BLANK = /^[\s\p{Cc}\p{Cf}\u2028\u2029]$/u;

/**
 * `text` flattened to one line (see {@link plainExcerpt}), with `at[i]`:
 * where the character at offset `i` of `text` (or its end, for
 * `i = text.length`) lands in the result.
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
