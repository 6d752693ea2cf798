import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import { SessionReferenceError, type SessionReferenceErrorCode } from '@sessref/core';
import { RootFormatError, SessionLogError } from '@sessref/host';
import { SessionWriteError } from './engine/session-writes.js';
import { terminalSafe, type Style } from './output.js';

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

/**
 * The one line a failure is reported in: `error CODE: message (fix: hint)`,
 * made {@link terminalSafe} (the hint through its style).
 */
export function formatError(error: CliError, style: Style, label = 'error'): string {
  const hint = error.hint === undefined ? '' : ` ${style.dim(`(fix: ${oneLine(error.hint)})`)}`;
  return `${style.red(label)} ${terminalSafe(error.code)}: ${terminalSafe(oneLine(error.message))}${hint}`;
}

/** Errors are one line, whatever a session id or a lower layer put in the message: its line breaks become spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
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
  SESSION_REFERENCE_INVALID_QUERY: 'search for plain text without NUL, at most 256 characters',
  SESSION_REFERENCE_SEARCH_DISABLED: 'content search needs full-text search on the session-query backend',
};

const QUERY_INPUT_CODES = new Set(['SESSION_QUERY_SESSION_NOT_FOUND']);

const LOG_HINTS: Record<SessionLogError['code'], string> = {
  SESSION_LOG_CORRUPT: 'restore the file from a backup, or move it out of the root',
  SESSION_LOG_UNREADABLE: 'make the log a readable file again, or move it out of the root',
  SESSION_LOG_TRUNCATED: 'if dsh is writing this session, retry; otherwise resume it in dsh to repair the tail, or restore it from a backup',
  SESSION_LOG_UNSUPPORTED: 'open this session with the dsh release that wrote it',
  SESSION_LOG_NOT_A_FILE: "put the session's log file back in its place, or move this one out of the root",
  SESSION_LOG_TOO_LARGE: 'move it out of the root: dsh cannot read a log this large either',
  SESSION_LOG_HEADER_TOO_LARGE: 'restore the file from a backup, or move it out of the root',
};

/**
 * Map anything thrown by the engine to a {@link CliError}. `sessionId` is the
 * session the command was about; the message is prefixed with it unless it
 * already names a session.
 */
export function toCliError(error: unknown, sessionId?: string): CliError {
  if (error instanceof CliError) return error;
  // A damaged log is reported as itself, whichever layer wrapped it.
  const damaged = findCause(error, SessionLogError);
  if (damaged !== undefined) {
    return new CliError(`session "${damaged.sessionId}": ${damaged.message}`, EXIT_STORAGE, damaged.code, LOG_HINTS[damaged.code], { cause: error });
  }
  // A root in an on-disk shape sessref does not read: refused before anything was read.
  const shape = findCause(error, RootFormatError);
  if (shape !== undefined) return new CliError(shape.message, EXIT_STORAGE, shape.code, shape.hint, { cause: error });
  // A refused write: someone else is writing the session (input: retry later), or the root's layout would lead it outside.
  if (error instanceof SessionWriteError) {
    const exit = error.code === 'SESSION_LOG_SYMLINK' ? EXIT_STORAGE : EXIT_USAGE;
    return new CliError(`session "${error.sessionId}": ${error.message}`, exit, error.code, error.hint, { cause: error });
  }
  const named = error instanceof Error && /\bsession "/.test(error.message);
  const subject = sessionId === undefined || named ? '' : `session "${sessionId}": `;
  if (error instanceof SessionReferenceError) {
    const storage = error.code === 'SESSION_REFERENCE_READ_FAILED';
    const notFound = storage && rootCause(error) instanceof SessionQueryError && QUERY_INPUT_CODES.has(rootCode(error));
    return new CliError(`${subject}${error.message}`, storage && !notFound ? EXIT_STORAGE : EXIT_USAGE, error.code, REFERENCE_HINTS[error.code], {
      cause: error,
    });
  }
  if (error instanceof SessionQueryError) {
    if (QUERY_INPUT_CODES.has(error.code)) {
      return new CliError(named ? error.message : `${subject}no such session`, EXIT_USAGE, error.code, 'list sessions with `sessref list`', { cause: error });
    }
    return new CliError(`${subject}${error.message}`, EXIT_STORAGE, error.code, 'the session log is damaged or unreadable; restore it from a backup', {
      cause: error,
    });
  }
  const code = errorCode(error);
  // Node's system errors start with their code; the line names it once.
  const raw = error instanceof Error ? error.message : String(error);
  const message = code !== undefined && raw.startsWith(`${code}: `) ? raw.slice(code.length + 2) : raw;
  const hint = code === 'ENOSPC' || code === 'EDQUOT' ? 'free space on the disk that holds the root, then retry' : 'check the session root and its files';
  return new CliError(`${subject}${message}`, EXIT_STORAGE, code ?? 'STORAGE', hint, { cause: error });
}

function findCause<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 16; current = current.cause, depth++) {
    if (current instanceof type) return current;
  }
  return undefined;
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
