import type { SessionHeaderLike } from '@sessref/core';
import { readDerivedBytes, readDerivedFile, replaceFileAtomically, sessrefCacheFile, type DerivedFileKind } from '@sessref/platform';
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

/** The saved index as read: its entries, and whether the file is laid out as {@link saveIndex} lays it out now (one an earlier build saved is saved again). */
export interface SavedIndex {
  entries: Map<string, IndexEntry>;
  laidOut: boolean;
}

/**
 * The entries saved for `root`; none when the file is absent or cannot be
 * believed as it is (see `readDerivedFile`: not a regular file, over
 * {@link MAX_INDEX_BYTES}, in a directory others may write into, of another
 * version or root). Why a file that is there was not used goes to
 * `notices`, naming the file: the index is rebuilt from the logs.
 */
export function loadIndex(file: string, root: string, notices: string[] = []): SavedIndex {
  const saved = readDerivedFile(file, titleIndexKind(root));
  const refuse = (why: string): SavedIndex => {
    notices.push(`title index ${file} not used, rebuilt from the session logs: ${why}`);
    return { entries: new Map(), laidOut: false };
  };
  if (saved.state === 'absent') return { entries: new Map(), laidOut: false };
  if (saved.state === 'refused') return refuse(saved.why);
  const entries = saved.document['entries'];
  if (!isJsonObject(entries)) return refuse('it is not a saved title index');
  // An entry of another shape is left out: that session is read again from its log.
  const kept = new Map(Object.entries(entries).filter((entry): entry is [string, IndexEntry] => isIndexEntry(entry[0], entry[1])));
  return { entries: kept, laidOut: entryRegion(saved.bytes, root) !== undefined };
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
 *
 * The file is one JSON document, `{"version":…,"root":…,"entries":{…}}`,
 * laid out so that an entry can be found without parsing the others: after
 * a first line of its own, the entries one per line, in the order of their
 * keys' UTF-8 bytes, then `}}` alone. {@link loadIndex} parses it whole as
 * any JSON; {@link lookupIndex} bisects the lines.
 */
export function saveIndex(file: string, root: string, entries: ReadonlyMap<string, IndexEntry>): boolean {
  const lines: Buffer[] = [];
  entries.forEach((entry, id) => lines.push(Buffer.from(`${JSON.stringify(id)}:${JSON.stringify(entry)}`)));
  // A line's key, its quotes and the colon after it are never the start of another's (a quote inside a key is escaped): lines sort as their keys do.
  lines.sort(Buffer.compare);
  const body = lines.flatMap((line, at) => (at === 0 ? [line] : [ENTRY_SEPARATOR, line]));
  return replaceFileAtomically(file, Buffer.concat([firstLine(root), ...body, LAST_LINE]));
}

const ENTRY_SEPARATOR = Buffer.from(',\n');
const LAST_LINE = Buffer.from('\n}}\n');

/** The saved index's first line: its identity, then the entries' opening brace. */
function firstLine(root: string): Buffer {
  const identity = JSON.stringify(titleIndexKind(root).identity);
  return Buffer.from(`${identity.slice(0, -1)},"entries":{\n`);
}

/**
 * The saved entries of `sessionIds` (those it holds of the right shape),
 * found in the file as {@link saveIndex} lays it out without parsing any
 * other entry: what a process that labels a few sessions needs of an index
 * of thousands. `undefined` when the file is not there, cannot be believed
 * (see `readDerivedBytes`), or is not laid out so (a file saved by an
 * earlier build, or edited): {@link loadIndex} reads it then, and says why
 * when it does not use it.
 */
export function lookupIndex(file: string, root: string, sessionIds: readonly string[]): Map<string, IndexEntry> | undefined {
  const read = readDerivedBytes(file, titleIndexKind(root));
  if (read.state !== 'read') return undefined;
  const { bytes } = read;
  const region = entryRegion(bytes, root);
  if (region === undefined) return undefined;
  const { start, end } = region;
  // Where each entry's line starts: a newline ends every line (the last line's own opens with one), and none is inside JSON.
  const starts: number[] = [];
  for (let at = start; at < end; at = bytes.indexOf(0x0a, at) + 1) starts.push(at);
  const found = new Map<string, IndexEntry>();
  for (const id of sessionIds) {
    const entry = entryIn(bytes, starts, end, id);
    if (entry !== undefined) found.set(id, entry);
  }
  return found;
}

/** Where the entries' lines are in a file {@link saveIndex} laid out for `root`: after its first line, up to its last; none in any other file. */
function entryRegion(bytes: Buffer, root: string): { start: number; end: number } | undefined {
  const first = firstLine(root);
  const end = bytes.length - LAST_LINE.length;
  if (end < first.length || !bytes.subarray(0, first.length).equals(first) || !bytes.subarray(end).equals(LAST_LINE)) return undefined;
  return { start: first.length, end };
}

/** The entry of `id` among the sorted lines starting at `starts` (the last ending at `end`), when it is there and of the right shape. */
function entryIn(bytes: Buffer, starts: readonly number[], end: number, id: string): IndexEntry | undefined {
  const key = Buffer.from(`${JSON.stringify(id)}:`);
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const start = starts[middle]!;
    const order = key.compare(bytes, start, Math.min(start + key.length, end));
    if (order > 0) low = middle + 1;
    else if (order < 0) high = middle;
    else {
      const lineEnd = middle + 1 < starts.length ? starts[middle + 1]! - ENTRY_SEPARATOR.length : end;
      try {
        const value: unknown = JSON.parse(bytes.toString('utf8', start + key.length, lineEnd));
        return isIndexEntry(id, value) ? value : undefined;
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
