import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import { SessionReferenceError, type SessionReferenceErrorCode } from '@sessref/core';

/** Exit codes: 1 for usage or input errors, 2 for storage errors. */
export const EXIT_USAGE = 1;
export const EXIT_STORAGE = 2;

/** A failure the CLI reports in one line: what, which session, which code, and the fix. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code: string,
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export function usageError(message: string, hint = 'run `sessref --help` for usage'): CliError {
  return new CliError(message, EXIT_USAGE, 'USAGE', hint);
}

const REFERENCE_HINTS: Record<SessionReferenceErrorCode, string> = {
  SESSION_REFERENCE_INVALID_CONFIG: 'pass positive integers (max references at most 3)',
  SESSION_REFERENCE_INVALID_REFERENCE: 'copy the mention from `sessref list` or `sessref mention ID`',
  SESSION_REFERENCE_SELF_REFERENCE: 'a session cannot cite itself; pick another session',
  SESSION_REFERENCE_TOO_MANY: 'cite at most 3 distinct sessions in one message',
  SESSION_REFERENCE_READ_FAILED: 'check that the session exists and its log is readable (`sessref show ID`)',
  SESSION_REFERENCE_BUDGET_EXCEEDED: 'raise --max-bytes',
  SESSION_REFERENCE_CANCELLED: 'run the command again',
};

const QUERY_INPUT_CODES = new Set(['SESSION_QUERY_SESSION_NOT_FOUND']);

/** Map anything thrown by the engine to a {@link CliError}. */
export function toCliError(error: unknown, sessionId?: string): CliError {
  if (error instanceof CliError) return error;
  const subject = sessionId === undefined ? '' : `session "${sessionId}": `;
  if (error instanceof SessionReferenceError) {
    const storage = error.code === 'SESSION_REFERENCE_READ_FAILED';
    const notFound = storage && rootCause(error) instanceof SessionQueryError && QUERY_INPUT_CODES.has(rootCode(error));
    return new CliError(`${subject}${error.message}`, storage && !notFound ? EXIT_STORAGE : EXIT_USAGE, error.code, REFERENCE_HINTS[error.code], {
      cause: error,
    });
  }
  if (error instanceof SessionQueryError) {
    if (QUERY_INPUT_CODES.has(error.code)) {
      return new CliError(`${subject}no such session`, EXIT_USAGE, error.code, 'list sessions with `sessref list`', { cause: error });
    }
    return new CliError(`${subject}${error.message}`, EXIT_STORAGE, error.code, 'the session log is damaged or unreadable; restore it from a backup', {
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(`${subject}${message}`, EXIT_STORAGE, errorCode(error) ?? 'STORAGE', 'check the session root and its files', { cause: error });
}

function rootCause(error: Error): unknown {
  return error.cause;
}

function rootCode(error: Error): string {
  return errorCode(error.cause) ?? '';
}

function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
