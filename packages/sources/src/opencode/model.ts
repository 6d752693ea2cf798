import { asObject, asString } from '../json-lines.js';

type JsonObject = Record<string, unknown>;

/** One part of a message, as much of it as the fold needs (message-v2.ts `Part`). */
export interface OpencodePart {
  id: string;
  type: string;
  text?: string;
  /** Text opencode wrote itself (file expansions, tool-result images, continue prompts). */
  synthetic: boolean;
  /** Text kept out of the model's view. */
  ignored: boolean;
  /** A compaction part's first retained message. */
  tailStartId?: string;
}

/** One message header and its parts (message-v2.ts `User` / `Assistant`). */
export interface OpencodeMessage {
  id: string;
  role: string;
  created: number;
  /** The user message an assistant message answers. */
  parentId?: string;
  /** A compaction summary reply. */
  summary: boolean;
  /** `finish` is set: the model ended the reply. */
  finished: boolean;
  /** `error` is set (aborted, provider error). */
  errored: boolean;
  /** `time.completed` is set (older replies have it without `finish`). */
  completed: boolean;
  parts: OpencodePart[];
}

/** A pending undo: messages from `messageId` on, and parts of it from `partId` on (revert.ts). */
export interface OpencodeRevert {
  messageId: string;
  partId?: string;
}

/** The facts of one session (session.sql.ts `session`, or `storage/session/<project>/<id>.json`). */
export interface OpencodeSessionInfo {
  id: string;
  title?: string;
  directory?: string;
  projectId?: string;
  /** Set on a subagent's session. */
  parentId?: string;
  createdAt: number;
  updatedAt: number;
  revert?: OpencodeRevert;
}

function finite(value: unknown): number | undefined {
  const number = typeof value === 'bigint' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  const text = asString(value);
  return text === undefined || text === '' ? undefined : text;
}

/**
 * A message's or a part's id and its kind (`role` or `type`); `undefined`
 * without either. A database row's id column wins over its data: opencode
 * 1.18 keeps ids only in the columns, and its own reader spreads the data
 * and then sets the column's id over it (message-v2.ts `parts`, `info`).
 */
function identify(data: JsonObject, kindKey: 'role' | 'type', rowId: string | undefined): { id: string; kind: string } | undefined {
  const id = rowId ?? asString(data['id']);
  const kind = asString(data[kindKey]);
  return id === undefined || kind === undefined ? undefined : { id, kind };
}

/** `{ [key]: value }`, or no key at all when `value` is missing: the fold's optional fields are absent, never `undefined`. */
function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

/**
 * A message from its JSON `data`. A database row's `id` and `time_created`
 * columns win, since opencode orders messages by those columns
 * (message-v2.ts `page`); a file of the JSON tree has only its data.
 */
export function messageOf(data: JsonObject, row: { id?: string; created?: number }): Omit<OpencodeMessage, 'parts'> | undefined {
  const identity = identify(data, 'role', row.id);
  if (identity === undefined) return undefined;
  const time = asObject(data['time']);
  return {
    id: identity.id,
    role: identity.kind,
    created: row.created ?? finite(time?.['created']) ?? 0,
    ...optional('parentId', asString(data['parentID'])),
    summary: data['summary'] === true,
    finished: nonEmpty(data['finish']) !== undefined,
    errored: asObject(data['error']) !== undefined,
    completed: finite(time?.['completed']) !== undefined,
  };
}

/** A part from its JSON `data`; `undefined` for one without an id or a type. */
export function partOf(data: JsonObject, rowId?: string): OpencodePart | undefined {
  const identity = identify(data, 'type', rowId);
  if (identity === undefined) return undefined;
  return {
    id: identity.id,
    type: identity.kind,
    ...optional('text', asString(data['text'])),
    synthetic: data['synthetic'] === true,
    ignored: data['ignored'] === true,
    ...optional('tailStartId', asString(data['tail_start_id'])),
  };
}

/** A session's pending revert, from its JSON. */
function revertOf(value: unknown): OpencodeRevert | undefined {
  const revert = asObject(value);
  const messageId = asString(revert?.['messageID']);
  if (messageId === undefined) return undefined;
  const partId = asString(revert?.['partID']);
  return partId === undefined ? { messageId } : { messageId, partId };
}

/** Session facts from named values (a row's columns, or the JSON file's fields mapped to them). */
export function sessionOf(fields: {
  id: unknown;
  title: unknown;
  directory: unknown;
  projectId: unknown;
  parentId: unknown;
  created: unknown;
  updated: unknown;
  revert: unknown;
}): OpencodeSessionInfo | undefined {
  const id = nonEmpty(fields.id);
  const createdAt = finite(fields.created);
  if (id === undefined || createdAt === undefined) return undefined;
  const title = nonEmpty(fields.title);
  const directory = nonEmpty(fields.directory);
  const projectId = nonEmpty(fields.projectId);
  const parentId = nonEmpty(fields.parentId);
  const revert = revertOf(fields.revert);
  return {
    id,
    createdAt,
    updatedAt: finite(fields.updated) ?? createdAt,
    ...(title === undefined ? {} : { title }),
    ...(directory === undefined ? {} : { directory }),
    ...(projectId === undefined ? {} : { projectId }),
    ...(parentId === undefined ? {} : { parentId }),
    ...(revert === undefined ? {} : { revert }),
  };
}
