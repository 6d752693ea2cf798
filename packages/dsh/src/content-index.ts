import {
  formatSessionReferenceMention,
  labelOf,
  plainExcerpt,
  raceCancellation,
  throwIfCancelled,
  type CombinedStorage,
  type SessionReferenceContentHit,
  type SessionReferenceStorage,
  type SessionSource,
} from '@sessref/core';
import { PROCESS_LISTINGS } from '@sessref/platform';
import type { RefreshProgress, RefreshReport, SearchHit, SearchIndex } from '@sessref/search-index';
import type { SessionReferenceCatalog } from './catalog.js';
import { OWN_SOURCE } from './foreign.js';

/** The work a cancelled refresh names: `content search was cancelled`. */
const CONTENT_SEARCH = 'content search';

/** What the content index covers, and how its hits are named. */
export interface ContentIndexSources {
  /** The host's own sessions, read through `ctx.sessionQuery`. */
  own: SessionReferenceStorage;
  /** The host's title index, when it mounted one: the change stamps of its sessions and the index file. */
  catalog: () => SessionReferenceCatalog | undefined;
  /** The other agents' sources, each indexed beside the host's sessions. */
  foreign: readonly SessionSource[];
  /** What hits are labelled through: the resolver's own storage, so a label is the one discovery shows. */
  storage: CombinedStorage;
}

export interface ContentQuery {
  query: string;
  limit: number;
  /** A session to leave out (the asking agent's own). */
  exclude?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * Content discovery over sessref's own search index (`openSearchIndex` of
 * `@sessref/search-index`): the host's sessions and the other agents', indexed
 * from the projection a snapshot applies, so every hit is carried text and
 * none is read again. Opened at the first use, in the file the title index
 * names (sessref's cache directory), else in memory; every query first
 * brings it up to date, re-reading only the sessions whose stamp changed, and
 * a session whose read fails is skipped, never failing the query.
 */
export class ContentIndex {
  private opened: Promise<SearchIndex> | undefined;
  /** The index once open, for its notices. */
  private index: SearchIndex | undefined;
  /** The refresh callers are waiting for, if any. */
  private running: Refresh | undefined;
  /** Settles once the last refresh started has settled: the next starts after it. */
  private settled: Promise<void> = Promise.resolve();
  /** Refreshes without the title index's stamps: each is a stamp of its own, so every session is read again. */
  private unstamped = 0;
  /** The last refresh made wholly under one hold of the process's first looks (see `DirectoryListings`), and that hold's epoch. */
  private lastUnderHold: { epoch: number; report: RefreshReport } | undefined;

  constructor(private readonly sources: ContentIndexSources) {}

  /**
   * Bring the index up to date, joining the refresh that is running. The
   * refresh runs while anyone waits for it: when the last caller's signal
   * aborts it is stopped (what it wrote is kept; the next refresh goes on
   * from there), so a read that hangs never holds up the next query.
   * @throws SESSION_REFERENCE_CANCELLED, or SESSION_REFERENCE_SEARCH_DISABLED on a Node without `node:sqlite`.
   */
  async refresh(signal?: AbortSignal, onProgress?: (progress: RefreshProgress) => void): Promise<RefreshReport> {
    throwIfCancelled(signal, CONTENT_SEARCH);
    // Under the hold the last refresh ran under, every look answers as it did then: another refresh would find what it found.
    const epoch = PROCESS_LISTINGS.heldEpoch;
    if (epoch !== undefined && this.lastUnderHold?.epoch === epoch) return this.lastUnderHold.report;
    const run = (this.running ??= this.start());
    run.waiters += 1;
    // A caller that joins a running refresh sees its progress too, from where it has come.
    if (onProgress !== undefined) {
      run.progress.listeners.add(onProgress);
      if (run.progress.last !== undefined) onProgress(run.progress.last);
    }
    return await raceCancellation(run.work, signal, CONTENT_SEARCH).finally(() => {
      if (onProgress !== undefined) run.progress.listeners.delete(onProgress);
      run.waiters -= 1;
      if (run.waiters === 0) this.stop(run);
    });
  }

  /** Sessions whose carried text contains `query.query`, best first, as content hits; see `searchIndex` of `@sessref/search-index`. */
  async search({ query, limit, exclude, signal }: ContentQuery): Promise<SessionReferenceContentHit[]> {
    const { failedSources } = await this.refresh(signal);
    const index = await this.open();
    const { hits } = await index.search({ query, limit, ...(exclude === undefined ? {} : { exclude: [exclude] }), ...(signal === undefined ? {} : { signal }) });
    const listing = new Set([OWN_SOURCE, ...this.sources.foreign.map((source) => source.name)]);
    for (const { source } of failedSources) listing.delete(source);
    return labelled(this.sources.storage, listedHits(hits, listing), signal);
  }

  /** Why the index file was not used as found (rebuilt, searched as it was, or bypassed), naming it, oldest first; none before the first use. */
  get notices(): readonly string[] {
    return this.index?.notices ?? [];
  }

  /** Stop a running refresh and close the file. */
  async close(): Promise<void> {
    if (this.running !== undefined) this.stop(this.running);
    await this.settled;
    (await this.opened?.catch(() => undefined))?.close();
  }

  /** A refresh of the index, started once the previous one has settled (the index joins a running refresh, whose signal is not ours). */
  private start(): Refresh {
    const controller = new AbortController();
    const progress: Refresh['progress'] = { listeners: new Set(), last: undefined };
    const onProgress = (step: RefreshProgress) => {
      progress.last = step;
      for (const listener of progress.listeners) listener(step);
    };
    const epoch = PROCESS_LISTINGS.heldEpoch;
    const work = this.settled
      .then(() => this.open())
      .then((index) => index.refresh(controller.signal, onProgress))
      .then((report) => {
        if (epoch !== undefined && PROCESS_LISTINGS.heldEpoch === epoch) this.lastUnderHold = { epoch, report };
        return report;
      });
    const run: Refresh = { work, controller, waiters: 0, progress };
    this.settled = work.then(
      () => this.forget(run),
      () => this.forget(run),
    );
    return run;
  }

  private stop(run: Refresh): void {
    run.controller.abort(new Error('nobody waits for this refresh any more'));
    this.forget(run);
  }

  private forget(run: Refresh): void {
    if (this.running === run) this.running = undefined;
  }

  private open(): Promise<SearchIndex> {
    if (this.opened !== undefined) return this.opened;
    const catalog = this.sources.catalog();
    const file = catalog?.searchIndexFile;
    const wait = catalog?.searchIndexWaitMs;
    // Loaded here, with the first search or refresh: a process that only lists never loads the index's code.
    this.opened = import('@sessref/search-index')
      .then(({ openSearchIndex }) =>
        openSearchIndex({
          location: file === undefined ? { memory: true } : { file },
          sources: [this.ownSource(), ...this.sources.foreign],
          ...(wait === undefined ? {} : { busyTimeoutMs: wait }),
        }),
      )
      .then((index) => (this.index = index));
    return this.opened;
  }

  /** The host's sessions as a source: reads through `ctx.sessionQuery`, stamps from the title index. */
  private ownSource(): SessionSource {
    const { own, catalog } = this.sources;
    return {
      name: OWN_SOURCE,
      // Every id not routed elsewhere is the host's: its sessions win over a foreign id spelled the same.
      owns: () => true,
      listSessions: (signal) => own.listSessions(signal),
      readTitles: (ids, signal) => own.readTitles(ids, signal),
      // dsh's reads take no signal: a refresh that is stopped must not wait for one that hangs.
      readSurface: (id, signal) => raceCancellation(own.readSurface(id, signal), signal, CONTENT_SEARCH),
      changeStamps: async (signal) => {
        const stamps = await catalog()?.changeStamps?.(signal);
        if (stamps !== undefined) return stamps;
        const round = `unstamped-${(this.unstamped += 1)}`;
        return new Map((await own.listSessions(signal)).map((header) => [header.id, round]));
      },
    };
  }
}

interface Refresh {
  work: Promise<RefreshReport>;
  controller: AbortController;
  waiters: number;
  progress: {
    /** The waiters' progress callbacks: every one hears each step, whoever started the refresh. */
    listeners: Set<(progress: RefreshProgress) => void>;
    /** The latest step, for a waiter that joins midway. */
    last: RefreshProgress | undefined;
  };
}

/**
 * The hits a listing would name: only those of the `listing` sources (the
 * index file may hold other agents' sessions, indexed by a process that read
 * more of them, and what it held of a source whose stamps could not be
 * listed just now), and one per id, the host's own winning an id another
 * agent's session is spelled with too, as everywhere else. The index was
 * brought up to date with those sources' stamps first, so every hit left is
 * of a session they list now: no listing is read again to tell.
 */
function listedHits(hits: readonly SearchHit[], listing: ReadonlySet<string>): SearchHit[] {
  const kept = new Map<string, SearchHit>();
  for (const hit of hits) {
    if (!listing.has(hit.source)) continue;
    const held = kept.get(hit.sessionId);
    if (held === undefined || (held.source !== OWN_SOURCE && hit.source === OWN_SOURCE)) kept.set(hit.sessionId, hit);
  }
  return [...kept.values()];
}

/**
 * The hits labelled as discovery labels their sessions: by latest title,
 * else id. The rest of a hit (created, cwd) is what the index stored with
 * the session's text, from the header of the same read.
 */
async function labelled(storage: CombinedStorage, hits: readonly SearchHit[], signal: AbortSignal | undefined): Promise<SessionReferenceContentHit[]> {
  if (hits.length === 0) return [];
  const titles = new Map<string, string>();
  for (const result of await storage.readTitles(
    hits.map((hit) => hit.sessionId),
    signal,
  )) {
    if (result.status === 'fulfilled' && typeof result.title === 'string' && result.title.length > 0) titles.set(result.sessionId, result.title);
  }
  return hits.map((hit) => contentHit(hit, labelOf(hit.sessionId, titles.get(hit.sessionId))));
}

/** One hit in the candidates' key order, then the message, the snippet and where the query is in it. */
function contentHit(hit: SearchHit, label: string): SessionReferenceContentHit {
  const { text, offset, messageLength } = hit.snippet;
  const { snippet, ranges } = plainExcerpt(
    text,
    hit.ranges.map(([start, end]) => [start - offset, end - offset] as const),
    { before: offset > 0, after: offset + text.length < messageLength },
  );
  return {
    mention: formatSessionReferenceMention({ sessionId: hit.sessionId, label }),
    sessionId: hit.sessionId,
    label,
    ...(hit.cwd === undefined ? {} : { cwd: hit.cwd }),
    createdAt: hit.createdAt,
    // A log without seqs (another agent's) numbers the message by its place in the surface.
    seq: hit.message.seq ?? hit.message.index,
    role: hit.message.role,
    checkpoint: hit.message.checkpoint,
    snippet,
    ranges,
  };
}
