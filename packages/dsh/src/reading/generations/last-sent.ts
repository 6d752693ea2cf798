/**
 * When the user last sent a message in a session. dsh 0.2 dates a session in
 * its listings (`sessions.list`'s `updatedAt`, the age its `@` picker shows)
 * by the user's last send, not by the end of the answer (sources:
 * dsh-generations.md, "dsh 0.2.x facts"). A v4 log, which dsh 0.1.7 and 0.2
 * write, says when: the time of its last direct user message (source kind
 * `user`, the one kind a user sends; checkpoints, tool results and injected
 * context carry other kinds). A forked session's events before its
 * inherited cut are its parent's, copied: the reader forgets their sends at
 * the cut (log-reader.ts).
 */
import type { RawEvent } from './envelope.js';
import { isRecord } from './json.js';

/** Whether `raw` is a message the user sent. */
export function sentByUser(raw: RawEvent): boolean {
  if (raw.type !== 'user/message' || !isRecord(raw.data)) return false;
  const source = raw.data['source'];
  return isRecord(source) && source['kind'] === 'user';
}
