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
  resolveReferenceContextFraction,
  type PrepareOptions,
  type SessionReferenceCandidate,
  type SessionReferenceContentHit,
  type SessionReferenceInput,
  type SessionReferenceMentionCandidate,
  type SessionReferenceCore,
} from '@sessref/core';
import { Config } from './config.js';
import { resolveHostContract, type HostContract } from './contract.js';
import { projectedTitles } from './labels.js';
import { contextMessage, expandStepMessages, targetOf } from './messages.js';
import { modelBudget } from './model-budget.js';
import { spillStoreOf } from './spill.js';
import { ReferenceService } from './service.js';
import { sessionQueryStorage } from './storage.js';
import type { SessionReferenceCatalog } from './catalog.js';
import type { PreparedReferencedMessage } from './types.js';

export type * from './types.js';
export { Config, configSchema } from './config.js';
export { contractOfVersion, linkedContract, type HostContract } from './contract.js';
export { sessionQueryStorage, surfaceThrough } from './storage.js';
export { toSurfaceMessage } from './surface-message.js';
export type { SessionReferenceCatalog } from './catalog.js';
export { OWN_SOURCE } from './foreign.js';
export { ReferenceService, type ServiceParts } from './service.js';

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

/**
 * Exact-read snapshots of other sessions as sourced, untrusted model context:
 * the {@link ReferenceService} over `ctx.sessionQuery` (and the title index
 * when the host mounted one), behind dsh's faces: the Remote `candidates`
 * and `search` methods, and the `agent/pre-step` listener that expands
 * mentions.
 */
export class SessionReferenceResolver extends TypertRemoteService {
  static inject = ['sessionQuery'];
  static Config = Config;

  /** The service every face of this plugin answers through. */
  readonly service: ReferenceService;
  /** The 0.1.7 contract's model-relative budget share; `undefined` when an explicit `maxReferenceBytes` wins. */
  private readonly fraction: number | undefined;

  constructor(ctx: Context, config: Config = {}) {
    // Validate first: an invalid configuration must never publish the service.
    const fraction = resolveReferenceContextFraction(config.referenceContextFraction);
    const shared = new.target.sharedService;
    const service = shared ?? serviceOver(ctx, config);
    super(ctx, 'sessionReferenceResolver');
    this.service = service;
    this.fraction = config.maxReferenceBytes === undefined ? fraction : undefined;
    // A home that cannot even be checked is left out without failing the others: said once, naming the folder.
    // At `info`: cordis ranks `warn` below it (error 0, info 1, warn 2) and shows only level 1 by default.
    for (const { message } of service.skippedHomes) ctx.logger('sessref').info(message);
    // A shared service is its owner's to close.
    if (shared === undefined) ctx.effect(() => () => service.close(), "close the content index and stop watching other agents' folders");
    // Prepended, so this listener is the outermost: it sees the decision the
    // rest of the chain returns and post-processes only an entered step.
    ctx.on(
      'agent/pre-step',
      async ({ agent, signal }, next): Promise<PreStepDecision> => {
        const decision = await next();
        if (decision.kind !== 'enter') return decision;
        // Keep whatever else the decision carries: later hosts may add fields.
        const messages = await expandStepMessages(service.core, targetOf(agent), decision.messages, signal, this.prepareOptions(agent), service.excerpts);
        return { ...decision, messages };
      },
      true,
    );
  }

  /** The service a plugin made by {@link over} answers through; unset, each plugin builds its own over `ctx.sessionQuery`. */
  protected static sharedService: ReferenceService | undefined;

  /**
   * This plugin over a service its host already keeps (a process that reads
   * a root with sessref's own reads and boots a dsh host only for its steps):
   * the steps' mentions are expanded by the very service that lists, titles
   * and routes the sessions, so a session another agent keeps is cited as
   * the listing found it. The service's owner closes it.
   */
  static over(service: ReferenceService): typeof SessionReferenceResolver {
    return class SharedReferenceResolver extends SessionReferenceResolver {
      protected static override sharedService = service;
    };
  }

  private prepareOptions(agent: Agent): PrepareOptions {
    return this.service.prepareOptions(contractOptions(this.ctx, this.service.hostContract, this.fraction, agent));
  }

  /** Configured candidate limit, distinct-source cap and snapshot budget. */
  get config(): SessionReferenceCore['config'] {
    return this.service.config;
  }

  /** The session-reference contract this resolver answers in (the `hostContract` key, else the linked dsh release's). */
  get hostContract(): HostContract {
    return this.service.hostContract;
  }

  /**
   * Sessions other than `agent`, ranked same cwd, no cwd, other cwd; labels
   * are latest titles, falling back to ids. The host's sessions come first;
   * the other agents' (the `sources` key) follow, ranked the same way among
   * themselves (see `ReferenceService.rankedCandidates`).
   */
  async listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]> {
    const { own, foreign } = await this.service.rankedCandidates(targetOf(agent), query, limit, signal);
    return [...own, ...foreign];
  }

  /**
   * Remote face of {@link listCandidates}: configured limit, canonical mention
   * attached, and with `contentSearch` on, sessions whose conversation
   * matches after the title matches (see `ReferenceService.menuCandidates`).
   */
  @Remote('candidates')
  remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    return this.service.menuCandidates(targetOf(agent), query, signal);
  }

  /**
   * Sessions other than `agent`'s (all of them when `agent` is undefined)
   * whose conversation, as a snapshot would carry it, contains `query` (see
   * `ReferenceService.searchContentFor`).
   */
  searchContent(agent: Agent | undefined, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceContentHit[]> {
    return this.service.searchContentFor(agent && targetOf(agent), query, limit, signal);
  }

  /** Remote face of {@link searchContent} under the configured candidate limit. */
  @Remote('search')
  remoteExportSearch(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceContentHit[]> {
    return this.searchContent(agent, query, undefined, signal);
  }

  /** Snapshot every distinct reference of one message into zero or one context. */
  async prepare(
    agent: Agent,
    content: ContentBlock[],
    references: SessionReferenceInput[],
    signal?: AbortSignal,
  ): Promise<PreparedReferencedMessage> {
    const prepared = await this.service.core.prepare(targetOf(agent), content, references, signal, this.prepareOptions(agent));
    return prepared.context ? { content: prepared.content, additionalContext: contextMessage(prepared.context) } : { content: prepared.content };
  }
}

/** The service a plugin answers through by default: over `ctx.sessionQuery`, and the title index when the host mounted one. */
function serviceOver(ctx: Context, config: Config): ReferenceService {
  const contract = resolveHostContract(config.hostContract);
  const catalog = () => ctx.get('sessionReferenceCatalog');
  const own = sessionQueryStorage(() => ctx.sessionQuery, catalog, contract === '0.1.7' ? (header) => projectedTitles(ctx, header) : undefined);
  return new ReferenceService({ own, catalog, config, contract });
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

export default SessionReferenceResolver;
