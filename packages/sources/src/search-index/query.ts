import { isUnspaced, runTokens, runsOf, searchForm } from './form.js';

/**
 * How a session matched a query, best first: the query's words whole (its
 * last one complete), the last word as the start of a longer one (the word
 * being typed), or the query starting inside a longer word.
 */
export type MatchKind = 'phrase' | 'prefix' | 'substring';

/** What a query asks of the index. */
export interface QueryPlan {
  /** The query's search form: a hit's carried text has it as a substring. */
  form: string;
  /** The index tokens of the query, as it would be indexed. */
  tokens: readonly string[];
  /**
   * Set when the query starts with a word: the query may start inside a
   * longer word, which the index finds through the words ending with (or,
   * when it is the query's only word, containing) `word`.
   */
  inner: { word: string; rest: readonly string[] } | undefined;
}

/**
 * The plan of a query, or undefined when it has nothing to search: its form
 * must hold two characters, or one of unspaced text (a Han character, an
 * emoji), since a single letter would match almost everything.
 */
export function planQuery(query: string): QueryPlan | undefined {
  const form = searchForm(query);
  const runs = runsOf(form);
  const [first] = runs;
  if (first === undefined) return undefined;
  if (Array.from(form).length < 2 && !isUnspaced(first)) return undefined;
  const tokens = runs.flatMap(runTokens);
  const inner = isUnspaced(first) ? undefined : { word: first, rest: runs.slice(1).flatMap(runTokens) };
  return { form, tokens, inner };
}

/**
 * An FTS5 expression matching `tokens` as one phrase, the last one as a
 * prefix when `prefix` is set. Every token is quoted (inner quotes doubled),
 * so no character of a query is ever FTS5 syntax.
 */
export function phraseExpression(tokens: readonly string[], prefix: boolean): string {
  return `"${tokens.join(' ').replaceAll('"', '""')}"${prefix ? '*' : ''}`;
}

/** Any of `expressions`. */
export function anyOf(expressions: readonly string[]): string {
  return expressions.join(' OR ');
}
