import type { SessionHeaderLike, SessionReferenceStorage, SurfaceSnapshot, TitleReadResult } from './types.js';

/**
 * A place sessions live: one agent's session store on this machine (a dsh
 * root, Claude Code's projects folder, …), read in place and never written.
 * The core reads through a {@link SessionReferenceStorage}; a host assembles
 * one from its sources with {@link combineSources}.
 */
export interface SessionSource extends SessionReferenceStorage {
  /** Stable provenance name, as listings and source entries record it: `dsh`, `claude-code`, `codex`, … */
  readonly name: string;
  /**
   * Whether `sessionId` is spelled as one of this source's ids (for a
   * foreign source, its `<name>:` prefix). Routing only: the host's own
   * sessions win over a foreign id of the same spelling.
   */
  owns(sessionId: string): boolean;
  /**
   * A cheap stamp per listed session that changes whenever what a snapshot
   * of it carries may have changed (file identity, size and times): what
   * derived indexes decide re-reads by. Never opens a session's content.
   */
  changeStamps(signal?: AbortSignal): Promise<ReadonlyMap<string, string>>;
}

/** A foreign source whose listing failed: the others still answer. */
export interface SourceFailure {
  source: string;
  reason: unknown;
}

/** One storage port over a host's own sessions and any number of foreign sources. */
export interface CombinedStorage extends SessionReferenceStorage {
  /** The name of the source `sessionId` is read from: `primaryName` unless a foreign source owns it. */
  sourceOf(sessionId: string): string;
  /**
   * The foreign sources' sessions alone, listed beside `primaryIds` (the
   * host's, known without listing it again), which win an id both claim:
   * what {@link SessionReferenceStorage.listSessions} appends to the host's.
   */
  listForeign(primaryIds: ReadonlySet<string>, signal?: AbortSignal): Promise<readonly SessionHeaderLike[]>;
}

export interface CombineOptions {
  /** The provenance name of the host's own sessions; default `dsh`. */
  primaryName?: string;
  /** Called for each foreign source whose listing failed; that source lists nothing this time. */
  onFailure?: (failure: SourceFailure) => void;
}

/**
 * The storage a host's core reads through: its own sessions first (`primary`,
 * whose failures are the host's and propagate), then each foreign source's,
 * in the order given. A foreign source that fails to list is left out of
 * that listing and reported, never failing the rest. Reads go to the source
 * that owns the id; an id the primary listed last stays the primary's, so a
 * host session always wins over a foreign one spelled the same.
 */
export function combineSources(primary: SessionReferenceStorage, foreign: readonly SessionSource[], options: CombineOptions = {}): CombinedStorage {
  const primaryName = options.primaryName ?? 'dsh';
  let primaryIds: ReadonlySet<string> = new Set();
  // A plain loop: a listing routes each of its sessions a few times, and a callback per call is an allocation per call.
  const route = (sessionId: string): SessionSource | undefined => {
    if (primaryIds.has(sessionId)) return undefined;
    for (let at = 0; at < foreign.length; at++) if (foreign[at]!.owns(sessionId)) return foreign[at];
    return undefined;
  };
  const storageOf = (sessionId: string): SessionReferenceStorage => route(sessionId) ?? primary;
  const listForeign: CombinedStorage['listForeign'] = async (ids, signal) => {
    primaryIds = ids;
    const listings = await Promise.all(foreign.map((source) => listIsolated(source, signal, options.onFailure)));
    const seen = new Set(ids);
    const listed: SessionHeaderLike[] = [];
    // forEach, not for…of: a listing passes every session of every source through here, cold.
    listings.forEach((headers) =>
      headers.forEach((header) => {
        if (seen.has(header.id)) return;
        seen.add(header.id);
        listed.push(header);
      }),
    );
    return listed;
  };

  return {
    sourceOf: (sessionId) => route(sessionId)?.name ?? primaryName,

    async listSessions(signal) {
      const own = await primary.listSessions(signal);
      return [...own, ...(await listForeign(new Set(own.map((header) => header.id)), signal))];
    },

    listForeign,

    async readTitles(sessionIds, signal) {
      // Each id is appended to its storage's group in place: copying a group per id made a listing of n ids cost n² (#37).
      const groups = new Map<SessionReferenceStorage, string[]>();
      new Set(sessionIds).forEach((id) => {
        const storage = storageOf(id);
        const group = groups.get(storage);
        if (group === undefined) groups.set(storage, [id]);
        else group.push(id);
      });
      const results = new Map<string, TitleReadResult>();
      await Promise.all(
        [...groups].map(async ([storage, ids]) => {
          (await storage.readTitles(ids, signal)).forEach((result) => results.set(result.sessionId, result));
        }),
      );
      return sessionIds.map((id) => results.get(id) ?? { sessionId: id, status: 'rejected', reason: new Error(`no title was read for "${id}"`) });
    },

    readSurface(sessionId, signal): Promise<SurfaceSnapshot> {
      return storageOf(sessionId).readSurface(sessionId, signal);
    },
  };
}

async function listIsolated(source: SessionSource, signal: AbortSignal | undefined, onFailure: CombineOptions['onFailure']): Promise<readonly SessionHeaderLike[]> {
  try {
    return await source.listSessions(signal);
  } catch (reason) {
    if (signal?.aborted) throw reason;
    onFailure?.({ source: source.name, reason });
    return [];
  }
}
