import type { SurfaceMessage } from '@sessref/core';
import { oneLine, surfaceMessage } from '../surface.js';
import type { OpencodeMessage, OpencodePart, OpencodeRevert } from './model.js';

/** Messages by creation time then id, parts by id: the order opencode reads them in (message-v2.ts `stream`, `parts`). */
function inOrder(messages: readonly OpencodeMessage[]): OpencodeMessage[] {
  const byId = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return messages.map((message) => ({ ...message, parts: [...message.parts].sort(byId) })).sort((a, b) => a.created - b.created || byId(a, b));
}

/**
 * Drop what a pending revert undoes (revert.ts): the message it names and
 * every later one, or, when it names a part, that part and the later parts
 * of its message. opencode deletes them at the next prompt; until then they
 * are still stored but no longer the conversation.
 */
function applyRevert(messages: readonly OpencodeMessage[], revert: OpencodeRevert | undefined): OpencodeMessage[] {
  const index = revert === undefined ? -1 : messages.findIndex((message) => message.id === revert.messageId);
  if (revert === undefined || index < 0) return [...messages];
  const kept = messages.slice(0, index);
  const partId = revert.partId;
  const named = messages[index];
  if (partId === undefined || named === undefined) return kept;
  return [...kept, { ...named, parts: named.parts.filter((part) => part.id < partId) }];
}

/** A finished compaction summary: `summary`, `finish` and no `error` (message-v2.ts `filterCompacted`). */
function isFinishedSummary(message: OpencodeMessage): boolean {
  return message.role === 'assistant' && message.summary && message.finished && !message.errored;
}

function compactionPart(message: OpencodeMessage): OpencodePart | undefined {
  return message.role === 'user' ? message.parts.find((part) => part.type === 'compaction') : undefined;
}

/** The current conversation in model order, with the summary that is its checkpoint, if any. */
interface Compacted {
  messages: OpencodeMessage[];
  checkpoint?: OpencodeMessage;
}

/**
 * opencode's `filterCompacted` (message-v2.ts): the newest user message
 * with a `compaction` part that a finished summary answers (its
 * `parentID`) is where the conversation starts; with a `tail_start_id`,
 * the messages from that one up to it are kept too, and opencode orders
 * them after the compaction and its summary. Without such a message
 * nothing was compacted.
 */
function filterCompacted(messages: readonly OpencodeMessage[]): Compacted {
  const answered = new Set<string>();
  let nail = -1;
  for (let index = messages.length - 1; index >= 0 && nail < 0; index -= 1) {
    const message = messages[index];
    if (message === undefined) continue;
    if (answered.has(message.id) && compactionPart(message) !== undefined) nail = index;
    else if (isFinishedSummary(message) && message.parentId !== undefined) answered.add(message.parentId);
  }
  const nailMessage = messages[nail];
  if (nailMessage === undefined) return { messages: [...messages] };
  const summaryIndex = messages.findIndex((message, index) => index > nail && isFinishedSummary(message) && message.parentId === nailMessage.id);
  const checkpoint = messages[summaryIndex];
  const tailId = compactionPart(nailMessage)?.tailStartId;
  const tail = tailId === undefined ? nail : messages.findIndex((message) => message.id === tailId);
  // A tail opencode cannot find makes it keep reading back to the first message.
  const start = tail < 0 ? 0 : Math.min(tail, nail);
  if (start === nail || checkpoint === undefined) return { messages: messages.slice(start), ...(checkpoint === undefined ? {} : { checkpoint }) };
  return { messages: [...messages.slice(nail, summaryIndex + 1), ...messages.slice(start, nail), ...messages.slice(summaryIndex + 1)], checkpoint };
}

/**
 * Whether an assistant reply is over: finished, completed or failed, or
 * followed by a later message (opencode runs one turn at a time). The last
 * reply with none of these is still being written and is left out.
 */
function isOver(message: OpencodeMessage, last: boolean): boolean {
  return message.finished || message.completed || message.errored || !last;
}

/** The text parts opencode shows the model as the speaker's own words. */
function ownText(parts: readonly OpencodePart[]): string[] {
  return parts.flatMap((part) => (part.type === 'text' && !part.synthetic && !part.ignored && part.text !== undefined ? [part.text] : []));
}

/** Text opencode put in a message itself: injected context, never the speaker's. */
function injectedText(parts: readonly OpencodePart[]): string[] {
  return parts.flatMap((part) => (part.type === 'text' && (part.synthetic || part.ignored) && part.text !== undefined ? [part.text] : []));
}

function messageSurface(message: OpencodeMessage, checkpoint: boolean, last: boolean): SurfaceMessage[] {
  const injected = injectedText(message.parts);
  const context = injected.length > 0 ? [surfaceMessage('user', 'other', injected)] : [];
  if (message.role === 'user') return [surfaceMessage('user', 'direct-user', ownText(message.parts)), ...context];
  if (message.role !== 'assistant' || !isOver(message, last)) return [];
  if (checkpoint) return [surfaceMessage('user', 'compact-checkpoint', ownText(message.parts)), ...context];
  // A summary that is not the checkpoint (a failed or superseded compaction) is no one's words.
  const own = message.summary ? [surfaceMessage('user', 'other', ownText(message.parts))] : [surfaceMessage('assistant', 'other', ownText(message.parts))];
  const tools = message.parts.filter((part) => part.type === 'tool').map(() => surfaceMessage('tool', 'other', []));
  return [...own, ...context, ...tools];
}

/**
 * A session's current surface: ordered, its pending revert applied, then
 * `filterCompacted`; the summary that starts it is the compaction
 * checkpoint. Reasoning, steps, patches, snapshots and file parts are not
 * surface; tool parts and injected text stay as messages no snapshot carries.
 */
export function opencodeSurface(messages: readonly OpencodeMessage[], revert: OpencodeRevert | undefined): SurfaceMessage[] {
  const kept = applyRevert(inOrder(messages), revert);
  const current = filterCompacted(kept);
  // The newest message in time: filterCompacted's order puts the retained tail after the summary.
  const lastId = kept.at(-1)?.id;
  return current.messages.flatMap((message) => messageSurface(message, message === current.checkpoint, message.id === lastId)).filter((message) => message.content.length > 0 || message.role === 'tool');
}

/**
 * The placeholder opencode gives a session until its title agent answers
 * (session/index.ts `createDefaultTitle`, matched as `isDefaultTitle` does).
 * Kilo's runs never replace it, so every one of its sessions would read
 * "New session - <time>".
 */
const PLACEHOLDER_TITLE = /^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Whether a session's stored title is its own: set, and not the placeholder. */
export function isOwnTitle(title: string | undefined): title is string {
  return title !== undefined && !PLACEHOLDER_TITLE.test(title);
}

/**
 * The session's first direct user prompt on one line: what opencode's title
 * agent titles a session from, and so the title of a session it never titled.
 * Read from the whole session (a pending revert applied), not only the
 * current conversation, so a compaction never renames a session.
 */
export function firstPrompt(messages: readonly OpencodeMessage[], revert: OpencodeRevert | undefined): string | undefined {
  for (const message of applyRevert(inOrder(messages), revert)) {
    if (message.role !== 'user') continue;
    const text = oneLine(ownText(message.parts).join(' '));
    if (text !== '') return text;
  }
  return undefined;
}
