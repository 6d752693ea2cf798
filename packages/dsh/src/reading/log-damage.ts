/**
 * The damage reports of a root: why each log a listing leaves out cannot be
 * read, in the words a read of that session gives (the one read of the
 * damaged log, not of the root).
 */
import type { LogFile, RootLogFiles } from './log-files.js';
import type { LogListing } from './log-listing.js';
import { SessionLogError, duplicateRefusal, probeRefusal } from './session-log-error.js';

/** The damage reports of one root (see `RootLogs.damagedLogs`, `RootLogs.damageOf`). */
export class LogDamage {
  constructor(
    private readonly root: string,
    private readonly files: RootLogFiles,
    private readonly listing: LogListing,
    /** A whole read of the session's log (`RootLogs.load`), whose refusal names the damage. */
    private readonly load: (id: string) => Promise<unknown>,
  ) {}

  /** Why the log of `sessionId` cannot be read, when there is one that cannot. */
  async of(sessionId: string): Promise<SessionLogError | undefined> {
    const file = this.files.all().find((candidate) => candidate.sessionId === sessionId);
    return file === undefined ? undefined : this.inspect(file);
  }

  /** The logs under the root that no listing shows, other than those in `listed`, with why. */
  async leftOut(listed: ReadonlySet<string>): Promise<SessionLogError[]> {
    const damaged = new Map<string, SessionLogError>();
    for (const file of this.files.allBut(listed)) {
      // One refusal per session: the copies of a duplicated id share theirs.
      if (damaged.has(file.sessionId)) continue;
      const damage = await this.headerDamage(file);
      if (damage !== undefined) damaged.set(file.sessionId, damage);
    }
    return [...damaged.values()];
  }

  /**
   * Why a listing leaves the log of `file` out: what its probe or its
   * header says, explained by a whole read once, kept while the log keeps
   * its revision.
   */
  private async headerDamage(file: LogFile): Promise<SessionLogError | undefined> {
    const problem = this.listing.probe(file.path);
    if (problem !== undefined) return probeRefusal(this.root, file.sessionId, file.path, problem);
    const logs = this.files.of(file.sessionId);
    if (logs.length > 1) return duplicateRefusal(this.root, file.sessionId, logs);
    await this.listing.entry(file, undefined);
    const known = this.listing.known(file.path);
    if (known?.damage === undefined || known.explained === true) return known?.damage;
    known.damage = (await this.inspect(file)) ?? known.damage;
    known.explained = true;
    return known.damage;
  }

  private async inspect(file: LogFile): Promise<SessionLogError | undefined> {
    const problem = this.listing.probe(file.path);
    if (problem !== undefined) return probeRefusal(this.root, file.sessionId, file.path, problem);
    try {
      await this.load(file.sessionId);
      return undefined;
    } catch (error) {
      return error instanceof SessionLogError ? error : undefined;
    }
  }
}
