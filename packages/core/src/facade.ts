import { resolveConfig, type ResolvedSessionReferenceConfig, type SessionReferenceConfig } from './config.js';
import { checkCandidateLimit, listCandidates, type CandidateShape } from './discovery.js';
import { checkReferences, prepareReferences, type PrepareOptions } from './prepare.js';
import type {
  ContentBlockLike,
  PreparedReferences,
  ReferenceTarget,
  SessionReferenceCandidate,
  SessionReferenceInput,
  SessionReferenceMentionCandidate,
  SessionReferenceStorage,
} from './types.js';
import { formatSessionReferenceMention } from './uri.js';

/**
 * The core's facade: discovery and preparation over one storage port. A host
 * adapter (such as `@sessref/dsh`'s `SessionReferenceResolver` service) wraps
 * one and adds its own host's types.
 */
export interface SessionReferenceCore {
  readonly config: ResolvedSessionReferenceConfig;
  /** Candidates other than `target`, ranked by cwd affinity; `limit` defaults to the configured candidate limit. */
  listCandidates(target: ReferenceTarget, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]>;
  /** {@link listCandidates} under the configured limit, each with its canonical mention. */
  listMentionCandidates(target: ReferenceTarget, query?: string, signal?: AbortSignal): Promise<SessionReferenceMentionCandidate[]>;
  /**
   * Reject references the way {@link prepare} does before reading anything:
   * invalid, self-referencing or too many, then cancelled when there is
   * something to read. Lets a host validate a whole batch before any read.
   */
  checkReferences(target: ReferenceTarget, references: readonly SessionReferenceInput[], signal?: AbortSignal): void;
  /** Detached content plus zero or one context holding every distinct source; `options` add the 0.1.7 / 0.2 contract's parts. */
  prepare<Block extends ContentBlockLike>(
    target: ReferenceTarget,
    content: readonly Block[],
    references: readonly SessionReferenceInput[],
    signal?: AbortSignal,
    options?: PrepareOptions,
  ): Promise<PreparedReferences<Block>>;
}

/** How a host's clients want discovery answered. */
export interface CoreOptions {
  /** The candidates' shape (default `'rc.8'`). */
  candidateShape?: CandidateShape;
}

/**
 * Build the facade. Configuration is validated here, so an invalid one fails
 * with `SESSION_REFERENCE_INVALID_CONFIG` before anything can use it.
 */
export function createSessionReferenceCore(storage: SessionReferenceStorage, config?: SessionReferenceConfig, options: CoreOptions = {}): SessionReferenceCore {
  const resolved = resolveConfig(config);
  const shape = options.candidateShape ?? 'rc.8';
  const core: SessionReferenceCore = {
    config: resolved,
    listCandidates: async (target, query = '', limit = resolved.candidateLimit, signal) =>
      listCandidates(storage, { target, query: String(query), limit: checkCandidateLimit(limit), signal, shape }),
    listMentionCandidates: async (target, query = '', signal) => {
      const candidates = await core.listCandidates(target, query, resolved.candidateLimit, signal);
      return candidates.map(withMention);
    },
    checkReferences: (target, references, signal) => void checkReferences(resolved, target, references, signal),
    prepare: (target, content, references, signal, prepareOptions) => prepareReferences(storage, resolved, target, content, references, signal, prepareOptions),
  };
  return core;
}

/** A candidate with the canonical mention a composer inserts for it, labelled as a picker shows it (`displayTitle ?? label`). */
export function withMention(candidate: SessionReferenceCandidate): SessionReferenceMentionCandidate {
  return { ...candidate, mention: formatSessionReferenceMention({ sessionId: candidate.sessionId, label: candidate.displayTitle ?? candidate.label }) };
}
