import { normalizeContentQuery, throwIfCancelled, type TextRange } from '@sessref/core';
import { checkCandidateLimit } from '@sessref/core/internal';
import { locateStored, snippetAround, type Snippet } from './documents.js';
import { anyOf, planQuery, runsExpression, type MatchKind, type QueryPlan } from './query.js';
import { SEARCH_INDEX } from './refresh.js';
import type { IndexTables } from './tables.js';

export interface SearchRequest {
  /** Literal text: no character is query syntax. At most 256 characters, no NUL. */
  query: string;
  /** Sessions returned at most (a positive integer). */
  limit: number;
  /** Session ids to leave out (the asking agent's own). */
  exclude?: readonly string[];
  signal?: AbortSignal;
}

/** A session whose carried conversation contains the query, with where. */
export interface SearchHit {
  sessionId: string;
  /** The provenance name of the source that listed it. */
  source: string;
  createdAt: number;
  /** The directory the session started in, as its header records it (absent when it records none). */
  cwd?: string;
  /** How it matched; hits are ranked by this, then newest session first. */
  match: MatchKind;
  /** The first carried message (in surface order) that contains the query. */
  message: {
    /** Its position in the session's surface messages. */
    index: number;
    /** Its raw-log seq, when the source's surface carries one. */
    seq: number | undefined;
    role: 'user' | 'assistant';
    checkpoint: boolean;
  };
  /** Every occurrence in that message: offsets into its projected text. */
  ranges: TextRange[];
  /** An excerpt of the projected text around the first occurrence. */
  snippet: Snippet;
}

export interface SearchResult {
  /** Best first: by {@link MatchKind}, then newest session first. */
  hits: SearchHit[];
  /**
   * False when a query starting inside a word matched more indexed words
   * than are followed ({@link MAX_EXPANSIONS}): sessions with only such
   * matches may be missing. Whole-word and prefix matches are always complete.
   */
  complete: boolean;
}

/** Words a query that starts inside a word is widened to, at most. */
const MAX_EXPANSIONS = 64;

/**
 * Sessions whose carried text contains `request.query`: whole-word phrase
 * matches first, then matches where the last word is the start of a longer
 * one, then matches starting inside a word; each group newest first, each
 * found by FTS5 walking row ids newest first and stopping at the limit.
 * Every hit is located in the stored projected text before it is returned.
 * @throws SESSION_REFERENCE_INVALID_QUERY, SESSION_REFERENCE_INVALID_REFERENCE (limit), SESSION_REFERENCE_CANCELLED.
 */
export function searchIndex(tables: IndexTables, request: SearchRequest): SearchResult {
  // Validation only (type, NUL, length): its emptiness rule would refuse an emoji, which this index finds.
  normalizeContentQuery(request.query);
  const limit = checkCandidateLimit(request.limit);
  const plan = planQuery(request.query);
  if (plan === undefined) return { hits: [], complete: true };
  const excluded = new Set(request.exclude ?? []);
  const found = new Map<number, MatchKind>();
  const take = (kind: MatchKind, expression: string): void => {
    throwIfCancelled(request.signal, SEARCH_INDEX);
    for (const row of tables.matches(expression, limit + found.size + excluded.size)) {
      if (found.size >= limit) break;
      if (!excluded.has(row.id) && !found.has(row.key)) found.set(row.key, kind);
    }
  };
  for (const [kind, expression] of plan.tiers) if (found.size < limit) take(kind, expression);
  let complete = true;
  if (found.size < limit && plan.inner !== undefined) {
    const inner = innerExpression(tables, plan.inner);
    complete = inner.complete;
    if (inner.expression !== undefined) take('substring', inner.expression);
  }
  const hits: SearchHit[] = [];
  for (const [key, kind] of found) {
    throwIfCancelled(request.signal, SEARCH_INDEX);
    const hit = hitOf(tables, key, kind, plan.form);
    if (hit !== undefined) hits.push(hit);
  }
  return { hits, complete };
}

/**
 * The query as it may start inside an indexed word: with more after the
 * first word, a word ending with it followed by the rest; alone, a word
 * containing it (not at its start: that is a prefix match).
 */
function innerExpression(tables: IndexTables, inner: NonNullable<QueryPlan['inner']>): { expression: string | undefined; complete: boolean } {
  const alone = inner.rest.length === 0;
  const words = alone ? tables.wordsContaining(inner.word, MAX_EXPANSIONS + 1) : tables.wordsEndingWith(inner.word, MAX_EXPANSIONS + 1);
  const followed = words.slice(0, MAX_EXPANSIONS);
  const expression = followed.length === 0 ? undefined : anyOf(followed.map((word) => runsExpression([word, ...inner.rest], !alone)));
  return { expression, complete: words.length <= MAX_EXPANSIONS };
}

/** The hit for a matching session, located in its stored text; undefined when its row cannot be trusted or does not hold the query after all. */
function hitOf(tables: IndexTables, key: number, match: MatchKind, form: string): SearchHit | undefined {
  const row = tables.session(key);
  if (row?.messages == null) return undefined;
  let located;
  try {
    located = locateStored(row.messages, form);
  } catch {
    return undefined;
  }
  if (located === undefined) return undefined;
  const { message, ranges } = located;
  return {
    sessionId: row.id,
    source: row.source,
    createdAt: row.createdAt,
    ...(row.cwd === undefined ? {} : { cwd: row.cwd }),
    match,
    message: { index: message.index, seq: message.seq, role: message.role, checkpoint: message.checkpoint },
    ranges,
    snippet: snippetAround(message.text, ranges[0]!),
  };
}
