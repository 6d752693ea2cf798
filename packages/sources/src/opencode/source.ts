import { join, relative, resolve } from 'node:path';
import type { SessionHeaderLike, SurfaceSnapshot, TitleReadResult } from '@sessref/core';
import type { AgentRow } from '../agent-row.js';
import { listDirectory, fileToken, readRevision, revisionToken } from '@sessref/platform';
import { SourceReadError } from '../errors.js';
import { foreignSessionId, ownedBy } from '../ids.js';
import type { SourceEnvironment } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { asReadError, newestFirst, sessionHeader, sessionLabel, type SourceProblem, type TranscriptSource } from '../transcripts/transcript-source.js';
import { promptTitleCache, type PromptTitle } from '../transcripts/listing-cache.js';
import { firstPrompt, isOwnTitle, opencodeSurface } from './fold.js';
import { readSessionFile, readTreeSession, sessionFiles } from './json-store.js';
import type { OpencodeMessage, OpencodeSessionInfo } from './model.js';
import { keptSessionRows, listDatabaseSessions, readDatabaseSession, readFirstPrompts, sessionRowsKept, type RowLimits, type SessionRow } from './sqlite-store.js';
import { DatabaseListings, databaseStamp, keptBeside } from '../database-listings.js';

/** Sessions one store may hold before sessref refuses to list it. */
const MAX_SESSIONS = 1_000_000;
const DEFAULT_LIMITS: RowLimits = { maxRows: 1_000_000, maxBytes: 256 * 1024 * 1024 };

export interface OpencodeSourceOptions {
  environment: SourceEnvironment;
  /** Largest session read: its messages and parts, and the bytes of their JSON. */
  limits?: RowLimits;
  /**
   * Where to keep the titles taken from first prompts between processes (a
   * file in sessref's cache directory); none when absent. See this package's
   * README, "Listing cache".
   */
  listingCacheFile?: string;
}

/**
 * An agent that keeps opencode's store: opencode itself, or a fork (Kilo)
 * that renamed its folder, its database files and the variable naming one.
 */
export interface OpencodeFamilyMember {
  /** Its row in the agent table: the id prefix, the display name and its data folder (`$XDG_DATA_HOME/<name>`), its home. */
  readonly agent: AgentRow;
  /** Its channel databases' base name: `<base>.db`, `<base>-<channel>.db` (storage/db.ts `path()`). */
  readonly databaseBase: string;
  /** The variable naming one more database file, relative to the data folder. */
  readonly databaseVariable: string;
}

/** opencode: `opencode.db` in `$XDG_DATA_HOME/opencode`, moved by `OPENCODE_DB`. */
const OPENCODE: OpencodeFamilyMember = { agent: AGENTS.opencode, databaseBase: 'opencode', databaseVariable: 'OPENCODE_DB' };

/**
 * The databases to read: every channel's in the data folder, and the one
 * the member's variable names (relative to the data folder; `:memory:` has none).
 */
function databases(member: OpencodeFamilyMember, environment: SourceEnvironment, data: string): string[] {
  const file = new RegExp(`^${member.databaseBase}(-[^/]+)?\\.db$`);
  const found = listDirectory(data, data)
    .filter((entry) => entry.kind === 'file' && file.test(entry.name))
    .map((entry) => entry.path);
  const override = environment.env[member.databaseVariable];
  if (override === undefined || override === '' || override === ':memory:') return found;
  const path = resolve(data, override);
  return found.includes(path) || readRevision(path, true) === undefined ? found : [...found, path];
}

/** Where a listed session is read from. */
type Location = { kind: 'database'; path: string } | { kind: 'tree'; storage: string; file: string };

interface Listed {
  info: OpencodeSessionInfo;
  location: Location;
  /** The agent's own title (`info.title` unless a placeholder), else none: the first prompt titles the session. */
  ownTitle: string | undefined;
}

/** One store's part of a listing: its sessions by id (subagents' left out), and the rows that cannot be read. */
interface StoreListing {
  sessions: (readonly [string, Listed])[];
  problems: SourceProblem[];
}

/** The listing of `rows` read from `location`; `data` is the data folder problems are named relative to. */
function storeListing(name: string, data: string, rows: readonly SessionRow[], location: Location): StoreListing {
  const listing: StoreListing = { sessions: [], problems: [] };
  const file = location.kind === 'database' ? location.path : location.file;
  for (const row of rows) {
    const sessionId = foreignSessionId(name, row.id);
    if ('error' in row) listing.problems.push({ sessionId, file: relative(data, file), error: row.error });
    // Subagents' sessions are part of their parent's tool calls; opencode lists them under it.
    else if (row.parentId === undefined) listing.sessions.push([sessionId, { info: row, location, ownTitle: isOwnTitle(row.title) ? row.title : undefined }]);
  }
  return listing;
}

/** A source over opencode's SQLite store and its older JSON tree, read in place and never written. */
export function opencodeSource(options: OpencodeSourceOptions): TranscriptSource {
  return opencodeFamilySource(OPENCODE, options);
}

/** A source over the store of opencode or a fork of it, read in place and never written. */
export function opencodeFamilySource(member: OpencodeFamilyMember, options: OpencodeSourceOptions): TranscriptSource {
  const { name, displayName } = member.agent;
  const limits = options.limits ?? DEFAULT_LIMITS;
  /** Whose caches this source's are: the agent, and the folder it keeps its data in. */
  const identity = { source: name, home: member.agent.home(options.environment) };
  /**
   * Titles taken from a first prompt, by session, with the update time they
   * were read at. Only prompts found are kept: a session listed before its
   * first prompt is written is looked at again (the experimental API's
   * sessions keep their update time as prompts arrive).
   */
  const promptTitles = new Map<string, PromptTitle>();
  /** The prompt titles earlier processes learnt, loaded with the first labels asked for; saved when this one learnt more. */
  const titleCache = options.listingCacheFile === undefined ? undefined : promptTitleCache(options.listingCacheFile, identity);
  let titlesLoaded = false;
  /** A prompt title was learnt since the last call of {@link saveTitles}. */
  let titlesUnsaved = false;
  /**
   * Database sessions, as listed, found to have no prompt yet: so they stay
   * while their database keeps the state its listing was kept at
   * (`../database-listings.ts`); a new read of it lists them anew.
   */
  const withoutPrompt = new WeakSet<Listed>();
  let listed = new Map<string, Listed>();
  let problems: SourceProblem[] = [];
  /** Each database's rows, read again only when its files changed, and kept for the next process (`../database-listings.ts`). */
  const databaseRows = new DatabaseListings((path) => listDatabaseSessions(path, MAX_SESSIONS), undefined, undefined, keptBeside(options.listingCacheFile, identity, { encode: keptSessionRows, decode: sessionRowsKept }));
  /** The listing made of each read's rows: the same rows (a read not made again) give the very same listing. */
  const databaseStores = new WeakMap<readonly SessionRow[], StoreListing>();
  const databaseListing = async (path: string): Promise<StoreListing> => {
    const rows = await databaseRows.get(path);
    let store = databaseStores.get(rows);
    if (store === undefined) databaseStores.set(rows, (store = storeListing(name, identity.home, rows, { kind: 'database', path })));
    return store;
  };
  /** The stores' listings `listed` was made of, in order: when a discovery finds the very same, `listed` stands. */
  let listedFrom: readonly StoreListing[] = [];

  const discover = async (signal?: AbortSignal): Promise<Map<string, Listed>> => {
    const data = member.agent.home(options.environment);
    const stores: StoreListing[] = [];
    const paths = databases(member, options.environment, data);
    databaseRows.keepOnly(new Set(paths));
    for (const path of paths) {
      signal?.throwIfAborted();
      try {
        stores.push(await databaseListing(path));
      } catch (error) {
        stores.push({ sessions: [], problems: [{ sessionId: foreignSessionId(name, relative(data, path)), file: relative(data, path), error: asReadError(error, { nativeId: '', path, home: data }) }] });
      }
    }
    const storage = join(data, 'storage');
    for (const file of sessionFiles(storage)) {
      signal?.throwIfAborted();
      stores.push(storeListing(name, data, [readSessionFile(file, storage)], { kind: 'tree', storage, file }));
    }
    // Every store as it was (no database read again, no tree): the listing stands as made.
    if (stores.length === listedFrom.length && stores.every((store, index) => store === listedFrom[index])) return listed;
    const found = new Map<string, Listed>();
    for (const store of stores) {
      for (const [sessionId, entry] of store.sessions) {
        const known = found.get(sessionId);
        // The same session in two stores (the migration copies and leaves the tree): the newer copy wins.
        if (known === undefined || entry.info.updatedAt > known.info.updatedAt) found.set(sessionId, entry);
      }
    }
    listed = found;
    listedFrom = stores;
    problems = stores.flatMap((store) => store.problems);
    return found;
  };

  const find = async (sessionId: string, signal?: AbortSignal): Promise<Listed> => {
    const entry = listed.get(sessionId) ?? (await discover(signal)).get(sessionId);
    if (entry === undefined) throw new SourceReadError('SOURCE_SESSION_NOT_FOUND', `no ${displayName} session has the id "${sessionId}"`);
    return entry;
  };

  /**
   * Learn the first prompts of the sessions among `entries` that have no
   * title of their own and whose prompt is not known at their update time:
   * one read per database for all of its sessions, the tree's one by one. A
   * session that cannot be read gets none (its label shows the id; reading
   * it says why).
   */
  const learnPromptTitles = async (entries: readonly (readonly [string, Listed])[]): Promise<void> => {
    if (!titlesLoaded) {
      titlesLoaded = true;
      for (const [sessionId, known] of titleCache?.load() ?? []) if (!promptTitles.has(sessionId)) promptTitles.set(sessionId, known);
    }
    const remember = (sessionId: string, entry: Listed, title: string | undefined): void => {
      if (title === undefined) {
        if (entry.location.kind === 'database') withoutPrompt.add(entry);
        return;
      }
      const known = promptTitles.get(sessionId);
      if (known?.updatedAt === entry.info.updatedAt && known.title === title) return;
      promptTitles.set(sessionId, { updatedAt: entry.info.updatedAt, title });
      titlesUnsaved = true;
    };
    const byDatabase = new Map<string, (readonly [string, Listed])[]>();
    const unchanged = new Map<string, boolean>();
    const stillWithout = (entry: Listed): boolean => {
      if (entry.location.kind !== 'database' || !withoutPrompt.has(entry)) return false;
      const { path } = entry.location;
      if (!unchanged.has(path)) unchanged.set(path, databaseRows.unchanged(path));
      return unchanged.get(path) === true;
    };
    for (const item of entries) {
      const [sessionId, entry] = item;
      if (entry.ownTitle !== undefined || promptTitles.get(sessionId)?.updatedAt === entry.info.updatedAt || stillWithout(entry)) continue;
      if (entry.location.kind === 'tree') remember(sessionId, entry, await readMessages(entry).then((messages) => firstPrompt(messages, entry.info.revert), () => undefined));
      else if (byDatabase.has(entry.location.path)) byDatabase.get(entry.location.path)?.push(item);
      else byDatabase.set(entry.location.path, [item]);
    }
    for (const [path, group] of byDatabase) {
      const prompts = await readFirstPrompts(path, group.map(([, { info }]) => ({ id: info.id, ...(info.revert === undefined ? {} : { revert: info.revert }) }))).catch(() => undefined);
      // A database that could not be read this time is tried again at the next listing.
      if (prompts !== undefined) for (const [sessionId, entry] of group) remember(sessionId, entry, prompts.get(entry.info.id));
    }
    saveTitles();
  };

  /** Keep the prompt titles of the sessions listed (no others: a deleted session's goes) for the next process, when this one learnt any (see `PromptTitleCache.keep`). */
  const saveTitles = (): void => {
    titleCache?.keep(() => {
      const kept = new Map<string, PromptTitle>();
      for (const [sessionId, entry] of listed) {
        const known = promptTitles.get(sessionId);
        if (known !== undefined && entry.ownTitle === undefined) kept.set(sessionId, known);
      }
      return kept;
    }, titlesUnsaved);
    titlesUnsaved = false;
  };

  /** The agent's own title, else the session's first direct user prompt (as of this update), else none: the label shows the id. */
  const titleOf = (sessionId: string, { info, ownTitle }: Listed): string | undefined => {
    if (ownTitle !== undefined) return ownTitle;
    const known = promptTitles.get(sessionId);
    return known?.updatedAt === info.updatedAt ? known.title : undefined;
  };

  const readMessages = async ({ info, location }: Listed): Promise<OpencodeMessage[]> => {
    const data = member.agent.home(options.environment);
    const path = location.kind === 'database' ? location.path : location.file;
    try {
      return location.kind === 'database' ? await readDatabaseSession(location.path, info.id, limits) : readTreeSession(location.storage, info.id, limits);
    } catch (error) {
      throw asReadError(error, { nativeId: info.id, path, home: data });
    }
  };

  return {
    name,
    owns: ownedBy(name),

    async changeStamps(signal) {
      const stamps = new Map<string, string>();
      // A database's files are looked at once for all of its sessions.
      const databaseStamps = new Map<string, string | undefined>();
      for (const [sessionId, { info, location }] of await discover(signal)) {
        const stamp = locationStamp(location, info, databaseStamps);
        if (stamp !== undefined) stamps.set(sessionId, stamp);
      }
      return stamps;
    },

    async listSessions(signal): Promise<SessionHeaderLike[]> {
      const found = await discover(signal);
      return [...found].map(([sessionId, { info }]) => sessionHeader(sessionId, headerFacts(info))).sort(newestFirst);
    },

    async readTitles(sessionIds, signal) {
      const found: (readonly [string, Listed])[] = [];
      const results = new Map<string, TitleReadResult>();
      for (const sessionId of sessionIds) {
        try {
          // Labels asked for what was just listed are found without a turn of the event loop each.
          const entry = listed.get(sessionId);
          found.push([sessionId, entry ?? (await find(sessionId, signal))]);
        } catch (reason) {
          results.set(sessionId, { sessionId, status: 'rejected', reason });
        }
      }
      await learnPromptTitles(found);
      for (const [sessionId, entry] of found) results.set(sessionId, { sessionId, status: 'fulfilled', title: sessionLabel(displayName, titleOf(sessionId, entry), entry.info.id) });
      return sessionIds.map((sessionId) => results.get(sessionId)!);
    },

    async readSurface(sessionId, signal): Promise<SurfaceSnapshot> {
      signal?.throwIfAborted();
      const entry = await find(sessionId, signal);
      const messages = await readMessages(entry);
      const rows = messages.reduce((count, message) => count + 1 + message.parts.length, 0);
      return {
        session: sessionHeader(sessionId, headerFacts(entry.info)),
        capturedThroughSeq: rows === 0 ? null : rows - 1,
        messages: opencodeSurface(messages, entry.info.revert),
      };
    },

    problems: () => [...problems],

    // A listing that reads a database opens and closes it: nothing stays open between them.
    close() {},
  };
}

function headerFacts(info: OpencodeSessionInfo): { createdAt: number; cwd?: string } {
  return info.directory === undefined ? { createdAt: info.createdAt } : { createdAt: info.createdAt, cwd: info.directory };
}

/**
 * A session's change stamp without reading its messages. In the database,
 * any write lands in the `-wal` file (or, checkpointed, the database file),
 * so their revisions stamp every session of it, with the session's own
 * update time. In the tree, the session file and its message folder.
 */
function locationStamp(location: Location, info: OpencodeSessionInfo, databaseStamps: Map<string, string | undefined>): string | undefined {
  if (location.kind === 'database') {
    if (!databaseStamps.has(location.path)) databaseStamps.set(location.path, databaseStamp(location.path));
    const database = databaseStamps.get(location.path);
    return database === undefined ? undefined : `${database}:${info.updatedAt}`;
  }
  const file = readRevision(location.file, true);
  if (file === undefined) return undefined;
  const messages = readRevision(join(location.storage, 'message', info.id));
  return `tree:${revisionToken(file)}:${messages === undefined ? '-' : `${fileToken(messages)}:${messages.mtimeNs}`}`;
}

