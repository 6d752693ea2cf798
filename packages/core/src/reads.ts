import { SessionReferenceError } from './errors.js';

/** A storage failure, whatever was thrown (non-Errors included), kept as the cause. */
export function readFailed(message: string, cause: unknown): SessionReferenceError {
  return new SessionReferenceError(`${message}: ${describe(cause)}`, 'SESSION_REFERENCE_READ_FAILED', { cause });
}

function describe(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  try {
    return typeof cause === 'string' ? cause : (JSON.stringify(cause) ?? String(cause));
  } catch {
    return String(cause);
  }
}
