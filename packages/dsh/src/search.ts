import { SessionId, type SessionHeader, type SurfaceEvent } from '@deepseek-ai/dsh-session';
import {
  extractSessionEventText,
  type SessionEventMetadataFilter,
  type SessionQueryEngine,
  type SessionSearchHit,
  type SessionSearchPage,
} from '@deepseek-ai/dsh-session-query';
import {
  SessionReferenceError,
  boundSnippet,
  findPhrase,
  formatSessionReferenceMention,
  isSessionReferenceError,
  phraseTokens,
  snippetAround,
  type SessionReferenceContentHit,
  type SessionReferenceStorage,
} from '@sessref/core';
import { toSurfaceMessage } from './storage.js';

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
/** Sessions whose verification facts are remembered. */
const MAX_CACHED_SESSIONS = 20_000;

type Origin = 'user' | 'assistant' | 'checkpoint';

/** One surface message as a snapshot would project it, with whether the backend indexed exactly its projected text. */
interface ProjectedEvent {
  seq: number;
  /** Undefined for a message no snapshot carries (injected context, referenced snapshots, tool results). */
  origin: Origin | undefined;
  text: string;
  /** The backend's document of this event has the same tokens as its projected text. */
  pure: boolean;
}

/**
 * What verification remembers of a session, valid while its header's
 * `createdAt` holds: the carried messages it showed whose indexed
 * text is exactly their projected text, with their origin. Logs are
 * append-only and the surface only ever loses events, so a seq once verified
 * stays verified; the backend's surface filter drops it when it is shadowed.
 */
interface SessionFacts {
  createdAt: number;
  verified: Map<number, Origin>;
}

/** A verified match inside one session. */
interface Match {
  header: SessionHeader;
  seq: number;
  origin: Origin;
  snippet: string;
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

  constructor(
    private readonly query: () => SessionQueryEngine,
    private readonly storage: SessionReferenceStorage,
  ) {}

  async search(request: ContentSearchRequest): Promise<SessionReferenceContentHit[]> {
    const { query, limit, exclude, signal } = request;
    const matches: Match[] = [];
    let cursor: SessionSearchPage<SessionSearchHit>['nextCursor'];
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
        if (codeOf(error) === 'SESSION_QUERY_INVALID_LIMIT' && pageSize !== undefined && cursor === undefined) {
          pageSize = undefined;
          continue;
        }
        // A later page whose corpus changed under it: keep what the earlier pages gave.
        if (codeOf(error) === 'SESSION_QUERY_STALE_CURSOR' && cursor !== undefined && !signal?.aborted) break;
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

  /** The hit as a snapshot would see it, or undefined when the session's carried conversation lacks the phrase. */
  private async verify(hit: SessionSearchHit, query: string, signal: AbortSignal | undefined): Promise<Match | undefined> {
    const { header, bestMatch } = hit;
    const known = this.facts.get(header.id);
    const origin = known?.createdAt === header.createdAt ? known.verified.get(bestMatch.seq) : undefined;
    if (origin !== undefined) {
      this.remember(header.id, known!);
      return { header, seq: bestMatch.seq, origin, snippet: boundSnippet(bestMatch.snippet) };
    }
    const events = await this.readProjected(header, signal);
    const best = events.find((event) => event.seq === bestMatch.seq);
    if (best?.origin !== undefined && best.pure) {
      return { header, seq: best.seq, origin: best.origin, snippet: boundSnippet(bestMatch.snippet) };
    }
    // The best event is not carried, or only its tool calls matched: the first carried message with the phrase, that event first.
    const ordered = best === undefined ? events : [best, ...events.filter((event) => event !== best)];
    for (const event of ordered) {
      if (event.origin === undefined) continue;
      const [range] = findPhrase(event.text, query);
      if (range !== undefined) return { header, seq: event.seq, origin: event.origin, snippet: snippetAround(event.text, range) };
    }
    return undefined;
  }

  /** The session's current surface, projected, and its facts remembered. */
  private async readProjected(header: SessionHeader, signal: AbortSignal | undefined): Promise<ProjectedEvent[]> {
    throwIfCancelled(signal);
    let surface: Awaited<ReturnType<SessionQueryEngine['readSurface']>>;
    try {
      surface = await raceCancellation(this.query().readSurface(SessionId(header.id)), signal);
    } catch (error) {
      throw searchFailure(error, signal, `could not read session "${header.id}"`);
    }
    throwIfCancelled(signal);
    const events = surface.events.map(projectEvent);
    const verified = new Map<number, Origin>();
    for (const event of events) if (event.origin !== undefined && event.pure) verified.set(event.seq, event.origin);
    this.remember(header.id, { createdAt: surface.session.createdAt, verified });
    return events;
  }

  /** Keep `facts` as the most recently used entry, forgetting the least recently used beyond the bound. */
  private remember(sessionId: string, facts: SessionFacts): void {
    this.facts.delete(sessionId);
    this.facts.set(sessionId, facts);
    if (this.facts.size > MAX_CACHED_SESSIONS) this.facts.delete(this.facts.keys().next().value!);
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

/** One surface event as a snapshot would project it. */
function projectEvent(event: SurfaceEvent): ProjectedEvent {
  const message = toSurfaceMessage(event);
  const text = message.content.flatMap((block) => (block.type === 'text' && 'text' in block ? [block.text] : [])).join('\n');
  const origin: Origin | undefined =
    message.role === 'assistant' ? 'assistant' : message.origin === 'direct-user' ? 'user' : message.origin === 'compact-checkpoint' ? 'checkpoint' : undefined;
  // The backend indexes the event's semantic text, which adds tool calls (and nested tool results) to the text blocks.
  const pure = origin !== undefined && sameTokens(extractSessionEventText(event), text);
  return { seq: event.seq, origin: text.length === 0 ? undefined : origin, text, pure };
}

function sameTokens(a: string, b: string): boolean {
  if (a === b) return true;
  const left = phraseTokens(a);
  const right = phraseTokens(b);
  return left.length === right.length && left.every((token, index) => token === right[index]);
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
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
  const code = codeOf(error);
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
