import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SessionHeaderLike } from '@sessref/core';

/** What the index remembers of one persisted session, valid while its log's revision holds. */
export interface IndexEntry {
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
 * The per-root index file, outside any dsh root: under `$SESSREF_CACHE_DIR`,
 * else `$XDG_CACHE_HOME/sessref`, else `~/.cache/sessref`.
 */
export function defaultIndexFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDirectory(env), `titles-${rootKey(root)}.json`);
}

/**
 * The per-root derived full-text index (dsh's SQLite FTS5 backend) a sessref
 * host keeps beside the title index, in the same cache directory.
 */
export function defaultSearchIndexFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDirectory(env), `search-${rootKey(root)}.sqlite`);
}

/** `$SESSREF_CACHE_DIR`, else `$XDG_CACHE_HOME/sessref`, else `~/.cache/sessref`. */
function cacheDirectory(env: NodeJS.ProcessEnv): string {
  return env.SESSREF_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'sessref');
}

function rootKey(root: string): string {
  return createHash('sha256').update(root).digest('hex').slice(0, 16);
}

/** The entries saved for `root`; none when the file is absent, unreadable, of another version or another root. */
export function loadIndex(file: string, root: string): Map<string, IndexEntry> {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as IndexFile;
    if (parsed.version !== INDEX_VERSION || parsed.root !== root) return new Map();
    return new Map(Object.entries(parsed.entries));
  } catch {
    return new Map(); // rebuilt from the logs
  }
}

/** Replace the saved index atomically: readers never see half an index. */
export function saveIndex(file: string, root: string, entries: ReadonlyMap<string, IndexEntry>): void {
  const index: IndexFile = { version: INDEX_VERSION, root, entries: Object.fromEntries(entries) };
  try {
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(index));
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written only costs the next process a re-read.
  }
}
