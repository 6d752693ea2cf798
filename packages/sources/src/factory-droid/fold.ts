import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJsonLines } from '../json-lines.js';
import { contentBlocks, contentTexts, oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** The title droid gives a session that has none yet (a compressed child before its first prompt): a placeholder, not the session's name. */
const PLACEHOLDER_TITLE = 'New Session';

/** The prefix of the id of the message droid writes before a typed prompt: tools, environment and date, as a `<system-reminder>`. */
const INJECTED_ID_PREFIX = 'context-';

/**
 * One Factory Droid session file folded (this package's README, "Factory
 * Droid"): its records in file order, the latest `compaction_state`
 * standing for everything before it, and the messages after it classified.
 * A file that does not start with `session_start` is not a session.
 */
export function foldFactoryDroid(text: string, where: string): Transcript {
  const records = parseJsonLines(text, where).map((record) => asObject(record) ?? {});
  const header = records[0];
  if (header?.['type'] !== 'session_start') throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} does not start with session_start: not a Factory Droid session`);
  // The header has no time field: the session starts with its first timestamped record.
  const createdAt = records.map((record) => Date.parse(asString(record['timestamp']) ?? '')).find((time) => !Number.isNaN(time));
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no timestamped record`);
  const messages = conversationOf(records);
  return transcriptOf({
    createdAt,
    cwd: asString(header['cwd']),
    title: ownTitle(header) ?? firstPrompt(messages),
    messages,
    throughRecord: records.length - 1,
  });
}

/**
 * The conversation droid continues from, in file order. `/compress` starts
 * a new session whose first record after the header is a
 * `compaction_state`: its `summaryText` is the checkpoint and the parent's
 * records are not in this file. Should a file hold one further down, it
 * still stands for everything before it, as it does at the top.
 */
function conversationOf(records: readonly JsonRecord[]): SurfaceMessage[] {
  let messages: SurfaceMessage[] = [];
  for (const record of records) {
    if (record['type'] === 'compaction_state') {
      const summary = asString(record['summaryText']) ?? '';
      messages = summary.trim() === '' ? [] : [surfaceMessage('user', 'compact-checkpoint', [summary])];
    } else if (record['type'] === 'message') {
      messages.push(...surfaceOf(record));
    }
  }
  return messages;
}

/**
 * One `message` record on the surface. A user message is droid's own when
 * its id starts with `context-` or it is marked `visibility: "llm_only"`
 * (the injected reminder before a prompt), a tool result when it holds a
 * `tool_result` block, and otherwise what the user typed: its `text`
 * blocks, less any block that is a whole `<system-reminder>` (droid's
 * notes, never typed). An assistant message carries its `text` blocks,
 * never `tool_use` or `thinking` blocks.
 */
function surfaceOf(record: JsonRecord): SurfaceMessage[] {
  const message = asObject(record['message']) ?? {};
  const texts = contentTexts(message['content']);
  if (message['role'] === 'assistant') return texts.length > 0 ? [surfaceMessage('assistant', 'other', texts)] : [];
  if (message['role'] !== 'user') return [surfaceMessage('user', 'other', texts)];
  const injected = asString(record['id'])?.startsWith(INJECTED_ID_PREFIX) === true || message['visibility'] === 'llm_only';
  if (injected) return [surfaceMessage('user', 'other', texts)];
  if (contentBlocks(message['content']).some((block) => block['type'] === 'tool_result')) return [surfaceMessage('tool', 'other', [])];
  const typed = texts.filter((text) => !isWholeReminder(text));
  return [typed.length > 0 ? surfaceMessage('user', 'direct-user', typed) : surfaceMessage('user', 'other', texts)];
}

function isWholeReminder(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.startsWith('<system-reminder>') && trimmed.endsWith('</system-reminder>');
}

/**
 * The header's `title` (the first prompt for `droid exec`, a generated or
 * the user's own title in the TUI), unless blank or the placeholder a
 * compressed child has before its first prompt (a title the user set is
 * kept even when it reads the same).
 */
function ownTitle(header: JsonRecord): string | undefined {
  const title = oneLine(asString(header['title']) ?? '');
  if (title === '' || (title === PLACEHOLDER_TITLE && header['isSessionTitleManuallySet'] !== true)) return undefined;
  return title;
}

/** The fallback title: the first prompt the user typed in the conversation, on one line. */
function firstPrompt(messages: readonly SurfaceMessage[]): string | undefined {
  const prompt = messages.find((message) => message.origin === 'direct-user');
  return prompt === undefined ? undefined : oneLine(prompt.content.map((block) => ('text' in block && typeof block.text === 'string' ? block.text : '')).join(' ')) || undefined;
}
