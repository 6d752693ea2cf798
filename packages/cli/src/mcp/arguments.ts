/** What a client may send as a session: checked and bounded before anything is read. */
import { SessionReferenceError } from '@sessref/core';
import { sessionIdOf } from '../commands/sources.js';

/**
 * The longest argument taken: an id, a `dsh-session:` URI or a pasted
 * mention with its title fits many times over; anything longer is a
 * broken or hostile client, refused before it is parsed or matched.
 */
const MAX_ARGUMENT_LENGTH = 4096;

/**
 * The session a prompt argument names: an id, a canonical mention the user
 * pasted (`@[label](dsh-session:…)`) or a bare `dsh-session:` URI, as the
 * CLI reads one. Surrounding spaces are dropped (a client may keep them
 * from `--session= id`); NUL and over-long values are refused with the
 * core's own code, as a malformed mention is.
 */
export function sessionOfArgument(value: string): string {
  const trimmed = value.trim();
  if (trimmed.length === 0) throw invalidArgument('names no session');
  if (trimmed.length > MAX_ARGUMENT_LENGTH) throw invalidArgument(`is ${trimmed.length} characters long; at most ${MAX_ARGUMENT_LENGTH} are read`);
  if (trimmed.includes('\0')) throw invalidArgument('contains NUL');
  return sessionIdOf(trimmed);
}

/** What completion may match: nothing for a value no session argument could be. */
export function completionQuery(value: string): string | undefined {
  return value.length > MAX_ARGUMENT_LENGTH || value.includes('\0') ? undefined : value.trim();
}

function invalidArgument(why: string): SessionReferenceError {
  return new SessionReferenceError(`the session argument ${why}`, 'SESSION_REFERENCE_INVALID_REFERENCE');
}
