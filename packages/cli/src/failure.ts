/**
 * Every failure sessref reports, classified once. A code names what went
 * wrong; its class says what kind of failure that is. The CLI's exit code and
 * the inspector's HTTP status are both read off the class ({@link EXIT_CODE},
 * {@link HTTP_STATUS}), so a failure means the same in a terminal and in a
 * browser.
 */
import { SessionQueryError, type SessionQueryErrorCode } from '@deepseek-ai/dsh-session-query';
import { SessionInputError, SessionReferenceError, errorCode, type SessionInputCode, type SessionReferenceErrorCode } from '@sessref/core';
import { RootFormatError, SessionLogError, type RootFormatCode } from '@sessref/host';
import { SourceReadError, type SourceReadCode } from '@sessref/sources';
import { SessionWriteError, type SessionWriteCode } from './engine/session-writes.js';

export type FailureClass =
  /** The command line itself is wrong. */
  | 'usage'
  /** A value the user gave cannot be used: a malformed mention, a self reference, a bad query. */
  | 'invalid-input'
  | 'not-found'
  /** Something else holds what was asked for: another writer, a taken port, a non-empty root. */
  | 'conflict'
  /** A source that cannot fit the byte budget even when shortened. */
  | 'over-budget'
  | 'cancelled'
  /** A capability the host has turned off. */
  | 'unavailable'
  /** A configuration value was refused. */
  | 'misconfigured'
  /** A log or root that cannot be read or written as it is. */
  | 'storage'
  /** Nothing sessref recognizes. */
  | 'unexpected';

/** sessref's own refusals, made before or around the host. */
export type CliCode = 'USAGE' | 'NO_ROOT' | 'ROOT_NOT_A_DIRECTORY' | 'ROOT_UNREADABLE' | 'ROOT_IN_AGENT_HOME' | 'ROOT_NOT_EMPTY' | 'SEED_EXISTS' | 'PORT_IN_USE' | 'STDIN_TOO_LARGE';

export type SessionLogCode = SessionLogError['code'];

/** Every code sessref recognizes: the core's, dsh's session query's, the host's, sessref's own. */
export type FailureCode = SessionReferenceErrorCode | SessionInputCode | SessionQueryErrorCode | SessionLogCode | SourceReadCode | RootFormatCode | SessionWriteCode | CliCode;

type KnownClass = Exclude<FailureClass, 'unexpected'>;

/** The one table from code to class. */
export const FAILURE_CLASS: { readonly [C in FailureCode]: KnownClass } = {
  SESSION_REFERENCE_INVALID_CONFIG: 'misconfigured',
  SESSION_REFERENCE_INVALID_REFERENCE: 'invalid-input',
  SESSION_REFERENCE_SELF_REFERENCE: 'invalid-input',
  SESSION_REFERENCE_TOO_MANY: 'invalid-input',
  // Unless the host's read failure it wraps says otherwise (see classify).
  SESSION_REFERENCE_READ_FAILED: 'storage',
  SESSION_REFERENCE_BUDGET_EXCEEDED: 'over-budget',
  SESSION_REFERENCE_CANCELLED: 'cancelled',
  SESSION_REFERENCE_INVALID_QUERY: 'invalid-input',
  SESSION_REFERENCE_SEARCH_DISABLED: 'unavailable',

  // A title or message the core's one rule refuses, whichever entry point it came through.
  INVALID_TITLE: 'invalid-input',
  EMPTY_MESSAGE: 'invalid-input',

  SESSION_QUERY_ABORTED: 'cancelled',
  SESSION_QUERY_CORRUPT_SESSION: 'storage',
  SESSION_QUERY_EVENT_NOT_FOUND: 'not-found',
  SESSION_QUERY_INDEX_FAILED: 'storage',
  SESSION_QUERY_INVALID_CONFIG: 'misconfigured',
  SESSION_QUERY_INVALID_CURSOR: 'invalid-input',
  SESSION_QUERY_INVALID_FILTER: 'invalid-input',
  SESSION_QUERY_INVALID_LIMIT: 'invalid-input',
  SESSION_QUERY_INVALID_QUERY: 'invalid-input',
  SESSION_QUERY_INVALID_LINEAGE: 'invalid-input',
  SESSION_QUERY_INVALID_SURFACE: 'invalid-input',
  SESSION_QUERY_INVALID_WINDOW: 'invalid-input',
  SESSION_QUERY_PERSISTENCE_FAILED: 'storage',
  SESSION_QUERY_SEARCH_DISABLED: 'unavailable',
  SESSION_QUERY_SESSION_NOT_FOUND: 'not-found',
  SESSION_QUERY_STALE_CURSOR: 'storage',
  SESSION_QUERY_SOURCE_CONFLICT: 'storage',

  SESSION_LOG_CORRUPT: 'storage',
  SESSION_LOG_UNREADABLE: 'storage',
  SESSION_LOG_TRUNCATED: 'storage',
  SESSION_LOG_UNSUPPORTED: 'storage',
  SESSION_LOG_NOT_A_FILE: 'storage',
  SESSION_LOG_TOO_LARGE: 'storage',
  SESSION_LOG_HEADER_TOO_LARGE: 'storage',
  SESSION_LOG_DUPLICATE: 'storage',

  // Another agent's session, read in place: its file is the agent's to fix.
  SOURCE_SESSION_UNREADABLE: 'storage',
  SOURCE_SESSION_TOO_LARGE: 'storage',
  SOURCE_SESSION_CORRUPT: 'storage',
  SOURCE_SESSION_UNSUPPORTED: 'storage',
  SOURCE_SESSION_NOT_FOUND: 'not-found',

  ROOT_UNCOMPRESSED: 'storage',
  ROOT_FLAT_LAYOUT: 'storage',

  // Another writer has the session: retry later. A log reached through a link, or a lock path holding no lock file, is a fault of the root.
  SESSION_BUSY: 'conflict',
  SESSION_IN_USE: 'conflict',
  SESSION_LOG_SYMLINK: 'storage',
  SESSION_LOCK_INVALID: 'storage',
  // A session a later dsh wrote: readable and citable, written only by that dsh.
  SESSION_WRITE_UNSUPPORTED: 'storage',

  USAGE: 'usage',
  NO_ROOT: 'not-found',
  ROOT_NOT_A_DIRECTORY: 'invalid-input',
  ROOT_UNREADABLE: 'storage',
  // A command that writes, over a root in another agent's folder: read there, never write.
  ROOT_IN_AGENT_HOME: 'invalid-input',
  ROOT_NOT_EMPTY: 'conflict',
  SEED_EXISTS: 'conflict',
  PORT_IN_USE: 'conflict',
  STDIN_TOO_LARGE: 'invalid-input',
};

export type ExitCode = 1 | 2;

/** The CLI's exit code per class: 1 for usage and input, 2 for storage and anything unexpected (the CLI's work is the root). */
export const EXIT_CODE: { readonly [K in FailureClass]: ExitCode } = {
  usage: 1,
  'invalid-input': 1,
  'not-found': 1,
  conflict: 1,
  'over-budget': 1,
  cancelled: 1,
  unavailable: 1,
  // The CLI's configuration is its flags (--max-bytes).
  misconfigured: 1,
  storage: 2,
  unexpected: 2,
};

/** The inspector's HTTP status per class. */
export const HTTP_STATUS: { readonly [K in FailureClass]: number } = {
  usage: 400,
  'invalid-input': 400,
  'not-found': 404,
  conflict: 409,
  'over-budget': 422,
  // nginx's "client closed request": only ever seen by a client that is gone.
  cancelled: 499,
  unavailable: 503,
  // The server's configuration is its own.
  misconfigured: 500,
  storage: 502,
  unexpected: 500,
};

/** A failure of sessref's own, with its code and fix. */
export class CliError extends Error {
  readonly exitCode: ExitCode;

  constructor(
    readonly code: CliCode,
    message: string,
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = EXIT_CODE[FAILURE_CLASS[code]];
  }
}

/** A thrown value, classified. */
export type Failure = KnownFailure | UnexpectedFailure;

interface KnownFailure {
  readonly class: KnownClass;
  readonly code: FailureCode;
  /** What happened; it names a session when the error did. */
  readonly message: string;
  /**
   * What the failure is about: a session (the one in {@link sessionId}, else
   * the one the caller was working on), or the command itself (its line, the
   * root, the process), which no session prefix would make clearer.
   */
  readonly scope: 'session' | 'command';
  /** The session the error is about, when it says so apart from its message. */
  readonly sessionId?: string;
  /** The fix, when the error carries its own. */
  readonly hint?: string;
}

interface UnexpectedFailure {
  readonly class: 'unexpected';
  /** A lower layer's own code (an errno such as ENOSPC), if it has one. */
  readonly code: string | undefined;
  readonly message: string;
}

/** Classify anything thrown: the one place that decides what kind of failure it is. */
export function classify(error: unknown): Failure {
  // A damaged log, or a root in a shape sessref does not read, is reported as itself, whichever layer wrapped it.
  const damaged = findCause(error, SessionLogError);
  if (damaged !== undefined) return known(damaged.code, `session "${damaged.sessionId}": ${damaged.message}`);
  const foreign = findCause(error, SourceReadError);
  if (foreign !== undefined) return known(foreign.code, foreign.message);
  const shape = findCause(error, RootFormatError);
  if (shape !== undefined) return known(shape.code, shape.message, { scope: 'command', hint: shape.hint });
  if (error instanceof SessionInputError) return known(error.code, error.message, { scope: 'command' });
  if (error instanceof CliError) return known(error.code, error.message, { scope: 'command', ...(error.hint === undefined ? {} : { hint: error.hint }) });
  if (error instanceof SessionWriteError) return known(error.code, error.message, { sessionId: error.sessionId, hint: error.hint });
  if (error instanceof SessionReferenceError) {
    // A failed read is what the host's read failure was: a missing session is not a storage fault.
    const read = error.cause instanceof SessionQueryError ? FAILURE_CLASS[error.cause.code] : FAILURE_CLASS[error.code];
    return { class: read, code: error.code, message: error.message, scope: 'session' };
  }
  if (error instanceof SessionQueryError) {
    const missing = FAILURE_CLASS[error.code] === 'not-found' && !namesSession(error.message);
    return known(error.code, missing ? 'no such session' : error.message);
  }
  const code = errorCode(error);
  // Node's system errors start with their code; the message names it once.
  const raw = error instanceof Error ? error.message : String(error);
  return { class: 'unexpected', code, message: code !== undefined && raw.startsWith(`${code}: `) ? raw.slice(code.length + 2) : raw };
}

/** Whether a message already names the session it is about. */
export function namesSession(message: string): boolean {
  return /\bsession "/.test(message);
}

function known(code: FailureCode, message: string, extra: { scope?: 'command'; sessionId?: string; hint?: string } = {}): KnownFailure {
  return { class: FAILURE_CLASS[code], code, message, scope: 'session', ...extra };
}

function findCause<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 16; current = current.cause, depth++) {
    if (current instanceof type) return current;
  }
  return undefined;
}

