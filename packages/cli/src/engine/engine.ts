import type { Context } from '@deepseek-ai/cordis';
import type { SessionSurfaceSnapshot } from '@deepseek-ai/dsh-session-query';
import {
  type ExcerptRequest,
  type PreparedContext,
  type ReferenceTarget,
  type SessionHeaderLike,
  type SessionReferenceContentHit,
  type SessionReferenceMentionCandidate,
} from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import { OWN_SOURCE } from '@sessref/dsh/service';
import type { RefreshProgress, RefreshReport } from '@sessref/search-index';
import type { SessionLogError } from '@sessref/dsh/reading';
import { checkMessageText } from '../session-input.js';
import { ownParts, partsOverHost, type EngineParts } from './parts.js';
import { DEFAULT_LOCK_WAIT_MS, engineHostOptions, type EngineOptions } from './options.js';
import { explainedTitles, listingSummaries, sessionSummaries } from './summaries.js';
import type { Listing, SessionSummary } from './listed.js';
import type { SessionView, StepPreview } from './views.js';
import { assertOwnSession, WriteQueue } from './writes.js';

export type { StepMessage } from './own-step.js';
export { engineHostOptions, type EngineOptions } from './options.js';
export type { SessionSummary } from './listed.js';
export { stepSources, type SessionView, type StepPreview } from './views.js';

/**
 * sessref's operations over one session root. Reads go through the
 * session-reference service over sessref's own reads of the root, and
 * surfaces, titles and steps through dsh's own session functions (see
 * parts.ts); writes, and a log only dsh's read answers for, through a real
 * dsh host, booted the first time one is needed.
 */
export class Engine {
  /** This process appends to one session at a time. */
  private readonly writes = new WriteQueue();
  /** Derived-file notices already handed out by {@link takeNotices}. */
  private readonly noticed = new Set<string>();

  private constructor(
    private readonly parts: EngineParts,
    readonly root: string,
    private readonly lockWaitMs: number,
  ) {}

  /** Open an engine over `options.root`: nothing is read yet, and no dsh host is booted until one is needed. */
  static open(options: EngineOptions): Promise<Engine> {
    const host = engineHostOptions(options);
    const parts = ownParts({
      root: options.root,
      resolver: { contentSearch: true, ...host.resolver },
      indexFile: host.indexFile!,
      searchIndexFile: host.searchIndexFile!,
      searchIndexWaitMs: options.searchIndexWaitMs,
      watch: options.watchLogs ?? false,
    });
    // A long-lived process builds (or catches up) the content index in the background, so the first keystroke does not wait for it; closing stops it.
    if (options.watchLogs === true) parts.service.refreshContentIndex().catch(() => undefined);
    return Promise.resolve(new Engine(parts, options.root, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS));
  }

  /**
   * For tests only: an engine over a host the test booted whole from
   * {@link engineHostOptions} (to write sessions through that same host and
   * read them back through it); `close()` disposes of the host.
   */
  static async over(host: Context, options: Pick<EngineOptions, 'root' | 'lockWaitMs'>): Promise<Engine> {
    const { HostSide } = await import('./host-side.js');
    return new Engine(partsOverHost(new HostSide(host)), options.root, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
  }

  get maxReferenceBytes(): number {
    return this.parts.service.config.maxReferenceBytes;
  }

  /** Distinct sessions one message may reference. */
  get maxReferences(): number {
    return this.parts.service.config.maxReferences;
  }

  /**
   * Every session with its latest title, newest first; a failed title read
   * leaves the title out and records why (see `sessionSummaries`).
   */
  sessions(signal?: AbortSignal): Promise<SessionSummary[]> {
    return sessionSummaries(this.parts, (sessionId) => this.hostOf(sessionId), signal);
  }

  /** The sessions of {@link sessions}, and the logs under the root whose header cannot be read, each with why. */
  listing(signal?: AbortSignal): Promise<Listing> {
    return listingSummaries(this.parts, (sessionId) => this.hostOf(sessionId), signal);
  }

  /**
   * A stamp per session, the root's and the other agents', that changes
   * whenever the session may have (the title index's log revisions and the
   * transcripts' revisions, each kept current by file-system watches; no log
   * or transcript opened): what the inspector's change stream compares.
   */
  async changeStamps(signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    const foreign = await this.parts.service.foreignChangeStamps(signal);
    const own = (await this.parts.catalog?.changeStamps?.(signal)) ?? new Map<string, string>();
    // The root's own sessions win an id both claim, as everywhere else.
    for (const [sessionId, stamp] of own) foreign.set(sessionId, stamp);
    return foreign;
  }

  /** Where `sessionId` is read from: `dsh` for the root's own sessions, else the agent's name. */
  sourceOf(sessionId: string): string {
    return this.parts.service.sourceOf(sessionId);
  }

  /** The agent a session of another agent comes from, by its display name (`Claude Code`); `undefined` for the root's own (dsh) sessions. */
  agentOf(sessionId: string): string | undefined {
    const source = this.sourceOf(sessionId);
    if (source === OWN_SOURCE) return undefined;
    return this.foreignSources.find((found) => found.name === source)?.displayName ?? source;
  }

  /** The remote a session was mirrored from (`devbox`), or `undefined` for a session of this machine. */
  hostOf(sessionId: string): string | undefined {
    const source = this.sourceOf(sessionId);
    return this.foreignSources.find((found) => found.name === source)?.host;
  }

  /** The other agents' sessions the last listing left out because they cannot be read, each with why. */
  foreignProblems(): { sessionId: string; source: string; error: Error }[] {
    return this.parts.service.foreignProblems();
  }

  /** The other agents' homes left out because they cannot even be checked (a link loop, closed to this user), each with why. */
  get skippedHomes(): readonly { name: string; displayName: string; home: string; message: string }[] {
    return this.parts.service.skippedHomes;
  }

  /** Other agents' sources whose last listing failed as a whole (their sessions were left out of it), each with why. */
  get sourceFailures(): readonly { source: string; reason: unknown }[] {
    return this.parts.service.sourceFailures;
  }

  /** The other agents' homes this engine reads sessions from, in order. */
  get foreignSources(): readonly { name: string; displayName: string; home: string; host?: string }[] {
    return this.parts.service.foreignSources;
  }

  /** Candidates discovery offers when the caller names no limit. */
  get candidateLimit(): number {
    return this.parts.service.config.candidateLimit;
  }

  /**
   * Title candidates for a target (a session of the root by its id, or a
   * conversation elsewhere by its id and cwd, such as an MCP client's),
   * ranked as the plugin ranks them, under the configured candidate limit
   * unless `limit` is given: the plugin's Remote `candidates` without the
   * content matches it appends (see {@link search}).
   */
  async candidates(target: string | ReferenceTarget, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    return this.parts.service.candidatesFor(await this.targetOf(target), query, limit, signal);
  }

  /**
   * The context a message of `target` citing `sessionIds` would get, each
   * labelled with its latest title as its mention would be: prepared by the
   * plugin's own core, configuration and reads, exactly as a dsh step's
   * reference (`sessref mcp`'s `ref` prompt); with `excerpt`, each session
   * carried as that part of it.
   */
  async cite(target: ReferenceTarget, sessionIds: readonly string[], signal?: AbortSignal, excerpt?: ExcerptRequest): Promise<PreparedContext> {
    const service = this.parts.service;
    const titles = await service.titlesOf(sessionIds, signal);
    const references = sessionIds.map((sessionId, index) => {
      const titled = titles[index];
      const reference = titled?.status === 'fulfilled' && titled.title !== undefined ? { sessionId, label: titled.title } : { sessionId };
      return excerpt === undefined ? reference : { ...reference, excerpt };
    });
    const context = await service.prepareFor(target, references, signal);
    // At least one reference always yields a context; its absence would be a bug, reported as such.
    if (context === undefined) throw new Error('the plugin prepared no context for a citation');
    return context;
  }

  /**
   * Sessions whose conversation, as a reference would carry it, contains
   * `query`, best first, through the plugin's content search on sessref's own
   * index (the root's sessions and the other agents'); the target's own
   * session is left out. Each hit carries the query's ranges in its snippet.
   */
  async search(query: string, options: { target?: string | ReferenceTarget; limit?: number; signal?: AbortSignal } = {}): Promise<SessionReferenceContentHit[]> {
    const target = options.target === undefined ? undefined : await this.targetOf(options.target);
    return this.parts.service.searchContentFor(target, query, options.limit, options.signal);
  }

  /**
   * Bring the content index up to date (a search does so itself): the
   * caller that wants to show a long first build's progress runs this first.
   */
  refreshSearchIndex(onProgress?: (progress: RefreshProgress) => void, signal?: AbortSignal): Promise<RefreshReport> {
    return this.parts.service.refreshContentIndex(signal, onProgress);
  }

  /**
   * Why a derived file (the listing's kept headers, the title index, the
   * content index) was not used as found, each naming the file, that no
   * earlier call returned: each notice once, for the CLI's stderr or the
   * server's log.
   */
  takeNotices(): string[] {
    const fresh = [...(this.parts.logs?.notices ?? []), ...this.parts.service.derivedNotices].filter((notice) => !this.noticed.has(notice));
    for (const notice of fresh) this.noticed.add(notice);
    return fresh;
  }

  /** The session's latest title (`undefined` when it has none), as its mention's label: refused as a read of it would be. */
  async titleOf(sessionId: string): Promise<string | undefined> {
    // One session is named by its own source alone, as `show` reads it, with no listing first: another agent's by that
    // agent's folders (listing the root and every agent made a fresh `mention` of one Claude Code session cost 0.96 s of
    // CPU over 10,000 sessions), the root's by its own log's entry in the title index (a listing stat'ed every log).
    const read = await this.parts.service.readTitles([sessionId]);
    const [result] = this.sourceOf(sessionId) === OWN_SOURCE ? await explainedTitles(this.parts, read) : read;
    if (result?.status === 'rejected') throw result.reason;
    return result?.title;
  }

  /** A session's header and the projection a reference to it (or to the `excerpt` of it) would carry. */
  async show(sessionId: string, excerpt?: ExcerptRequest): Promise<SessionView> {
    // The plugin's own read and fit, so the view is exactly what a reference would carry.
    const { snapshot, title, fit } = await this.parts.service.snapshotOf(sessionId, undefined, excerpt);
    return {
      header: snapshot.session,
      ...(title === undefined ? {} : { title }),
      capturedThroughSeq: snapshot.capturedThroughSeq,
      surfaceEvents: snapshot.messages.length,
      items: fit.items.map((item) => ({ ...item, bytes: utf8Length(item.text) })),
      reference: fit.retained,
      ...(fit.excerpt === undefined ? {} : { excerpt: fit.excerpt }),
      maxReferenceBytes: this.maxReferenceBytes,
    };
  }

  /** Run a message for `targetId` through the plugin's pre-step without writing anything. */
  async preview(targetId: string, text: string, signal = new AbortController().signal): Promise<StepPreview> {
    checkMessageText(text);
    assertOwnSession(targetId, this.agentOf(targetId), 'prepare');
    const messages = await this.parts.step(targetId, text, signal);
    return { target: targetId, messages, maxReferenceBytes: this.maxReferenceBytes };
  }

  /**
   * Like {@link preview}, then append the turn to the target's log. The step
   * runs before anything is written, so a failing message changes no log; the
   * append itself is all or nothing, one at a time per session across
   * processes (see `appendTurn`). Sources are only ever read.
   */
  async send(targetId: string, text: string, signal = new AbortController().signal): Promise<StepPreview & { appendedSeqs: number[] }> {
    checkMessageText(text);
    assertOwnSession(targetId, this.agentOf(targetId), 'send');
    const host = await this.parts.host();
    const { session, messages } = await host.step(targetId, text, signal);
    signal.throwIfAborted();
    const appendedSeqs = await this.writes.run(session.id, () => host.append(this.root, session.header, messages, this.lockWaitMs, signal));
    return { target: targetId, messages, maxReferenceBytes: this.maxReferenceBytes, appendedSeqs };
  }

  /** Create and persist a new session (a title makes it durable at once); a failed write leaves nothing behind. */
  async create(options: { cwd?: string; title?: string; id?: string } = {}): Promise<string> {
    return (await this.parts.host()).create(this.root, options);
  }

  /** Write the demo sessions (see `@sessref/host`'s `seedDemo`); their ids. */
  async seedDemo(onProgress?: (done: number, total: number) => void): Promise<string[]> {
    return (await this.parts.host()).seedDemo(onProgress);
  }

  /** A session's current surface, read as a reference would read it, and its latest title. */
  async conversation(sessionId: string): Promise<{ surface: SessionSurfaceSnapshot; title: string | undefined }> {
    return (await this.parts.host()).conversation(sessionId);
  }

  /** The log file of each listed session among `sessionIds`, as dsh's JSONL backend lays it out: the listing's, no log read. */
  async logPaths(sessionIds: Iterable<string>, signal?: AbortSignal): Promise<Map<string, string>> {
    const paths = new Map<string, string>();
    const logs = this.parts.logs;
    if (logs === undefined) return paths;
    const listed = new Set((await this.parts.sessions(signal)).map((record) => record.header.id));
    for (const sessionId of sessionIds) {
      const path = listed.has(sessionId) ? logs.candidateLogs(sessionId)[0]?.path : undefined;
      if (path !== undefined) paths.set(sessionId, path);
    }
    return paths;
  }

  /** Why the log of `sessionId` cannot be read, when it is there and cannot be. */
  async damageOf(sessionId: string): Promise<SessionLogError | undefined> {
    return this.parts.logs?.damageOf(sessionId);
  }

  /** Stop watching, close the indexes, and dispose of the dsh host if one was booted. */
  async close(): Promise<void> {
    await this.parts.close();
  }

  /**
   * A target as discovery takes it: one named by its id and cwd as it is;
   * a session of the root by the header a listing gives it (a live session's
   * own, else the one the listing keeps, with the directory it moved to):
   * discovery needs only the target's id and directories, so nothing reads
   * its log. A session the listing leaves out (missing, or its header
   * unreadable) is read by the host after all, for its own refusal.
   */
  private async targetOf(target: string | ReferenceTarget): Promise<ReferenceTarget> {
    if (typeof target !== 'string') return target;
    const listed = (await this.parts.sessions()).find((record) => record.header.id === target)?.header;
    const header: SessionHeaderLike = listed ?? (await (await this.parts.host()).header(target));
    const { id, cwd, workingDirectory } = header;
    return { id, ...(cwd === undefined ? {} : { cwd }), ...(workingDirectory === undefined ? {} : { workingDirectory }) };
  }
}
