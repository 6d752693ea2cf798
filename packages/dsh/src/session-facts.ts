import type { SurfaceEvent } from '@deepseek-ai/dsh-session';
import { extractSessionEventText } from '@deepseek-ai/dsh-session-query';
import { boundSnippet, findPhrase, phraseTokens, projectMessage, snippetAround } from '@sessref/core';
import { toSurfaceMessage } from './storage.js';

/** Where a carried message comes from, as a content hit reports it. */
type Origin = 'user' | 'assistant' | 'checkpoint';

/** One surface message as a snapshot would project it. */
export interface ProjectedEvent {
  seq: number;
  /** Undefined for a message no snapshot carries (injected context, referenced snapshots, tool results, empty text). */
  origin: Origin | undefined;
  /** The projected text; empty for a message no snapshot carries. */
  text: string;
  /** The backend's document of this event has the same tokens as its projected text. */
  pure: boolean;
}

/** What the facts know of one carried message. */
interface CarriedFact {
  origin: Origin;
  /**
   * The projected text, kept only when the backend indexed more than it (an
   * assistant message's tool calls): a phrase found in such a document may
   * lie outside what a snapshot carries.
   */
  text?: string;
}

/**
 * What one read of a session's current surface taught, valid while its
 * header's `createdAt` holds. Logs are append-only and the surface only
 * loses events, so what is known of a seq stays true; the backend's surface
 * filter drops a seq once it is shadowed, and a seq above `throughSeq` was
 * appended after the read.
 */
export interface SessionFacts {
  createdAt: number;
  /** The highest seq the read showed. */
  throughSeq: number;
  /** Carried messages by seq; a seq up to `throughSeq` that is absent is one no snapshot carries. */
  carried: Map<number, CarriedFact>;
  /** Length of the projected text kept in `carried`, which the cache bounds. */
  keptText: number;
}

/** A backend match inside one session: the event's seq and the backend's snippet of it. */
export interface EventMatch {
  seq: number;
  snippet: string;
}

/** A match a snapshot carries. */
export interface Located {
  seq: number;
  origin: Origin;
  snippet: string;
}

/** The facts cannot judge a match newer than the read they come from. */
export const UNKNOWN = Symbol('unknown');
/** The match is not in anything a snapshot would carry. */
export const NOT_CARRIED = Symbol('not carried');

export type Verdict = Located | typeof UNKNOWN | typeof NOT_CARRIED;

/** One surface event as a snapshot would project it (the core's rule, {@link projectMessage}). */
export function projectEvent(event: SurfaceEvent): ProjectedEvent {
  const item = projectMessage(toSurfaceMessage(event));
  if (item === undefined) return { seq: event.seq, origin: undefined, text: '', pure: false };
  // The backend indexes the event's semantic text, which adds tool calls (and nested tool results) to the text blocks.
  return { seq: event.seq, origin: item.checkpoint ? 'checkpoint' : item.role, text: item.text, pure: sameTokens(extractSessionEventText(event), item.text) };
}

/** The facts of one read surface: its session's `createdAt` and its projected events. */
export function factsOf(createdAt: number, events: readonly ProjectedEvent[]): SessionFacts {
  const carried = new Map<number, CarriedFact>();
  let throughSeq = -1;
  let keptText = 0;
  for (const event of events) {
    throughSeq = Math.max(throughSeq, event.seq);
    if (event.origin === undefined) continue;
    if (event.pure) {
      carried.set(event.seq, { origin: event.origin });
    } else {
      carried.set(event.seq, { origin: event.origin, text: event.text });
      keptText += event.text.length;
    }
  }
  return { createdAt, throughSeq, carried, keptText };
}

/** Whether the backend's match of `query` is one a snapshot carries, by the facts alone. */
export function judge(facts: SessionFacts, match: EventMatch, query: string): Verdict {
  if (match.seq > facts.throughSeq) return UNKNOWN;
  const fact = facts.carried.get(match.seq);
  if (fact === undefined) return NOT_CARRIED;
  if (fact.text === undefined) return { seq: match.seq, origin: fact.origin, snippet: boundSnippet(match.snippet) };
  const [range] = findPhrase(fact.text, query);
  return range === undefined ? NOT_CARRIED : { seq: match.seq, origin: fact.origin, snippet: snippetAround(fact.text, range) };
}

/**
 * The match a snapshot carries, from a freshly read surface: the backend's
 * best event when it is carried and its projected text has the phrase,
 * else the first carried message (in log order) that has it.
 */
export function locate(events: readonly ProjectedEvent[], best: EventMatch, query: string): Located | undefined {
  const bestEvent = events.find((event) => event.seq === best.seq);
  if (bestEvent?.origin !== undefined && bestEvent.pure) return { seq: best.seq, origin: bestEvent.origin, snippet: boundSnippet(best.snippet) };
  const ordered = bestEvent === undefined ? events : [bestEvent, ...events.filter((event) => event !== bestEvent)];
  for (const event of ordered) {
    if (event.origin === undefined) continue;
    const [range] = findPhrase(event.text, query);
    if (range !== undefined) return { seq: event.seq, origin: event.origin, snippet: snippetAround(event.text, range) };
  }
  return undefined;
}

function sameTokens(a: string, b: string): boolean {
  if (a === b) return true;
  const left = phraseTokens(a);
  const right = phraseTokens(b);
  return left.length === right.length && left.every((token, index) => token === right[index]);
}
