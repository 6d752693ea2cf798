import { randomUUID } from 'node:crypto';
import type { Context } from '@deepseek-ai/cordis';
import { createUserMessage, type UserMessage } from '@deepseek-ai/dsh-llm';
import { Session, SessionId, type SessionHeader } from '@deepseek-ai/dsh-session';
import type { Agent } from '@deepseek-ai/dsh-agent';
import type {} from '@deepseek-ai/dsh-session-title';
import {
  fitSnapshot,
  formatSessionReferenceMention,
  utf8Length,
  type PreparedContext,
  type PreparedSource,
  type ProjectedItem,
  type RetainedReference,
  type SessionReferenceContentHit,
  type SessionReferenceMentionCandidate,
} from '@sessref/core';
import { preparedContextOf, toSurfaceMessage, type Config as ResolverConfig } from '@sessref/dsh';
import { bootHost, runPreStep } from '@sessref/host';
import { defaultIndexFile, defaultSearchIndexFile } from '@sessref/dsh/title-index';
import { appendTurn, createSession, nextTurn } from './session-writes.js';

/** A session as listings show it. */
export interface SessionSummary {
  sessionId: string;
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
  header: SessionHeader;
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
  /** The derived full-text index file; defaults to the per-root file beside the title index. */
  searchIndexFile?: string;
  /** How long `send` waits for another sessref process writing the same session; default {@link DEFAULT_LOCK_WAIT_MS}. */
  lockWaitMs?: number;
}

export const DEFAULT_LOCK_WAIT_MS = 10_000;

/** sessref's operations over one session root, on the real dsh host. */
export class Engine {
  /** The last write queued for each session: this process appends to one session at a time. */
  private readonly writes = new Map<string, Promise<unknown>>();

  private constructor(
    readonly ctx: Context,
    readonly root: string,
    private readonly lockWaitMs: number,
  ) {}

  static async open(options: EngineOptions): Promise<Engine> {
    const indexFile = options.indexFile ?? defaultIndexFile(options.root);
    const searchIndexFile = options.searchIndexFile ?? defaultSearchIndexFile(options.root);
    return new Engine(await bootHost({ ...options, indexFile, searchIndexFile }), options.root, options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS);
  }

  get maxReferenceBytes(): number {
    return this.ctx.sessionReferenceResolver.config.maxReferenceBytes;
  }

  /** Every session with its latest title; a failed title read leaves it out and records why. */
  async sessions(signal?: AbortSignal): Promise<SessionSummary[]> {
    const records = await this.ctx.sessionQuery.listSessions(signal);
    const titles = await this.ctx.sessionQuery.readTitleSnapshots(
      records.map((record) => record.header.id),
      signal,
    );
    return records.map((record, index) => {
      const result = titles[index];
      const title = result?.status === 'fulfilled' ? result.value.title?.title : undefined;
      return {
        sessionId: record.header.id,
        ...(title === undefined ? {} : { title }),
        ...(record.header.cwd === undefined ? {} : { cwd: record.header.cwd }),
        createdAt: record.header.createdAt,
        live: record.live,
        persisted: record.persisted,
        ...(result?.status === 'rejected' ? { readError: result.reason } : {}),
      };
    });
  }

  /**
   * Title candidates for a target, ranked as the plugin ranks them, under the
   * configured candidate limit unless `limit` is given: the plugin's Remote
   * `candidates` without the content matches it appends (see {@link search}).
   */
  async candidates(targetId: string, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    const resolver = this.ctx.sessionReferenceResolver;
    const agent = await this.detachedAgent(targetId);
    const candidates = await resolver.listCandidates(agent, query, limit ?? resolver.config.candidateLimit, signal);
    return candidates.map((candidate) => ({ ...candidate, mention: formatSessionReferenceMention(candidate) }));
  }

  /**
   * Sessions whose conversation, as a reference would carry it, contains
   * `query` (a literal phrase), by relevance, through the plugin's content
   * search on dsh's SQLite FTS5 backend; the target's own session is left out.
   */
  async search(query: string, options: { target?: string; limit?: number; signal?: AbortSignal } = {}): Promise<SessionReferenceContentHit[]> {
    const agent = options.target === undefined ? undefined : await this.detachedAgent(options.target);
    return this.ctx.sessionReferenceResolver.searchContent(agent, query, options.limit, options.signal);
  }

  /** A session's header and the projection a reference to it would carry. */
  async show(sessionId: string): Promise<SessionView> {
    const id = SessionId(sessionId);
    const [surface, titled] = await Promise.all([this.ctx.sessionQuery.readSurface(id), this.ctx.sessionQuery.readTitleSnapshot(id)]);
    const title = titled.title?.title;
    const snapshot = { session: surface.session, capturedThroughSeq: surface.capturedThroughSeq, messages: surface.events.map(toSurfaceMessage) };
    // The same step prepare() runs, so the view is exactly what a reference would carry.
    const { items, retained } = fitSnapshot({ sessionId, label: title ?? sessionId }, snapshot, this.maxReferenceBytes);
    return {
      header: surface.session,
      ...(title === undefined ? {} : { title }),
      capturedThroughSeq: surface.capturedThroughSeq,
      surfaceEvents: surface.events.length,
      items: items.map((item) => ({ ...item, bytes: utf8Length(item.text) })),
      reference: retained,
      maxReferenceBytes: this.maxReferenceBytes,
    };
  }

  /** Run a message for `targetId` through the real pre-step path without writing anything. */
  async preview(targetId: string, text: string, signal = new AbortController().signal): Promise<StepPreview> {
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
    const session = this.ctx.sessions.prepare(id, { meta: options.cwd === undefined ? {} : { cwd: options.cwd } });
    session.append('session/title', { title: options.title ?? `Untitled ${id.slice(0, 8)}`, messageSeqs: [], source: { kind: 'user' } });
    await createSession(this.ctx, this.root, session);
    return id;
  }

  async close(): Promise<void> {
    await this.ctx.fiber.dispose();
  }

  private async step(session: Session, text: string, signal: AbortSignal): Promise<StepPreview> {
    const message = createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'user' } });
    const decision = await runPreStep(this.ctx, session, [message], nextTurn(session.events), signal);
    const messages = decision.kind === 'enter' ? decision.messages : [];
    return { target: session.id, messages: messages.map(stepMessage), maxReferenceBytes: this.maxReferenceBytes };
  }

  /** A header-only session for read-only steps: nothing is resumed, nothing repaired. */
  private async detachedSession(sessionId: string): Promise<Session> {
    const live = this.ctx.sessions.get(SessionId(sessionId));
    if (live) return live;
    const { session: header } = await this.ctx.sessionQuery.readTitleSnapshot(SessionId(sessionId));
    return Session.create(header.id, [], header);
  }

  /** Discovery reads only the target's id and cwd, so a header-only handle is enough. */
  private async detachedAgent(sessionId: string): Promise<Agent> {
    const session = await this.detachedSession(sessionId);
    return { id: session.id, session } as Agent;
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
