/**
 * The one entry point: a dsh session log of any generation sessref knows
 * (v0-v4), read whole within fixed budgets, as the header and events dsh
 * 0.1.0-rc.8's session stack restores and queries. The caller chooses the
 * file and tells its generation (the file name's, see
 * `@sessref/dsh/jsonl-root`); this reads nothing else. It either returns the
 * whole committed log or throws a {@link SessionLogReadError} naming the
 * file, never a partial result.
 */
import { closeSync } from 'node:fs';
import type { SessionEvent, SessionHeader } from '@deepseek-ai/dsh-session';
import { FileTooLargeError, NotRegularFileError, openRegularFile, readFully, readRegularFile } from '@sessref/dsh/jsonl-root';
import { HEADER_BUDGET_BYTES, MAX_LOG_BYTES } from '../log-probe.js';
import { SessionLogReadError } from './errors.js';
import { knownGeneration, type Generation } from './generation.js';
import { readHeader, sessionHeaderOf } from './header.js';
import { parseJsonLine } from './json-line.js';
import { createLogReader } from './log-reader.js';
import { forEachLine, type ReadLimits, type TornTail } from './physical.js';

declare module '@deepseek-ai/dsh-session/types' {
  interface SessionEventMap {
    /**
     * An event of a newer generation that rc.8 cannot hold (see upcast.ts),
     * always `ignorable`, in its place so seqs stay the file's; `type` is the original's.
     */
    'sessref/omitted': { type: string };
  }
}

export interface SessionLogRead {
  /** The generation on disk: a captured seq means something only with it. */
  version: Generation;
  /** rc.8's header (its `version` is rc.8's 0, whatever the file's generation). */
  header: SessionHeader;
  /** rc.8's events; seqs are the file's, contiguous from 0. */
  events: SessionEvent[];
  /** What a crash left incomplete at the end, not part of `events`. */
  torn?: TornTail;
}

const DEFAULT_READ_LIMITS: ReadLimits = {
  // What the host reads at most of any log (Node's readFile limit).
  maxFileBytes: MAX_LOG_BYTES,
  maxPlaintextBytes: MAX_LOG_BYTES,
  // dsh bounds a tool result long before this; a longer line is not a dsh record.
  maxLineBytes: 64 * 1024 * 1024,
};

/** Read the log at `path`, whose file name says generation `version`. */
export function readSessionLog(path: string, version: number, limits: Partial<ReadLimits> = {}): SessionLogRead {
  try {
    const generation = knownGeneration(version, 'its file name says it was');
    const reader = createLogReader(generation);
    const torn = forEachLine(readFile(path, limits.maxFileBytes ?? DEFAULT_READ_LIMITS.maxFileBytes), { ...DEFAULT_READ_LIMITS, ...limits }, reader.line);
    return { version: generation, ...reader.finish(), ...(torn === undefined ? {} : { torn }) };
  } catch (error) {
    throw located(path, error);
  }
}

/**
 * The header of the v0 or v1 log at `path`, from its first line alone (at
 * most the first {@link HEADER_BUDGET_BYTES}): what a listing needs, checked
 * as {@link readSessionLog} checks it, without reading one event. A v2+
 * header's inherited cut is an event, so those logs are read whole.
 */
export function readSessionHeader(path: string, version: 0 | 1): SessionHeader {
  try {
    const generation = knownGeneration(version, 'its file name says it was');
    let first: Buffer | undefined;
    const limits = { maxFileBytes: HEADER_BUDGET_BYTES, maxPlaintextBytes: HEADER_BUDGET_BYTES, maxLineBytes: HEADER_BUDGET_BYTES };
    try {
      forEachLine(readHead(path, HEADER_BUDGET_BYTES), limits, (line) => {
        first = line;
        throw FIRST_LINE_READ;
      });
    } catch (stop) {
      if (stop !== FIRST_LINE_READ) throw stop;
    }
    if (first === undefined) throw new SessionLogReadError('SESSION_LOG_NO_HEADER', 'the log has no complete header line');
    const fields = readHeader(parseJsonLine(first, 1), generation);
    return sessionHeaderOf(fields, fields.seedLength);
  } catch (error) {
    throw located(path, error);
  }
}

/** Thrown from the line sink to stop at the header: the rest of the head is not decoded. */
const FIRST_LINE_READ = Symbol('first line read');

/** At most the first `maxBytes` of the file at `path`. */
function readHead(path: string, maxBytes: number): Buffer {
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(path);
  } catch (error) {
    throw unreadable(error);
  }
  try {
    const head = Buffer.alloc(Math.min(opened.stats.size, maxBytes));
    return head.subarray(0, readFully(opened.fd, head, 0, head.length, 0));
  } finally {
    closeSync(opened.fd);
  }
}

function unreadable(error: unknown): SessionLogReadError {
  const reason = error instanceof NotRegularFileError ? `it is ${error.kind}, not a regular file` : `it cannot be read (${String(error)})`;
  return new SessionLogReadError('SESSION_LOG_UNREADABLE', reason, { cause: error });
}

function readFile(path: string, maxBytes: number): Buffer {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(path, maxBytes);
  } catch (error) {
    if (error instanceof FileTooLargeError) throw new SessionLogReadError('SESSION_LOG_TOO_LARGE', `it is over ${maxBytes} bytes`, { cause: error });
    throw unreadable(error);
  }
  if (bytes === undefined) throw new SessionLogReadError('SESSION_LOG_UNREADABLE', 'it does not exist');
  return bytes;
}

/**
 * Every failure as a coded error naming the file. Anything not already coded
 * (a bug, a stack overflow on hostile input) is reported as damage of that
 * log rather than escaping as an uncoded crash.
 */
function located(path: string, error: unknown): SessionLogReadError {
  if (error instanceof SessionLogReadError) return new SessionLogReadError(error.code, `session log ${path}: ${error.message}`, { cause: error });
  return new SessionLogReadError('SESSION_LOG_CORRUPT', `session log ${path}: unreadable content (${String(error)})`, { cause: error });
}
