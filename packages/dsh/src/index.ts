/**
 * `ctx.sessionReferenceResolver` for DeepSeek Harness, built on @sessref/core.
 * A drop-in for the official session-reference plugin.
 * @module @sessref/dsh
 */
import type { Context } from '@deepseek-ai/cordis';
import type { Agent, PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import { Remote, TypertRemoteService } from '@deepseek-ai/dsh-typert-protocol';
import {
  SessionReferenceError,
  createSessionReferenceCore,
  fitSnapshot,
  labelOf,
  normalizeContentQuery,
  resolveReferenceContextFraction,
  type PreparedContext,
  type PrepareOptions,
  type ReferenceTarget,
  type SessionReferenceCandidate,
  type SessionReferenceContentHit,
  type SessionReferenceInput,
  type SessionReferenceMentionCandidate,
  type SessionReferenceCore,
  type CombinedStorage,
  type SessionHeaderLike,
  type SourceFailure,
  type TitleReadResult,
} from '@sessref/core';
import { checkCandidateLimit, toCandidate, withMention } from '@sessref/core/internal';
import { Config } from './config.js';
import { resolveHostContract, type HostContract } from './contract.js';
import { projectedTitles } from './labels.js';
import { contextMessage, expandStepMessages, targetOf } from './messages.js';
import { modelBudget } from './model-budget.js';
import { spillStoreOf } from './spill.js';
import { OWN_SOURCE, assembleStorage, type AssembledStorage } from './foreign.js';
import { sessionQueryStorage } from './storage.js';
import type { SessionReferenceCatalog } from './catalog.js';
import { ContentIndex } from './content-index.js';
import type { RefreshProgress, RefreshReport } from '@sessref/sources';
import type { PreparedReferencedMessage, SessionSnapshotView } from './types.js';

export type * from './types.js';
export type { RefreshProgress, RefreshReport } from '@sessref/sources';
export { Config, configSchema } from './config.js';
export { contractOfVersion, linkedContract, type HostContract } from './contract.js';
export { sessionQueryStorage, toSurfaceMessage } from './storage.js';
export type { SessionReferenceCatalog } from './catalog.js';
export { OWN_SOURCE } from './foreign.js';

export { contextMessage, expandStepMessages, preparedContextOf } from './messages.js';
export {
  DEFAULT_CANDIDATE_LIMIT,
  DEFAULT_MAX_REFERENCE_BYTES,
  MAX_REFERENCES,
  SESSION_REFERENCE_SCHEME,
  SessionReferenceError,
  decodeSessionReferenceUri,
  encodeSessionReferenceUri,
  formatSessionReferenceMention,
  parseSessionReferenceText,
  MAX_CONTENT_QUERY_LENGTH,
  MAX_SNIPPET_LENGTH,
  normalizeContentQuery,
  type SessionReferenceErrorCode,
} from '@sessref/core';

declare module '@deepseek-ai/cordis' {
  interface Context {
    sessionReferenceResolver: SessionReferenceResolver;
    sessionReferenceCatalog?: SessionReferenceCatalog;
  }
}

/** Exact-read snapshots of other sessions as sourced, untrusted model context. */
export class SessionReferenceResolver extends TypertRemoteService {
  static inject = ['sessionQuery'];
  static Config = Config;

  private readonly core: SessionReferenceCore;
  /** With other agents' sources: discovery over the host's sessions and over theirs, ranked apart (see {@link rankedCandidates}). */
  private readonly groups: { own: SessionReferenceCore; foreign: SessionReferenceCore } | undefined;
  private readonly storage: CombinedStorage;
  private readonly assembled: AssembledStorage;
  private readonly content: ContentIndex;
  private readonly contentEnabled: boolean;
  /** Whether the host's own sessions are redacted too (the `redactSecrets` key); other agents' always are. */
  private readonly redactOwn: boolean;
  private readonly contract: HostContract;
  /** The 0.1.7 contract's model-relative budget share; `undefined` when an explicit `maxReferenceBytes` wins. */
  private readonly fraction: number | undefined;

  constructor(ctx: Context, config: Config = {}) {
    // Validate first: an invalid configuration must never publish the service.
    const contract = resolveHostContract(config.hostContract);
    const fraction = resolveReferenceContextFraction(config.referenceContextFraction);
    const newer = contract === '0.1.7';
    const catalog = () => ctx.get('sessionReferenceCatalog');
    const own = sessionQueryStorage(() => ctx.sessionQuery, catalog, newer ? (header) => projectedTitles(ctx, header) : undefined);
    const assembled = assembleStorage(own, config.sources);
    const storage = assembled.storage;
    const coreOptions = { candidateShape: newer ? 'workspace' : 'rc.8' } as const;
    const core = createSessionReferenceCore(storage, config, coreOptions);
    const groups = assembled.groups && {
      own: createSessionReferenceCore(assembled.groups.own, config, coreOptions),
      foreign: createSessionReferenceCore(assembled.groups.foreign, config, coreOptions),
    };
    const contentSearch = booleanOption(config, 'contentSearch');
    const redactOwn = booleanOption(config, 'redactSecrets');
    super(ctx, 'sessionReferenceResolver');
    this.core = core;
    this.groups = groups;
    this.storage = storage;
    this.assembled = assembled;
    this.contentEnabled = contentSearch;
    this.redactOwn = redactOwn;
    this.contract = contract;
    this.fraction = config.maxReferenceBytes === undefined ? fraction : undefined;
    this.content = new ContentIndex({ own, catalog, foreign: assembled.foreign.map((local) => local.source), storage });
    // A home that cannot even be checked is left out without failing the others: said once, naming the folder.
    // At `info`: cordis ranks `warn` below it (error 0, info 1, warn 2) and shows only level 1 by default.
    for (const { error } of assembled.skipped) ctx.logger('sessref').info(error.message);
    ctx.effect(() => () => this.content.close(), 'close the content index');
    ctx.effect(() => () => assembled.foreign.forEach(({ source }) => source.close()), "stop watching other agents' folders");
    // Prepended, so this listener is the outermost: it sees the decision the
    // rest of the chain returns and post-processes only an entered step.
    ctx.on(
      'agent/pre-step',
      async ({ agent, signal }, next): Promise<PreStepDecision> => {
        const decision = await next();
        if (decision.kind !== 'enter') return decision;
        // Keep whatever else the decision carries: later hosts may add fields.
        return { ...decision, messages: await expandStepMessages(this.core, agent, decision.messages, signal, this.prepareOptions(agent)) };
      },
      true,
    );
  }

  private prepareOptions(agent: Agent): PrepareOptions {
    return { ...contractOptions(this.ctx, this.contract, this.fraction, agent), redact: this.redacts };
  }

  /** Whether a snapshot of `sessionId` has its credentials redacted: another agent's always, the host's own with `redactSecrets`. */
  private readonly redacts = (sessionId: string): boolean => this.redactOwn || this.storage.sourceOf(sessionId) !== OWN_SOURCE;

  /** The other agents' homes whose sessions are offered beside the host's (the `sources` key), in order. */
  get foreignSources(): readonly { name: string; displayName: string; home: string }[] {
    return this.assembled.foreign.map(({ name, displayName, home }) => ({ name, displayName, home }));
  }

  /** The other agents' homes left out because they cannot even be checked (a link loop, closed to this user), each with why. */
  get skippedHomes(): readonly { name: string; displayName: string; home: string; message: string }[] {
    return this.assembled.skipped.map(({ name, displayName, home, error }) => ({ name, displayName, home, message: error.message }));
  }

  /** Foreign sources whose last listing failed, with why; their sessions were left out of it. */
  get sourceFailures(): readonly SourceFailure[] {
    return this.assembled.failures();
  }

  /** Other agents' sessions their last listing left out because they cannot be read, each with its source and why. */
  foreignProblems(): { sessionId: string; source: string; error: Error }[] {
    return this.assembled.foreign.flatMap(({ name, source }) => source.problems().map(({ sessionId, error }) => ({ sessionId, source: name, error })));
  }

  /**
   * A stamp per session of the other agents' homes that changes whenever the
   * session may have (its transcript's revision, kept current by the sources'
   * file-system watches); a home that cannot be listed adds none.
   */
  async foreignChangeStamps(signal?: AbortSignal): Promise<Map<string, string>> {
    const stamps = new Map<string, string>();
    for (const { source } of this.assembled.foreign) {
      try {
        for (const [sessionId, stamp] of await source.changeStamps(signal)) stamps.set(sessionId, stamp);
      } catch (error) {
        if (signal?.aborted) throw error;
      }
    }
    return stamps;
  }

  /** Where a session is read from: `dsh` for the host's own, else the agent's name (`claude-code`, …). */
  sourceOf(sessionId: string): string {
    return this.storage.sourceOf(sessionId);
  }

  /** Every session discovery offers, the host's first, then each foreign source's (each newest first). */
  listSessions(signal?: AbortSignal): Promise<readonly SessionHeaderLike[]> {
    return this.storage.listSessions(signal);
  }

  /** Configured candidate limit, distinct-source cap and snapshot budget. */
  get config(): SessionReferenceCore['config'] {
    return this.core.config;
  }

  /** The session-reference contract this resolver answers in (the `hostContract` key, else the linked dsh release's). */
  get hostContract(): HostContract {
    return this.contract;
  }

  /** Whether content discovery is on (the `contentSearch` key). */
  get contentSearch(): boolean {
    return this.contentEnabled;
  }

  /**
   * Sessions other than `agent`, ranked same cwd, no cwd, other cwd; labels
   * are latest titles, falling back to ids. The host's sessions come first;
   * the other agents' (the `sources` key) follow, ranked the same way among
   * themselves (see {@link rankedCandidates}).
   */
  async listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]> {
    const { own, foreign } = await this.rankedCandidates(targetOf(agent), query, limit, signal);
    return [...own, ...foreign];
  }

  /**
   * The title matches in the picker's order, at most `limit` in all: the
   * host's sessions ranked by cwd exactly as the official plugin ranks them,
   * then, in the room left, the other agents' sessions ranked by cwd among
   * themselves (each agent's newest first inside a rank, agents in the
   * `sources` order). A session of the user's own host is what a dsh user
   * means first; ranking both together would let another agent's session in
   * the same folder push the host's older ones down or out of the list.
   */
  private async rankedCandidates(
    target: ReferenceTarget,
    query?: string,
    limit = this.core.config.candidateLimit,
    signal?: AbortSignal,
  ): Promise<{ own: SessionReferenceCandidate[]; foreign: SessionReferenceCandidate[] }> {
    if (this.groups === undefined) return { own: await this.core.listCandidates(target, query, limit, signal), foreign: [] };
    const own = await this.groups.own.listCandidates(target, query, limit, signal);
    if (own.length >= limit) return { own, foreign: [] };
    return { own, foreign: await this.groups.foreign.listCandidates(target, query, limit - own.length, signal) };
  }

  /**
   * {@link listCandidates} for a target named by its id and cwd rather than
   * an agent (a host's own tools: a CLI, an inspector), each candidate with
   * its canonical mention. The Remote `candidates` face adds content matches.
   */
  async candidatesFor(target: ReferenceTarget, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    const { own, foreign } = await this.rankedCandidates(target, query, limit, signal);
    return [...own, ...foreign].map(withMention);
  }

  /**
   * Remote face of {@link listCandidates}: configured limit, canonical mention
   * attached. With `contentSearch` on, a non-empty query that leaves room
   * under the limit also gets sessions whose conversation matches it (see
   * {@link searchContent}), after the title matches and without repeating
   * them. A content search that fails for any reason but cancellation adds
   * none: the title matches are never lost to it. The host's sessions still
   * come first: its title then content matches, then the other agents'
   * title then content matches.
   */
  @Remote('candidates')
  async remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    const target = targetOf(agent);
    const limit = this.core.config.candidateLimit;
    const titled = await this.rankedCandidates(target, query, limit, signal);
    const hits = await this.contentMatches(agent, query, titled.own.length + titled.foreign.length, signal);
    const ownHits = hits.filter((hit) => this.storage.sourceOf(hit.sessionId) === OWN_SOURCE);
    const foreignHits = hits.filter((hit) => !ownHits.includes(hit));
    const shape = this.contract === '0.1.7' ? 'workspace' : 'rc.8';
    const asCandidate = ({ sessionId, label, cwd, createdAt }: SessionReferenceContentHit): SessionReferenceCandidate =>
      // The candidates' own shape and key order.
      toCandidate(cwd === undefined ? { id: sessionId, createdAt } : { id: sessionId, cwd, createdAt }, { title: label }, target, shape);
    const candidates: SessionReferenceMentionCandidate[] = [];
    const seen = new Set<string>();
    for (const candidate of [...titled.own, ...ownHits.map(asCandidate), ...titled.foreign, ...foreignHits.map(asCandidate)]) {
      if (candidates.length >= limit) break;
      if (seen.has(candidate.sessionId)) continue;
      seen.add(candidate.sessionId);
      candidates.push(withMention(candidate));
    }
    return candidates;
  }

  /** The content hits {@link remoteExportCandidates} adds after `titled` title matches: none when off, full, blank or failed. */
  private async contentMatches(agent: Agent, query: string, titled: number, signal: AbortSignal): Promise<SessionReferenceContentHit[]> {
    const limit = this.core.config.candidateLimit;
    if (!this.contentEnabled || titled >= limit || query.trim() === '') return [];
    try {
      return await this.searchContent(agent, query, limit, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return [];
    }
  }

  /**
   * Sessions other than `agent`'s (all of them when `agent` is undefined)
   * whose conversation, as a snapshot would carry it, contains `query`:
   * direct user text, assistant text and compaction checkpoints of the
   * current surface, never tool traffic, reasoning, injected context or
   * referenced snapshots; the host's sessions and the other agents' (the
   * `sources` key) alike. Found in sessref's own index (see
   * `@sessref/sources`, "Search index"): words, substrings of unspaced
   * scripts (`結果`) and emoji; whole words first, then the word being typed,
   * then matches inside a word, each newest first. Each hit carries its
   * canonical mention, label, cwd, the matching message's seq, role and
   * checkpoint flag, a bounded plain-text snippet and the query's `ranges`
   * in it. A session that cannot be read is left out, never failing the search.
   *
   * A query with nothing searchable finds nothing. Refusals:
   * `SESSION_REFERENCE_SEARCH_DISABLED` when `contentSearch` is off (or this
   * Node has no `node:sqlite`), `SESSION_REFERENCE_INVALID_QUERY` for a query
   * with NUL or over `MAX_CONTENT_QUERY_LENGTH`, `SESSION_REFERENCE_CANCELLED`.
   */
  searchContent(agent: Agent | undefined, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceContentHit[]> {
    return this.searchContentFor(agent && targetOf(agent), query, limit, signal);
  }

  /** {@link searchContent} for a target named by its id and cwd (or none: every session), as {@link candidatesFor}. */
  async searchContentFor(target: ReferenceTarget | undefined, query: string, limit = this.core.config.candidateLimit, signal?: AbortSignal): Promise<SessionReferenceContentHit[]> {
    if (!this.contentEnabled) throw contentSearchOff();
    normalizeContentQuery(query);
    checkCandidateLimit(limit);
    return this.content.search({ query, limit, exclude: target?.id, signal });
  }

  /**
   * Bring the content index up to date now (every search does so first):
   * what a long-lived host runs in the background at start, and what a CLI
   * runs to show a long first build's progress. Joins a refresh that is
   * running; waiting stops when `signal` aborts, the refresh goes on.
   * `SESSION_REFERENCE_SEARCH_DISABLED` as for {@link searchContent}.
   */
  refreshContentIndex(signal?: AbortSignal, onProgress?: (progress: RefreshProgress) => void): Promise<RefreshReport> {
    if (!this.contentEnabled) return Promise.reject(contentSearchOff());
    return this.content.refresh(signal, onProgress);
  }

  /**
   * Why a derived file was not used as found (sessref's content index, and
   * the host's catalog when it keeps notices: rebuilt, or bypassed), each
   * naming the file, oldest first: never a failure, for the host to show.
   */
  get derivedNotices(): readonly string[] {
    return [...(this.ctx.get('sessionReferenceCatalog')?.notices ?? []), ...this.content.notices];
  }

  /**
   * Latest titles of `sessionIds` as discovery labels them (through the
   * host's catalog when it mounted one, after it caught up with the store),
   * failures isolated per id: how a host's own listing names its sessions.
   */
  async titlesOf(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleReadResult[]> {
    await this.storage.listSessions(signal);
    return this.storage.readTitles(sessionIds, signal);
  }

  /**
   * What a reference to `sessionId` would carry right now: its surface, read
   * once through the same port `prepare()` reads, its latest title, and the
   * projection fitted to the configured budget (labelled by the title, else
   * the id). Only reads; a host's inspector shows it before anything is sent.
   */
  async snapshotOf(sessionId: string, signal?: AbortSignal): Promise<SessionSnapshotView> {
    const [snapshot, titles] = await Promise.all([this.storage.readSurface(sessionId, signal), this.storage.readTitles([sessionId], signal)]);
    const title = titles[0]?.status === 'fulfilled' ? titles[0].title : undefined;
    const label = labelOf(sessionId, title);
    return { snapshot, title, fit: fitSnapshot({ sessionId, label }, snapshot, this.core.config.maxReferenceBytes, { redact: this.redacts(sessionId) }) };
  }

  /** Remote face of {@link searchContent} under the configured candidate limit. */
  @Remote('search')
  remoteExportSearch(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceContentHit[]> {
    return this.searchContent(agent, query, undefined, signal);
  }

  /**
   * The context a step of `target` would get for a message that only cites
   * `references`: how a host's own face (`sessref mcp`) prepares a
   * citation through this plugin's core, configuration and reads, as a dsh
   * step does (rc.8's options: no agent, so no model-relative budget).
   */
  async prepareFor(target: ReferenceTarget, references: SessionReferenceInput[], signal?: AbortSignal): Promise<PreparedContext | undefined> {
    return (await this.core.prepare(target, [], references, signal, { redact: this.redacts })).context;
  }

  /** Snapshot every distinct reference of one message into zero or one context. */
  async prepare(
    agent: Agent,
    content: ContentBlock[],
    references: SessionReferenceInput[],
    signal?: AbortSignal,
  ): Promise<PreparedReferencedMessage> {
    const prepared = await this.core.prepare(targetOf(agent), content, references, signal, this.prepareOptions(agent));
    return prepared.context ? { content: prepared.content, additionalContext: contextMessage(prepared.context) } : { content: prepared.content };
  }
}

/**
 * What the 0.1.7 / 0.2 contract adds to a preparation for `agent`: the
 * model-relative budget (unless `maxReferenceBytes` is set), the sources'
 * log generations, and the omissions notice with full snapshots saved to
 * the host's spill store when it has one. Nothing for an rc.8 host.
 */
function contractOptions(ctx: Context, contract: HostContract, fraction: number | undefined, agent: Agent): PrepareOptions | undefined {
  if (contract === 'rc.8') return undefined;
  return {
    ...(fraction !== undefined && { budget: (signal: AbortSignal | undefined) => modelBudget(ctx, agent, fraction, signal) }),
    recordFormatVersion: true,
    omissions: { store: spillStoreOf(ctx, agent.id) },
  };
}

/** A boolean key of the configuration, `false` when unset; anything else is an invalid configuration. */
function booleanOption(config: Config, key: 'contentSearch' | 'redactSecrets'): boolean {
  const value: unknown = config[key] ?? false;
  if (typeof value !== 'boolean') {
    throw new SessionReferenceError(`invalid session reference configuration: ${key} must be a boolean, got ${String(value)}`, 'SESSION_REFERENCE_INVALID_CONFIG');
  }
  return value;
}

function contentSearchOff(): SessionReferenceError {
  return new SessionReferenceError('content search is off: mount @sessref/dsh with contentSearch: true', 'SESSION_REFERENCE_SEARCH_DISABLED');
}

export default SessionReferenceResolver;
