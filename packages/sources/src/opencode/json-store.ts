import { realpathSync } from 'node:fs';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { listDirectory, type DirectoryEntry, readRegularFile } from '@sessref/platform';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJson } from '../json-lines.js';
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

/**
 * Whether `id` can name a file or folder of the tree: one path segment, so
 * `message/<id>` stays in `message/`. An id holding a separator, `.`, `..`
 * or a NUL byte is none of opencode's and would name a file elsewhere.
 */
function isSegment(id: string): boolean {
  return id !== '' && id !== '.' && id !== '..' && !/[/\\\0]/.test(id);
}

/** `id`, checked to be one path segment ({@link isSegment}); otherwise the session is refused, naming it. */
function segment(id: string, what: string): string {
  if (!isSegment(id)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${what} id ${JSON.stringify(id)} is not one path segment: it would name a file outside opencode's storage`);
  return id;
}

function isWithin(folder: string, path: string): boolean {
  const rest = relative(folder, path);
  return rest !== '' && rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * `storage` joined with `segments`, refused unless it stays inside the store:
 * as spelled, and, when it exists, once its links are resolved (a message
 * folder that is a link out of the store is not opencode's).
 */
function insideStore(storage: string, ...segments: string[]): string {
  const path = join(storage, ...segments);
  const real = isWithin(storage, path) ? realPath(path) : undefined;
  const realStorage = real === undefined ? undefined : realPath(storage);
  if (!isWithin(storage, path) || (real !== undefined && (realStorage === undefined || !isWithin(realStorage, real)))) {
    throw new SourceReadError('SOURCE_SESSION_UNREADABLE', `${join(...segments)} leads outside opencode's storage`);
  }
  return path;
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
    if (session === undefined) return { id: fallbackId, error: new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, path)} has no session id or creation time`) };
    // The id names the session's message folder: one that is not one path segment is refused here, before any read through it.
    if (!isSegment(session.id)) return { id: fallbackId, error: new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, path)}: session id ${JSON.stringify(session.id)} is not one path segment`) };
    return session;
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
    return asString(readObject(insideStore(storage, 'project', `${segment(projectId, 'project')}.json`), storage, MAX_HEADER_BYTES).object['worktree']);
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
  for (const file of jsonFiles(insideStore(storage, 'message', segment(sessionId, 'session')), storage)) {
    const message = messageOf(budget.read(file.path), {});
    if (message === undefined) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, file.path)} is not an opencode message`);
    if (!isSegment(message.id)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${relative(storage, file.path)}: message id ${JSON.stringify(message.id)} is not one path segment`);
    messages.push({ ...message, parts: folderParts(insideStore(storage, 'part', message.id), budget) });
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
