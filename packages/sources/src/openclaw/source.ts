import { relative } from 'node:path';
import type { SessionHeaderLike, SurfaceSnapshot, TitleReadResult } from '@sessref/core';
import { AGENTS } from '../agents.js';
import { DatabaseListings, databaseStamp, keptBeside, type KeptReads } from '../database-listings.js';
import { SourceReadError } from '../errors.js';
import { foreignSessionId, ownedBy } from '../ids.js';
import { asString } from '../json-lines.js';
import type { SourceEnvironment, Transcript } from '../transcripts/format.js';
import { promptTitleCache, type PromptTitle } from '../transcripts/listing-cache.js';
import { asReadError, newestFirst, sessionHeader, sessionLabel, type SourceProblem, type TranscriptSource } from '../transcripts/transcript-source.js';
import { foldOpenclaw } from './fold.js';
import { agentDatabases } from './locate.js';
import { keptWindows, listWindows, readEvents, windowsKept, type EventLimits, type KnownPrompt, type ListedWindow, type WindowRow } from './store.js';

/** Sessions one database may hold before sessref refuses to list it. */
const MAX_SESSIONS = 1_000_000;
const DEFAULT_LIMITS: EventLimits = { maxRows: 1_000_000, maxBytes: 256 * 1024 * 1024 };

export interface OpenclawSourceOptions {
  environment: SourceEnvironment;
  /** Largest session read: its events, and the bytes of their JSON. */
  limits?: EventLimits;
  /**
   * Where to keep the first prompts that title sessions with no name of
   * their own between processes (a file in sessref's cache directory); none
   * when absent. See this package's README, "Listing cache".
   */
  listingCacheFile?: string;
}

/** A listed session: its window, where it is, and the facts of its header. */
interface Listed {
  readonly window: WindowRow;
  readonly database: string;
  readonly createdAt: number;
  readonly cwd: string | undefined;
}

const { name, displayName } = AGENTS.openclaw;

/**
 * A source over OpenClaw's agent databases (one SQLite file per agent),
 * read in place and never written (this package's README, "OpenClaw").
 */
export function openclawSource(options: OpenclawSourceOptions): TranscriptSource {
  const limits = options.limits ?? DEFAULT_LIMITS;
  /** What the last discovery found: the sessions listed, and those it had to leave out. */
  let last: { readonly sessions: Map<string, Listed>; readonly problems: SourceProblem[] } = { sessions: new Map(), problems: [] };

  const prompts = promptMemory(options);
  /** Each database's windows, read again only once its files changed (`../database-listings.ts`), in this process and, with a cache file, in the next ones. */
  const windowsOf = new DatabaseListings((path) => listWindows(path, MAX_SESSIONS, prompts.known), undefined, undefined, keptReads(options));

  const discover = async (signal?: AbortSignal): Promise<Map<string, Listed>> => {
    const agents = AGENTS.openclaw.home(options.environment);
    const next = { sessions: new Map<string, Listed>(), problems: [] as SourceProblem[] };
    const databases = agentDatabases(agents);
    windowsOf.keepOnly(new Set(databases.map(({ path }) => path)));
    for (const { path } of databases) {
      signal?.throwIfAborted();
      const file = relative(agents, path);
      try {
        for (const row of await windowsOf.get(path)) {
          const sessionId = foreignSessionId(name, row.id);
          if ('error' in row) {
            next.problems.push({ sessionId, file, error: asReadError(row.error, { nativeId: row.id, path, home: agents }) });
            continue;
          }
          const createdAt = Date.parse(asString(row.header?.['timestamp']) ?? '');
          if (Number.isNaN(createdAt)) {
            next.problems.push({ sessionId, file, error: new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${file}: session ${row.id} has no session header with a start time`) });
            continue;
          }
          const known = next.sessions.get(sessionId);
          // The same id in two agents' databases: listed once, from the window updated last.
          if (known === undefined || row.updatedAt > known.window.updatedAt) next.sessions.set(sessionId, { window: row, database: path, createdAt, cwd: asString(row.header?.['cwd']) || undefined });
        }
      } catch (error) {
        next.problems.push({ sessionId: foreignSessionId(name, file), file, error: asReadError(error, { nativeId: '', path, home: agents }) });
      }
    }
    last = next;
    prompts.keep(next.sessions);
    return next.sessions;
  };

  /** A listed session, from the last discovery or, when it is not there, a new one. */
  const find = async (sessionId: string, signal?: AbortSignal): Promise<Listed> => {
    const known = last.sessions.get(sessionId);
    if (known !== undefined) return known;
    const found = (await discover(signal)).get(sessionId);
    if (found !== undefined) return found;
    throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no ${displayName} session has the id "${sessionId}"`);
  };

  const read = async (entry: Listed): Promise<Transcript> => {
    const agents = AGENTS.openclaw.home(options.environment);
    const where = `${relative(agents, entry.database)} session ${entry.window.id}`;
    try {
      return foldOpenclaw(await readEvents(entry.database, entry.window.id, limits), entry.window.title, where);
    } catch (error) {
      throw asReadError(error, { nativeId: entry.window.id, path: entry.database, home: agents });
    }
  };

  return {
    name,
    owns: ownedBy(name),

    async changeStamps(signal) {
      const stamps = new Map<string, string>();
      for (const [sessionId, entry] of await discover(signal)) stamps.set(sessionId, stampOf(entry));
      return stamps;
    },

    async listSessions(signal): Promise<SessionHeaderLike[]> {
      const found = await discover(signal);
      return [...found].map(([sessionId, entry]) => sessionHeader(sessionId, factsOf(entry))).sort(newestFirst);
    },

    async readTitles(sessionIds, signal) {
      const results: TitleReadResult[] = [];
      for (const sessionId of sessionIds) {
        try {
          const entry = await find(sessionId, signal);
          results.push({ sessionId, status: 'fulfilled', title: sessionLabel(displayName, entry.window.title ?? entry.window.firstPrompt, entry.window.id) });
        } catch (reason) {
          results.push({ sessionId, status: 'rejected', reason });
        }
      }
      return results;
    },

    async readSurface(sessionId, signal): Promise<SurfaceSnapshot> {
      signal?.throwIfAborted();
      const entry = await find(sessionId, signal);
      const transcript = await read(entry);
      return { session: sessionHeader(sessionId, factsOf(entry)), capturedThroughSeq: transcript.throughRecord, messages: transcript.messages };
    },

    problems: () => [...last.problems],

    // Each listing opens and closes the databases: nothing stays open between them.
    close() {},
  };
}

/** Where the databases' windows are kept between processes, beside the prompt titles; none without a listing cache file. */
function keptReads(options: OpenclawSourceOptions): KeptReads<ListedWindow[]> | undefined {
  return keptBeside<ListedWindow[]>(options.listingCacheFile, { source: name, home: AGENTS.openclaw.home(options.environment) }, { encode: keptWindows, decode: windowsKept });
}

/**
 * The first prompts that title sessions with no name of their own, by
 * window id, each with the window's update time it was read at: a listing
 * that finds a window at that time reads its header alone. Loaded from the
 * listing cache with the first listing; kept for the next process when a
 * listing learnt new ones (see `PromptTitleCache.keep`), only the sessions
 * listed.
 */
function promptMemory(options: OpenclawSourceOptions): { known: KnownPrompt; keep(sessions: ReadonlyMap<string, Listed>): void } {
  const cache = options.listingCacheFile === undefined ? undefined : promptTitleCache(options.listingCacheFile, { source: name, home: AGENTS.openclaw.home(options.environment) });
  let prompts: Map<string, PromptTitle> | undefined;
  const loaded = (): Map<string, PromptTitle> => (prompts ??= cache?.load() ?? new Map());
  return {
    known: (id, updatedAt) => {
      const known = loaded().get(id);
      return known?.updatedAt === updatedAt ? known.title : undefined;
    },
    keep(sessions) {
      const kept = new Map<string, PromptTitle>();
      let changed = false;
      for (const { window } of sessions.values()) {
        if (window.title !== undefined || window.firstPrompt === undefined) continue;
        kept.set(window.id, { updatedAt: window.updatedAt, title: window.firstPrompt });
        const before = loaded().get(window.id);
        changed ||= before?.updatedAt !== window.updatedAt || before.title !== window.firstPrompt;
      }
      changed ||= kept.size !== loaded().size;
      prompts = kept;
      cache?.keep(() => kept, changed);
    },
  };
}

function factsOf(entry: Listed): { createdAt: number; cwd?: string } {
  return entry.cwd === undefined ? { createdAt: entry.createdAt } : { createdAt: entry.createdAt, cwd: entry.cwd };
}

/**
 * A session's change stamp without reading its events: any write lands in
 * the database's `-wal` file (or, checkpointed, the database file), so their
 * revisions stamp every session of it, with the window's own update time.
 */
function stampOf(entry: Listed): string {
  return `${databaseStamp(entry.database) ?? 'gone'}:${entry.window.updatedAt}`;
}
