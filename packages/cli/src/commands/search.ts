import { excerptAround, type PlainExcerpt } from '@sessref/core';
import type { Engine } from '../engine/engine.js';
import { listSessions, sourceWarnings, type ListedSession } from '../engine/listing.js';
import { formatError } from '../errors.js';
import { usageError } from '../failure.js';
import { formatIndexProgress } from '../format.js';
import { TITLE_COLUMNS, fitFor, formatAge, progress, table, terminalSafe, writeJson, writeLine, styleFor, type Io } from '../output.js';
import { shellWord } from './hints.js';
import { refuseForeignTarget } from './target.js';
import { listMatches } from './sessions.js';
import { isDshSource, type SourceSelection } from './sources.js';

interface SearchOptions {
  query: string;
  target: string | undefined;
  limit: number | undefined;
  json: boolean;
  sources: SourceSelection;
}

/**
 * `sessref search QUERY [--target ID] [--limit N] [--sources LIST] [--json]`:
 * sessions whose conversation (user, assistant and checkpoint text of the
 * current surface, what a reference carries) contains QUERY, best first, each
 * with its label, the matching message and a snippet; the root's and the
 * other agents' alike. A long first build of the index shows its progress on
 * stderr when that is a terminal. What another agent's source could not read
 * (its sessions are not searched) is one warning each on stderr, as `list`
 * gives it; a home skipped at start was the command's note already.
 */
export async function searchCommand(engine: Engine, io: Io, options: SearchOptions): Promise<void> {
  if (options.query.trim() === '') throw usageError('search needs a QUERY with some text');
  if (options.target !== undefined) refuseForeignTarget(engine, options.target, 'search');
  await refreshShowingProgress(engine, io);
  const found = await engine.search(options.query, {
    ...(options.target === undefined ? {} : { target: options.target }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  });
  // The root's own sessions are always indexed; `--sources` without dsh leaves them out here, as `list` does.
  const hits = found.filter((hit) => options.sources.dsh || !isDshSource(engine.sourceOf(hit.sessionId)));
  // Hits are labelled from the index alone: what the other agents' sources cannot read takes a listing, as does the hint.
  const listed = hits.length === 0 || engine.foreignSources.length > 0 ? await listSessions(engine) : [];
  const warn = styleFor(io.stderr, io.env);
  for (const { code, message } of sourceWarnings(engine, { homes: false })) {
    writeLine(io.stderr, options.json ? JSON.stringify({ warning: { code, message } }) : formatError({ code, message }, warn, 'warning'));
  }
  if (hits.length === 0) hintNamedSessions(listed, io, options);
  if (options.json) return writeJson(io.stdout, hits);
  const style = styleFor(io.stdout, io.env);
  if (hits.length === 0) return writeLine(io.stdout, style.dim('no matches'));
  writeLine(
    io.stdout,
    table([
      ['SESSION', 'LABEL', 'MESSAGE', 'AGE', 'SNIPPET'].map(style.bold),
      ...hits.map((hit) => [hit.sessionId, hit.label, `#${hit.seq} ${hit.checkpoint ? 'checkpoint' : hit.role}`, formatAge(hit.createdAt), emphasize(excerptAround(hit, TABLE_SNIPPET), style.cyan)]),
    ], fitFor(io.stdout, { 1: { max: TITLE_COLUMNS } })),
  );
}

/**
 * Search reads conversations only: a query no conversation holds may still
 * be in sessions' titles, ids or cwds, which `list QUERY` finds. Say so on
 * stderr (a JSON object under `--json`), with the command.
 */
function hintNamedSessions(listed: readonly ListedSession[], io: Io, options: SearchOptions): void {
  const named = listMatches(listed, options.query, options.sources);
  if (named.length === 0) return;
  const sessions = named.length === 1 ? '1 session has' : `${named.length} sessions have`;
  const message = `no conversation says ${JSON.stringify(options.query)}, but ${sessions} it in the title, id or cwd: sessref list ${shellWord(options.query)}`;
  if (options.json) writeLine(io.stderr, JSON.stringify({ hint: { code: 'LIST_MATCHES', message } }));
  else writeLine(io.stderr, `${styleFor(io.stderr, io.env).cyan('hint')} ${terminalSafe(message)}`);
}

/** Bring the index up to date first, so a long build is seen as one: sessions indexed of those to read, and the time left. */
async function refreshShowingProgress(engine: Engine, io: Io): Promise<void> {
  const spinner = progress(io, 'indexing conversations');
  try {
    await engine.refreshSearchIndex((done) => spinner.update(formatIndexProgress(done)));
  } finally {
    spinner.stop();
  }
}


/** Table cells stay readable: the snippet cut to {@link TABLE_SNIPPET} characters around its first match. */
const TABLE_SNIPPET = 100;

/** The snippet with each range in colour (only on a colour terminal). */
function emphasize({ snippet, ranges }: PlainExcerpt, colour: (text: string) => string): string {
  let marked = '';
  let at = 0;
  for (const [start, end] of ranges) {
    marked += snippet.slice(at, start) + colour(snippet.slice(start, end));
    at = end;
  }
  return marked + snippet.slice(at);
}
