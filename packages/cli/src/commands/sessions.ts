import { formatSessionReferenceMention, labelOf, selectExcerpt, type ExcerptEntry } from '@sessref/core';
import { OWN_SOURCE } from '@sessref/dsh/service';
import { PATH_COLUMNS, TITLE_COLUMNS, cut, fitFor, table, formatAge, formatListedAge, preview, formatBytes, terminalSafe, writeJson, writeLine, type Io, type TableFit, styleFor } from '../output.js';
import type { Engine, SessionView } from '../engine/engine.js';
import { listSessions } from '../engine/listing.js';
import { describeFailure, formatError, type CliReport } from '../errors.js';
import { isDshSource, type SourceSelection } from './sources.js';
import { refuseForeignTarget } from './target.js';

interface ListOptions {
  query: string;
  target: string | undefined;
  limit: number | undefined;
  json: boolean;
  /** The places to list: the root's own sessions or not (the engine reads only the agents asked for). */
  sources: SourceSelection;
}

/**
 * On a terminal narrower than the list, what repeats gives way before the
 * titles are cut: the SOURCE column, when every id already names its source
 * (another agent's starts with it, `codex:…`; the rest are dsh's), then the
 * ids, down to {@link ID_COLUMNS} (whole under `--json`), then the paths.
 */
function listFit(io: Io, sessions: readonly { sessionId: string; source: string }[]): TableFit {
  const sourceRepeats = sessions.every(({ sessionId, source }) => source === OWN_SOURCE || sessionId.startsWith(`${source}:`));
  const fit = fitFor(io.stdout, { 0: { min: ID_COLUMNS, yields: 0 }, 2: { max: TITLE_COLUMNS }, 3: { max: PATH_COLUMNS, keep: 'end', yields: 1 } });
  return sourceRepeats ? { ...fit, omit: 1 } : fit;
}

/** A cut id keeps its agent and the first part of its own: `claude-code:ae4a77f8-ae…`. */
const ID_COLUMNS = 24;

/** The sessions `list QUERY` shows, of the places asked for: QUERY in the id, the cwd or the title, case-insensitively. */
export function listMatches<S extends { sessionId: string; source: string; cwd?: string; title?: string }>(sessions: readonly S[], query: string, sources: SourceSelection): S[] {
  const needle = query.toLowerCase();
  const placed = sources.dsh ? sessions : sessions.filter((s) => !isDshSource(s.source));
  // No query matches every session: nothing to lower-case for a plain `list` of thousands.
  return needle === '' ? [...placed] : placed.filter((s) => [s.sessionId, s.cwd ?? '', s.title ?? ''].some((field) => field.toLowerCase().includes(needle)));
}

/** `sessref list [QUERY] [--target ID] [--limit N] [--sources LIST] [--json]` */
export async function listCommand(engine: Engine, io: Io, options: ListOptions): Promise<void> {
  const style = styleFor(io.stdout, io.env);
  if (options.target === undefined) {
    const sessions = await listSessions(engine);
    const matching = listMatches(sessions, options.query, options.sources).slice(0, options.limit);
    // A session whose log cannot be read is still listed (by its directory when
    // even its header is damaged), marked as unreadable, and named in a warning
    // on stderr; every healthy session is listed as usual.
    const rows = matching.map(({ readError, ...summary }) => ({
      summary,
      ...(readError === undefined ? {} : { error: describeFailure(readError, summary.sessionId) }),
    }));
    const warn = styleFor(io.stderr, io.env);
    for (const { error } of rows) {
      if (!error) continue;
      if (options.json) writeLine(io.stderr, JSON.stringify({ warning: readErrorJson(error) }));
      else writeLine(io.stderr, formatError(error, warn, 'warning'));
    }
    if (options.json) {
      return writeJson(
        io.stdout,
        rows.map(({ summary, error }) => {
          const mention = formatSessionReferenceMention({ sessionId: summary.sessionId, label: labelOf(summary.sessionId, summary.title) });
          return error ? { ...summary, mention, readError: readErrorJson(error) } : { ...summary, mention };
        }),
      );
    }
    if (rows.length === 0) return writeLine(io.stdout, style.dim('no sessions'));
    const title = ({ summary, error }: (typeof rows)[number]) =>
      summary.title ?? (error ? style.red(`(unreadable: ${error.code})`) : style.dim('(untitled)'));
    writeLine(
      io.stdout,
      table([
        ['ID', 'SOURCE', 'TITLE', 'CWD', 'AGE'].map(style.bold),
        ...rows.map((row) => [
          row.summary.sessionId,
          row.summary.source,
          title(row),
          row.summary.cwd ?? '-',
          row.summary.createdAt === undefined ? '-' : formatListedAge({ createdAt: row.summary.createdAt, lastSentAt: row.summary.lastSentAt }),
        ]),
      ], listFit(io, rows.map((row) => row.summary))),
    );
    return;
  }
  refuseForeignTarget(engine, options.target, 'list');
  const candidates = await engine.candidates(options.target, options.query, options.limit);
  if (options.json) return writeJson(io.stdout, candidates);
  if (candidates.length === 0) return writeLine(io.stdout, style.dim('no candidates'));
  writeLine(
    io.stdout,
    table([
      ['LABEL', 'CWD', 'AGE', 'MENTION'].map(style.bold),
      ...candidates.map((c) => [c.label, c.cwd ?? '-', formatAge(c.createdAt), style.cyan(c.mention)]),
      // The mention stays whole, to be copied; the terminal's width is not fitted, as the mention alone may pass it.
    ], { caps: { 0: { max: TITLE_COLUMNS }, 1: { max: PATH_COLUMNS, keep: 'end' } } }),
  );
}

/** `sessref show ID [--around PHRASE] [--json]` */
export async function showCommand(engine: Engine, io: Io, options: { id: string; json: boolean; around?: string | undefined }): Promise<void> {
  const view = await engine.show(options.id, options.around === undefined ? undefined : { around: options.around });
  if (options.json) {
    return writeJson(io.stdout, {
      header: view.header,
      title: view.title ?? null,
      capturedThroughSeq: view.capturedThroughSeq,
      surfaceEvents: view.surfaceEvents,
      conversation: view.items.map(({ role, text, checkpoint, bytes }) => ({ role, checkpoint, bytes, text })),
      reference: view.reference
        ? {
            bytes: view.reference.bytes,
            ...view.reference.stats,
            // An excerpt's messages are not the newest ones: what it carries is given, as the projection alone cannot tell it.
            ...(view.excerpt === undefined ? {} : { excerpt: view.excerpt, conversation: view.reference.data.conversation }),
          }
        : null,
      maxReferenceBytes: view.maxReferenceBytes,
    });
  }
  const style = styleFor(io.stdout, io.env);
  const { header } = view;
  // The heading is one line: as wide as the terminal, else as a title column (the full title is under --json).
  writeLine(io.stdout, style.bold(cut(labelOf(header.id, view.title), fitFor(io.stdout, {}).width ?? TITLE_COLUMNS)));
  writeLine(io.stdout, table([
    ['id', header.id],
    ['cwd', header.cwd ?? '-'],
    ['created', `${new Date(header.createdAt).toISOString()} (${formatAge(header.createdAt)})`],
    ['captured through seq', String(view.capturedThroughSeq)],
    ['surface', `${view.surfaceEvents} messages, ${view.items.length} in a reference's projection`],
  ].map(([key, value]) => [style.dim(key!), value!])));
  writeLine(io.stdout);
  const itemLine = (item: SessionView['items'][number], position?: number) => {
    const role = item.checkpoint ? 'checkpoint' : item.role;
    const number = position === undefined ? '' : `${`#${position}`.padStart(6)} `;
    return `  ${number}${style.cyan(role.padEnd(10))} ${formatBytes(item.bytes).padStart(9)}  ${preview(item.text)}`;
  };
  if (view.excerpt !== undefined && options.around !== undefined) {
    showExcerptItems(io, view, view.excerpt, options.around, itemLine);
  } else {
    const many = view.items.length > 12;
    for (const entry of elide(view.items, (index) => !many || index < 3 || index >= view.items.length - 8)) {
      writeLine(io.stdout, typeof entry === 'number' ? style.dim(`  … ${entry} more …`) : itemLine(entry));
    }
  }
  writeLine(io.stdout);
  if (view.reference === undefined) {
    writeLine(io.stdout, style.red(`does not fit in ${view.maxReferenceBytes} bytes: a reference to it fails with SESSION_REFERENCE_BUDGET_EXCEEDED`));
    return;
  }
  const { stats, bytes } = view.reference;
  const part = view.excerpt === undefined ? '' : `messages ${view.excerpt.firstMessage}–${view.excerpt.lastMessage} around "${terminalSafe(view.excerpt.around ?? '')}", `;
  writeLine(
    io.stdout,
    `a reference carries ${formatBytes(bytes)} of ${formatBytes(view.maxReferenceBytes)}: ${part}` +
      `${stats.retainedMessages}/${stats.originalMessages} messages kept, ${stats.omittedMessages} dropped, ${formatBytes(stats.omittedBytes)} omitted` +
      (stats.compacted ? ', compacted' : ''),
  );
}

/**
 * An excerpt's messages, numbered from 1 as its entry numbers them: its
 * first two, the message holding the phrase with two on each side, its
 * last two, each run between them as one line, and what lies outside it.
 */
function showExcerptItems(io: Io, view: SessionView, excerpt: ExcerptEntry, around: string, itemLine: (item: SessionView['items'][number], position: number) => string): void {
  const style = styleFor(io.stdout, io.env);
  const [first, last] = [excerpt.firstMessage - 1, excerpt.lastMessage - 1];
  // The same pure choice the reference made, over the same (redacted) projection.
  const window = selectExcerpt(view.items, { around });
  const match = window.kind === 'around' ? window.index : first;
  const shown = (index: number) => index < first + 2 || index > last - 2 || Math.abs(index - match) <= 2;
  if (first > 0) writeLine(io.stdout, style.dim(`  … ${first} before the excerpt …`));
  let position = first;
  for (const entry of elide(view.items.slice(first, last + 1), (offset) => shown(first + offset))) {
    if (typeof entry === 'number') {
      writeLine(io.stdout, style.dim(`  … ${entry} more …`));
      position += entry;
      continue;
    }
    const line = itemLine(entry, position + 1);
    writeLine(io.stdout, position === match ? style.bold(line) : line);
    position += 1;
  }
  const after = view.items.length - 1 - last;
  if (after > 0) writeLine(io.stdout, style.dim(`  … ${after} after the excerpt …`));
}

/** The items `shown` keeps, in order, each run of the others as its length. */
function elide<T>(items: readonly T[], shown: (index: number) => boolean): (T | number)[] {
  const out: (T | number)[] = [];
  items.forEach((item, index) => {
    const previous = out.at(-1);
    if (shown(index)) out.push(item);
    else if (typeof previous === 'number') out[out.length - 1] = previous + 1;
    else out.push(1);
  });
  return out;
}

function readErrorJson(error: CliReport): { code: string; message: string; hint?: string } {
  return { code: error.code, message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) };
}
