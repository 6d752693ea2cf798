/** Stable failure codes a host can route on. */
export const SESSION_REFERENCE_ERROR_CODES = [
  'SESSION_REFERENCE_INVALID_CONFIG',
  'SESSION_REFERENCE_INVALID_REFERENCE',
  'SESSION_REFERENCE_SELF_REFERENCE',
  'SESSION_REFERENCE_TOO_MANY',
  'SESSION_REFERENCE_READ_FAILED',
  'SESSION_REFERENCE_BUDGET_EXCEEDED',
  'SESSION_REFERENCE_CANCELLED',
  // Content discovery (opt-in): a query that is not searchable text, and a
  // host or configuration that has full-text search turned off.
  'SESSION_REFERENCE_INVALID_QUERY',
  'SESSION_REFERENCE_SEARCH_DISABLED',
  // Excerpts: a request for part of a session that is malformed, and one
  // whose phrase (or range) the session's carried text does not hold.
  'SESSION_REFERENCE_INVALID_EXCERPT',
  'SESSION_REFERENCE_EXCERPT_NOT_FOUND',
] as const;

export type SessionReferenceErrorCode = (typeof SESSION_REFERENCE_ERROR_CODES)[number];

/** The one error type sessref throws on bad input, failed reads, budgets and cancellation. */
export class SessionReferenceError extends Error {
  override readonly name = 'SessionReferenceError';
  readonly code: SessionReferenceErrorCode;
  /**
   * The one session the failure is about when that is a session the caller
   * named as a source (a `_READ_FAILED` read of a cited session), so a host
   * can name it rather than the session it was preparing a message for.
   */
  declare readonly sessionId?: string;

  constructor(message: string, code: SessionReferenceErrorCode, options?: ErrorOptions & { sessionId?: string }) {
    super(message, options);
    this.code = code;
    if (options?.sessionId !== undefined) this.sessionId = options.sessionId;
  }
}

/** Never throws, even for a proxy whose traps throw (storage may reject with anything). */
export function isSessionReferenceError(value: unknown): value is SessionReferenceError {
  try {
    return value instanceof SessionReferenceError;
  } catch {
    return false;
  }
}

/**
 * The string `code` an error-like value carries (a Node errno such as
 * `ENOENT`, a host's error code), else undefined. Never throws, even for a
 * proxy whose traps throw, so callers can branch on any rejection value.
 */
export function errorCode(error: unknown): string | undefined {
  try {
    if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
    return typeof error.code === 'string' ? error.code : undefined;
  } catch {
    return undefined;
  }
}
