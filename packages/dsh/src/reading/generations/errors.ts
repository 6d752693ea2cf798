/**
 * The one error the generation reader throws. Its code is stable: callers
 * route on it (refuse that session, name the reason), never on the message.
 */
export type SessionLogReadCode =
  /** Not there, not a regular file, or the read failed. */
  | 'SESSION_LOG_UNREADABLE'
  /** The file, or what its frames decompress to, is over the reader's budget. */
  | 'SESSION_LOG_TOO_LARGE'
  /** One line is over the reader's line budget. */
  | 'SESSION_LOG_LINE_TOO_LONG'
  /** One line nests arrays and objects deeper than any dsh record does. */
  | 'SESSION_LOG_TOO_DEEP'
  /** Damage in the committed prefix: framing, checksum, JSON, envelope, seq gap. */
  | 'SESSION_LOG_CORRUPT'
  /** No complete header line: the file was cut before its first record ended. */
  | 'SESSION_LOG_NO_HEADER'
  /** The header line is not a valid header of its generation. */
  | 'SESSION_LOG_HEADER_INVALID'
  /** The header names another generation than the file name does. */
  | 'SESSION_LOG_VERSION_MISMATCH'
  /** A generation sessref does not know (a newer dsh wrote it). */
  | 'SESSION_LOG_VERSION_UNKNOWN'
  /** A valid log whose conversation dsh 0.1.0-rc.8's events cannot carry faithfully. */
  | 'SESSION_LOG_UNSUPPORTED';

export class SessionLogReadError extends Error {
  override readonly name = 'SessionLogReadError';

  constructor(
    readonly code: SessionLogReadCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Damage in the committed prefix, the most common refusal. */
export function corrupt(detail: string, options?: ErrorOptions): SessionLogReadError {
  return new SessionLogReadError('SESSION_LOG_CORRUPT', `corrupt session log: ${detail}`, options);
}
