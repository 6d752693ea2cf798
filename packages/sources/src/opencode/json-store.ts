import { basename, join, relative } from 'node:path';
import { listDirectory, type DirectoryEntry } from '../directory.js';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJson } from '../json-lines.js';
import { readRegularFile } from '../regular-file.js';
import { messageOf, partOf, sessionOf, type OpencodeMessage, type OpencodePart } from './model.js';
import type { RowLimits, SessionRow } from './sqlite-store.js';

/**
 * opencode's JSON storage before v1.2: `storage/session/<project>/<id>.json`,
 * `storage/message/<session>/<id>.json`, `storage/part/<message>/<id>.json`
 * and `storage/project/<project>.json`. Every file is one JSON object.
 */

/** Largest session or project file read: a header, never near this. */
const MAX_HEADER_BYTES = 1024 * 1024;

type JsonObject = Record<string, unknown>;

/** One JSON file of the tree as an object, within `maxBytes`, with its size in bytes. */
function readObject(path: string, storage: string, maxBytes: number): { object: JsonObject; size: number } {
  const where = relative(storage, path);
  const bytes = readRegularFile(path, maxBytes);
  if (bytes === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `${where} is gone`);
  const object = asObject(parseJson(bytes.toString('utf8'), where));
  if (object === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} is not a JSON object`);
  return { object, size: bytes.length };
}

function jsonFiles(dir: string, storage: string): DirectoryEntry[] {
  return listDirectory(dir, storage).filter((entry) => entry.kind === 'file' && entry.name.endsWith('.json'));
}

/** A session file's facts, or why it cannot be read (named by the file when its id is unknown). */
export function readSessionFile(path: string, storage: string): SessionRow {
  const fallbackId = basename(path, '.json');
  try {
    const data = readObject(path, storage, MAX_HEADER_BYTES).object;
    const time = asObject(data['time']);
    const projectId = asString(data['projectID']);
    const directory = asString(data['directory']) ?? (projectId === undefined ? undefined : projectWorktree(storage, projectId));
    const session = sessionOf({ id: data['id'], title: data['title'], directory, projectId, parentId: data['parentID'], created: time?.['created'], updated: time?.['updated'], revert: data['revert'] });
    return session ?? { id: fallbackId, error: new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, path)} has no session id or creation time`) };
  } catch (error) {
    return { id: fallbackId, error: error instanceof SourceReadError ? error : new SourceReadError('SOURCE_SESSION_UNREADABLE', `${relative(storage, path)} cannot be read`, { cause: error }) };
  }
}

/** The session files of the tree, one folder per project. */
export function sessionFiles(storage: string): string[] {
  return listDirectory(join(storage, 'session'), storage)
    .filter((project) => project.kind === 'directory')
    .flatMap((project) => jsonFiles(project.path, storage).map((file) => file.path));
}

function projectWorktree(storage: string, projectId: string): string | undefined {
  try {
    return asString(readObject(join(storage, 'project', `${projectId}.json`), storage, MAX_HEADER_BYTES).object['worktree']);
  } catch {
    return undefined;
  }
}

/** Reads the files of one session within its limits: how many, and how many bytes in all. */
class Budget {
  private files = 0;
  private bytes = 0;

  constructor(
    private readonly limits: RowLimits,
    readonly storage: string,
  ) {}

  read(path: string): JsonObject {
    this.files += 1;
    if (this.files > this.limits.maxRows) throw new SourceReadError('SOURCE_SESSION_TOO_LARGE', `the session has more than ${this.limits.maxRows} message and part files`);
    const { object, size } = readObject(path, this.storage, this.limits.maxBytes - this.bytes);
    this.bytes += size;
    return object;
  }
}

/**
 * A session's messages and parts from the tree. Parts live in a folder per
 * message; an older flat `part/<id>.json` names its message in `messageID`.
 * Any file that is not what opencode writes refuses the session.
 */
export function readTreeSession(storage: string, sessionId: string, limits: RowLimits): OpencodeMessage[] {
  const budget = new Budget(limits, storage);
  const messages: OpencodeMessage[] = [];
  for (const file of jsonFiles(join(storage, 'message', sessionId), storage)) {
    const message = messageOf(budget.read(file.path), {});
    if (message === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, file.path)} is not an opencode message`);
    messages.push({ ...message, parts: folderParts(join(storage, 'part', message.id), budget) });
  }
  const byId = new Map(messages.map((message) => [message.id, message]));
  for (const file of jsonFiles(join(storage, 'part'), storage)) {
    const data = budget.read(file.path);
    const part = partOf(data);
    const owner = byId.get(asString(data['messageID']) ?? '');
    if (part !== undefined) owner?.parts.push(part);
  }
  return messages;
}

function folderParts(dir: string, budget: Budget): OpencodePart[] {
  return jsonFiles(dir, budget.storage).flatMap((file) => partOf(budget.read(file.path)) ?? []);
}
