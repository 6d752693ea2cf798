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
  createSessionReferenceResolver,
  type SessionReferenceCandidate,
  type SessionReferenceInput,
  type SessionReferenceMentionCandidate,
  type SessionReferenceResolver as CoreResolver,
} from '@sessref/core';
import { Config } from './config.js';
import { contextMessage, expandStepMessages, targetOf } from './messages.js';
import { sessionQueryStorage } from './storage.js';
import type { SessionReferenceCatalog } from './catalog.js';
import type { PreparedReferencedMessage } from './types.js';

export type * from './types.js';
export { Config } from './config.js';
export { sessionQueryStorage, toSurfaceMessage } from './storage.js';
export type { SessionReferenceCatalog } from './catalog.js';

export { contextMessage, expandStepMessages } from './messages.js';
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

  private readonly core: CoreResolver;

  constructor(ctx: Context, config: Config = {}) {
    // Validate first: an invalid configuration must never publish the service.
    const core = createSessionReferenceResolver(
      sessionQueryStorage(
        () => ctx.sessionQuery,
        () => ctx.get('sessionReferenceCatalog'),
      ),
      config,
    );
    super(ctx, 'sessionReferenceResolver');
    this.core = core;
    // Prepended, so this listener is the outermost: it sees the decision the
    // rest of the chain returns and post-processes only an entered step.
    ctx.on(
      'agent/pre-step',
      async ({ agent, signal }, next): Promise<PreStepDecision> => {
        const decision = await next();
        if (decision.kind !== 'enter') return decision;
        // Keep whatever else the decision carries: later hosts may add fields.
        return { ...decision, messages: await expandStepMessages(this.core, agent, decision.messages, signal) };
      },
      true,
    );
  }

  /** Configured candidate limit, distinct-source cap and snapshot budget. */
  get config(): CoreResolver['config'] {
    return this.core.config;
  }

  /**
   * Sessions other than `agent`, ranked same cwd, no cwd, other cwd; labels
   * are latest titles, falling back to ids.
   */
  listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]> {
    return this.core.listCandidates(targetOf(agent), query, limit, signal);
  }

  /** Remote face of {@link listCandidates}: configured limit, canonical mention attached. */
  @Remote('candidates')
  remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    return this.core.listMentionCandidates(targetOf(agent), query, signal);
  }

  /** Snapshot every distinct reference of one message into zero or one context. */
  async prepare(
    agent: Agent,
    content: ContentBlock[],
    references: SessionReferenceInput[],
    signal?: AbortSignal,
  ): Promise<PreparedReferencedMessage> {
    const prepared = await this.core.prepare(targetOf(agent), content, references, signal);
    return prepared.context ? { content: prepared.content, additionalContext: contextMessage(prepared.context) } : { content: prepared.content };
  }
}

export default SessionReferenceResolver;
