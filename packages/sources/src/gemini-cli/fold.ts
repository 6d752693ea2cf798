import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { MAX_NESTING_DEPTH, asObject, asString, nestsWithin, parseJson } from '../json-lines.js';
import { oneLine, surfaceMessage } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';

type JsonObject = Record<string, unknown>;

/** A chat file folded the way Gemini CLI loads it: its metadata and its messages in order. */
export interface GeminiChat {
  metadata: JsonObject;
  messages: JsonObject[];
  /** Records read (JSONL lines that were JSON; 1 for a legacy file). */
  records: number;
}

/**
 * Fold a chat file as `loadConversationRecord` does (chatRecordingService.ts):
 * JSONL first, where a message line is upserted by `id` (the last copy wins,
 * at its first place), `$set` merges metadata and, carrying `messages`,
 * replaces them all, and `$rewindTo` drops that message and everything after
 * it (everything, for an id it does not know). Lines that are not JSON are
 * skipped as Gemini skips them. When no metadata line (`sessionId` and
 * `projectHash`) was seen, the file is a legacy single JSON record.
 */
export function foldGeminiChat(text: string, where: string): GeminiChat {
  const state = { metadata: {} as JsonObject, messages: new Map<string, JsonObject>(), records: 0 };
  for (const line of text.split('\n')) {
    const record = lineRecord(line, where);
    if (record === undefined) continue;
    state.records += 1;
    applyRecord(state, record);
  }
  if (asString(state.metadata['sessionId']) === undefined || asString(state.metadata['projectHash']) === undefined) return legacyChat(text, where);
  return { metadata: state.metadata, messages: [...state.messages.values()], records: state.records };
}

/** One JSONL line as a record, `undefined` for a blank or non-JSON line; too deep a line refuses the file. */
function lineRecord(line: string, where: string): unknown {
  if (line.trim() === '') return undefined;
  if (!nestsWithin(line)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} has a line nested more than ${MAX_NESTING_DEPTH} levels`);
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

interface FoldState {
  metadata: JsonObject;
  messages: Map<string, JsonObject>;
}

function applyRecord(state: FoldState, value: unknown): void {
  const record = asObject(value);
  if (record === undefined) return;
  const rewindTo = asString(record['$rewindTo']);
  if (rewindTo !== undefined) return rewind(state.messages, rewindTo);
  const id = asString(record['id']);
  if (id !== undefined) {
    state.messages.set(id, record);
    return;
  }
  const patch = asObject(record['$set']) ?? (isMetadataLine(record) ? record : undefined);
  if (patch === undefined) return;
  state.metadata = { ...state.metadata, ...patch };
  // A checkpoint (session start, compression, an aborted turn): what it holds is the whole conversation.
  if (Array.isArray(patch['messages'])) replaceMessages(state.messages, patch['messages']);
}

function isMetadataLine(record: JsonObject): boolean {
  return asString(record['sessionId']) !== undefined && asString(record['projectHash']) !== undefined;
}

function rewind(messages: Map<string, JsonObject>, id: string): void {
  if (!messages.has(id)) return messages.clear();
  let found = false;
  for (const key of [...messages.keys()]) {
    found ||= key === id;
    if (found) messages.delete(key);
  }
}

function replaceMessages(messages: Map<string, JsonObject>, replacement: readonly unknown[]): void {
  messages.clear();
  for (const item of replacement) {
    const message = asObject(item);
    const id = asString(message?.['id']);
    if (message !== undefined && id !== undefined) messages.set(id, message);
  }
}

/** A legacy `.json` chat: one `ConversationRecord`; anything without a `sessionId` is not a chat. */
function legacyChat(text: string, where: string): GeminiChat {
  const record = asObject(parseJson(text, where));
  if (record === undefined || asString(record['sessionId']) === undefined) {
    throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} is not a Gemini CLI chat record (no sessionId)`);
  }
  const list: unknown[] = Array.isArray(record['messages']) ? record['messages'] : [];
  const messages = list.map(asObject).filter((message) => message !== undefined);
  return { metadata: record, messages, records: 1 };
}

/** What one message is to a snapshot. */
type Classified =
  | { kind: 'user'; text: string }
  | { kind: 'checkpoint'; text: string }
  | { kind: 'assistant'; text: string }
  | { kind: 'injected'; text: string }
  | { kind: 'tool' }
  | { kind: 'notice' };

/** Marks a compression summary: the service finds earlier ones by this very substring (chatCompressionService.ts). */
const STATE_SNAPSHOT = '<state_snapshot>';
/** The model turn compression adds after its summary (chatCompressionService.ts). */
const CANNED_REPLY = 'Got it. Thanks for the additional context!';
/** Where an `@` mention's expansion starts in the user's message (atCommandProcessor). */
const REFERENCED_CONTENT = /(^|\n)--- Content from referenced files ---/;
/** User text Gemini keeps out of its own history (`isIgnoredUserContent`, packages/core/src/utils/sessionUtils.ts). */
const IGNORED_PREFIXES = ['/', '?', '<session_context>', '<hook_context>'];

/** Classify one message record by the table in the format page. */
function classifyMessage(message: JsonObject): Classified {
  const type = message['type'];
  const parts = partsOf(message['content']);
  if (type === 'gemini') return { kind: 'assistant', text: textOf(parts) };
  if (type === 'info' || type === 'error' || type === 'warning') return { kind: 'notice' };
  if (type !== 'user') return { kind: 'injected', text: textOf(parts) };
  if (parts.some((part) => asObject(part)?.['functionResponse'] !== undefined)) return { kind: 'tool' };
  const full = textOf(parts);
  const typed = typedText(message, full);
  // Only what the user's turn itself says marks a summary: a referenced file holding the marker, expanded after the typed text, is the file's content.
  if (typed.includes(STATE_SNAPSHOT)) return { kind: 'checkpoint', text: typed };
  const ignored = typed.trim() === '' || IGNORED_PREFIXES.some((prefix) => typed.trimStart().startsWith(prefix));
  return ignored ? { kind: 'injected', text: full } : { kind: 'user', text: typed };
}

/** What the user typed: `displayContent` when recorded, else the message cut before any `@` expansion. */
function typedText(message: JsonObject, full: string): string {
  if (message['displayContent'] !== undefined) return textOf(partsOf(message['displayContent']));
  const cut = full.search(REFERENCED_CONTENT);
  return cut < 0 ? full : full.slice(0, cut);
}

/** A `PartListUnion` as a list of parts: a string is one text part. */
function partsOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ text: content }];
  if (Array.isArray(content)) return content;
  return content === undefined || content === null ? [] : [content];
}

/** The text of a part list, thoughts left out, joined as Gemini joins parts (with nothing between). */
function textOf(parts: readonly unknown[]): string {
  let text = '';
  for (const item of parts) {
    const part = typeof item === 'string' ? { text: item } : asObject(item);
    const value = asString(part?.['text']);
    if (value !== undefined && part?.['thought'] !== true) text += value;
  }
  return text;
}

/**
 * The surface of a folded chat's current conversation (see
 * {@link fromLastCheckpoint}). Notices and reasoning are not surface at all;
 * tool results and injected context stay as messages no snapshot carries.
 */
function geminiSurface(current: readonly Classified[]): SurfaceMessage[] {
  return current.flatMap((item) => surfaceOf(item) ?? []);
}

/** Everything from the last compression summary on, without the canned reply that follows it. */
function fromLastCheckpoint(items: readonly Classified[]): Classified[] {
  const start = items.findLastIndex((item) => item.kind === 'checkpoint');
  if (start < 0) return [...items];
  const next = items[start + 1];
  const skip = next !== undefined && isCannedReply(next) ? 2 : 1;
  return [...items.slice(start, start + 1), ...items.slice(start + skip)];
}

function isCannedReply(item: Classified): boolean {
  return item.kind === 'assistant' && item.text.trim() === CANNED_REPLY;
}

function surfaceOf(item: Classified): SurfaceMessage | undefined {
  switch (item.kind) {
    case 'user':
      return surfaceMessage('user', 'direct-user', [item.text]);
    case 'checkpoint':
      return surfaceMessage('user', 'compact-checkpoint', [item.text]);
    case 'assistant':
      return surfaceMessage('assistant', 'other', [item.text]);
    case 'injected':
      return surfaceMessage('user', 'other', [item.text]);
    case 'tool':
      return surfaceMessage('tool', 'other', []);
    case 'notice':
      return undefined;
  }
}

/** `session-2026-04-29T21-39-…`: the UTC minute Gemini names a chat file by, epoch ms. */
function fileNameTime(name: string): number | undefined {
  const match = /^session-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})/.exec(name);
  if (match === null) return undefined;
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number];
  return Date.UTC(year, month - 1, day, hour, minute);
}

function timeOf(value: unknown): number | undefined {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}

/**
 * The session's title: its generated `summary`, else the first thing the
 * user typed in the current conversation (never a message a compression
 * replaced), on one line.
 */
function titleOf(metadata: JsonObject, current: readonly Classified[]): string | undefined {
  const summary = oneLine(asString(metadata['summary']) ?? '');
  if (summary !== '') return summary;
  const first = current.find((item): item is Extract<Classified, { kind: 'user' }> => item.kind === 'user');
  return first === undefined ? undefined : oneLine(first.text);
}

/**
 * A Gemini CLI chat file (`name` is its file name) as a transcript.
 * Subagent chats are refused: they belong to a tool call, and Gemini lists
 * them nowhere (`getAllSessionFiles`).
 */
export function geminiTranscript(text: string, name: string, where: string, cwd: string | undefined): Transcript {
  const chat = foldGeminiChat(text, where);
  if (chat.metadata['kind'] === 'subagent') throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} is a subagent's chat, part of another session's tool call`);
  const createdAt = timeOf(chat.metadata['startTime']) ?? timeOf(chat.metadata['lastUpdated']) ?? fileNameTime(name);
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} records no start time`);
  // The current conversation: from the last compression summary on, its canned reply dropped, each message classified.
  const current = fromLastCheckpoint(chat.messages.map(classifyMessage));
  const title = titleOf(chat.metadata, current);
  const messages = geminiSurface(current);
  return {
    createdAt,
    ...(cwd === undefined ? {} : { cwd }),
    ...(title === undefined ? {} : { title }),
    messages,
    throughRecord: chat.records === 0 ? null : chat.records - 1,
    // Gemini CLI lists only chats with a message to resume: a resume in a later minute writes a second, message-less file.
    ...(messages.some((message) => message.origin !== 'other' || message.role === 'assistant') ? {} : { offered: false as const }),
  };
}
