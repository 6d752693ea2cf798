/**
 * Committed lines to a session: the first is the header, every other holds
 * events whose seqs continue from 0 without a gap. v0 and v1 events are
 * rc.8's own shapes (v1 is v0 under another version number) and go on as
 * they are, for rc.8's persistence to read as it reads its own logs; v2-v4
 * events are upcast (upcast.ts, surface.ts) and their surface is checked by
 * rc.8's own fold before anything is handed on.
 */
import { foldSurface, isSurfaceEligibleType, type SessionEvent, type SessionHeader } from '@deepseek-ai/dsh-session';
import { SessionLogReadError, corrupt } from './errors.js';
import { lineEvents, type RawEvent } from './envelope.js';
import type { Generation } from './generation.js';
import { readHeader, sessionHeaderOf, type HeaderFields } from './header.js';
import { isRecord } from './json.js';
import { parseJsonLine } from './json-line.js';
import { createSurfaceTranslator } from './surface.js';
import { upcastEvent, type UpcastGeneration } from './upcast.js';
import { sentByUser } from './last-sent.js';
import { WORKING_DIRECTORY_CHANGE, changedDirectory } from './working-directory.js';

/** What one log holds, in rc.8's shapes. */
interface LogContent {
  header: SessionHeader;
  events: SessionEvent[];
  /** The directory of the last `working-directory/change` (working-directory.ts); absent when the log has none. */
  workingDirectory?: string;
  /** When the user last sent a message (last-sent.ts), in a v4 log; absent when it has none. */
  lastSentAt?: number;
}

export interface LogReader {
  line(bytes: Buffer): void;
  finish(): LogContent;
}

/** How one generation's events become rc.8 events. */
interface EventStage {
  event(raw: RawEvent): SessionEvent;
  seedLength(fields: HeaderFields): number | undefined;
  check(events: readonly SessionEvent[]): void;
  /** The last working-directory change read so far, if any. */
  workingDirectory(): string | undefined;
  /** The time of the last message the user sent read so far, if any. */
  lastSentAt(): number | undefined;
}

export function createLogReader(generation: Generation): LogReader {
  const stage = generation < 2 ? nativeStage() : upcastStage(generation as UpcastGeneration);
  const events: SessionEvent[] = [];
  let fields: HeaderFields | undefined;
  let lineNumber = 0;
  return {
    line(bytes) {
      lineNumber += 1;
      const value = parseJsonLine(bytes, lineNumber);
      if (fields === undefined) {
        fields = readHeader(value, generation);
        return;
      }
      for (const raw of lineEvents(value, generation, lineNumber)) {
        if (raw.seq !== events.length) throw corrupt(`seq gap on line ${lineNumber}: expected ${events.length}, got ${raw.seq}`);
        events.push(stage.event(raw));
      }
    },
    finish() {
      if (fields === undefined) throw new SessionLogReadError('SESSION_LOG_NO_HEADER', 'the log has no complete header line');
      stage.check(events);
      const workingDirectory = stage.workingDirectory();
      const lastSentAt = stage.lastSentAt();
      return {
        header: sessionHeaderOf(fields, stage.seedLength(fields)),
        events,
        ...(workingDirectory === undefined ? {} : { workingDirectory }),
        ...(lastSentAt === undefined ? {} : { lastSentAt }),
      };
    },
  };
}

function nativeStage(): EventStage {
  return {
    // rc.8's persistence upgrades and validates these itself, exactly as for the logs it writes.
    event: (raw) => raw as SessionEvent,
    seedLength: (fields) => fields.seedLength,
    check: () => undefined,
    // dsh wrote working-directory changes only from 0.2.1, in v4 logs.
    workingDirectory: () => undefined,
    // Sessions of these generations keep the age sessref always gave them, since their creation.
    lastSentAt: () => undefined,
  };
}

function upcastStage(generation: UpcastGeneration): EventStage {
  const surface = createSurfaceTranslator(generation);
  let inheritedCut: number | undefined;
  let workingDirectory: string | undefined;
  let lastSentAt: number | undefined;
  return {
    event(raw) {
      if (raw.type === 'session/end-seed' && isRecord(raw.data) && raw.data['inherited'] === true) {
        inheritedCut = raw.seq;
        // What came before the cut is the parent's conversation, copied at the fork: its sends are not this session's.
        lastSentAt = undefined;
      }
      // Only v4 has the event (dsh 0.2.1+); in an older generation it is an unknown event like any other.
      if (generation === 4 && raw.type === WORKING_DIRECTORY_CHANGE) workingDirectory = changedDirectory(raw);
      // Dated as dsh 0.2 dates a session; older generations keep their creation date.
      if (generation === 4 && sentByUser(raw)) lastSentAt = raw.time;
      return withSurface(upcastEvent(raw, generation), raw, surface.place(raw.seq, raw.surfaceOp, isSurfaceEligibleType(raw.type)));
    },
    seedLength(fields) {
      if (fields.isSeeded !== (inheritedCut !== undefined)) {
        throw new SessionLogReadError('SESSION_LOG_HEADER_INVALID', `invalid session header: isSeeded is ${fields.isSeeded}, but the log ${inheritedCut === undefined ? 'marks no' : 'marks an'} inherited cut`);
      }
      return inheritedCut;
    },
    check(events) {
      try {
        foldSurface(events);
      } catch (error) {
        throw corrupt(`its surface does not fold: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
    },
    workingDirectory: () => workingDirectory,
    lastSentAt: () => lastSentAt,
  };
}

/** A surface event with its rc.8 placement and cited seqs; any other event without them (rc.8 refuses them there). */
function withSurface(event: SessionEvent, raw: RawEvent, surfaceOp: SessionEvent<'user/message'>['surfaceOp']): SessionEvent {
  if (!isSurfaceEligibleType(event.type)) return event;
  if (surfaceOp === undefined) throw corrupt(`event ${raw.seq} (${raw.type}) has no surfaceOp`);
  return { ...event, surfaceOp, ...(raw.sourceEventSeqs === undefined ? {} : { sourceEventSeqs: raw.sourceEventSeqs }) } as SessionEvent;
}
