/**
 * How the CLI says a failure: one line, `error CODE: message (fix: hint)`,
 * and an exit code. What kind of failure it is comes from failure.ts; this
 * file only words it for a terminal.
 */
import type { SessionReferenceErrorCode } from '@sessref/core';
import { MAX_TITLE_LENGTH } from './session-input.js';
import { classify, namesSession } from './classify.js';
import { EXIT_CODE, type ExitCode, type FailureCode, type SessionLogCode } from './failure.js';
import { terminalSafe, type Style } from './output.js';

/** A failure as the CLI reports it. */
export interface CliReport {
  /** A failure code, or for an unexpected failure a lower layer's own (an errno such as ENOSPC), else `STORAGE`. */
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly exitCode: ExitCode;
}

/**
 * The one line a failure is reported in: `error CODE: message (fix: hint)`,
 * made {@link terminalSafe} (the hint through its style).
 */
export function formatError(error: Pick<CliReport, 'code' | 'message' | 'hint'>, style: Style, label = 'error'): string {
  const hint = error.hint === undefined ? '' : ` ${style.dim(`(fix: ${oneLine(error.hint)})`)}`;
  return `${style.red(label)} ${terminalSafe(error.code)}: ${terminalSafe(oneLine(error.message))}${hint}`;
}

/** Errors are one line, whatever a session id or a lower layer put in the message: its line breaks become spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' ');
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
  SESSION_REFERENCE_INVALID_EXCERPT: 'name a phrase, or messages from 1 up, first to last',
  SESSION_REFERENCE_EXCERPT_NOT_FOUND: 'pick a phrase the conversation holds (`sessref search PHRASE` finds it; credentials are redacted first)',
};

const LOG_HINTS: Record<SessionLogCode, string> = {
  SESSION_LOG_CORRUPT: 'restore the file from a backup, or move it out of the root',
  SESSION_LOG_UNREADABLE: 'make the log a readable file again, or move it out of the root',
  SESSION_LOG_TRUNCATED: 'if dsh is writing this session, retry; otherwise resume it in dsh to repair the tail, or restore it from a backup',
  SESSION_LOG_UNSUPPORTED: 'open this session with the dsh release that wrote it',
  SESSION_LOG_NOT_A_FILE: "put the session's log file back in its place, or move this one out of the root",
  SESSION_LOG_TOO_LARGE: 'move it out of the root: dsh cannot read a log this large either',
  SESSION_LOG_HEADER_TOO_LARGE: 'restore the file from a backup, or move it out of the root',
  SESSION_LOG_DUPLICATE: 'keep one copy: move the other session directory out of the root (a backup belongs outside it)',
};

const HINTS: { readonly [C in FailureCode]?: string } = {
  ...REFERENCE_HINTS,
  ...LOG_HINTS,
  SESSION_QUERY_SESSION_NOT_FOUND: 'list sessions with `sessref list`',
  SOURCE_SESSION_UNREADABLE: "make the transcript readable again in the agent's home; sessref only reads it",
  SOURCE_SESSION_TOO_LARGE: 'cite a smaller session: sessref reads transcripts up to 256 MiB',
  SOURCE_SESSION_CORRUPT: 'open the session in the agent that wrote it; sessref never repairs another agent\'s files',
  SOURCE_SESSION_UNSUPPORTED: 'this transcript is in a shape of the agent\'s format sessref does not read yet',
  SOURCE_SESSION_NOT_FOUND: 'list sessions with `sessref list`',
  INVALID_TITLE: `shorten the title to ${MAX_TITLE_LENGTH} characters`,
  EMPTY_MESSAGE: 'give the message some text',
};

/** Any other failure of dsh's session query. */
const QUERY_HINT = 'the session log is damaged or unreadable; restore it from a backup';

/** A failure the CLI cannot explain: the CLI's work is the root, so that is where to look. */
function unexpectedHint(code: string | undefined): string {
  return code === 'ENOSPC' || code === 'EDQUOT' ? 'free space on the disk that holds the root, then retry' : 'check the session root and its files';
}

/**
 * Anything thrown, as the CLI reports it. `sessionId` is the session the
 * command was about; a failure about a session is prefixed with it unless its
 * message already names one.
 */
export function describeFailure(error: unknown, sessionId?: string): CliReport {
  const failure = classify(error);
  const exitCode = EXIT_CODE[failure.class];
  if (failure.class === 'unexpected') {
    return { code: failure.code ?? 'STORAGE', message: aboutSession(failure.message, sessionId), hint: unexpectedHint(failure.code), exitCode };
  }
  const message = failure.scope === 'command' ? failure.message : aboutSession(failure.message, failure.sessionId ?? sessionId);
  const hint = failure.hint ?? HINTS[failure.code] ?? (failure.code.startsWith('SESSION_QUERY_') ? QUERY_HINT : undefined);
  return { code: failure.code, message, exitCode, ...(hint === undefined ? {} : { hint }) };
}

function aboutSession(message: string, sessionId: string | undefined): string {
  return sessionId === undefined || namesSession(message) ? message : `session "${sessionId}": ${message}`;
}
