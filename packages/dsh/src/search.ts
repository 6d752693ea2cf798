import { SessionId, type SessionHeader } from '@deepseek-ai/dsh-session';
import type {
  SessionEventMetadataFilter,
  SessionEventSearchHit,
  SessionQueryEngine,
  SessionSearchCursor,
  SessionSearchHit,
  SessionSearchPage,
} from '@deepseek-ai/dsh-session-query';
import {
  SessionReferenceError,
  errorCode,
  formatSessionReferenceMention,
  isSessionReferenceError,
  type SessionReferenceContentHit,
  type SessionReferenceStorage,
} from '@sessref/core';
import { NOT_CARRIED, UNKNOWN, factsOf, judge, locate, projectEvent, type Located, type ProjectedEvent, type SessionFacts } from './session-facts.js';

/**
 * The backend filters that keep a search to what a snapshot can carry: the
 * current surface, user and assistant messages. They cannot tell a direct
 * user message from injected context or a referenced snapshot (all are
 * `user/message`), nor an assistant's text from its tool calls, so every hit
 * is verified against the session's projection (see {@link ContentSearch}).
 */
export const SNAPSHOT_EVENT_FILTERS: readonly SessionEventMetadataFilter[] = [
  { kind: 'surface', values: ['current'] },
  { kind: 'type', values: ['user/message', 'assistant/message'] },
];

/** Sessions examined per search at most, hits dropped by verification included. */
const MAX_EXAMINED = 200;
/** Page size asked of the backend (its default `maxLimit`); a smaller configured one falls back to its default page. */
const PAGE_SIZE = 100;
/** Surface reads running at once while verifying one page. */
const READ_CONCURRENCY = 4;
/** How much of what verification learnt a {@link ContentSearch} remembers. */
export interface FactsBounds {
  /** Sessions; default 20,000. */
  sessions: number;
  /** Projected text kept for messages whose indexed document holds more, in UTF-16 code units; default 16 Mi (about 32 MB). */
  text: number;
}

const DEFAULT_BOUNDS: FactsBounds = { sessions: 20_000, text: 16 * 1024 * 1024 };
/**
 * What priming asks the backend: dsh's search service has no "open and catch
 * up" call, so priming runs one search, which opens the derived index and
 * reconciles it with the corpus. Its hits are not used.
 */
const PRIMING_QUERY = 'sessref';

/** A match a snapshot carries, in its session. */
interface Match extends Located {
  header: SessionHeader;
}

/** Matching events of one session followed when its best match is not carried, at most. */
const MAX_FALLBACK_EVENTS = 200;

/** What one priming did. */
export interface ContentSearchPriming {
  /** Sessions listed. */
  sessions: number;
  /** Sessions read and checked (the others were checked before, or past the cache bound). */
  read: number;
  /** Sessions whose read failed. */
  skipped: number;
}

export interface ContentSearchRequest {
  /** A query already normalized by `normalizeContentQuery` (non-empty). */
  query: string;
  limit: number;
  /** A session to leave out (the agent's own). */
  exclude?: string;
  signal?: AbortSignal;
}

/**
 * Content discovery over `ctx.sessionQuery.searchSessions()`: the backend
 * ranks sessions by their best matching event under
 * {@link SNAPSHOT_EVENT_FILTERS}; each hit is then checked against the
 * session's current surface as a snapshot projects it (direct user text,
 * compaction checkpoints, assistant text). A best match a snapshot would not
 * carry, or whose match lies only in a tool call of the message, falls back to
 * the first projected message of that session that contains the phrase; a
 * session with none is dropped. What verification learnt is remembered per
 * session, so a search whose hits were seen before reads nothing but the index.
 */
export class ContentSearch {
  private readonly facts = new Map<string, SessionFacts>();
  /** Text the remembered facts keep, summed. */
  private keptText = 0;

  constructor(
    private readonly query: () => SessionQueryEngine,
    private readonly storage: SessionReferenceStorage,
    private readonly bounds: FactsBounds = DEFAULT_BOUNDS,
  ) {}

  /** The running priming, joined by every caller until it settles. */
  private priming: Promise<ContentSearchPriming> | undefined;

  /**
   * Get a long-lived host ready to answer content queries from the index
   * alone: open and reconcile the backend's derived index, then check every
   * listed session once (newest first, one read at a time, yielding between
   * reads), so a later search reads a session only when it changed since.
   * Callers join a priming that is running; its signal is the first caller's.
   * A session whose read fails is skipped (a search refuses it when it is hit).
   */
  prime(signal?: AbortSignal): Promise<ContentSearchPriming> {
    this.priming ??= this.sweep(signal).finally(() => {
      this.priming = undefined;
    });
    return this.priming;
  }

  private async sweep(signal: AbortSignal | undefined): Promise<ContentSearchPriming> {
    try {
      await this.query().searchSessions({ query: PRIMING_QUERY, eventFilters: SNAPSHOT_EVENT_FILTERS, limit: 1 }, signal === undefined ? {} : { signal });
    } catch (error) {
      throw searchFailure(error, signal);
    }
    let headers;
    try {
      headers = await this.storage.listSessions(signal);
    } catch (error) {
      throw searchFailure(error, signal, 'could not list sessions');
    }
    const priming: ContentSearchPriming = { sessions: headers.length, read: 0, skipped: 0 };
    for (const header of headers) {
      throwIfCancelled(signal);
      // What no longer fits would push out the newer sessions checked first.
      if (this.isFull()) break;
      if (this.facts.get(header.id)?.createdAt === header.createdAt) continue;
      // Interactive requests go first: one read at a time, after pending I/O.
      await new Promise((resolve) => setTimeout(resolve, 0));
      try {
        await this.readProjected(header.id, signal);
        priming.read += 1;
      } catch {
        if (signal?.aborted) throw cancelled(signal);
        priming.skipped += 1;
      }
    }
    return priming;
  }

  async search(request: ContentSearchRequest): Promise<SessionReferenceContentHit[]> {
    const { query, limit, exclude, signal } = request;
    const matches: Match[] = [];
    let cursor: SessionSearchCursor | undefined;
    let examined = 0;
    let pageSize: number | undefined = Math.min(PAGE_SIZE, limit + 1);
    while (matches.length < limit && examined < MAX_EXAMINED) {
      let page: SessionSearchPage<SessionSearchHit>;
      try {
        page = await this.query().searchSessions(
          {
            query,
            eventFilters: SNAPSHOT_EVENT_FILTERS,
            ...(pageSize === undefined ? {} : { limit: pageSize }),
            ...(cursor === undefined ? {} : { cursor }),
          },
          signal === undefined ? {} : { signal },
        );
      } catch (error) {
        // A backend configured with a smaller page limit: take its default page.
        if (errorCode(error) === 'SESSION_QUERY_INVALID_LIMIT' && pageSize !== undefined && cursor === undefined) {
          pageSize = undefined;
          continue;
        }
        // A later page whose corpus changed under it: keep what the earlier pages gave.
        if (errorCode(error) === 'SESSION_QUERY_STALE_CURSOR' && cursor !== undefined && !signal?.aborted) break;
        throw searchFailure(error, signal);
      }
      const hits = page.items.filter((hit) => hit.header.id !== exclude).slice(0, MAX_EXAMINED - examined);
      // Verified in rank order, a few at a time, until the limit is reached: hits past it are never read.
      for (let at = 0; at < hits.length && matches.length < limit; at += READ_CONCURRENCY) {
        const batch = hits.slice(at, at + Math.min(READ_CONCURRENCY, limit - matches.length));
        examined += batch.length;
        const verified = await Promise.all(batch.map((hit) => this.verify(hit, query, signal)));
        for (const match of verified) if (match !== undefined && matches.length < limit) matches.push(match);
      }
      if (page.nextCursor === undefined || page.items.length === 0) break;
      cursor = page.nextCursor;
    }
    return this.withLabels(matches, signal);
  }

  /**
   * The hit as a snapshot would see it, or undefined when the session's
   * carried conversation lacks the phrase: from what an earlier read of the
   * session taught when that is enough, else from a read of its surface.
   */
  private async verify(hit: SessionSearchHit, query: string, signal: AbortSignal | undefined): Promise<Match | undefined> {
    const { header, bestMatch } = hit;
    const facts = this.facts.get(header.id);
    if (facts?.createdAt === header.createdAt) {
      this.touch(header.id, facts);
      const verdict = await this.judgeByFacts(facts, header.id, bestMatch, query, signal);
      if (verdict !== UNKNOWN) return verdict === NOT_CARRIED ? undefined : { header, ...verdict };
    }
    const located = locate(await this.readProjected(header.id, signal), bestMatch, query);
    return located && { header, ...located };
  }

  /**
   * The facts' verdict on a session's matches: its best match, else the first
   * carried one in log order among all its matching events (the backend's
   * within-session search, no log read). Unknown when a match is newer than
   * the facts or the session matches too often to follow.
   */
  private async judgeByFacts(facts: SessionFacts, sessionId: string, best: SessionEventSearchHit, query: string, signal: AbortSignal | undefined) {
    const verdict = judge(facts, best, query);
    if (verdict !== NOT_CARRIED) return verdict;
    const matches = await this.matchingEvents(sessionId, query, signal);
    if (matches === undefined) return UNKNOWN;
    for (const match of matches.sort((a, b) => a.seq - b.seq)) {
      const next = judge(facts, match, query);
      if (next !== NOT_CARRIED) return next;
    }
    return NOT_CARRIED;
  }

  /** Every event of the session matching `query` under the snapshot filters; undefined past the bound or when the backend cannot say. */
  private async matchingEvents(sessionId: string, query: string, signal: AbortSignal | undefined): Promise<SessionEventSearchHit[] | undefined> {
    const events: SessionEventSearchHit[] = [];
    let cursor: SessionSearchCursor | undefined;
    do {
      let page;
      try {
        page = await this.query().searchEvents(
          { sessionId: SessionId(sessionId), query, filters: SNAPSHOT_EVENT_FILTERS, ...(cursor === undefined ? {} : { cursor }) },
          signal === undefined ? {} : { signal },
        );
      } catch {
        if (signal?.aborted) throw cancelled(signal);
        // A session that moved or vanished, or a refused page: its read decides.
        return undefined;
      }
      events.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== undefined && events.length < MAX_FALLBACK_EVENTS);
    return cursor === undefined ? events : undefined;
  }

  /** The session's current surface, projected, and its facts remembered. */
  private async readProjected(sessionId: string, signal: AbortSignal | undefined): Promise<ProjectedEvent[]> {
    throwIfCancelled(signal);
    let surface: Awaited<ReturnType<SessionQueryEngine['readSurface']>>;
    try {
      surface = await raceCancellation(this.query().readSurface(SessionId(sessionId)), signal);
    } catch (error) {
      throw searchFailure(error, signal, `could not read session "${sessionId}"`);
    }
    throwIfCancelled(signal);
    const events = surface.events.map(projectEvent);
    this.remember(sessionId, factsOf(surface.session.createdAt, events));
    return events;
  }

  /** Keep `facts` as the most recently used entry, forgetting the least recently used beyond the bounds. */
  private remember(sessionId: string, facts: SessionFacts): void {
    this.forget(sessionId);
    this.facts.set(sessionId, facts);
    this.keptText += facts.keptText;
    for (const [oldest] of this.facts) {
      if (this.facts.size <= this.bounds.sessions && this.keptText <= this.bounds.text) break;
      this.forget(oldest);
    }
  }

  private isFull(): boolean {
    return this.facts.size >= this.bounds.sessions || this.keptText >= this.bounds.text;
  }

  /** Mark `facts` as the most recently used entry. */
  private touch(sessionId: string, facts: SessionFacts): void {
    this.facts.delete(sessionId);
    this.facts.set(sessionId, facts);
  }

  private forget(sessionId: string): void {
    const facts = this.facts.get(sessionId);
    if (facts === undefined) return;
    this.facts.delete(sessionId);
    this.keptText -= facts.keptText;
  }

  /** Matches as hits: latest titles (else ids) as labels, canonical mentions, the candidates' key order first. */
  private async withLabels(matches: readonly Match[], signal: AbortSignal | undefined): Promise<SessionReferenceContentHit[]> {
    if (matches.length === 0) return [];
    const titles = new Map<string, string>();
    let results;
    try {
      results = await this.storage.readTitles(
        matches.map((match) => match.header.id),
        signal,
      );
    } catch (error) {
      throw searchFailure(error, signal, 'could not read session titles');
    }
    throwIfCancelled(signal);
    for (const result of results) {
      if (result.status === 'fulfilled' && typeof result.title === 'string' && result.title.length > 0) titles.set(result.sessionId, result.title);
    }
    return matches.map(({ header, seq, origin, snippet }) => {
      const label = titles.get(header.id) ?? header.id;
      return {
        mention: formatSessionReferenceMention({ sessionId: header.id, label }),
        sessionId: header.id,
        label,
        ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
        createdAt: header.createdAt,
        seq,
        role: origin === 'assistant' ? 'assistant' : 'user',
        checkpoint: origin === 'checkpoint',
        snippet,
      };
    });
  }
}

/** Settle with `work`, or with `SESSION_REFERENCE_CANCELLED` as soon as `signal` aborts (reads take no signal). */
function raceCancellation<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled(signal));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelled(signal);
}

function cancelled(signal: AbortSignal): SessionReferenceError {
  return new SessionReferenceError('content search was cancelled', 'SESSION_REFERENCE_CANCELLED', { cause: signal.reason });
}

/**
 * A backend failure as a coded error: cancellation, search turned off on the
 * host (`SESSION_QUERY_SEARCH_DISABLED`), a query the backend refused, or a
 * failed read.
 */
function searchFailure(error: unknown, signal: AbortSignal | undefined, what = 'content search failed'): SessionReferenceError {
  if (isSessionReferenceError(error)) return error;
  const code = errorCode(error);
  if (signal?.aborted || code === 'SESSION_QUERY_ABORTED') return signal ? cancelled(signal) : new SessionReferenceError('content search was cancelled', 'SESSION_REFERENCE_CANCELLED', { cause: error });
  if (code === 'SESSION_QUERY_SEARCH_DISABLED') {
    return new SessionReferenceError(
      'content search is disabled on this host: ctx.sessionQuery answered SESSION_QUERY_SEARCH_DISABLED (enable full-text search on the session-query backend, e.g. openAt: first-search)',
      'SESSION_REFERENCE_SEARCH_DISABLED',
      { cause: error },
    );
  }
  if (code === 'SESSION_QUERY_INVALID_QUERY') {
    return new SessionReferenceError(`the search backend refused the query: ${describe(error)}`, 'SESSION_REFERENCE_INVALID_QUERY', { cause: error });
  }
  return new SessionReferenceError(`${what}: ${describe(error)}`, 'SESSION_REFERENCE_READ_FAILED', { cause: error });
}

function describe(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'a value that cannot be printed';
  }
}
