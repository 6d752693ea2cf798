/**
 * A session's current surface read without booting a dsh host: the log as
 * sessref's own reader reads it ({@link RootLogs.load}), then the steps dsh
 * 0.1.0-rc.8 takes between its persistence and `ctx.sessionQuery.readSurface`,
 * each through dsh's own function: event admission (a known type, or one its
 * writer marked ignorable), the closers of an interrupted turn, the restore
 * that checks header, envelopes, seqs and surface (`Session.fromRestore`),
 * and the surface fold, or the title fold. A fresh `sessref show` answers
 * from this in a fraction of a host's start-up, and a first search titles
 * and indexes a root without one.
 *
 * Only what the host would answer the same is answered here. rc.8's
 * persistence also upgrades the shapes of pre-release logs before it
 * restores them (helpers it does not export); a log with any such shape,
 * and every log this read refuses, is left to the host (`undefined`), whose
 * answer, or refusal with its own code and words, is then the exact one.
 * @module @sessref/dsh/own-surface
 */
import {
  KNOWN_SESSION_EVENT_TYPES,
  SESSION_FORMAT_VERSION,
  Session,
  SessionId,
  adoptSessionEvent,
  foldSurface,
  interruptedTurnClosers,
  isSurfaceEvent,
  type SessionEvent,
  type SessionHeader,
} from '@deepseek-ai/dsh-session';
import type { SurfaceMessage, SurfaceSnapshot } from '@sessref/core';
import { toSurfaceMessage } from '../surface-message.js';
import type { StoredLog } from './log-reads.js';

/** A log restored as rc.8's persistence restores it: the session's header, and its events with the closers of an open turn. */
interface Restored {
  header: SessionHeader;
  events: readonly SessionEvent[];
}

/**
 * `stored` (the log of `id`, read whole) restored as rc.8's persistence
 * restores it before any read of it; `undefined` where only the host can
 * say (see the module comment).
 */
function restore(id: string, stored: StoredLog): Restored | undefined {
  const { meta, events } = stored;
  if (meta.id !== id || meta.version !== SESSION_FORMAT_VERSION || events.some(upgradedByRc8)) return undefined;
  try {
    for (const event of events) adoptSessionEvent(event);
    if (events.some((event) => !KNOWN_SESSION_EVENT_TYPES.has(event.type) && event.ignorable !== true)) return undefined;
    const balanced = [...events, ...interruptedTurnClosers(events).map(adoptSessionEvent)];
    return { header: Session.fromRestore(SessionId(id), balanced, meta).header, events: balanced };
  } catch {
    return undefined;
  }
}

/**
 * The surface `ctx.sessionQuery.readSurface` of rc.8 gives for `stored` (the
 * log of `id`, read whole), in the core's shape; `undefined` where only the
 * host can say (see the module comment).
 */
export function surfaceOfStored(id: string, stored: StoredLog): SurfaceSnapshot | undefined {
  const restored = restore(id, stored);
  return restored && surfaceOf(restored);
}

/**
 * The header and latest title `ctx.sessionQuery.readTitleSnapshots` of rc.8
 * gives for `stored` (the log of `id`, read whole): the last `session/title`
 * event's, after the same restore; `undefined` where only the host can say.
 */
export function titleOfStored(id: string, stored: StoredLog): TitledHeader | undefined {
  const restored = restore(id, stored);
  return restored && titleOf(restored);
}

/**
 * Both of the above from one restore of `stored`: a read that indexes a
 * log's surface (a first search reads every log whole) gets its title for
 * the title index at no second read. Either is `undefined` where only the
 * host can say.
 */
export function surfaceAndTitleOfStored(id: string, stored: StoredLog): { surface: SurfaceSnapshot | undefined; title: TitledHeader | undefined } {
  const restored = restore(id, stored);
  return restored === undefined ? { surface: undefined, title: undefined } : { surface: surfaceOf(restored), title: titleOf(restored) };
}

/** A session's header and latest title, as rc.8's title read gives them. */
export interface TitledHeader {
  header: SessionHeader;
  title: string | undefined;
}

function surfaceOf({ header, events }: Restored): SurfaceSnapshot | undefined {
  const messages: SurfaceMessage[] = [];
  try {
    for (const seq of foldSurface(events).nodes) {
      // rc.8's read finds each node at its seq; a log where it does not is the host's to refuse.
      const event = events[seq];
      if (event?.seq !== seq || !isSurfaceEvent(event)) return undefined;
      // Restored events are frozen and this read's own: the host's copy of each would hold the same values.
      messages.push(toSurfaceMessage(event));
    }
  } catch {
    return undefined;
  }
  return { session: structuredClone(header), capturedThroughSeq: events.at(-1)?.seq ?? null, messages };
}

function titleOf({ header, events }: Restored): TitledHeader {
  const titled = events.findLast((event) => event.type === 'session/title');
  return { header: structuredClone(header), title: titled?.type === 'session/title' ? titled.data.title : undefined };
}

/**
 * Whether rc.8's persistence would upgrade or refuse `event` as a
 * pre-release shape: a legacy type, a `turn/start` with its old trigger, a
 * `turn/end` whose reason it rewrites or checks, or a message event without
 * the identified message every current writer records.
 */
function upgradedByRc8(event: SessionEvent): boolean {
  const data = recordOf(event.data);
  switch (event.type as string) {
    case 'steering/message':
    case 'request/header-delta':
    case 'mode/set':
      return true;
    case 'request/header':
      return data?.['reason'] === 'fallback';
    case 'turn/start':
      return data !== undefined && Object.hasOwn(data, 'trigger');
    case 'turn/end':
      return data !== undefined && !isCurrentTurnEnd(data);
    case 'user/message':
      return data !== undefined && !Object.hasOwn(data, 'id');
    case 'assistant/message':
    case 'tool/result':
      return data !== undefined && !Object.hasOwn(data, 'message');
    default:
      return false;
  }
}

/** A `turn/end` rc.8 keeps as it is: a turn number, and a reason in today's shape. */
function isCurrentTurnEnd(data: Record<string, unknown>): boolean {
  const reason = recordOf(data['reason']);
  const keys = Object.keys(data);
  if (reason === undefined || !Number.isSafeInteger(data['turn']) || (data['turn'] as number) < 1) return false;
  if (keys.length !== 2 || !keys.includes('turn') || !keys.includes('reason')) return false;
  switch (reason['kind']) {
    case 'completed':
    case 'blocked':
    case 'max-tokens':
    case 'interrupted':
      return Object.keys(reason).length === 1;
    case 'aborted':
      return Object.hasOwn(reason, 'reason');
    case 'error':
      return Object.hasOwn(reason, 'error');
    default:
      return false;
  }
}

function recordOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
