/**
 * Every failure sessref reports, classified once. A code names what went
 * wrong; its class says what kind of failure that is. The CLI's exit code and
 * the inspector's HTTP status are both read off the class ({@link EXIT_CODE},
 * {@link HTTP_STATUS}), so a failure means the same in a terminal and in a
 * browser.
 */
// Types only: a command that never fails loads none of the layers these codes come from (see classify.ts).
import type { SessionQueryErrorCode } from '@deepseek-ai/dsh-session-query';
import type { SessionReferenceErrorCode } from '@sessref/core';
import type { SessionInputCode } from './session-input.js';
import type { RootFormatCode, SessionLogError } from '@sessref/dsh/reading';
import type { SourceReadCode } from '@sessref/sources';
import type { SessionWriteCode } from './engine/write-error.js';

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
type CliCode =
  | 'USAGE'
  | 'NO_ROOT'
  | 'ROOT_NOT_A_DIRECTORY'
  | 'ROOT_UNREADABLE'
  | 'ROOT_IN_AGENT_HOME'
  | 'ROOT_NOT_EMPTY'
  | 'SEED_EXISTS'
  | 'PORT_IN_USE'
  | 'STDIN_TOO_LARGE'
  | RemoteCode;

/** `sessref remote`'s refusals: the remotes file, and a sync over ssh and rsync. */
type RemoteCode =
  | 'REMOTE_NOT_FOUND'
  | 'REMOTE_EXISTS'
  | 'REMOTE_BUSY'
  | 'REMOTE_UNREACHABLE'
  | 'REMOTE_TOO_LARGE'
  | 'REMOTE_SYNC_FAILED'
  | 'REMOTE_TOOL_MISSING'
  | 'REMOTE_CONFIG_INVALID'
  | 'REMOTE_CONFIG_UNWRITABLE';

export type SessionLogCode = SessionLogError['code'];

/** Every code sessref recognizes: the core's, dsh's session query's, the host's, sessref's own. */
export type FailureCode = SessionReferenceErrorCode | SessionInputCode | SessionQueryErrorCode | SessionLogCode | SourceReadCode | RootFormatCode | SessionWriteCode | CliCode;

export type KnownClass = Exclude<FailureClass, 'unexpected'>;

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
  SESSION_REFERENCE_INVALID_EXCERPT: 'invalid-input',
  // The session is there; the part asked for is not in what a reference carries of it.
  SESSION_REFERENCE_EXCERPT_NOT_FOUND: 'not-found',

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
  // A session sessref only reads (another agent's, or a later dsh's log format): what the user asked cannot be done there, nothing is broken.
  SESSION_WRITE_UNSUPPORTED: 'invalid-input',

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

  REMOTE_NOT_FOUND: 'not-found',
  REMOTE_EXISTS: 'conflict',
  // Another sessref process is syncing that remote now: retry when it is done.
  REMOTE_BUSY: 'conflict',
  // The host, or ssh's way to it, is not there now: its last mirror is still read.
  REMOTE_UNREACHABLE: 'unavailable',
  // The remote's folders hold more than the mirror's bound: nothing was pulled.
  REMOTE_TOO_LARGE: 'over-budget',
  REMOTE_SYNC_FAILED: 'storage',
  // No rsync or ssh on this machine.
  REMOTE_TOOL_MISSING: 'unavailable',
  REMOTE_CONFIG_INVALID: 'storage',
  REMOTE_CONFIG_UNWRITABLE: 'storage',
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
    readonly code: FailureCode,
    message: string,
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CliError';
    this.exitCode = EXIT_CODE[FAILURE_CLASS[code]];
  }
}

/** A usage error: the command line itself is wrong. */
export function usageError(message: string, hint = 'run `sessref --help` for usage'): CliError {
  return new CliError('USAGE', message, hint);
}

/**
 * A failure of dsh's session-query engine, known by its code rather than by
 * its class, so telling one apart (the most common "not found") never loads
 * dsh's runtime into a command that did not.
 */
export function asQueryError(error: unknown): (Error & { code: SessionQueryErrorCode }) | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code } = error as { code?: unknown };
  return typeof code === 'string' && code.startsWith('SESSION_QUERY_') && code in FAILURE_CLASS ? (error as Error & { code: SessionQueryErrorCode }) : undefined;
}
