/**
 * The session-reference service with no host runtime in it: discovery,
 * content search, snapshots and preparation over one host's own sessions
 * (a storage port) and the other agents' beside them. The dsh plugin
 * (index.ts) is this service behind dsh's faces (the Remote methods, the
 * `agent/pre-step` listener); a process that only reads a root (a
 * `sessref list`) builds the same service over its own reads, so every face
 * answers alike. The candidates' order is discovery.ts's, and what it tells
 * of the other agents' sources other-agents.ts's.
 * @module @sessref/dsh/service
 */
import {
  SessionReferenceError,
  createSessionReferenceCore,
  fitSnapshot,
  labelOf,
  normalizeContentQuery,
  type CombinedStorage,
  type ExcerptRequest,
  type PreparedContext,
  type PrepareOptions,
  type ReferenceTarget,
  type SessionHeaderLike,
  type SessionReferenceCandidate,
  type SessionReferenceContentHit,
  type SessionReferenceCore,
  type SessionReferenceInput,
  type SessionReferenceMentionCandidate,
  type SessionReferenceStorage,
  type SourceFailure,
  type TitleReadResult,
} from '@sessref/core';
import { checkCandidateLimit, withMention } from '@sessref/core/internal';
import type { RefreshProgress, RefreshReport } from '@sessref/search-index';
import type { SessionReferenceCatalog } from './catalog.js';
import type { Config } from './config.js';
import { ContentIndex } from './content-index.js';
import { resolveHostContract, type HostContract } from './contract.js';
import { Discovery, coreOptionsFor } from './discovery.js';
import { OWN_SOURCE, assembleStorage } from './foreign.js';
import { OtherAgents } from './other-agents.js';
import type { SessionSnapshotView } from './types.js';

export { DSH_MIRRORED, OWN_SOURCE } from './foreign.js';
export type { Config } from './config.js';

/** What a service is built over: the host's own sessions, its catalog, the configuration and the contract it answers in. */
export interface ServiceParts {
  /** The host's own sessions (a dsh host's `ctx.sessionQuery`, or sessref's own reads of its root). */
  own: SessionReferenceStorage;
  /** The host's title index, when it has one: discovery lists and labels through it, and content search follows its stamps. */
  catalog: () => SessionReferenceCatalog | undefined;
  config: Config;
  /** The contract the host speaks; unset, the `hostContract` key's, else the linked dsh release's (see contract.ts). */
  contract?: HostContract;
  /**
   * Read the dsh roots mirrored from other machines whatever the `sources`
   * key names (the CLI, whose `--sources dsh` names them with no agent);
   * unset, they are read when it names any agent, as the agents' mirrors are.
   */
  mirroredDshRoots?: boolean;
}

/** Exact-read snapshots of other sessions as sourced, untrusted model context, whatever host asks. */
export class ReferenceService {
  /** The core over every source this service reads. */
  readonly core: SessionReferenceCore;
  /** The candidates' order: the host's sessions first, title matches before content matches (discovery.ts). */
  private readonly discovery: Discovery;
  private readonly storage: CombinedStorage;
  /** The other agents' sources beside the host's sessions (other-agents.ts). */
  private readonly others: OtherAgents;
  private readonly content: ContentIndex;
  private readonly contentEnabled: boolean;
  /** Whether the host's own sessions are redacted too (the `redactSecrets` key); other agents' always are. */
  private readonly redactOwn: boolean;
  /** Whether a mention's excerpt suffix asks for part of the session (the `excerpts` key). */
  private readonly excerptsEnabled: boolean;
  private readonly catalog: () => SessionReferenceCatalog | undefined;
  readonly hostContract: HostContract;

  /** Checks the configuration first: an invalid one throws `SESSION_REFERENCE_INVALID_CONFIG` before anything is read. */
  constructor({ own, catalog, config, contract, mirroredDshRoots }: ServiceParts) {
    contract ??= resolveHostContract(config.hostContract);
    const assembled = assembleStorage(own, config.sources, { redactOwnTitles: booleanOption(config, 'redactSecrets'), mirroredDshRoots: mirroredDshRoots === true });
    this.core = createSessionReferenceCore(assembled.storage, config, coreOptionsFor(contract));
    this.discovery = new Discovery(this.core, assembled, config, contract, (target, query, titled, signal) => this.contentMatches(target, query, titled, signal));
    this.contentEnabled = booleanOption(config, 'contentSearch');
    this.redactOwn = booleanOption(config, 'redactSecrets');
    this.excerptsEnabled = booleanOption(config, 'excerpts');
    this.storage = assembled.storage;
    this.others = new OtherAgents(assembled);
    this.catalog = catalog;
    this.hostContract = contract;
    this.content = new ContentIndex({ own, catalog, foreign: assembled.foreign.map((local) => local.source), storage: assembled.storage });
  }

  /** Whether a snapshot of `sessionId` has its credentials redacted: another agent's always, the host's own with `redactSecrets`. */
  readonly redacts = (sessionId: string): boolean => this.redactOwn || this.storage.sourceOf(sessionId) !== OWN_SOURCE;

  /** Whether the host's own titles and snapshots have their credentials redacted (the `redactSecrets` key). */
  get redactsOwn(): boolean {
    return this.redactOwn;
  }

  /** Configured candidate limit, distinct-source cap and snapshot budget. */
  get config(): SessionReferenceCore['config'] {
    return this.core.config;
  }

  /** Whether a mention followed by an excerpt suffix cites that part of the session (the `excerpts` key); off, the suffix is plain text. */
  get excerpts(): boolean {
    return this.excerptsEnabled;
  }

  /** Whether content discovery is on (the `contentSearch` key). */
  get contentSearch(): boolean {
    return this.contentEnabled;
  }

  /** The other agents' homes whose sessions are offered beside the host's (the `sources` key), in order; a mirror of another machine's names its `host`. */
  get foreignSources(): readonly { name: string; displayName: string; home: string; host?: string }[] {
    return this.others.sources();
  }

  /** The other agents' homes left out because they cannot even be checked (a link loop, closed to this user), each with why. */
  get skippedHomes(): readonly { name: string; displayName: string; home: string; message: string }[] {
    return this.others.skipped();
  }

  /** Foreign sources whose last listing failed, with why; their sessions were left out of it. */
  get sourceFailures(): readonly SourceFailure[] {
    return this.others.failures();
  }

  /** Other agents' sessions their last listing left out because they cannot be read, each with its source and why. */
  foreignProblems(): { sessionId: string; source: string; error: Error }[] {
    return this.others.problems();
  }

  /**
   * A stamp per session of the other agents' homes that changes whenever the
   * session may have (its transcript's revision, kept current by the sources'
   * file-system watches); a home that cannot be listed adds none.
   */
  foreignChangeStamps(signal?: AbortSignal): Promise<Map<string, string>> {
    return this.others.changeStamps(signal);
  }

  /** Where a session is read from: `dsh` for the host's own, else the agent's name (`claude-code`, …). */
  sourceOf(sessionId: string): string {
    return this.storage.sourceOf(sessionId);
  }

  /** Every session discovery offers, the host's first, then each foreign source's (each newest first). */
  listSessions(signal?: AbortSignal): Promise<readonly SessionHeaderLike[]> {
    return this.storage.listSessions(signal);
  }

  /**
   * The title matches in the picker's order, at most `limit` in all: the
   * host's sessions ranked by cwd exactly as the official plugin ranks them,
   * then, in the room left, the other agents' (see `Discovery.ranked`).
   */
  rankedCandidates(
    target: ReferenceTarget,
    query?: string,
    limit = this.core.config.candidateLimit,
    signal?: AbortSignal,
  ): Promise<{ own: SessionReferenceCandidate[]; foreign: SessionReferenceCandidate[] }> {
    return this.discovery.ranked(target, query, limit, signal);
  }

  /** {@link rankedCandidates} in one list, each candidate with its canonical mention. */
  async candidatesFor(target: ReferenceTarget, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    const { own, foreign } = await this.rankedCandidates(target, query, limit, signal);
    return [...own, ...foreign].map(withMention);
  }

  /**
   * What an `@` menu offers for `query` under the configured limit, each
   * with its canonical mention: the title matches, then (with
   * `contentSearch` on, a non-empty query and room left) sessions whose
   * conversation matches, without repeating them. A content search that
   * fails for any reason but cancellation adds none: the title matches are
   * never lost to it. The host's sessions come first (title, then content
   * matches), then the other agents' (title, then content matches).
   */
  menuCandidates(target: ReferenceTarget, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    return this.discovery.menu(target, query, signal);
  }

  /** The content hits {@link menuCandidates} adds after `titled` title matches: none when off, full, blank or failed. */
  private async contentMatches(target: ReferenceTarget, query: string, titled: number, signal: AbortSignal): Promise<SessionReferenceContentHit[]> {
    const limit = this.core.config.candidateLimit;
    if (!this.contentEnabled || titled >= limit || query.trim() === '') return [];
    try {
      return await this.searchContentFor(target, query, limit, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      return [];
    }
  }

  /**
   * Sessions other than `target` (all of them when it is undefined) whose
   * conversation, as a snapshot would carry it, contains `query`: direct user
   * text, assistant text and compaction checkpoints of the current surface,
   * never tool traffic, reasoning, injected context or referenced snapshots;
   * the host's sessions and the other agents' alike, found in sessref's own
   * index (see `@sessref/search-index`). Each hit carries its
   * canonical mention, label, cwd, the matching message, a bounded snippet
   * and the query's `ranges` in it. A session that cannot be read is left
   * out, never failing the search. A query with nothing searchable finds
   * nothing. Refusals: `SESSION_REFERENCE_SEARCH_DISABLED` when
   * `contentSearch` is off (or this Node has no `node:sqlite`),
   * `SESSION_REFERENCE_INVALID_QUERY`, `SESSION_REFERENCE_CANCELLED`.
   */
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
    return [...(this.catalog()?.notices ?? []), ...this.content.notices];
  }

  /**
   * Latest titles of `sessionIds` as discovery labels them (through the
   * host's catalog when it has one, after it caught up with the store),
   * failures isolated per id: how a host's own listing names its sessions.
   */
  async titlesOf(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleReadResult[]> {
    await this.storage.listSessions(signal);
    return this.storage.readTitles(sessionIds, signal);
  }

  /**
   * Latest titles of `sessionIds` as a read of those sessions gives them
   * (routed and redacted as {@link snapshotOf} reads), with no listing
   * first: another agent's session is asked of its own source alone.
   */
  readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleReadResult[]> {
    return this.storage.readTitles(sessionIds, signal);
  }

  /**
   * The other agents' sessions beside the host's `ownIds` (which win an id
   * both claim), each with its latest title as listings show it: what a
   * listing adds to the host's own sessions, which it neither lists nor
   * reads again.
   */
  async foreignSessions(ownIds: ReadonlySet<string>, signal?: AbortSignal): Promise<{ header: SessionHeaderLike; title: TitleReadResult | undefined }[]> {
    const headers = await this.storage.listForeign(ownIds, signal);
    if (headers.length === 0) return [];
    const titles = await this.storage.readTitles(
      headers.map((header) => header.id),
      signal,
    );
    return headers.map((header, index) => ({ header, title: titles[index] }));
  }

  /**
   * What a reference to `sessionId` would carry right now: its surface, read
   * once through the same port `prepare()` reads, its latest title, and the
   * projection fitted to the configured budget (labelled by the title, else
   * the id), or the `excerpt` of it asked for. Only reads; a host's inspector
   * shows it before anything is sent.
   */
  async snapshotOf(sessionId: string, signal?: AbortSignal, excerpt?: ExcerptRequest): Promise<SessionSnapshotView> {
    const [snapshot, titles] = await Promise.all([this.storage.readSurface(sessionId, signal), this.storage.readTitles([sessionId], signal)]);
    const title = titles[0]?.status === 'fulfilled' ? titles[0].title : undefined;
    const label = labelOf(sessionId, title);
    const options = { redact: this.redacts(sessionId), ...(excerpt === undefined ? {} : { excerpt }) };
    return { snapshot, title, fit: fitSnapshot({ sessionId, label }, snapshot, this.core.config.maxReferenceBytes, options) };
  }

  /**
   * The context a step of `target` would get for a message that only cites
   * `references`: how a host's own face (`sessref mcp`) prepares a citation
   * with this service's core, configuration and reads, as a dsh step does
   * (rc.8's options: no agent, so no model-relative budget). A reference
   * may ask for an excerpt, which no mention in a dsh message can.
   */
  async prepareFor(target: ReferenceTarget, references: SessionReferenceInput[], signal?: AbortSignal): Promise<PreparedContext | undefined> {
    return (await this.core.prepare(target, [], references, signal, { redact: this.redacts })).context;
  }

  /** The options a preparation gets: `contract`'s (the 0.1.7 contract's budget and omissions), and redaction. */
  prepareOptions(contract?: PrepareOptions): PrepareOptions {
    return { ...contract, redact: this.redacts };
  }

  /** Stop the content index and the other agents' watches. */
  async close(): Promise<void> {
    await this.content.close();
    this.others.close();
  }
}

/** A boolean key of the configuration, `false` when unset; anything else is an invalid configuration. */
function booleanOption(config: Config, key: 'contentSearch' | 'redactSecrets' | 'excerpts'): boolean {
  const value: unknown = config[key] ?? false;
  if (typeof value !== 'boolean') {
    throw new SessionReferenceError(`invalid session reference configuration: ${key} must be a boolean, got ${String(value)}`, 'SESSION_REFERENCE_INVALID_CONFIG');
  }
  return value;
}

function contentSearchOff(): SessionReferenceError {
  return new SessionReferenceError('content search is off: mount @sessref/dsh with contentSearch: true', 'SESSION_REFERENCE_SEARCH_DISABLED');
}
