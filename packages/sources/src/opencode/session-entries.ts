import { asObject, asString } from '../json-lines.js';
import type { OpencodeMessage, OpencodePart } from './model.js';

/**
 * opencode 1.18's experimental session API (`POST /api/session`,
 * `/api/session/:id/prompt`) writes a session's conversation to
 * `session_message` rows instead of `message`/`part` rows
 * (`../shared/formats/opencode-1.18.md`, "Tables"; `v2/session-entry.ts`):
 * `user` (`{time, text}`), `synthetic` (text opencode adds), and `assistant`
 * (`{time, content: [text | reasoning | tool], error?}`). These map onto the
 * messages and parts the fold already reads, so one rule serves both.
 */

/** A `session_message` row as read: its id, its type column, its place in the session's event sequence, and its JSON data. */
export interface SessionEntryRow {
  id: string;
  type: string;
  seq: number;
  data: Record<string, unknown>;
}

/**
 * Entry types whose rule for the current conversation is not known: a v2
 * `compaction` entry (its endpoint answered 503 in 1.18.33, so none was
 * ever observed) or any type a later opencode adds. A session holding one is
 * refused rather than shown with a guess.
 */
export class UnknownSessionEntry extends Error {
  constructor(readonly entryType: string) {
    super(`a session_message of type "${entryType}"`);
  }
}

function textPart(id: string, text: string | undefined, synthetic: boolean): OpencodePart[] {
  return text === undefined ? [] : [{ id, type: 'text', text, synthetic, ignored: false }];
}

/** An assistant entry's content as parts: text is the reply's, reasoning and tools keep their type so the fold never carries them. */
function contentParts(entryId: string, content: unknown): OpencodePart[] {
  return (Array.isArray(content) ? (content as unknown[]) : []).flatMap((item, index): OpencodePart[] => {
    const object = asObject(item);
    const type = asString(object?.['type']);
    if (object === undefined || type === undefined) return [];
    // Parts sort by id within a message: a zero-padded index keeps the content's order.
    const id = `${entryId}:${String(index).padStart(8, '0')}`;
    return type === 'text' ? textPart(id, asString(object['text']), false) : [{ id, type, synthetic: false, ignored: false }];
  });
}

/**
 * One `session_message` row as a message. Its `seq` stands in for the
 * creation time: the event sequence is the session's order (a prompt
 * admitted while a reply runs is promoted, and placed, after it).
 */
export function sessionEntryMessage(row: SessionEntryRow): OpencodeMessage {
  const time = asObject(row.data['time']);
  const base = { id: row.id, created: row.seq, summary: false, finished: false, errored: false, completed: false };
  switch (row.type) {
    case 'user':
      return { ...base, role: 'user', parts: textPart(`${row.id}:text`, asString(row.data['text']), false) };
    case 'synthetic':
      return { ...base, role: 'user', parts: textPart(`${row.id}:text`, asString(row.data['text']), true) };
    case 'assistant':
      return {
        ...base,
        role: 'assistant',
        completed: time?.['completed'] !== undefined && time['completed'] !== null,
        errored: asString(row.data['error']) !== undefined,
        parts: contentParts(row.id, row.data['content']),
      };
    default:
      throw new UnknownSessionEntry(row.type);
  }
}
