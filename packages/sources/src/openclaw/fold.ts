import { asObject } from '../json-lines.js';
import { foldPiEntries } from '../pi/fold.js';
import { contentTexts, oneLine } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';

type Event = Readonly<Record<string, unknown>>;

/**
 * One OpenClaw session folded: its transcript events are pi session entries
 * (version 4; OpenClaw's agent runs on pi's), so pi's fold reads them: the
 * `session` header first, the branch walked up from the last event, the
 * latest compaction's summary then the entries from its `firstKeptEntryId`
 * (this package's README, "OpenClaw", and "pi"). The title is OpenClaw's
 * own name for the session (`ownTitle`), else its first user prompt.
 */
export function foldOpenclaw(events: readonly Event[], ownTitle: string | undefined, where: string): Transcript {
  const { title: _piTitle, ...transcript } = foldPiEntries(events, where);
  const title = ownTitle ?? firstPromptOf(events);
  return title === undefined ? transcript : { ...transcript, title };
}

/** The text of the session's first user message, on one line, when `events` (read in order) hold one. */
export function firstPromptOf(events: Iterable<Event>): string | undefined {
  for (const event of events) {
    const prompt = promptOf(event);
    if (prompt !== undefined) return prompt;
  }
  return undefined;
}

/** The text of a user message event on one line; none for any other event, or a user message without text. */
function promptOf(event: Event): string | undefined {
  const message = event['type'] === 'message' ? asObject(event['message']) : undefined;
  if (message?.['role'] !== 'user') return undefined;
  return oneLine(contentTexts(message['content']).join(' ')) || undefined;
}
