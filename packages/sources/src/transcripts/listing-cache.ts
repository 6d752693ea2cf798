import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isJsonObject } from '@sessref/core/internal';
import { fnv1a64, monotonicMs, readDerivedFile, writeDerivedFile, type DerivedFileKind, type FileRevision } from '@sessref/platform';
import { SourceReadError, type SourceReadCode } from '../errors.js';
import type { Transcript } from './format.js';

/** What listing needs of one transcript: its facts, or why it cannot be listed. */
export type ListingFacts = Omit<Transcript, 'messages' | 'throughRecord'> | SourceReadError;

/** What listing learnt of one transcript, valid while its file keeps `revision`, the agent's folder gives it the same `cwd` and start time and its companions keep theirs. */
export interface ListingEntry {
  revision: FileRevision;
  /** The `cwd` the agent records beside the transcript (`TranscriptFile.cwd`): with the companions, the fold's only inputs besides the file. */
  fileCwd: string | undefined;
  /** The start time the agent records beside the transcript (`TranscriptFile.createdAt`), when it does. */
  fileCreatedAt?: number;
  /** The revisions of its companions (`TranscriptFile.companions`), as one token; none without companions. */
  companions?: string;
  /** The revision of its title file (`TranscriptFile.titleFile`), as a token; none without one. */
  titleFile?: string;
  facts: ListingFacts;
}

/** Bumped when the file's shape changes; a file of another version is rebuilt. */
const CACHE_VERSION = 1;

/** A cache larger than this is not read (it is rebuilt): far above a million sessions' entries. */
const MAX_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * Refusals that depend on the file's bytes alone and so hold for as long as
 * its revision does. Others (a permission, a descriptor limit, the size limit
 * of one process) are tried again by the next process.
 */
const LASTING_REFUSALS: ReadonlySet<SourceReadCode> = new Set(['SOURCE_SESSION_CORRUPT', 'SOURCE_SESSION_UNSUPPORTED']);

/** Whether a cache file keeps `facts`: any facts, and the refusals that last as long as the file's revision. */
export function persists(facts: ListingFacts): boolean {
  return !(facts instanceof SourceReadError) || LASTING_REFUSALS.has(facts.code);
}

/** Whose listing a cache file holds: one agent's folder, as read by one build of these readers. */
export interface CacheIdentity {
  source: string;
  home: string;
}

/**
 * The persisted listing of one agent's folder: each transcript's facts under
 * the revision they were read at, so a new process re-reads only the files
 * that changed. Disposable: a file that is missing, unreadable, not a
 * regular file, damaged, of another version, of another folder or written
 * by another build of the readers loads as empty and is replaced by the
 * next save; an entry of the wrong shape is left out (its file is read
 * again). Never trusted over a transcript: the caller compares revisions.
 */
export interface ListingCache {
  /** The saved entries; `current: false` when the file was not a usable cache (absent, damaged, another build's …), so that the next save replaces it. */
  load(): { entries: Map<string, ListingEntry>; current: boolean };
  /** Replace the file with `entries` (atomically; a failure only costs the next process a re-read). */
  save(entries: ReadonlyMap<string, ListingEntry>): void;
}

/** A title a store's source (opencode's, Kilo's) took from a session's first prompt: good while the session keeps `updatedAt`, its row's update time. */
export interface PromptTitle {
  updatedAt: number;
  title: string;
}

/**
 * The titles a store's source took from its sessions' first prompts, by
 * session id, kept between processes as the transcript sources' listings
 * are (same file name, same trust, same writes; `holds` tells the two
 * apart), so a new process reads no prompt it already knows. Disposable
 * in the same ways; an entry of the wrong shape is left out.
 */
export interface PromptTitleCache {
  load(): Map<string, PromptTitle>;
  /**
   * Keep `titles()` for the next process once they changed since the last
   * save (`changed`: by this call's listing): at once the first time, then at
   * most every {@link MIN_SAVE_INTERVAL_MS}, as transcript listings are; a
   * change not saved yet is saved by a later call.
   */
  keep(titles: () => ReadonlyMap<string, PromptTitle>, changed: boolean): void;
}

/** The shortest time between two writes of one source's listing cache: the first listing of a process writes at once, later ones at most this often. */
export const MIN_SAVE_INTERVAL_MS = 10_000;

export function promptTitleCache(file: string, identity: CacheIdentity): PromptTitleCache {
  let unsaved = false;
  let savedAt = Number.NEGATIVE_INFINITY;
  return {
    load() {
      const titles = new Map<string, PromptTitle>();
      const kind = listingCacheKind(identity, 'prompt titles');
      const saved = kind === undefined ? undefined : readDerivedFile(file, kind);
      if (saved?.state !== 'read' || !isJsonObject(saved.document['titles'])) return titles;
      for (const [sessionId, value] of Object.entries(saved.document['titles'])) {
        if (!isJsonObject(value)) continue;
        const { updatedAt, title } = value;
        if (typeof updatedAt === 'number' && Number.isFinite(updatedAt) && typeof title === 'string') titles.set(sessionId, { updatedAt, title });
      }
      return titles;
    },
    keep(titles, changed) {
      unsaved ||= changed;
      if (!unsaved || monotonicMs() - savedAt < MIN_SAVE_INTERVAL_MS) return;
      const kind = listingCacheKind(identity, 'prompt titles');
      if (kind !== undefined) writeDerivedFile(file, kind, { titles: Object.fromEntries(titles()) });
      savedAt = monotonicMs();
      unsaved = false;
    },
  };
}

export function listingCache(file: string, identity: CacheIdentity): ListingCache {
  return {
    load() {
      const entries = new Map<string, ListingEntry>();
      // No stamp of these readers (modules that cannot be read): no cache is trusted.
      const kind = listingCacheKind(identity);
      if (kind === undefined) return { entries, current: false };
      const saved = readDerivedFile(file, kind);
      return saved.state === 'read' ? savedEntries(saved.document['entries']) : { entries, current: false };
    },
    save(entries) {
      const kind = listingCacheKind(identity);
      if (kind === undefined) return;
      const saved: Record<string, SavedEntry> = {};
      for (const [path, entry] of entries) {
        const stored = storedEntry(entry);
        if (stored !== undefined) saved[path] = stored;
      }
      // Written only where the next load would trust the file (a private directory of this user's).
      writeDerivedFile(file, kind, { entries: saved });
    },
  };
}

/** The listing cache of one agent's folder as a derived file (see `readDerivedFile`), written by this build of the readers, holding what `holds` says when not transcripts' entries; none without their stamp. */
function listingCacheKind({ source, home }: CacheIdentity, holds?: string): DerivedFileKind | undefined {
  const reader = readerStamp();
  return reader === undefined ? undefined : { name: 'listing cache', identity: { version: CACHE_VERSION, reader, source, home, ...(holds === undefined ? {} : { holds }) }, maxBytes: MAX_CACHE_BYTES };
}

/** One entry on disk: the revision's fields as decimal strings, and the facts or the lasting refusal. */
interface SavedEntry {
  revision: [dev: string, ino: string, size: string, mtimeNs: string, ctimeNs: string];
  cwd?: string;
  createdAt?: number;
  companions?: string;
  titleFile?: string;
  facts?: { createdAt: number; cwd?: string; title?: string; offered?: false };
  refused?: { code: SourceReadCode; message: string };
}

function storedEntry({ revision, fileCwd, fileCreatedAt, companions, titleFile, facts }: ListingEntry): SavedEntry | undefined {
  const saved: SavedEntry = { revision: [revision.dev, revision.ino, revision.size, revision.mtimeNs, revision.ctimeNs].map(String) as SavedEntry['revision'] };
  if (fileCwd !== undefined) saved.cwd = fileCwd;
  if (fileCreatedAt !== undefined) saved.createdAt = fileCreatedAt;
  if (companions !== undefined) saved.companions = companions;
  if (titleFile !== undefined) saved.titleFile = titleFile;
  if (!persists(facts)) return undefined;
  if (facts instanceof SourceReadError) {
    saved.refused = { code: facts.code, message: facts.message };
  } else {
    saved.facts = facts;
  }
  return saved;
}

/** The entries of a saved cache; `current: false` when any was of another shape (it is left out, and its file read again). */
function savedEntries(saved: unknown): ReturnType<ListingCache['load']> {
  const entries = new Map<string, ListingEntry>();
  if (!isJsonObject(saved)) return { entries, current: false };
  let current = true;
  for (const [path, value] of Object.entries(saved)) {
    const entry = listingEntry(value);
    if (entry === undefined) current = false;
    else entries.set(path, entry);
  }
  return { entries, current };
}

const DECIMAL = /^\d{1,24}$/;

function listingEntry(value: unknown): ListingEntry | undefined {
  if (!isJsonObject(value)) return undefined;
  const { revision, cwd, createdAt: fileCreatedAt, companions, titleFile, facts, refused } = value;
  if (!Array.isArray(revision) || revision.length !== 5 || !revision.every((field) => typeof field === 'string' && DECIMAL.test(field))) return undefined;
  if ([cwd, companions, titleFile].some((field) => field !== undefined && typeof field !== 'string')) return undefined;
  if (fileCreatedAt !== undefined && (typeof fileCreatedAt !== 'number' || !Number.isFinite(fileCreatedAt))) return undefined;
  const [dev, ino, size, mtimeNs, ctimeNs] = (revision as string[]).map(BigInt) as [bigint, bigint, bigint, bigint, bigint];
  const known = {
    revision: { dev, ino, size, mtimeNs, ctimeNs },
    fileCwd: cwd as string | undefined,
    ...(fileCreatedAt === undefined ? {} : { fileCreatedAt }),
    ...(companions === undefined ? {} : { companions: companions as string }),
    ...(titleFile === undefined ? {} : { titleFile: titleFile as string }),
  };
  if (isJsonObject(refused) && facts === undefined) {
    const { code, message } = refused;
    if (typeof code !== 'string' || !LASTING_REFUSALS.has(code as SourceReadCode) || typeof message !== 'string') return undefined;
    return { ...known, facts: new SourceReadError(code as SourceReadCode, message) };
  }
  if (!isJsonObject(facts) || refused !== undefined) return undefined;
  const { createdAt, cwd: sessionCwd, title, offered } = facts;
  if (typeof createdAt !== 'number' || !Number.isFinite(createdAt)) return undefined;
  if ((sessionCwd !== undefined && typeof sessionCwd !== 'string') || (title !== undefined && typeof title !== 'string') || (offered !== undefined && offered !== false)) return undefined;
  return {
    ...known,
    facts: { createdAt, ...(sessionCwd === undefined ? {} : { cwd: sessionCwd }), ...(title === undefined ? {} : { title }), ...(offered === undefined ? {} : { offered }) },
  };
}

/** Module files of this package that a stamp covers, at most: it has a few dozen (the CLI's bundle, which holds it, some sixty). */
const MAX_STAMPED_FILES = 1000;

let stamp: string | null | undefined;

/**
 * The name of this build of the readers: each of this package's module
 * files by name, size and modification time. The facts a cache holds are
 * what these readers made of each file, so a cache written by any other
 * build (an upgrade, a fixed fold) is rebuilt rather than trusted. A build
 * that changes a module writes it anew (and the CLI's bundle names each
 * chunk by a digest of what it holds, so a changed chunk has another name
 * even where an install sets every file's time alike), so the files' names
 * and stats tell builds apart without reading them: a stat per module once
 * per process, where a digest of their content read the bundle whole and
 * loaded `node:crypto` for it (some 20 ms of CPU, a quarter of Node's start).
 */
function readerStamp(): string | undefined {
  if (stamp !== undefined) return stamp ?? undefined;
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    const modules = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((name) => /\.[cm]?[jt]s$/.test(name) && !name.endsWith('.d.ts'))
      .sort();
    // Far more than this package's modules: the folder is not what it should be, and no stamp is better than a slow one.
    if (modules.length > MAX_STAMPED_FILES) throw new Error('too much to stamp');
    let files = '';
    for (const name of modules) {
      const { size, mtimeNs } = statSync(join(root, name), { bigint: true });
      files += `${name}\0${size}\0${mtimeNs}\0`;
    }
    stamp = fnv1a64(files);
  } catch {
    // Modules that cannot be listed or stat'ed (a sandbox): no stamp, so no cache is trusted or written.
    stamp = null;
  }
  return stamp ?? undefined;
}
