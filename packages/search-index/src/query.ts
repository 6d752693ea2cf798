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
  /** FTS5 expressions in rank order, each with the kind of match it finds. */
  tiers: ReadonlyArray<readonly [MatchKind, string]>;
  /**
   * Set when the query starts with a word: the query may start inside a
   * longer word, which the index finds through the words ending with (or,
   * when it is the query's only run, containing) `word`, followed by `rest`.
   */
  inner: { word: string; rest: readonly string[] } | undefined;
}

/**
 * The plan of a query, or undefined when it has nothing to search: its form
 * must hold two characters, or one of unspaced text (a Han character, an
 * emoji), since a single letter would match almost everything. A query
 * ending in a word is matched whole first, then with that word as a prefix;
 * one ending in unspaced text has no word boundary to tell the two apart.
 */
export function planQuery(query: string): QueryPlan | undefined {
  const form = searchForm(query);
  const runs = runsOf(form);
  const [first] = runs;
  const last = runs.at(-1);
  if (first === undefined || last === undefined) return undefined;
  if (Array.from(form).length < 2 && !isUnspaced(first)) return undefined;
  const tiers: Array<readonly [MatchKind, string]> = isUnspaced(last)
    ? [['phrase', runsExpression(runs, true)]]
    : [
        ['phrase', runsExpression(runs, false)],
        ['prefix', runsExpression(runs, true)],
      ];
  const inner = isUnspaced(first) ? undefined : { word: first, rest: runs.slice(1) };
  return { form, tiers, inner };
}

/**
 * The FTS5 expression for `runs` as one phrase; `open` lets the last run
 * go on in the text (the word being typed, or unspaced text continuing).
 */
export function runsExpression(runs: readonly string[], open: boolean): string {
  const tokens = runs.flatMap(runTokens);
  const last = runs.at(-1) ?? '';
  if (!open) return phraseExpression(tokens, false);
  // Unspaced text: its pairs fix every character already; the lone last character, which marks the run's end, is left out.
  if (isUnspaced(last) && tokens.length > 1 && Array.from(last).length > 1) return phraseExpression(tokens.slice(0, -1), false);
  return phraseExpression(tokens, true);
}

/**
 * An FTS5 expression matching `tokens` as one phrase, the last one as a
 * prefix when `prefix` is set. Every token is quoted (inner quotes doubled),
 * so no character of a query is ever FTS5 syntax.
 */
function phraseExpression(tokens: readonly string[], prefix: boolean): string {
  return `"${tokens.join(' ').replaceAll('"', '""')}"${prefix ? '*' : ''}`;
}

/** Any of `expressions`. */
export function anyOf(expressions: readonly string[]): string {
  return expressions.join(' OR ');
}
