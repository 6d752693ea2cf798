import type { SessionHeaderLike } from '@sessref/core';
import { readDerivedFile, sessrefCacheFile, writeDerivedFile, type DerivedFileKind } from '@sessref/platform';
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

/** The title index of `root` as a derived file (see `readDerivedFile`). */
function titleIndexKind(root: string): DerivedFileKind {
  return { name: 'title index', identity: { version: INDEX_VERSION, root }, maxBytes: MAX_INDEX_BYTES };
}

/**
 * The entries saved for `root`; none when the file is absent or cannot be
 * believed as it is (see `readDerivedFile`: not a regular file, over
 * {@link MAX_INDEX_BYTES}, in a directory others may write into, of another
 * version or root). Why a file that is there was not used goes to
 * `notices`, naming the file: the index is rebuilt from the logs.
 */
export function loadIndex(file: string, root: string, notices: string[] = []): Map<string, IndexEntry> {
  const saved = readDerivedFile(file, titleIndexKind(root));
  const refuse = (why: string): Map<string, IndexEntry> => {
    notices.push(`title index ${file} not used, rebuilt from the session logs: ${why}`);
    return new Map();
  };
  if (saved.state === 'absent') return new Map();
  if (saved.state === 'refused') return refuse(saved.why);
  const entries = saved.document['entries'];
  if (!isJsonObject(entries)) return refuse('it is not a saved title index');
  // An entry of another shape is left out: that session is read again from its log.
  return new Map(Object.entries(entries).filter((entry): entry is [string, IndexEntry] => isIndexEntry(entry[0], entry[1])));
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
  return writeDerivedFile(file, titleIndexKind(root), { entries: Object.fromEntries(entries) });
}
