/**
 * What an engine does through a real dsh host: run a step through the
 * plugin's `agent/pre-step`, write sessions, and read what only dsh's own
 * read answers exactly (a surface, a title snapshot). Loaded with the host,
 * the first time an engine needs one: a command that only lists or searches
 * a root never loads dsh's runtime.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from '@deepseek-ai/cordis';
import { createUserMessage } from '@deepseek-ai/dsh-llm';
import { Session, SessionId, type SessionHeader } from '@deepseek-ai/dsh-session';
import type { SessionSurfaceSnapshot } from '@deepseek-ai/dsh-session-query';
import type {} from '@deepseek-ai/dsh-session-title';
import type { SessionHeaderLike, SurfaceSnapshot, TitleReadResult } from '@sessref/core';
import { surfaceThrough, type Config as ResolverConfig, type ReferenceService, type SessionReferenceCatalog } from '@sessref/dsh';
import { hostTitleReads, type TitleReads } from '@sessref/dsh/title-index';
import { CheckedJsonlPersistence, ListedJsonlPersistence, bootStepHost, currentTurn, runDetachedPreStep, seedDemo } from '@sessref/host';
import type { KeptHeaders, RootLogs } from '@sessref/dsh/reading';
import { checkTitle, untitled } from '../session-input.js';
import { stepMessage, type StepMessage } from './own-step.js';
import { appendTurn, writeNewSession } from './session-writes.js';

/** A dsh host an engine reads, steps and writes through. */
export class HostSide {
  constructor(readonly ctx: Context) {}

  /** The host's own reads, for an engine over a host a test booted whole (title index and all): its plugin's service and catalog. */
  get service(): ReferenceService {
    return this.ctx.sessionReferenceResolver.service;
  }

  get catalog(): SessionReferenceCatalog | undefined {
    return this.ctx.sessionReferenceCatalog;
  }

  /** sessref's reads of the root behind the host's strict persistence, when it has one. */
  get logs(): RootLogs | undefined {
    const persistence = this.ctx.sessionPersistence;
    return persistence instanceof CheckedJsonlPersistence ? persistence.logs : undefined;
  }

  get kept(): KeptHeaders | undefined {
    const persistence = this.ctx.sessionPersistence;
    return persistence instanceof ListedJsonlPersistence ? persistence.kept : undefined;
  }

  /** The root's sessions as `ctx.sessionQuery` lists them, live ones marked. */
  async sessions(signal?: AbortSignal): Promise<{ header: SessionHeaderLike; live: boolean; persisted: boolean }[]> {
    return (await this.ctx.sessionQuery.listSessions(signal)).map(({ header, live, persisted }) => ({ header, live, persisted }));
  }

  /** Boot the host for an engine that reads `kept`'s root with sessref's own reads and answers through `service`. */
  static async boot(kept: KeptHeaders, service: ReferenceService, resolver: ResolverConfig): Promise<HostSide> {
    return new HostSide(await bootStepHost(kept, service, resolver));
  }

  /** The session's current surface as a reference reads it (`ctx.sessionQuery.readSurface`). */
  surface(sessionId: string): Promise<SurfaceSnapshot> {
    return surfaceThrough(this.ctx.sessionQuery, sessionId);
  }

  /** The host's reads for a title catalog: its live sessions, title snapshots and listing. */
  titleReads(): TitleReads {
    return hostTitleReads(this.ctx);
  }

  /** The sessions of this process's store, by id (a session `new` created is live until the process ends). */
  live(sessionId: string): SessionHeader | undefined {
    return this.ctx.sessions.get(SessionId(sessionId))?.header;
  }

  /** The session's header as the host reads it: its refusal when it cannot. */
  async header(sessionId: string): Promise<SessionHeader> {
    return this.live(sessionId) ?? (await this.ctx.sessionQuery.readTitleSnapshot(SessionId(sessionId))).session;
  }

  /** The latest titles of `sessionIds` as the host reads them, failures per id. */
  async titles(sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    return (await this.titleReads().read(sessionIds, signal)).map((result) =>
      result.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: result.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
    );
  }

  /** A session's current surface, read as a reference would read it, and its latest title. */
  async conversation(sessionId: string): Promise<{ surface: SessionSurfaceSnapshot; title: string | undefined }> {
    const id = SessionId(sessionId);
    const [surface, titled] = await Promise.all([this.ctx.sessionQuery.readSurface(id), this.ctx.sessionQuery.readTitleSnapshot(id)]);
    return { surface, title: titled.title?.title };
  }

  /** Run `text` for the session through the real pre-step path, writing nothing: the messages as they would enter history. */
  async step(sessionId: string, text: string, signal: AbortSignal): Promise<{ session: Session; messages: StepMessage[] }> {
    const session = await this.detachedSession(sessionId);
    const message = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } });
    const decision = await runDetachedPreStep(this.ctx, session, [message], currentTurn(session), signal);
    const messages = decision.kind === 'enter' ? decision.messages : [];
    return { session, messages: messages.map(stepMessage) };
  }

  /** Append a step's messages to the session's log, all or nothing (see {@link appendTurn}); their seqs. */
  append(root: string, header: SessionHeader, messages: readonly StepMessage[], lockWaitMs: number, signal: AbortSignal): Promise<number[]> {
    return appendTurn(this.ctx, { root, header, messages: messages.map(({ message }) => message), lockWaitMs, signal });
  }

  /** Create and persist a new session (a title makes it durable at once); a failed write leaves nothing behind. */
  async create(root: string, options: { cwd?: string; title?: string; id?: string }): Promise<string> {
    const id = SessionId(options.id ?? randomUUID());
    // The core's one rule for a title, checked before anything is prepared: trimmed, at most MAX_TITLE_LENGTH characters, none or blank named untitled.
    const title = checkTitle(options.title) ?? untitled(id);
    const session = this.ctx.sessions.prepare(id, { meta: options.cwd === undefined ? {} : { cwd: options.cwd } });
    session.append('session/title', { title, messageSeqs: [], source: { kind: 'user' } });
    await writeNewSession(this.ctx, root, session);
    return id;
  }

  /** Write the demo sessions (see `@sessref/host`'s `seedDemo`); their ids. */
  seedDemo(onProgress?: (done: number, total: number) => void): Promise<string[]> {
    return seedDemo(this.ctx, onProgress);
  }

  dispose(): Promise<void> {
    return this.ctx.fiber.dispose();
  }

  /** A header-only session for read-only steps: nothing is resumed, nothing repaired. */
  private async detachedSession(sessionId: string): Promise<Session> {
    const live = this.ctx.sessions.get(SessionId(sessionId));
    if (live) return live;
    const { session: header } = await this.ctx.sessionQuery.readTitleSnapshot(SessionId(sessionId));
    return Session.create(header.id, [], header);
  }
}
