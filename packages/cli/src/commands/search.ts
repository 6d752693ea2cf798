import { boundSnippet, findPhrase, snippetAround } from '@sessref/core';
import type { Engine } from '../engine/engine.js';
import { usageError } from '../errors.js';
import { formatAge, table, writeJson, writeLine, styleFor, type Io } from '../output.js';

/**
 * `sessref search QUERY [--target ID] [--limit N] [--json]`: sessions whose
 * conversation (user, assistant and checkpoint text of the current surface,
 * what a reference carries) contains QUERY as a literal phrase, by relevance,
 * each with its label, the matching message and a snippet.
 */
export async function searchCommand(engine: Engine, io: Io, options: { query: string; target: string | undefined; limit: number | undefined; json: boolean }): Promise<void> {
  if (options.query.trim() === '') throw usageError('search needs a QUERY with some text');
  const hits = await engine.search(options.query, {
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  if (options.json) return writeJson(io.stdout, hits);
  const style = styleFor(io.stdout, io.env);
  if (hits.length === 0) return writeLine(io.stdout, style.dim('no matches'));
  writeLine(
    io.stdout,
    table([
      ['SESSION', 'LABEL', 'MESSAGE', 'AGE', 'SNIPPET'].map(style.bold),
      ...hits.map((hit) => [
        hit.sessionId,
        hit.label,
        `#${hit.seq} ${hit.checkpoint ? 'checkpoint' : hit.role}`,
        formatAge(hit.createdAt),
        emphasize(shorten(hit.snippet, options.query), options.query, style.cyan),
      ]),
    ]),
  );
}

/** Table cells stay readable: the snippet cut to {@link TABLE_SNIPPET} characters around its first match. */
const TABLE_SNIPPET = 100;

function shorten(snippet: string, query: string): string {
  const [range] = findPhrase(snippet, query);
  return range === undefined ? boundSnippet(snippet, TABLE_SNIPPET) : snippetAround(snippet, range, TABLE_SNIPPET);
}

/** The snippet with the query's words in colour (only on a colour terminal). */
function emphasize(snippet: string, query: string, colour: (text: string) => string): string {
  const words = query.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 0);
  if (words.length === 0 || colour('x') === 'x') return snippet;
  const pattern = new RegExp(`(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`, 'giu');
  return snippet.replace(pattern, (match) => colour(match));
}
