/**
 * What every step and write of an engine obeys: it is for the root's own
 * sessions only, and this process appends to one session at a time (the
 * session lock orders processes).
 */
import { SessionWriteError } from './write-error.js';

/**
 * A message is prepared for, and written in, the root's own sessions only:
 * another agent's session (`agent` names it) is read in place, never a
 * step's target.
 */
export function assertOwnSession(sessionId: string, agent: string | undefined, step: 'prepare' | 'send'): void {
  if (agent === undefined) return;
  const only = step === 'send' ? 'sessref writes messages only into' : 'sessref prepares messages only for';
  throw new SessionWriteError(
    sessionId,
    'SESSION_WRITE_UNSUPPORTED',
    `this is a ${agent} session, read in place: ${only} the root's own dsh sessions`,
    `cite it from a dsh session instead, e.g. sessref send --target <dsh session> "see $(sessref mention ${sessionId})"`,
  );
}

/** The writes of one process, one at a time per session. */
export class WriteQueue {
  /** The last write queued for each session. */
  private readonly last = new Map<string, Promise<unknown>>();

  /** Run `write` after every earlier write to the same session in this process. */
  run<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    const queued = (this.last.get(sessionId) ?? Promise.resolve()).then(write, write);
    const settled = queued.then(
      () => undefined,
      () => undefined,
    );
    this.last.set(sessionId, settled);
    void settled.then(() => {
      if (this.last.get(sessionId) === settled) this.last.delete(sessionId);
    });
    return queued;
  }
}
