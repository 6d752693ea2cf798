/**
 * Server failures as sentences a person can act on. The server's stable code
 * stays available (a toast shows it in small type) but is never the whole
 * story: each known code says what happened and what to do.
 */

type Explain = (message: string) => string;

const SENTENCES: Readonly<Record<string, Explain>> = {
  UNAUTHORIZED: () => 'This tab has no access token. Open the address `sessref serve` printed when it started.',
  FORBIDDEN_TOKEN: () => 'This tab holds the token of an earlier launch. Open the address the running `sessref serve` printed.',
  FORBIDDEN_HOST: () => 'The inspector only answers at the address it printed; open that one.',
  FORBIDDEN_ORIGIN: () => 'The inspector only answers requests from its own page.',
  SESSION_REFERENCE_TOO_MANY: (message) => `${sentence(message)} Remove a reference, then try again.`,
  SESSION_REFERENCE_SELF_REFERENCE: () => 'A session cannot reference itself: pick a session other than the target.',
  SESSION_REFERENCE_INVALID_REFERENCE: (message) => `A reference in the message is not valid (${message}). Pick the session from the @ menu instead.`,
  SESSION_REFERENCE_BUDGET_EXCEEDED: (message) => `A referenced session does not fit in the snapshot budget even with its oldest messages left out (${message}).`,
  SESSION_REFERENCE_READ_FAILED: (message) => `A referenced session could not be read (${message}).`,
  SESSION_REFERENCE_CANCELLED: () => 'The request was cancelled before it finished.',
  SESSION_QUERY_SESSION_NOT_FOUND: () => 'That session is not in this root (any more). Reload the sessions list.',
  SESSION_IN_USE: (message) => `Another program is writing this session right now: ${message}. Nothing was written; try again once it is done.`,
  SESSION_BUSY: (message) => `${sentence(message)} Nothing was written; try again in a moment.`,
  SESSION_LOCK_INVALID: (message) => `${sentence(message)} Nothing was written; remove that file from the session's directory, then send again.`,
  PAYLOAD_TOO_LARGE: () => 'The message is too large to send (the inspector accepts up to 1 MiB).',
  INTERNAL: () => 'The inspector hit an internal error. The terminal running `sessref serve` has the details.',
};

/**
 * What went wrong, in words: the explanation for a known code, which says
 * what to do in the page's terms, else the server's message as a sentence
 * and its fix, as the CLI's `fix:` gives it, when it has one.
 */
export function explainFailure(code: string, message: string, hint?: string): string {
  const explain = SENTENCES[code];
  if (explain) return explain(message);
  const what = sentence(message === '' ? `the request failed (${code})` : message);
  return hint === undefined ? what : `${what} Fix: ${sentence(hint)}`;
}

/** A network failure: the server is not there to send a code at all. */
export const UNREACHABLE = 'The inspector server did not answer. Is `sessref serve` still running?';

/** `text` with a capital first letter and a closing full stop. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capitalized = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capitalized) ? capitalized : `${capitalized}.`;
}
