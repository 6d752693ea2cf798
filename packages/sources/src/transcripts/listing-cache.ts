import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isJsonObject } from '@sessref/core/internal';
import { fnv1a64, monotonicMs, readDerivedFile, writeDerivedFile, type DerivedFileKind } from '@sessref/platform';
import { SourceReadError, type SourceReadCode } from '../errors.js';
import { isOptionalString } from '../json-lines.js';
import type { Transcript } from './format.js';

/** What listing needs of one transcript: its facts, or why it cannot be listed. */
export type ListingFacts = Omit<Transcript, 'messages' | 'throughRecord'> | SourceReadError;

/** What listing learnt of one transcript, valid while its file keeps `revision`, the agent's folder gives it the same `cwd` and start time and its companions keep theirs. */
export interface ListingEntry {
  /** The transcript's revision as a token (`revisionToken`): compared, never read back into numbers. */
  revision: string;
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

/** Bumped when the file's shape changes; a file of another version is rebuilt (2: each revision one token). */
const CACHE_VERSION = 2;

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
  return !(facts instanceof SourceReadError) || isLastingRefusal(facts.code);
}

/** Whether `code` is a refusal that lasts as long as what was read keeps its bytes (see {@link LASTING_REFUSALS}). */
function isLastingRefusal(code: unknown): code is SourceReadCode {
  return typeof code === 'string' && LASTING_REFUSALS.has(code as SourceReadCode);
}

/** A refusal as a cache file or a kept database read holds it; none for one that may not last (it is not kept). */
export function keptRefusal(error: SourceReadError): { code: SourceReadCode; message: string } | undefined {
  return isLastingRefusal(error.code) ? { code: error.code, message: error.message } : undefined;
}

/** The refusal {@link keptRefusal} wrote; none for anything else. */
export function refusalKept(saved: unknown): SourceReadError | undefined {
  if (!isJsonObject(saved)) return undefined;
  const { code, message } = saved;
  if (!isLastingRefusal(code) || typeof message !== 'string') return undefined;
  return new SourceReadError(code, message);
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

/** One database's read as a file keeps it: the state its files had (`../database-listings.ts`), and what the read gave, as its source writes it. */
export interface KeptDatabaseRead {
  state: string;
  value: unknown;
}

/**
 * The settled reads of an agent's databases (OpenClaw's), kept between
 * processes as the transcript sources' listings are (same trust, same
 * writes, marked `holds: "database reads"`), so a new process whose
 * databases kept their state opens none of them. In a file of its own
 * beside the one the prompt titles are kept in ({@link databaseReadsFile}).
 * Disposable in the same ways; a read of the wrong shape is left out.
 */
export interface DatabaseReadCache {
  load(): Map<string, KeptDatabaseRead>;
  save(reads: ReadonlyMap<string, KeptDatabaseRead>): void;
}

/** Where {@link databaseReadCache} keeps an agent's database reads, beside its listing cache file. */
export function databaseReadsFile(listingCacheFile: string): string {
  return `${listingCacheFile.replace(/\.json$/, '')}.databases.json`;
}

export function databaseReadCache(file: string, identity: CacheIdentity): DatabaseReadCache {
  return {
    load() {
      const reads = new Map<string, KeptDatabaseRead>();
      const kind = listingCacheKind(identity, 'database reads');
      const saved = kind === undefined ? undefined : readDerivedFile(file, kind);
      if (saved?.state !== 'read' || !isJsonObject(saved.document['reads'])) return reads;
      const kept = saved.document['reads'];
      for (const path of Object.keys(kept)) {
        const read = kept[path];
        if (isJsonObject(read) && typeof read['state'] === 'string' && read['value'] !== undefined) reads.set(path, { state: read['state'], value: read['value'] });
      }
      return reads;
    },
    save(reads) {
      const kind = listingCacheKind(identity, 'database reads');
      if (kind !== undefined) writeDerivedFile(file, kind, { reads: Object.fromEntries(reads) });
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

/** One entry on disk: the revision's token, and the facts or the lasting refusal. */
interface SavedEntry {
  revision: string;
  cwd?: string;
  createdAt?: number;
  companions?: string;
  titleFile?: string;
  facts?: { createdAt: number; cwd?: string; title?: string; offered?: false };
  refused?: { code: SourceReadCode; message: string };
}

function storedEntry({ revision, fileCwd, fileCreatedAt, companions, titleFile, facts }: ListingEntry): SavedEntry | undefined {
  const saved: SavedEntry = { revision };
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

/**
 * The entries of a saved cache; `current: false` when any was of another shape (it is left out, and its file read again).
 * Built key by key and field by field: a fresh process loads thousands of entries with this code cold, where
 * `Object.entries`, destructuring and object spreads each cost a trip through the iterator or copy protocols.
 */
function savedEntries(saved: unknown): ReturnType<ListingCache['load']> {
  const entries = new Map<string, ListingEntry>();
  if (!isJsonObject(saved)) return { entries, current: false };
  let current = true;
  const paths = Object.keys(saved);
  for (let at = 0; at < paths.length; at++) {
    const path = paths[at]!;
    const entry = listingEntry(saved[path]);
    if (entry === undefined) current = false;
    else entries.set(path, entry);
  }
  return { entries, current };
}

function listingEntry(value: unknown): ListingEntry | undefined {
  if (!isJsonObject(value)) return undefined;
  const revision = value['revision'];
  const cwd = value['cwd'];
  const fileCreatedAt = value['createdAt'];
  const companions = value['companions'];
  const titleFile = value['titleFile'];
  if (typeof revision !== 'string' || !isOptionalString(cwd) || !isOptionalString(companions) || !isOptionalString(titleFile)) return undefined;
  if (fileCreatedAt !== undefined && !isFiniteNumber(fileCreatedAt)) return undefined;
  const facts = value['refused'] === undefined ? savedFacts(value['facts']) : value['facts'] === undefined ? refusalKept(value['refused']) : undefined;
  if (facts === undefined) return undefined;
  const entry: ListingEntry = { revision, fileCwd: cwd, facts };
  if (fileCreatedAt !== undefined) entry.fileCreatedAt = fileCreatedAt;
  if (companions !== undefined) entry.companions = companions;
  if (titleFile !== undefined) entry.titleFile = titleFile;
  return entry;
}

function savedFacts(saved: unknown): ListingFacts | undefined {
  if (!isJsonObject(saved)) return undefined;
  const { createdAt, cwd, title, offered } = saved;
  if (!isFiniteNumber(createdAt) || !isOptionalString(cwd) || !isOptionalString(title) || (offered !== undefined && offered !== false)) return undefined;
  const facts: Exclude<ListingFacts, SourceReadError> = { createdAt };
  if (cwd !== undefined) facts.cwd = cwd;
  if (title !== undefined) facts.title = title;
  if (offered !== undefined) facts.offered = offered;
  return facts;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
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
