import { dirname } from 'node:path';
import type { SessionHeaderLike } from '@sessref/core';
import { directoryProblem, readRegularFile, replaceFileAtomically, sessrefCacheFile } from '@sessref/platform';
import { isJsonObject } from '@sessref/core/internal';

/** What the index remembers of one persisted session, valid while its log's revision holds. */
export interface IndexEntry {
  /** The log's revision token (see jsonl-root/revision.ts). */
  revision: string;
  header: SessionHeaderLike;
  title?: string;
  /** The title could not be read at this revision: the label falls back to the id. */
  unreadable?: true;
}

interface IndexFile {
  version: typeof INDEX_VERSION;
  root: string;
  entries: Record<string, IndexEntry>;
}

const INDEX_VERSION = 1;

/**
 * An index file larger than this is not read (it is rebuilt from the logs):
 * far above what a million sessions take, so only a file that is not ours
 * reaches it.
 */
const MAX_INDEX_BYTES = 512 * 1024 * 1024;

/**
 * The per-root index file, outside any dsh root: under `$SESSREF_CACHE_DIR`,
 * else `$XDG_CACHE_HOME/sessref` (an absolute one), else `~/.cache/sessref`
 * (`sessrefCacheDirectory` of `@sessref/platform`).
 */
export function defaultIndexFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return sessrefCacheFile(env, 'titles', root, 'json');
}

/**
 * The per-root content index (sessref's own, `openSearchIndex` of
 * `@sessref/search-index`) kept beside the title index, in the same cache
 * directory. Its name is not the one dsh's FTS5 backend used there
 * (`search-<key>.sqlite`), so that file is never opened as this index.
 */
export function defaultSearchIndexFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return sessrefCacheFile(env, 'content', root, 'v1.sqlite');
}

/**
 * The entries saved for `root`; none when the file is absent, unreadable, of
 * another version or another root, over {@link MAX_INDEX_BYTES}, not a
 * regular file (a FIFO, a socket or a device there is never opened in a way
 * that waits), or in a directory another user owns or may write into (anyone
 * could plant titles there). Why a file that is there was not used goes to
 * `notices`, naming the file: the index is rebuilt from the logs.
 */
export function loadIndex(file: string, root: string, notices: string[] = []): Map<string, IndexEntry> {
  const refuse = (why: string): Map<string, IndexEntry> => {
    notices.push(`title index ${file} not used, rebuilt from the session logs: ${why}`);
    return new Map();
  };
  try {
    const bytes = readRegularFile(file, MAX_INDEX_BYTES);
    if (bytes === undefined) return new Map();
    const directory = directoryProblem(dirname(file));
    if (directory !== undefined) return refuse(`its directory ${directory}`);
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (!isJsonObject(parsed) || !isJsonObject(parsed['entries'])) return refuse('it is not a saved title index');
    if (parsed['version'] !== INDEX_VERSION) return refuse(`it is of version ${JSON.stringify(parsed['version'])}, not ${INDEX_VERSION}`);
    if (parsed['root'] !== root) return refuse('it is the index of another root');
    // An entry of another shape is left out: that session is read again from its log.
    return new Map(Object.entries(parsed['entries']).filter((entry): entry is [string, IndexEntry] => isIndexEntry(entry[0], entry[1])));
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
}

/** An entry as {@link saveIndex} writes it, for session `id`. */
function isIndexEntry(id: string, value: unknown): value is IndexEntry {
  if (!isJsonObject(value) || typeof value['revision'] !== 'string' || !isJsonObject(value['header'])) return false;
  const { header, title, unreadable } = value;
  return (
    header['id'] === id &&
    Number.isFinite(header['createdAt']) &&
    (header['cwd'] === undefined || typeof header['cwd'] === 'string') &&
    (title === undefined || typeof title === 'string') &&
    (unreadable === undefined || unreadable === true)
  );
}

/**
 * Replace the saved index atomically: readers never see half an index, and a
 * link planted at the temporary name is never written through (see
 * `replaceFileAtomically`). A cache that cannot be written only costs the
 * next process a re-read; false then.
 */
export function saveIndex(file: string, root: string, entries: ReadonlyMap<string, IndexEntry>): boolean {
  const index: IndexFile = { version: INDEX_VERSION, root, entries: Object.fromEntries(entries) };
  return replaceFileAtomically(file, Buffer.from(JSON.stringify(index)));
}
