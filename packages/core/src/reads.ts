import { SessionReferenceError } from './errors.js';

/** A storage failure, whatever was thrown (non-Errors included), kept as the cause; `sessionId` is the one session whose read failed. */
export function readFailed(message: string, cause: unknown, sessionId?: string): SessionReferenceError {
  return new SessionReferenceError(`${message}: ${describe(cause)}`, 'SESSION_REFERENCE_READ_FAILED', { cause, ...(sessionId === undefined ? {} : { sessionId }) });
}

/**
 * A one-line account of whatever storage rejected with. Storage is foreign
 * code: the value may be a proxy whose traps throw or an object whose
 * `toString`/`toJSON` throw, and describing it must not throw in turn.
 */
function describe(cause: unknown): string {
  try {
    if (cause instanceof Error) return String(cause.message);
    return typeof cause === 'string' ? cause : (JSON.stringify(cause) ?? String(cause));
  } catch {
    try {
      return String(cause);
    } catch {
      return 'a value that cannot be printed';
    }
  }
}
