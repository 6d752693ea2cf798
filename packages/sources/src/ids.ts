/**
 * Session ids of foreign sources: `<source>:<the agent's own id>`, so one id
 * names its source unambiguously wherever a dsh session id may appear (a
 * `dsh-session:` mention, a listing, a source entry).
 */

/** The id sessref gives session `nativeId` of `source`. */
export function foreignSessionId(source: string, nativeId: string): string {
  return `${source}:${nativeId}`;
}

/** Whether a session id is one of `source`'s: its prefix spelled once, as a listing asks this of every session. */
export function ownedBy(source: string): (sessionId: string) => boolean {
  const prefix = `${source}:`;
  return (sessionId) => sessionId.startsWith(prefix);
}

/** The agent's own id inside `sessionId` when it is one of `source`'s ids. */
export function nativeSessionId(source: string, sessionId: string): string | undefined {
  const prefix = `${source}:`;
  return sessionId.startsWith(prefix) && sessionId.length > prefix.length ? sessionId.slice(prefix.length) : undefined;
}
