/** Why a write was refused before anything was written: light, so every face can tell it apart without loading the writer. */

export type SessionWriteCode = 'SESSION_BUSY' | 'SESSION_IN_USE' | 'SESSION_LOG_SYMLINK' | 'SESSION_LOCK_INVALID' | 'SESSION_WRITE_UNSUPPORTED';

/** A write refused before anything was written, named by its session, with the fix. */
export class SessionWriteError extends Error {
  constructor(
    readonly sessionId: string,
    readonly code: SessionWriteCode,
    message: string,
    readonly hint: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SessionWriteError';
  }
}
