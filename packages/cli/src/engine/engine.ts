import { randomUUID } from 'node:crypto';
import type { Context } from '@deepseek-ai/cordis';
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm';
import { Session, SessionId, type SessionHeader } from '@deepseek-ai/dsh-session';
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import type { SessionSurfaceSnapshot } from '@deepseek-ai/dsh-session-query';
import type {} from '@deepseek-ai/dsh-session-title';
import {
  type PreparedContext,
  type PreparedSource,
  type ProjectedItem,
  type ReferenceTarget,
  type RetainedReference,
  type SessionHeaderLike,
  type SessionReferenceContentHit,
  type SessionReferenceMentionCandidate,
  type TitleReadResult,
} from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import { checkMessageText, checkTitle, untitled } from '../session-input.js';
import { OWN_SOURCE, preparedContextOf, type Config as ResolverConfig, type RefreshProgress, type RefreshReport } from '@sessref/dsh';
import { CheckedJsonlPersistence, bootHost, currentTurn, runDetachedPreStep, seedDemo, type HostOptions, type SessionLogError } from '@sessref/host';
import { defaultIndexFile, defaultSearchIndexFile } from '@sessref/dsh/title-index';
import { SessionWriteError, appendTurn, writeNewSession } from './session-writes.js';

/** A session as listings show it. */
export interface SessionSummary {
  sessionId: string;
  /** Where it is read from: `dsh` for the root's own sessions, else the agent's name (`claude-code`, …). */
  source: string;
  title?: string;
  cwd?: string;
  createdAt: number;
  live: boolean;
  persisted: boolean;
  /** Why the session's log could not be read, when it could not (listing reads only headers). */
  readError?: unknown;
}

/** What a reference to one session would carry. */
export interface SessionView {
  header: SessionHeaderLike;
  title?: string;
  capturedThroughSeq: number | null;
  surfaceEvents: number;
  items: (ProjectedItem & { bytes: number })[];
  /** The data object under the configured budget, exactly as a reference would serialize it. */
  reference: RetainedReference | undefined;
  maxReferenceBytes: number;
}

/** One message of a step, as it would enter history. */
export interface StepMessage {
  message: UserMessage;
  /** For a context message, what the plugin prepared for it: each source's entry, data object and budgeted size. */
  prepared?: PreparedContext;
}

/** The model-facing result of one step through `agent/pre-step`. */
export interface StepPreview {
  target: string;
  messages: StepMessage[];
  maxReferenceBytes: number;
}

/** Every source the step's context messages carry, in order. */
export function stepSources(preview: StepPreview): PreparedSource[] {
  return preview.messages.flatMap((entry) => entry.prepared?.sources ?? []);
}

export interface EngineOptions {
  root: string;
  resolver?: ResolverConfig;
  /** The title index file; defaults to the per-root file in the user's cache directory. */
  indexFile?: string;
  /** Keep the title index current from file-system events; for long-lived processes such as `serve`. */
  watchLogs?: boolean;
  /** sessref's content index file; defaults to the per-root file beside the title index. */
  searchIndexFile?: string;
  /** How long the content index waits, once, for another process's lock on its file; default 10 s. */
  searchIndexWaitMs?: number;
  /** How long `send` waits for another sessref process writing the same session; default {@link DEFAULT_LOCK_WAIT_MS}. */
  lockWaitMs?: number;
  /** Other agents whose sessions are read beside the root's (see `@sessref/sources`); none when absent. */
  sources?: readonly string[];
}

const DEFAULT_LOCK_WAIT_MS = 10_000;

/** What `bootHost` gets for an engine: the options, with the index files defaulting to the root's files in the cache directory. */
export function engineHostOptions(options: EngineOptions): HostOptions {
  const { lockWaitMs: _lockWaitMs, sources, ...host } = options;
  return {
    ...host,
    // Nothing the CLI shows, serves or sends carries a credential: dsh's own sessions are redacted too.
    resolver: { redactSecrets: true, ...host.resolver, ...(sources === undefined ? {} : { sources: [...sources] }) },
    indexFile: options.indexFile ?? defaultIndexFile(options.root),
    searchIndexFile: options.searchIndexFile ?? defaultSearchIndexFile(options.root),
  };
}

/** sessref's operations over one session root, on the real dsh host. */
export class Engine {
  /** The last write queued for each session: this process appends to one session at a time. */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Derived-file notices already handed out by {@link takeNotices}. */
  private readonly noticed = new Set<string>();

  private constructor(
    private readonly ctx: Context,
    readonly root: string,
    private readonly lockWaitMs: number,
  ) {}

  /** Boot the real dsh host over `options.root` and open an engine on it. */
  static async open(options: EngineOptions): Promise<Engine> {
    return new Engine(await bootHost(engineHostOptions(options)), options.root, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
  }

  /**
   * For tests only: an engine over a host the test booted from
   * {@link engineHostOptions} (to write sessions through that same host);
   * `close()` disposes of the host. sessref opens engines with {@link open}.
   */
  static over(host: Context, options: Pick<EngineOptions, 'root' | 'lockWaitMs'>): Engine {
    return new Engine(host, options.root, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
  }

  get maxReferenceBytes(): number {
    return this.ctx.sessionReferenceResolver.config.maxReferenceBytes;
  }

  /** Distinct sessions one message may reference. */
  get maxReferences(): number {
    return this.ctx.sessionReferenceResolver.config.maxReferences;
  }

  /**
   * Every session with its latest title, newest first; a failed title read
   * leaves the title out and records why. The host lists the sessions (from
   * the headers it keeps, reading no log); the title index names them.
   */
  async sessions(signal?: AbortSignal): Promise<SessionSummary[]> {
    const resolver = this.ctx.sessionReferenceResolver;
    const records = await this.ctx.sessionQuery.listSessions(signal);
    // The resolver lists the root's sessions first, then each other agent's (read in place, never live here).
    const foreign = (await resolver.service.listSessions(signal)).filter((header) => resolver.service.sourceOf(header.id) !== OWN_SOURCE);
    const entries = [
      ...records.map((record) => ({ header: record.header, source: OWN_SOURCE, live: record.live, persisted: record.persisted })),
      ...foreign.map((header) => ({ header, source: resolver.service.sourceOf(header.id), live: false, persisted: true })),
    ];
    const titles = await this.latestTitles(
      entries.map((entry) => SessionId(entry.header.id)),
      signal,
    );
    return entries.map(({ header, source, live, persisted }, index) => {
      const result = titles[index];
      const title = result?.status === 'fulfilled' ? result.title : undefined;
      return {
        sessionId: header.id,
        source,
        ...(title === undefined ? {} : { title }),
        ...(header.cwd === undefined ? {} : { cwd: header.cwd }),
        createdAt: header.createdAt,
        live,
        persisted,
        ...(result?.status === 'rejected' ? { readError: result.reason } : {}),
      };
    });
  }

  /**
   * A stamp per session, the root's and the other agents', that changes
   * whenever the session may have (the title index's log revisions and the
   * transcripts' revisions, each kept current by file-system watches; no log
   * or transcript opened): what the inspector's change stream compares.
   */
  async changeStamps(signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    const foreign = await this.ctx.sessionReferenceResolver.service.foreignChangeStamps(signal);
    const own = (await this.ctx.sessionReferenceCatalog?.changeStamps?.(signal)) ?? new Map<string, string>();
    // The root's own sessions win an id both claim, as everywhere else.
    for (const [sessionId, stamp] of own) foreign.set(sessionId, stamp);
    return foreign;
  }

  /** Where `sessionId` is read from: `dsh` for the root's own sessions, else the agent's name. */
  sourceOf(sessionId: string): string {
    return this.ctx.sessionReferenceResolver.service.sourceOf(sessionId);
  }

  /** The agent a session of another agent comes from, by its display name (`Claude Code`); `undefined` for the root's own (dsh) sessions. */
  agentOf(sessionId: string): string | undefined {
    const source = this.sourceOf(sessionId);
    if (source === OWN_SOURCE) return undefined;
    return this.foreignSources.find((found) => found.name === source)?.displayName ?? source;
  }

  /** The other agents' sessions the last listing left out because they cannot be read, each with why. */
  foreignProblems(): { sessionId: string; source: string; error: Error }[] {
    return this.ctx.sessionReferenceResolver.service.foreignProblems();
  }

  /** The other agents' homes left out because they cannot even be checked (a link loop, closed to this user), each with why. */
  get skippedHomes(): readonly { name: string; displayName: string; home: string; message: string }[] {
    return this.ctx.sessionReferenceResolver.service.skippedHomes;
  }

  /** Other agents' sources whose last listing failed as a whole (their sessions were left out of it), each with why. */
  get sourceFailures(): readonly { source: string; reason: unknown }[] {
    return this.ctx.sessionReferenceResolver.service.sourceFailures;
  }

  /** The other agents' homes this engine reads sessions from, in order. */
  get foreignSources(): readonly { name: string; displayName: string; home: string }[] {
    return this.ctx.sessionReferenceResolver.service.foreignSources;
  }

  /** Candidates discovery offers when the caller names no limit. */
  get candidateLimit(): number {
    return this.ctx.sessionReferenceResolver.config.candidateLimit;
  }

  /**
   * Title candidates for a target (a session of the root by its id, or a
   * conversation elsewhere by its id and cwd, such as an MCP client's),
   * ranked as the plugin ranks them, under the configured candidate limit
   * unless `limit` is given: the plugin's Remote `candidates` without the
   * content matches it appends (see {@link search}).
   */
  async candidates(target: string | ReferenceTarget, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    return this.ctx.sessionReferenceResolver.service.candidatesFor(await this.targetOf(target), query, limit, signal);
  }

  /**
   * The context a message of `target` citing `sessionIds` would get, each
   * labelled with its latest title as its mention would be: prepared by the
   * plugin's own core, configuration and reads, exactly as a dsh step's
   * reference (`sessref mcp`'s `ref` prompt).
   */
  async cite(target: ReferenceTarget, sessionIds: readonly string[], signal?: AbortSignal): Promise<PreparedContext> {
    const resolver = this.ctx.sessionReferenceResolver;
    const titles = await resolver.service.titlesOf(sessionIds, signal);
    const references = sessionIds.map((sessionId, index) => {
      const titled = titles[index];
      return titled?.status === 'fulfilled' && titled.title !== undefined ? { sessionId, label: titled.title } : { sessionId };
    });
    const context = await resolver.service.prepareFor(target, references, signal);
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
    return this.ctx.sessionReferenceResolver.service.searchContentFor(target, query, options.limit, options.signal);
  }

  /**
   * Bring the content index up to date (a search does so itself): the
   * caller that wants to show a long first build's progress runs this first.
   */
  refreshSearchIndex(onProgress?: (progress: RefreshProgress) => void, signal?: AbortSignal): Promise<RefreshReport> {
    return this.ctx.sessionReferenceResolver.service.refreshContentIndex(signal, onProgress);
  }

  /**
   * Why a derived file (the listing's kept headers, the title index, the
   * content index) was not used as found, each naming the file, that no
   * earlier call returned: each notice once, for the CLI's stderr or the
   * server's log.
   */
  takeNotices(): string[] {
    const persistence = this.ctx.sessionPersistence;
    const kept = persistence instanceof CheckedJsonlPersistence ? persistence.notices : [];
    const fresh = [...kept, ...this.ctx.sessionReferenceResolver.service.derivedNotices].filter((notice) => !this.noticed.has(notice));
    for (const notice of fresh) this.noticed.add(notice);
    return fresh;
  }

  /** A session's header and the projection a reference to it would carry. */
  async show(sessionId: string): Promise<SessionView> {
    // The plugin's own read and fit, so the view is exactly what a reference would carry.
    const { snapshot, title, fit } = await this.ctx.sessionReferenceResolver.service.snapshotOf(sessionId);
    return {
      header: snapshot.session,
      ...(title === undefined ? {} : { title }),
      capturedThroughSeq: snapshot.capturedThroughSeq,
      surfaceEvents: snapshot.messages.length,
      items: fit.items.map((item) => ({ ...item, bytes: utf8Length(item.text) })),
      reference: fit.retained,
      maxReferenceBytes: this.maxReferenceBytes,
    };
  }

  /** Run a message for `targetId` through the real pre-step path without writing anything. */
  async preview(targetId: string, text: string, signal = new AbortController().signal): Promise<StepPreview> {
    checkMessageText(text);
    const session = await this.detachedSession(targetId);
    return this.step(session, text, signal);
  }

  /**
   * Like {@link preview}, then append the turn to the target's log. The step
   * runs before anything is written, so a failing message changes no log; the
   * append itself is all or nothing, one at a time per session across
   * processes (see {@link appendTurn}). Sources are only ever read.
   */
  async send(targetId: string, text: string, signal = new AbortController().signal): Promise<StepPreview & { appendedSeqs: number[] }> {
    checkMessageText(text);
    const target = await this.detachedSession(targetId);
    const preview = await this.step(target, text, signal);
    signal.throwIfAborted();
    const turn = { root: this.root, header: target.header, messages: preview.messages.map(({ message }) => message), lockWaitMs: this.lockWaitMs, signal };
    const appendedSeqs = await this.oneWriteAtATime(target.id, () => appendTurn(this.ctx, turn));
    return { ...preview, appendedSeqs };
  }

  /** Create and persist a new session (a title makes it durable at once); a failed write leaves nothing behind. */
  async create(options: { cwd?: string; title?: string; id?: string } = {}): Promise<string> {
    const id = SessionId(options.id ?? randomUUID());
    // The core's one rule for a title, checked before anything is prepared: trimmed, at most MAX_TITLE_LENGTH characters, none or blank named untitled.
    const title = checkTitle(options.title) ?? untitled(id);
    const session = this.ctx.sessions.prepare(id, { meta: options.cwd === undefined ? {} : { cwd: options.cwd } });
    session.append('session/title', { title, messageSeqs: [], source: { kind: 'user' } });
    await writeNewSession(this.ctx, this.root, session);
    return id;
  }

  /** Write the demo sessions (see `@sessref/host`'s `seedDemo`); their ids. */
  seedDemo(onProgress?: (done: number, total: number) => void): Promise<string[]> {
    return seedDemo(this.ctx, onProgress);
  }

  /** A session's current surface, read as a reference would read it, and its latest title. */
  async conversation(sessionId: string): Promise<{ surface: SessionSurfaceSnapshot; title: string | undefined }> {
    const id = SessionId(sessionId);
    const [surface, titled] = await Promise.all([this.ctx.sessionQuery.readSurface(id), this.ctx.sessionQuery.readTitleSnapshot(id)]);
    return { surface, title: titled.title?.title };
  }

  /**
   * The log file of each listed session among `sessionIds`, as dsh's JSONL
   * backend lays it out (none on another backend): the host's listing of
   * kept headers, no log read.
   */
  async logPaths(sessionIds: Iterable<string>, signal?: AbortSignal): Promise<Map<string, string>> {
    const persistence = this.ctx.sessionPersistence;
    const paths = new Map<string, string>();
    if (!(persistence instanceof JsonlSessionPersistence)) return paths;
    const wanted = new Set(sessionIds);
    for (const { header } of await this.ctx.sessionQuery.listSessions(signal)) {
      if (wanted.has(header.id)) paths.set(header.id, persistence.locate(header).path);
    }
    return paths;
  }

  /** The logs under the root whose header cannot be read, other than `listed` (see `CheckedJsonlPersistence`). */
  async damagedLogs(listed: ReadonlySet<string>): Promise<SessionLogError[]> {
    const persistence = this.ctx.sessionPersistence;
    return persistence instanceof CheckedJsonlPersistence ? persistence.damagedLogs(listed) : [];
  }

  /** Why the log of `sessionId` cannot be read, when it is there and cannot be. */
  async damageOf(sessionId: string): Promise<SessionLogError | undefined> {
    const persistence = this.ctx.sessionPersistence;
    return persistence instanceof CheckedJsonlPersistence ? persistence.damageOf(sessionId) : undefined;
  }

  /** For suites that write sessions through this engine's own host or check its internals; sessref goes through the methods above. */
  async close(): Promise<void> {
    await this.ctx.fiber.dispose();
  }

  private async step(session: Session, text: string, signal: AbortSignal): Promise<StepPreview> {
    const message = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } });
    const decision = await runDetachedPreStep(this.ctx, session, [message], currentTurn(session), signal);
    const messages = decision.kind === 'enter' ? decision.messages : [];
    return { target: session.id, messages: messages.map(stepMessage), maxReferenceBytes: this.maxReferenceBytes };
  }

  /** A header-only session for read-only steps: nothing is resumed, nothing repaired. */
  private async detachedSession(sessionId: string): Promise<Session> {
    this.assertOwnSession(sessionId);
    const live = this.ctx.sessions.get(SessionId(sessionId));
    if (live) return live;
    const { session: header } = await this.ctx.sessionQuery.readTitleSnapshot(SessionId(sessionId));
    return Session.create(header.id, [], header);
  }

  /** A message is written in the root's own sessions only: another agent's session is read in place, never written. */
  private assertOwnSession(sessionId: string): void {
    const agent = this.agentOf(sessionId);
    if (agent === undefined) return;
    throw new SessionWriteError(
      sessionId,
      'SESSION_WRITE_UNSUPPORTED',
      `this is a ${agent} session, read in place: sessref writes messages only into the root's own dsh sessions`,
      `cite it from a dsh session instead, e.g. sessref send --target <dsh session> "see $(sessref mention ${sessionId})"`,
    );
  }

  /**
   * A target as discovery takes it: one named by its id and cwd as it is;
   * a session of the root by the header a listing gives it (a live session's
   * own, else the one the host keeps): discovery needs only the target's id
   * and cwd, so nothing reads its log. A session the listing leaves out
   * (missing, or its header unreadable) is read after all, for the host's
   * own refusal. No signal: a cancelled query is refused by the resolver
   * itself, as such.
   */
  private async targetOf(target: string | ReferenceTarget): Promise<ReferenceTarget> {
    if (typeof target !== 'string') return target;
    const header = await this.listedHeader(target);
    return header.cwd === undefined ? { id: header.id } : { id: header.id, cwd: header.cwd };
  }

  private async listedHeader(sessionId: string): Promise<SessionHeader> {
    const live = this.ctx.sessions.get(SessionId(sessionId));
    if (live) return live.header;
    const listed = (await this.ctx.sessionQuery.listSessions()).find((record) => record.header.id === sessionId);
    return listed?.header ?? (await this.ctx.sessionQuery.readTitleSnapshot(SessionId(sessionId))).session;
  }

  /**
   * Latest titles of `sessionIds` through the title index, which first catches
   * up with the root (its listing: a stat walk, or only what file events
   * named). The index keeps only that a log is unreadable, so those few are
   * read again for the host's own reason.
   */
  private async latestTitles(sessionIds: readonly SessionId[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    const indexed = await this.ctx.sessionReferenceResolver.service.titlesOf(sessionIds, signal);
    const failed = indexed.filter((result) => result.status === 'rejected').map((result) => SessionId(result.sessionId));
    if (failed.length === 0) return [...indexed];
    const reread = new Map((await this.ctx.sessionQuery.readTitleSnapshots(failed, signal)).map((result) => [result.sessionId as string, result]));
    return indexed.map((result): TitleReadResult => {
      const again = reread.get(result.sessionId);
      if (again === undefined) return result;
      return again.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: again.value.title?.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: again.reason };
    });
  }

  /** Run `write` after every earlier write to the same session in this process; the session lock orders processes. */
  private oneWriteAtATime<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    const queued = (this.writes.get(sessionId) ?? Promise.resolve()).then(write, write);
    const settled = queued.then(
      () => undefined,
      () => undefined,
    );
    this.writes.set(sessionId, settled);
    void settled.then(() => {
      if (this.writes.get(sessionId) === settled) this.writes.delete(sessionId);
    });
    return queued;
  }
}

/** A step's message with the plugin's own record of it, when it is a context message the plugin built. */
function stepMessage(message: UserMessage): StepMessage {
  const prepared = preparedContextOf(message);
  return prepared === undefined ? { message } : { message, prepared };
}
