/**
 * Discovery's order: what the `@` picker and a host's listings offer for a
 * query, the host's own sessions always before the other agents', title
 * matches before content matches.
 */
import {
  createSessionReferenceCore,
  type CandidateShape,
  type CombinedStorage,
  type ReferenceTarget,
  type SessionReferenceCandidate,
  type SessionReferenceContentHit,
  type SessionReferenceCore,
  type SessionReferenceMentionCandidate,
} from '@sessref/core';
import { toCandidate, withMention } from '@sessref/core/internal';
import type { Config } from './config.js';
import type { HostContract } from './contract.js';
import { OWN_SOURCE, type AssembledStorage } from './foreign.js';

/** The content hits a menu adds after `titled` title matches (see `ReferenceService.menuCandidates`). */
type ContentMatches = (target: ReferenceTarget, query: string, titled: number, signal: AbortSignal) => Promise<SessionReferenceContentHit[]>;

/** The candidates of one service (see `ReferenceService.rankedCandidates`, `menuCandidates`). */
export class Discovery {
  /** With other agents' sources: a core over the host's sessions and one over theirs, ranked apart. */
  private readonly groups: { own: SessionReferenceCore; foreign: SessionReferenceCore } | undefined;
  private readonly storage: CombinedStorage;

  constructor(
    /** The core over every source, which ranks when there are no others. */
    private readonly core: SessionReferenceCore,
    assembled: AssembledStorage,
    config: Config,
    private readonly contract: HostContract,
    private readonly contentMatches: ContentMatches,
  ) {
    const coreOptions = coreOptionsFor(contract);
    this.groups = assembled.groups && {
      own: createSessionReferenceCore(assembled.groups.own, config, coreOptions),
      foreign: createSessionReferenceCore(assembled.groups.foreign, config, coreOptions),
    };
    this.storage = assembled.storage;
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
  async ranked(target: ReferenceTarget, query: string | undefined, limit: number, signal?: AbortSignal): Promise<{ own: SessionReferenceCandidate[]; foreign: SessionReferenceCandidate[] }> {
    if (this.groups === undefined) return { own: await this.core.listCandidates(target, query, limit, signal), foreign: [] };
    const own = await this.groups.own.listCandidates(target, query, limit, signal);
    if (own.length >= limit) return { own, foreign: [] };
    return { own, foreign: await this.groups.foreign.listCandidates(target, query, limit - own.length, signal) };
  }

  /**
   * What an `@` menu offers for `query` under the configured limit, each
   * with its canonical mention: the title matches, then the content matches
   * (see `ReferenceService.menuCandidates`), without repeating them. The
   * host's sessions come first (title, then content matches), then the other
   * agents' (title, then content matches).
   */
  async menu(target: ReferenceTarget, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]> {
    const limit = this.core.config.candidateLimit;
    const titled = await this.ranked(target, query, limit, signal);
    const hits = await this.contentMatches(target, query, titled.own.length + titled.foreign.length, signal);
    const ownHits = hits.filter((hit) => this.storage.sourceOf(hit.sessionId) === OWN_SOURCE);
    const foreignHits = hits.filter((hit) => !ownHits.includes(hit));
    const shape = coreOptionsFor(this.contract).candidateShape;
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
}

/** The core's options under `contract`: the 0.1.7 contract's candidates carry the workspace fields. */
export function coreOptionsFor(contract: HostContract): { candidateShape: CandidateShape } {
  return { candidateShape: contract === '0.1.7' ? 'workspace' : 'rc.8' };
}
