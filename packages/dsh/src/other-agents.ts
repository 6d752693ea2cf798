/**
 * What a service tells of the other agents' sources it reads beside the
 * host's sessions (their homes on this machine and the mirrors of other
 * machines): which are read, which were skipped or failed and why, the
 * stamps their watches keep, and the closing of those watches.
 */
import type { SourceFailure } from '@sessref/core';
import type { AssembledStorage } from './foreign.js';

/** The other agents' sources of one service (see the `ReferenceService` members of the same names). */
export class OtherAgents {
  /** {@link sources}, made once: the sources are fixed when the storage is assembled, and a listing asks for them once per session (its agent, its host). */
  private described: readonly { name: string; displayName: string; home: string; host?: string }[] | undefined;

  constructor(private readonly assembled: AssembledStorage) {}

  /** The sources read, in order; a mirror of another machine's names its `host`. */
  sources(): readonly { name: string; displayName: string; home: string; host?: string }[] {
    return (this.described ??= this.assembled.foreign.map(({ name, displayName, home, host }) => ({ name, displayName, home, ...(host === undefined ? {} : { host }) })));
  }

  /** The homes left out because they cannot even be checked, each with why. */
  skipped(): readonly { name: string; displayName: string; home: string; message: string }[] {
    return this.assembled.skipped.map(({ name, displayName, home, error }) => ({ name, displayName, home, message: error.message }));
  }

  /** The sources whose last listing failed, with why. */
  failures(): readonly SourceFailure[] {
    return this.assembled.failures();
  }

  /** The sessions their last listing left out because they cannot be read, each with its source and why. */
  problems(): { sessionId: string; source: string; error: Error }[] {
    return this.assembled.foreign.flatMap(({ name, source }) => source.problems().map(({ sessionId, error }) => ({ sessionId, source: name, error })));
  }

  /** A stamp per session, changed whenever the session may have; a source that cannot be listed adds none. */
  async changeStamps(signal?: AbortSignal): Promise<Map<string, string>> {
    const stamps = new Map<string, string>();
    for (const { source } of this.assembled.foreign) {
      try {
        for (const [sessionId, stamp] of await source.changeStamps(signal)) stamps.set(sessionId, stamp);
      } catch (error) {
        if (signal?.aborted) throw error;
      }
    }
    return stamps;
  }

  /** Stop their file-system watches. */
  close(): void {
    for (const { source } of this.assembled.foreign) source.close();
  }
}
