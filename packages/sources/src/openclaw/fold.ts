import { foldPiEntries } from '../pi/fold.js';
import type { Transcript } from '../transcripts/format.js';

/**
 * One OpenClaw session folded: its transcript events are pi session entries
 * (version 4; OpenClaw's agent runs on pi's), so pi's fold reads them: the
 * `session` header first, the branch walked up from the last event, the
 * latest compaction's summary then the entries from its `firstKeptEntryId`
 * (this package's README, "OpenClaw", and "pi"). `ownTitle`, OpenClaw's
 * own name for the session, wins over the title pi's rule finds (a
 * `session_info` name, else the first user message).
 */
export function foldOpenclaw(events: readonly Readonly<Record<string, unknown>>[], ownTitle: string | undefined, where: string): Transcript {
  const transcript = foldPiEntries(events, where);
  return ownTitle === undefined ? transcript : { ...transcript, title: ownTitle };
}
