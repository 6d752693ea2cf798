/**
 * The refusal of one session's log, and its words: every read of a root
 * (a listing, a load, a damage report) refuses a log with a
 * {@link SessionLogError} naming its session and the log relative to the
 * root, in the codes of log-probe.ts and the few the whole read adds.
 */
import { relative } from 'node:path';
import { SessionLogReadError, type SessionLogReadCode } from './generations/errors.js';
import type { LogFile } from './log-files.js';
import type { LogProbeCode, LogProblem } from './log-probe.js';

/** A session log that cannot be read as a whole, named by its session. */
export class SessionLogError extends Error {
  constructor(
    readonly sessionId: string,
    readonly code: LogProbeCode | 'SESSION_LOG_TRUNCATED' | 'SESSION_LOG_UNSUPPORTED' | 'SESSION_LOG_DUPLICATE',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SessionLogError';
  }
}

/** Every code a {@link SessionLogError} carries. */
const SESSION_LOG_ERROR_CODES: ReadonlySet<string> = new Set<SessionLogError['code']>([
  'SESSION_LOG_NOT_A_FILE',
  'SESSION_LOG_UNREADABLE',
  'SESSION_LOG_TOO_LARGE',
  'SESSION_LOG_HEADER_TOO_LARGE',
  'SESSION_LOG_CORRUPT',
  'SESSION_LOG_TRUNCATED',
  'SESSION_LOG_UNSUPPORTED',
  'SESSION_LOG_DUPLICATE',
]);

/** Whether `code` is one a {@link SessionLogError} carries (a refusal read back from a derived file). */
export function isSessionLogErrorCode(code: unknown): code is SessionLogError['code'] {
  return typeof code === 'string' && SESSION_LOG_ERROR_CODES.has(code);
}

/** The codes of the generation reader's refusals, as every other log refusal spells them. */
const READER_CODES: Record<SessionLogReadCode, SessionLogError['code']> = {
  SESSION_LOG_UNREADABLE: 'SESSION_LOG_UNREADABLE',
  SESSION_LOG_TOO_LARGE: 'SESSION_LOG_TOO_LARGE',
  SESSION_LOG_LINE_TOO_LONG: 'SESSION_LOG_TOO_LARGE',
  SESSION_LOG_TOO_DEEP: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_CORRUPT: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_NO_HEADER: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_HEADER_INVALID: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_VERSION_MISMATCH: 'SESSION_LOG_CORRUPT',
  SESSION_LOG_VERSION_UNKNOWN: 'SESSION_LOG_UNSUPPORTED',
  SESSION_LOG_UNSUPPORTED: 'SESSION_LOG_UNSUPPORTED',
};

/** Whether `code` is one a refusal of sessref's reader carries (see `KeptRefusal`). */
export function isReaderRefusalCode(code: unknown): code is SessionLogError['code'] {
  return Object.values(READER_CODES).some((known) => known === code);
}

/** The generation reader's refusal of `file` as its session's, in the codes every other log refusal uses; any other error is thrown as it is. */
export function fromReader(root: string, file: LogFile, error: unknown): SessionLogError {
  if (!(error instanceof SessionLogReadError)) throw error;
  const detail = error.cause instanceof SessionLogReadError ? error.cause.message : error.message;
  return new SessionLogError(file.sessionId, READER_CODES[error.code], `log ${relative(root, file.path)}: ${detail}`, { cause: error });
}

/** The refusal of a log its probe (log-probe.ts) found `problem` in. */
export function probeRefusal(root: string, id: string, path: string, problem: LogProblem): SessionLogError {
  // The file system's own words name the file by its absolute path: named relative to the root, as the log is.
  return new SessionLogError(id, problem.code, `log ${relative(root, path)} ${problem.reason.replaceAll(`'${root}/`, "'")}`);
}

/**
 * dsh's rule for one id in two project directories (a backup copy of a
 * session directory under another project, say) is to fail the whole
 * listing; sessref refuses only that session, naming every copy, and lists
 * the rest. Neither copy is read: which one dsh would resume is undefined.
 */
export function duplicateRefusal(root: string, id: string, logs: readonly LogFile[]): SessionLogError {
  const copies = logs.map((log) => relative(root, log.path)).join(', ');
  return new SessionLogError(id, 'SESSION_LOG_DUPLICATE', `session "${id}" has a log in ${logs.length} project directories (${copies}); dsh refuses such a root`);
}
