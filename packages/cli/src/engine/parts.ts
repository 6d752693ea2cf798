/**
 * What an engine is made of: the session-reference service every face asks,
 * the root's title index and logs, and a dsh host booted the first time a
 * step, a write or an exact read of a surface needs one. `ownParts` reads
 * the root with sessref's own reads, so listing, discovery and search over
 * unchanged logs load none of dsh's runtime.
 */
import type { SessionHeaderLike, SessionReferenceStorage, SurfaceSnapshot } from '@sessref/core';
import type { SessionReferenceCatalog } from '@sessref/dsh/title-catalog';
import { ReferenceService, type Config as ResolverConfig } from '@sessref/dsh/service';
import { TitleCatalog, type LiveSession, type TitleRead, type TitleReads } from '@sessref/dsh/title-catalog';
import { LogFileTracker } from '@sessref/dsh/jsonl-root';
import { KeptHeaders, RootLogs, SessionLogError, type ListedLog, type StoredLog } from '@sessref/dsh/reading';
import type { HostSide } from './host-side.js';
import { ListingMemo } from './listing-memo.js';
import type { StepMessage } from './own-step.js';

/** A session of the root as a listing gives it. */
export interface SessionRecord {
  header: SessionHeaderLike;
  /** When the user last sent a message in it, from a v4 log (see `ListedLog.lastSentAt`). */
  lastSentAt?: number;
  /** Held by this process's dsh host (a session `new` or the inspector made). */
  live: boolean;
  persisted: boolean;
}

export interface EngineParts {
  service: ReferenceService;
  /** The root's title index: its change stamps tell which sessions moved. */
  catalog: SessionReferenceCatalog | undefined;
  /** sessref's reads of the root's logs: damage, log paths, notices. */
  logs: RootLogs | undefined;
  /** The root's listing from kept headers, when there is one. */
  kept: KeptHeaders | undefined;
  /** The root's sessions, newest first (then by id), as dsh lists them. */
  sessions(signal?: AbortSignal): Promise<SessionRecord[]>;
  /** The root's own listing kept between processes, while it may answer: in a run that follows no file-system events and holds no session live. */
  listingMemo(): ListingMemo | undefined;
  /** The dsh host, booted on first use. */
  host(): Promise<HostSide>;
  /** `text` typed in the session `sessionId` as a step would enter it, writing nothing: the messages it would carry. */
  step(sessionId: string, text: string, signal: AbortSignal): Promise<StepMessage[]>;
  close(): Promise<void>;
}

export interface OwnPartsOptions {
  root: string;
  resolver: ResolverConfig;
  indexFile: string;
  searchIndexFile: string;
  searchIndexWaitMs?: number | undefined;
  /** Follow file-system events (a long-lived process). */
  watch: boolean;
}

/**
 * An engine's parts over sessref's own reads of `root`: the kept-header
 * listing and the title index answer from their files and a stat walk; a
 * log that changed and every step or write go to the dsh host, booted
 * then, sharing the same listing; a surface is read from its log without
 * the host where that answers as the host would.
 */
export function ownParts(options: OwnPartsOptions): EngineParts {
  // One tracker of the root's logs for the listing and the title index: one walk, or one set of watches, answers both.
  const tracker = new LogFileTracker(options.root, 'zstd', options.watch);
  const kept = new KeptHeaders(new RootLogs(options.root), { watch: options.watch, headersFile: `${options.searchIndexFile}.headers.json`, tracker });
  let booted: Promise<HostSide> | undefined;
  let side: HostSide | undefined;
  const titledWithSurface: TitledWithSurface = new Map();
  const host = (): Promise<HostSide> =>
    (booted ??= import('./host-side.js').then(async ({ HostSide }) => (side = await HostSide.boot(kept, service, options.resolver))));
  const titles: TitleReads = {
    live: (): readonly LiveSession[] => side?.titleReads().live() ?? [],
    // A title the host's read would give is read from the log (a first search titles a whole root); the rest, and live sessions, by the host.
    read: async (sessionIds, signal) => {
      const own = await ownTitles(kept.logs, sessionIds.filter((id) => side?.live(id) === undefined), titledWithSurface, signal);
      const rest = sessionIds.filter((id) => !own.has(id));
      const hosted = rest.length === 0 ? [] : await (await host()).titleReads().read(rest, signal);
      const byHost = new Map(hosted.map((read) => [read.sessionId, read]));
      return sessionIds.map((id) => own.get(id) ?? byHost.get(id)!);
    },
    listHeaders: (signal) => kept.list(signal),
  };
  const catalog = new TitleCatalog(
    { root: options.root, indexFile: options.indexFile, searchIndexFile: options.searchIndexFile, searchIndexWaitMs: options.searchIndexWaitMs, watch: options.watch, tracker },
    titles,
  );
  const own: SessionReferenceStorage = {
    // The title index keeps headers; the listing knows where each session moved since (the same walk answers both).
    listSessions: async (signal) => placedWhereTheyAre(await catalog.listSessions(signal), await kept.entries(signal)),
    readTitles: (sessionIds, signal) => catalog.readTitles(sessionIds, signal),
    // A session this process's host holds is read live; any other from its log, unless only the host can say.
    readSurface: async (sessionId) => (side?.live(sessionId) === undefined ? await ownSurface(kept.logs, sessionId, titledWithSurface) : undefined) ?? (await host()).surface(sessionId),
  };
  // Other machines' dsh sessions are read whatever agents the run reads: `--sources dsh` names them with none.
  const service = new ReferenceService({ own, catalog: () => catalog, config: options.resolver, mirroredDshRoots: true });
  // A long-lived run follows the root's changes in its own listings; a session this process's host holds is listed live.
  const memo = options.watch ? undefined : new ListingMemo(options.root, `${options.searchIndexFile}.listing.json`, service.redactsOwn, kept.logs.notices);
  return {
    service,
    catalog,
    logs: kept.logs,
    kept,
    listingMemo: () => (booted === undefined ? memo : undefined),
    async sessions(signal) {
      const records = new Map<string, SessionRecord>();
      for (const entry of await kept.entries(signal)) records.set(entry.header.id, { header: movedTo(entry.header, entry.workingDirectory), ...lastSent(entry), live: false, persisted: true });
      for (const { id, header } of titles.live()) records.set(id, { header, live: true, persisted: records.has(id) });
      return [...records.values()].sort((a, b) => b.header.createdAt - a.header.createdAt || a.header.id.localeCompare(b.header.id));
    },
    host,
    // rc.8's step in the host an engine boots is the plugin's expansion alone: run here, unless the host holds the session or speaks a later contract.
    async step(sessionId, text, signal) {
      const listed = side?.live(sessionId) === undefined && service.hostContract === 'rc.8' ? await kept.logs.listOne(sessionId, signal).catch(() => null) : null;
      if (listed === null) return (await (await host()).step(sessionId, text, signal)).messages;
      const { stepWithoutHost } = await import('./own-step.js');
      return stepWithoutHost(service, listed.header, text, signal);
    },
    async close() {
      await service.close();
      catalog.close();
      kept.close();
      await (await booted?.catch(() => undefined))?.dispose();
    },
  };
}

/** `header` with the directory its session moved to, when its log records a move. */
function movedTo(header: SessionHeaderLike, workingDirectory: string | undefined): SessionHeaderLike {
  return workingDirectory === undefined ? header : { ...header, workingDirectory };
}

/** When a listed log's user last sent, when the listing knows. */
function lastSent({ lastSentAt }: ListedLog): { lastSentAt?: number } {
  return lastSentAt === undefined ? {} : { lastSentAt };
}

/**
 * `headers` with each session that moved (see `ListedLog.workingDirectory`)
 * placed where it is now, for discovery to rank, compare and show; the
 * headers themselves when none did, the usual case.
 */
function placedWhereTheyAre(headers: SessionHeaderLike[], listed: readonly ListedLog[]): SessionHeaderLike[] {
  const moved = new Map<string, string>();
  for (const { header, workingDirectory } of listed) if (workingDirectory !== undefined) moved.set(header.id, workingDirectory);
  if (moved.size === 0) return headers;
  return headers.map((header) => movedTo(header, moved.get(header.id)));
}

/**
 * Titles read with a surface, by session, with the revision token of the
 * log they were read from. A first search reads every log whole for the
 * content index, then titles its hits, which brings the title index up to
 * date: each title it wants of an unchanged log is taken from here instead
 * of reading that log whole again. Taken once; a title the index never asks
 * for is replaced by the next read of its session.
 */
type TitledWithSurface = Map<string, { revision: string; read: TitleRead }>;

/**
 * A session's surface from sessref's own read of its log, where that is
 * exactly what the host's read would give (see `@sessref/dsh/own-surface`):
 * `undefined` for a log it cannot read or leaves to the host, whose answer
 * or refusal is then the one given. Its title, from the same read, is kept
 * in `titled`.
 */
async function ownSurface(logs: RootLogs, sessionId: string, titled: TitledWithSurface): Promise<SurfaceSnapshot | undefined> {
  const stored = await logs.load(sessionId).catch(() => undefined);
  if (stored === undefined) return undefined;
  const { surfaceAndTitleOfStored } = await import('@sessref/dsh/own-surface');
  const { surface, title } = surfaceAndTitleOfStored(sessionId, stored);
  if (title !== undefined) titled.set(sessionId, { revision: stored.revision, read: { sessionId, status: 'fulfilled', ...title } });
  return surface;
}

/**
 * The header and latest title of each of `sessionIds` from sessref's own
 * read of its log, where that is exactly what the host's read would give
 * (see `@sessref/dsh/own-surface`), or from a surface read of the log at
 * the revision it has now (`titled`); a session left out is the host's to
 * read.
 */
async function ownTitles(logs: RootLogs, sessionIds: readonly string[], fromSurfaces: TitledWithSurface, signal?: AbortSignal): Promise<Map<string, TitleRead>> {
  const read = new Map<string, TitleRead>();
  for (const sessionId of sessionIds) {
    signal?.throwIfAborted();
    const early = fromSurfaces.get(sessionId);
    fromSurfaces.delete(sessionId);
    if (early !== undefined && early.revision === currentRevision(logs, sessionId)) {
      read.set(sessionId, early.read);
      continue;
    }
    let stored: StoredLog | undefined;
    try {
      stored = await logs.load(sessionId, signal);
    } catch (error) {
      // A log sessref's reader refuses (kept by its revision, so refused without a read) is one the listing leaves out: no host is asked again.
      if (error instanceof SessionLogError) read.set(sessionId, { sessionId, status: 'rejected', reason: error, missing: false });
      continue;
    }
    // dsh's session functions are loaded with the first log read whole, not for a refusal.
    const titled = stored && (await import('@sessref/dsh/own-surface')).titleOfStored(sessionId, stored);
    if (titled !== undefined) read.set(sessionId, { sessionId, status: 'fulfilled', header: titled.header, title: titled.title });
  }
  return read;
}

/** The revision token of the log of `sessionId` now; none when it has none, or its directory is of a shape sessref refuses. */
function currentRevision(logs: RootLogs, sessionId: string): string | undefined {
  try {
    return logs.revisionOf(sessionId);
  } catch {
    return undefined;
  }
}

/**
 * An engine's parts over a host a test booted whole (title index and all):
 * every read is that host's own, so a suite that writes through the host
 * reads back exactly what it wrote.
 */
export function partsOverHost(side: HostSide): EngineParts {
  return {
    service: side.service,
    catalog: side.catalog,
    logs: side.logs,
    kept: side.kept,
    sessions: (signal) => side.sessions(signal),
    listingMemo: () => undefined,
    host: () => Promise.resolve(side),
    step: async (sessionId, text, signal) => (await side.step(sessionId, text, signal)).messages,
    close: () => side.dispose(),
  };
}
