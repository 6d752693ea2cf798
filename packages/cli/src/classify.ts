/**
 * Anything thrown, classified once (see failure.ts for the classes and
 * codes): the one place that knows each layer's error types. dsh's query
 * errors are known by their codes, so classifying loads none of dsh.
 */
import { SessionReferenceError, errorCode } from '@sessref/core';
import { SessionInputError } from './session-input.js';
import { RootFormatError, SessionLogError } from '@sessref/dsh/reading';
import { SourceReadError } from '@sessref/sources';
import { SessionWriteError } from './engine/write-error.js';
import { CliError, FAILURE_CLASS, asQueryError, type FailureCode, type KnownClass } from './failure.js';

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
  // A cited session's failed read is about that session, not the one the message was for (#37 item 11).
  const cited = findCause(error, SessionReferenceError)?.sessionId;
  if (foreign !== undefined) return known(foreign.code, cited === undefined || namesSession(foreign.message) ? foreign.message : `session "${cited}": ${foreign.message}`);
  const shape = findCause(error, RootFormatError);
  if (shape !== undefined) return known(shape.code, shape.message, { scope: 'command', hint: shape.hint });
  if (error instanceof SessionInputError) return known(error.code, error.message, { scope: 'command' });
  if (error instanceof CliError) return known(error.code, error.message, { scope: 'command', ...(error.hint === undefined ? {} : { hint: error.hint }) });
  if (error instanceof SessionWriteError) return known(error.code, error.message, { sessionId: error.sessionId, hint: error.hint });
  if (error instanceof SessionReferenceError) {
    // A failed read is what the host's read failure was: a missing session is not a storage fault.
    const read = FAILURE_CLASS[asQueryError(error.cause)?.code ?? error.code];
    return { class: read, code: error.code, message: error.message, scope: 'session' };
  }
  const query = asQueryError(error);
  if (query !== undefined) {
    const missing = FAILURE_CLASS[query.code] === 'not-found' && !namesSession(query.message);
    return known(query.code, missing ? 'no such session' : query.message);
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

