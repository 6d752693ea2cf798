import { lstatSync } from 'node:fs';
import { relative } from 'node:path';
import { errorCode, type SessionHeaderLike, type SessionSource, type SurfaceSnapshot, type TitleReadResult } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { foreignSessionId, ownedBy } from '../ids.js';
import { FileTooLargeError, NotRegularFileError, PROCESS_LISTINGS, monotonicMs, readRegularFile, readRevision, revisionToken, type FileRevision } from '@sessref/platform';
import { FolderWatch } from './folder-watch.js';
import type { SourceEnvironment, Transcript, TranscriptFile, TranscriptFormat } from './format.js';
import { listingCache, MIN_SAVE_INTERVAL_MS, persists, type ListingEntry, type ListingFacts } from './listing-cache.js';

/** The largest transcript sessref reads by default: far above any real session, far below the process's memory. */
const DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024;
/** The largest title file read (`TranscriptFile.titleFile`): Copilot's `workspace.yaml` holds a dozen short fields. */
const MAX_TITLE_FILE_BYTES = 64 * 1024;

export interface TranscriptSourceOptions {
  environment: SourceEnvironment;
  /** Largest transcript read, in bytes; a larger one is refused with `SOURCE_SESSION_TOO_LARGE`. */
  maxFileBytes?: number;
  /**
   * Where to keep what listing learnt between processes (a file in sessref's
   * cache directory, never in an agent's folder); none when absent. See
   * this package's README, "Listing cache".
   */
  listingCacheFile?: string;
  /**
   * Follow the agent's folders with file-system watches, so that a listing
   * stats only the transcripts an event named (default `true`); without, every
   * listing walks the folders and stats every transcript.
   */
  watch?: boolean;
}

/**
 * A session of a source that cannot be read: listed nowhere, named here
 * with why. A folder the walk had to skip is one too, whose sessions are
 * all left out: its `sessionId` is the agent's prefix and the folder
 * relative to the home with a trailing `/` (no session has such an id).
 */
export interface SourceProblem {
  sessionId: string;
  /** The transcript (or skipped folder, ending in `/`), relative to the agent's home. */
  file: string;
  error: SourceReadError;
}

/** A source over one agent's transcripts, which also reports the sessions it cannot read. */
export interface TranscriptSource extends SessionSource {
  /** Sessions the last listing left out, with why. */
  problems(): SourceProblem[];
  /** Stop following the agent's folders (later listings walk them). */
  close(): void;
}

/**
 * A {@link SessionSource} over one agent's transcripts, read in place and
 * never written. Listing folds again only the transcripts whose revision
 * changed since they were last read, keeping just their facts (time, cwd,
 * title): in this process, and, with `listingCacheFile`, in earlier ones.
 * Revisions come from a stat of every transcript, or, once the folders are
 * watched, of those an event named since. A snapshot always reads its file
 * afresh, once. A transcript that cannot be read is left out and reported
 * ({@link TranscriptSource.problems}); the others answer.
 */
export function transcriptSource(format: TranscriptFormat, options: TranscriptSourceOptions): TranscriptSource {
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const cache = options.listingCacheFile === undefined ? undefined : listingCache(options.listingCacheFile, { source: format.name, home: format.home(options.environment) });
  // Loaded on first use, so a source that is never listed reads no cache.
  let known: Map<string, ListingEntry> | undefined;
  /** Whether `known` differs from what the cache file holds. */
  let unsaved = false;
  const watch = options.watch === false ? undefined : new FolderWatch();
  let files = new Map<string, TranscriptFile>();
  /** Each transcript's revision, by path, as of the last {@link refresh}. */
  let revisions = new Map<string, FileRevision | undefined>();
  /** Each transcript's companions' revisions as of the last discovery, by transcript path (a change to one asks the watch for a discovery). */
  let companionTokens = new Map<string, string | undefined>();
  /** Each transcript's title file's revision as of the last discovery, by transcript path (a change to one asks the watch for a discovery). */
  let titleFileTokens = new Map<string, string | undefined>();
  /** What the listing that ran in this turn of the event loop verified, by path; cleared when the loop turns. */
  let justListed: Map<string, ListingFacts> | undefined;
  let titles: ReadonlyMap<string, string> = new Map();
  /** The folders the last discovery had to skip, as problems. */
  let skippedFolders: SourceProblem[] = [];
  /** The hold of the process's listings the last discovery was made under, if any (see {@link refresh}). */
  let discoveredUnder: number | undefined;
  /**
   * The transcripts of the last discovery whose stats (and the cache's
   * pruning to them) no listing has made yet: a discovery finds the files
   * and the next {@link refresh} stats them, so a run that reads one session
   * (`show`, `mention`) stats that one alone.
   */
  let statsOwed: ReadonlySet<string> | undefined;

  const knownFacts = (): Map<string, ListingEntry> => {
    if (known !== undefined) return known;
    const loaded = cache?.load() ?? { entries: new Map<string, ListingEntry>(), current: true };
    // A cache file that was not usable is replaced by the first listing, even one that reads nothing.
    unsaved = !loaded.current;
    return (known = loaded.entries);
  };

  let savedAt = Number.NEGATIVE_INFINITY;
  const save = (): void => {
    if (!unsaved || known === undefined || cache === undefined) return;
    // A long-lived process listing while an agent writes would otherwise rewrite the whole file at every listing; it has the facts in memory anyway.
    if (monotonicMs() - savedAt < MIN_SAVE_INTERVAL_MS) return;
    cache.save(known);
    savedAt = monotonicMs();
    unsaved = false;
  };

  /** Find every transcript and stat each; the watch then follows what the walk looked at. */
  const discover = (): Map<string, TranscriptFile> => {
    const startedAt = Date.now();
    const trail = { folders: new Set<string>(), files: new Set<string>() };
    const skipped: SourceProblem[] = [];
    const home = format.home(options.environment);
    const onSkipped = (folder: string, error: unknown): void => {
      const name = `${relative(home, folder)}/`;
      const detail = errorCode(error) ?? (error instanceof Error ? error.message : String(error));
      skipped.push({ sessionId: foreignSessionId(format.name, name), file: name, error: new SourceReadError('SOURCE_SESSION_UNREADABLE', `${name} cannot be searched (${detail}): its ${format.displayName} sessions are left out`, { cause: error }) });
    };
    // Plain loops and `forEach` over every transcript: a fresh process runs them cold, where iterating a
    // collection through the iterator protocol costs about ten times more per transcript.
    const found = format.transcripts(options.environment, trail, onSkipped);
    files = new Map();
    for (let at = 0; at < found.length; at++) files.set(foreignSessionId(format.name, found[at]!.nativeId), found[at]!);
    // The transcripts listed (of two with one id, the one `files` kept).
    const present = new Set<string>();
    files.forEach((file) => {
      present.add(file.path);
      // A companion or a title file that changes (or comes) changes what a listing gives: the watch asks for a discovery then.
      file.companions?.forEach((path) => trail.files.add(path));
      if (file.titleFile !== undefined) trail.files.add(file.titleFile);
    });
    skippedFolders = skipped;
    titles = format.titles?.(options.environment, trail) ?? new Map();
    discoveredUnder = PROCESS_LISTINGS.heldEpoch;
    // Watched before the stats: a transcript that grows after its stat is an event. A run under a hold looks once and never watches.
    if (discoveredUnder === undefined) watch?.follow(trail, present, startedAt);
    else watch?.missed();
    statsOwed = present;
    return files;
  };

  /** Stat what the last discovery found (`present`, the transcripts it listed) and prune the cache's facts to them. */
  const statDiscovered = (present: ReadonlySet<string>): void => {
    statsOwed = undefined;
    revisions = new Map();
    companionTokens = new Map();
    titleFileTokens = new Map();
    files.forEach((file) => {
      revisions.set(file.path, readRevision(file.path, true));
      companionTokens.set(file.path, companionsToken(file));
      titleFileTokens.set(file.path, titleFileToken(file));
    });
    const facts = knownFacts();
    facts.forEach((_entry, path) => {
      if (present.has(path)) return;
      facts.delete(path);
      unsaved = true;
    });
  };

  /**
   * Bring `files` and `revisions` up to date: a new discovery, or, when the
   * watch can tell, a stat of the transcripts that changed. A run that only
   * reads and then ends (a `sessref list`, `show` or `search`) holds the
   * process's listings (`DirectoryListings.holdFirstLook`): under the hold
   * the first discovery answers every listing, as the dsh root's first look
   * does, and no folder is watched.
   */
  const refresh = async (): Promise<void> => {
    await catchUp();
    if (statsOwed !== undefined) statDiscovered(statsOwed);
  };

  const catchUp = async (): Promise<void> => {
    if (discoveredUnder !== undefined && discoveredUnder === PROCESS_LISTINGS.heldEpoch) return;
    const changes = await watch?.changes();
    if (changes === undefined || changes.rediscover) {
      discover();
      return;
    }
    for (const path of changes.transcripts) {
      const revision = readRevision(path, true);
      // Gone (or no longer a file): another copy of the session may win now, so the walk decides.
      if (revision === undefined) {
        discover();
        return;
      }
      revisions.set(path, revision);
    }
  };

  const fileOf = (sessionId: string): TranscriptFile => {
    const file = files.get(sessionId) ?? discover().get(sessionId);
    if (file === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no ${format.displayName} session has the id "${sessionId}"`);
    return file;
  };

  const readTranscript = (file: TranscriptFile): Transcript => format.fold(readText(format, file, maxFileBytes), file, readCompanions(file, maxFileBytes));

  // The revision is taken before the read: a file that changes meanwhile has another revision next time, and is read again.
  const factsOf = (file: TranscriptFile, revision = readRevision(file.path, true), companions = companionsToken(file), titleFile = titleFileToken(file)): ListingFacts => {
    const facts = knownFacts();
    const cached = facts.get(file.path);
    if (
      revision !== undefined &&
      cached !== undefined &&
      cached.revision === revisionToken(revision) &&
      cached.fileCwd === file.cwd &&
      cached.fileCreatedAt === file.createdAt &&
      cached.companions === companions &&
      cached.titleFile === titleFile
    ) {
      return cached.facts;
    }
    let read: ListingFacts;
    try {
      const { messages: _messages, throughRecord: _through, ...rest } = readTranscript(file);
      const title = file.titleFile === undefined || titleFile === '-' ? undefined : titleIn(format, file.titleFile);
      read = title === undefined ? rest : { ...rest, title };
    } catch (error) {
      read = asReadError(error, file);
    }
    // A refusal that may not last (a permission, a descriptor limit) is kept in this process only: saving it would rewrite the cache every time.
    if (cached !== undefined || persists(read)) unsaved = true;
    if (revision === undefined) {
      facts.delete(file.path);
      return read;
    }
    const entry: ListingEntry = { revision: revisionToken(revision), fileCwd: file.cwd, facts: read };
    if (file.createdAt !== undefined) entry.fileCreatedAt = file.createdAt;
    if (companions !== undefined) entry.companions = companions;
    if (titleFile !== undefined) entry.titleFile = titleFile;
    facts.set(file.path, entry);
    return read;
  };

  const labelOf = (file: TranscriptFile, title: string | undefined): string => sessionLabel(format.displayName, titles.get(file.nativeId) ?? title, file.nativeId);

  return {
    name: format.name,
    owns: ownedBy(format.name),

    async changeStamps(signal) {
      await refresh();
      const stamps = new Map<string, string>();
      files.forEach((file, sessionId) => {
        signal?.throwIfAborted();
        const revision = revisions.get(file.path);
        const companions = companionTokens.get(file.path);
        if (revision !== undefined) stamps.set(sessionId, companions === undefined ? revisionToken(revision) : `${revisionToken(revision)}+${companions}`);
      });
      return stamps;
    },

    async listSessions(signal) {
      await refresh();
      const headers: SessionHeaderLike[] = [];
      const verified = new Map<string, ListingFacts>();
      files.forEach((file, sessionId) => {
        signal?.throwIfAborted();
        const facts = factsOf(file, revisions.get(file.path), companionTokens.get(file.path), titleFileTokens.get(file.path));
        verified.set(file.path, facts);
        if (!(facts instanceof SourceReadError) && facts.offered !== false) headers.push(sessionHeader(sessionId, facts));
      });
      save();
      // Titles asked for before the event loop turns (a caller labelling what it just listed) come from this very listing, without a second stat of every file.
      justListed = verified;
      setImmediate(() => {
        if (justListed === verified) justListed = undefined;
      });
      return headers.sort(newestFirst);
    },

    async readTitles(sessionIds, signal) {
      const results = sessionIds.map((sessionId): TitleReadResult => {
        try {
          signal?.throwIfAborted();
          const file = fileOf(sessionId);
          const facts = justListed?.get(file.path) ?? factsOf(file);
          if (facts instanceof SourceReadError) throw facts;
          return { sessionId, status: 'fulfilled', title: labelOf(file, facts.title) };
        } catch (reason) {
          return { sessionId, status: 'rejected', reason };
        }
      });
      save();
      return results;
    },

    async readSurface(sessionId, signal): Promise<SurfaceSnapshot> {
      signal?.throwIfAborted();
      const file = fileOf(sessionId);
      let transcript: Transcript;
      try {
        transcript = readTranscript(file);
      } catch (error) {
        throw asReadError(error, file);
      }
      return { session: sessionHeader(sessionId, transcript), capturedThroughSeq: transcript.throughRecord, messages: transcript.messages };
    },

    problems() {
      const problems: SourceProblem[] = [...skippedFolders];
      files.forEach((file, sessionId) => {
        const facts = known?.get(file.path)?.facts;
        if (facts instanceof SourceReadError) problems.push({ sessionId, file: relative(file.home, file.path), error: facts });
      });
      return problems;
    },

    close() {
      watch?.close();
    },
  };
}

/** A listing's header of a session with these facts. */
export function sessionHeader(id: string, facts: { createdAt: number; cwd?: string }): SessionHeaderLike {
  return facts.cwd === undefined ? { id, createdAt: facts.createdAt } : { id, createdAt: facts.createdAt, cwd: facts.cwd };
}

/** Newest first, then by id: the order a dsh host lists its own sessions in. */
export function newestFirst(a: SessionHeaderLike, b: SessionHeaderLike): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A foreign session's label: it names the agent, so the model can tell where a snapshot came from. */
export function sessionLabel(displayName: string, title: string | undefined, nativeId: string): string {
  return `${displayName} · ${title ?? nativeId.slice(0, 8)}`;
}

/** The transcript's text, read within `maxBytes` without ever waiting on a special file. */
function readText(format: TranscriptFormat, file: TranscriptFile, maxBytes: number): string {
  const bytes = readRegularFile(file.path, maxBytes);
  if (bytes === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `${relative(file.home, file.path)} is gone`);
  return format.decode === undefined ? bytes.toString('utf8') : format.decode(bytes, file);
}

/** The revisions of a transcript's companions as one token (`-` for one that is not there); none without companions. */
function companionsToken(file: TranscriptFile): string | undefined {
  return file.companions?.map((path) => {
    const revision = readRevision(path, true);
    return revision === undefined ? '-' : revisionToken(revision);
  }).join('/');
}

/**
 * The revision of a transcript's title file as a token, `-` when it names
 * nothing (missing, a link, not a regular file, not to be looked at); none
 * without a title file.
 */
function titleFileToken(file: TranscriptFile): string | undefined {
  if (file.titleFile === undefined) return undefined;
  try {
    const stats = lstatSync(file.titleFile, { bigint: true, throwIfNoEntry: false });
    return stats?.isFile() === true ? revisionToken({ dev: stats.dev, ino: stats.ino, size: stats.size, mtimeNs: stats.mtimeNs, ctimeNs: stats.ctimeNs }) : '-';
  } catch {
    return '-';
  }
}

/** The title the title file at `path` names, read within {@link MAX_TITLE_FILE_BYTES}; none when it names none or cannot be read. */
function titleIn(format: TranscriptFormat, path: string): string | undefined {
  try {
    const bytes = readRegularFile(path, MAX_TITLE_FILE_BYTES);
    return bytes === undefined ? undefined : format.titleIn?.(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A transcript's companions' texts by path, each read within `maxBytes` as the transcript is; a missing one is left out. */
function readCompanions(file: TranscriptFile, maxBytes: number): ReadonlyMap<string, string> {
  const texts = new Map<string, string>();
  for (const path of file.companions ?? []) {
    try {
      const bytes = readRegularFile(path, maxBytes);
      if (bytes !== undefined) texts.set(path, bytes.toString('utf8'));
    } catch (error) {
      throw asReadError(error, file, path);
    }
  }
  return texts;
}

/** Any failure of one transcript (or of the companion at `path`) as a coded error naming that file relative to the agent's home. */
export function asReadError(error: unknown, file: TranscriptFile, path = file.path): SourceReadError {
  const name = relative(file.home, path);
  if (error instanceof SourceReadError) return error.message.startsWith(name) ? error : new SourceReadError(error.code, `${name}: ${error.message}`, { cause: error });
  if (error instanceof FileTooLargeError) return new SourceReadError('SOURCE_SESSION_TOO_LARGE', `${name} is ${error.size} bytes, over the ${error.maxBytes} sessref reads`, { cause: error });
  if (error instanceof NotRegularFileError) return new SourceReadError('SOURCE_SESSION_UNREADABLE', `${name} is ${error.kind}, not a regular file`, { cause: error });
  const detail = error instanceof Error ? error.message.replaceAll(`${file.home}/`, '') : String(error);
  return new SourceReadError('SOURCE_SESSION_UNREADABLE', `${name} cannot be read: ${detail}`, { cause: error });
}
