/**
 * The refusals of sessref's reader, kept by the revision of the log they
 * refused: what makes a refused log cost its read once.
 */
import { revisionToken, type FileRevision } from '@sessref/platform';
import type { LogFile } from './log-files.js';
import { SessionLogError } from './session-log-error.js';

/** A refusal of sessref's reader, for the log's revision token it was read at (see {@link RefusalMemory}). */
export interface KeptRefusal {
  sessionId: string;
  revision: string;
  code: SessionLogError['code'];
  message: string;
}

/**
 * Why sessref's own reader refused each log it read whole, by path, kept while the log keeps the
 * revision it was read at: a refused log is not decoded again, so a log whose frames stand for more
 * plaintext than its budget (a decompression bomb) costs that budget once, not once per read. The
 * kept headers (kept-headers.ts) keep them between processes, through this map.
 */
export class RefusalMemory extends Map<string, KeptRefusal> {
  /** Told of each refusal {@link keep} keeps (the kept headers save them). */
  private readonly listeners = new Set<() => void>();

  /** The refusal kept for `file` at `revision`, as a read of it throws it; none for a log that is gone or changed since. */
  at(file: LogFile, revision: FileRevision | undefined): SessionLogError | undefined {
    const kept = this.get(file.path);
    if (kept === undefined || revision === undefined || kept.revision !== revisionToken(revision)) return undefined;
    return new SessionLogError(file.sessionId, kept.code, kept.message);
  }

  /** Keep `refusal` of `file` at `revision`, taken before the read: a log changed meanwhile has another one next time, and is read again. */
  keep(file: LogFile, revision: FileRevision | undefined, refusal: SessionLogError): void {
    if (revision === undefined) return;
    this.set(file.path, { sessionId: file.sessionId, revision: revisionToken(revision), code: refusal.code, message: refusal.message });
    for (const listener of this.listeners) listener();
  }

  /** Call `listener` each time a refusal is kept. */
  whenKept(listener: () => void): void {
    this.listeners.add(listener);
  }
}
