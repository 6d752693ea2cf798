/**
 * What a person may give as a new session's title or as a message, checked
 * by this one rule at every entry point (`sessref new`, `sessref prepare` and
 * `send`, the inspector's API and its request schemas). Pure and free of
 * Node, so the inspector's route schemas use it as they are.
 */

/** Titles longer than this many characters are refused: a title is a line in a list, not a message. */
export const MAX_TITLE_LENGTH = 200;

export type SessionInputCode = 'INVALID_TITLE' | 'EMPTY_MESSAGE';

/** A title or message refused by {@link checkTitle} or {@link checkMessageText}. */
export class SessionInputError extends Error {
  override readonly name = 'SessionInputError';

  constructor(
    readonly code: SessionInputCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A title as given, trimmed; `undefined` when none was given or it is only
 * whitespace (the caller then names the session {@link untitled}). A title
 * longer than {@link MAX_TITLE_LENGTH} characters (code points) is refused.
 */
export function checkTitle(title: string | undefined): string | undefined {
  const trimmed = title?.trim() ?? '';
  if (trimmed === '') return undefined;
  const length = [...trimmed].length;
  if (length > MAX_TITLE_LENGTH) throw new SessionInputError('INVALID_TITLE', `a title may be at most ${MAX_TITLE_LENGTH} characters long, got ${length}`);
  return trimmed;
}

/** The title a session created without one gets, as the README promises: `Untitled` and the id's first 8 characters. */
export function untitled(sessionId: string): string {
  return `Untitled ${sessionId.slice(0, 8)}`;
}

/** A message as given; one that is empty or only whitespace is refused: it would log a user turn that says nothing. */
export function checkMessageText(text: string): string {
  if (text.trim() === '') throw new SessionInputError('EMPTY_MESSAGE', 'the message is empty: write something to send');
  return text;
}
