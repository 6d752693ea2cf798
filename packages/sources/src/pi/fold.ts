import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseLenientLines } from '../json-lines.js';
import { contentTexts, oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';
import { contextOf, currentBranch, type TreeEntry } from './tree.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * One pi session file folded (the session-format doc of
 * `@mariozechner/pi-coding-agent`; this package's README, "pi"): its lines
 * read as pi reads them, the current branch walked from the last entry, the
 * latest compaction on it applied, and the entries the model is sent
 * classified. A file whose first entry is not a `session` header is not a
 * session, as pi's own list skips it.
 */
export function foldPi(text: string, where: string): Transcript {
  return foldPiEntries(parseLenientLines(text, where), where);
}

/**
 * pi's fold over entries already read, in order, the `session` header first:
 * a session file's lines, or the rows of a store that keeps pi's entries
 * (OpenClaw's `transcript_events`). `throughRecord` is the last entry's index.
 */
export function foldPiEntries(records: readonly JsonRecord[], where: string): Transcript {
  const header = records[0];
  if (header?.['type'] !== 'session') throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} does not start with a session header: not a pi session`);
  const createdAt = Date.parse(asString(header['timestamp']) ?? '');
  if (Number.isNaN(createdAt)) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no start time in its session header`);
  const { compaction, entries } = contextOf(currentBranch(treeEntries(records)));
  const summary = asString(compaction?.record['summary']) ?? '';
  const messages = [...(summary.trim() === '' ? [] : [surfaceMessage('user', 'compact-checkpoint', [summary])]), ...entries.flatMap(surfaceOf)];
  const cwd = asString(header['cwd']);
  const title = titleOf(records);
  return transcriptOf({
    createdAt,
    cwd,
    title,
    messages,
    throughRecord: records.length - 1,
  });
}

/**
 * The entries after the header, each with its place in the tree. A version 1
 * file (no `version`, or 1) has no ids: pi's migration chains its entries in
 * file order and turns a compaction's `firstKeptEntryIndex` (an index into
 * the file's entries, header included) into the id of that entry; the ids
 * here are the file indexes.
 */
function treeEntries(records: readonly JsonRecord[]): TreeEntry[] {
  const version = records[0]?.['version'];
  const linear = typeof version !== 'number' || version < 2;
  return records.slice(1).map((record, index) => {
    const type = asString(record['type']) ?? '';
    if (!linear) return { id: nonEmpty(record['id']), parentId: nonEmpty(record['parentId']), type, record };
    const kept = record['firstKeptEntryIndex'];
    const migrated = type === 'compaction' && typeof kept === 'number' && kept >= 1 ? { ...record, firstKeptEntryId: `#${kept}` } : record;
    return { id: `#${index + 1}`, parentId: index === 0 ? undefined : `#${index}`, type, record: migrated };
  });
}

/**
 * What one entry of the current conversation is on the surface. Only a
 * `message` entry's `user` text is typed by the user, and only `assistant`
 * text blocks are the reply (never `thinking` or `toolCall`); a
 * `toolResult` is a tool message; shell runs (`bashExecution`), extension
 * messages (`custom`, `custom_message`) and branch summaries are text pi
 * puts in, never carried. Settings, labels and names are not messages.
 */
function surfaceOf(entry: TreeEntry): SurfaceMessage[] {
  if (entry.type === 'custom_message') return [surfaceMessage('user', 'other', contentTexts(entry.record['content']))];
  if (entry.type === 'branch_summary') return [surfaceMessage('user', 'other', contentTexts(entry.record['summary']))];
  const message = asObject(entry.record['message']);
  if (entry.type !== 'message' || message === undefined) return [];
  const texts = contentTexts(message['content']);
  switch (message['role']) {
    case 'user':
      return [surfaceMessage('user', texts.length > 0 ? 'direct-user' : 'other', texts)];
    case 'assistant':
      return texts.length > 0 ? [surfaceMessage('assistant', 'other', texts)] : [];
    case 'toolResult':
      return [surfaceMessage('tool', 'other', texts)];
    default:
      return [surfaceMessage('user', 'other', texts)];
  }
}

/**
 * pi's own title (`buildSessionInfo`, `core/session-manager.js`): the latest
 * `session_info` name anywhere in the file (a blank one clears it), else the
 * text of the first user message in the file, on one line.
 */
function titleOf(records: readonly JsonRecord[]): string | undefined {
  let name: string | undefined;
  let firstPrompt: string | undefined;
  for (const record of records) {
    if (record['type'] === 'session_info') name = asString(record['name'])?.trim() || undefined;
    const message = record['type'] === 'message' ? asObject(record['message']) : undefined;
    if (firstPrompt === undefined && message?.['role'] === 'user') firstPrompt = oneLine(contentTexts(message['content']).join(' ')) || undefined;
  }
  return name ?? firstPrompt;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
