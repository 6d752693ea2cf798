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
import { FileTooLargeError, NotRegularFileError, openRegularFile, readFully, readRegularFile } from '@sessref/platform';
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
  /**
   * The directory the session last moved to (a v4 `working-directory/change`,
   * dsh 0.2.1+), which `header.cwd`, the directory it started in, does not
   * show; absent when the log records no change, and then the session is still
   * in `header.cwd` (see {@link effectiveCwd}).
   */
  workingDirectory?: string;
  /**
   * When the user last sent a message (epoch ms), in a v4 log (dsh 0.1.7 and
   * 0.2): the moment dsh 0.2 dates the session by; absent in older
   * generations and in a log without one.
   */
  lastSentAt?: number;
  /** What a crash left incomplete at the end, not part of `events`. */
  torn?: TornTail;
}

const DEFAULT_READ_LIMITS: Omit<ReadLimits, 'maxPlaintextBytes'> = {
  // What the host reads at most of any log (Node's readFile limit).
  maxFileBytes: MAX_LOG_BYTES,
  // dsh bounds a tool result long before this; a longer line is not a dsh record.
  maxLineBytes: 64 * 1024 * 1024,
};

/** Every log may decompress to this much, whatever its size (see {@link plaintextBudget}). */
const PLAINTEXT_FLOOR_BYTES = 32 * 1024 * 1024;
/** How many times its size on disk a log larger than the floor allows may decompress to. */
const PLAINTEXT_RATIO = 64;
/** No log decompresses to more than this. */
const PLAINTEXT_CAP_BYTES = 256 * 1024 * 1024;

/**
 * The most plaintext the frames of a `fileBytes`-byte log may decompress to:
 * {@link PLAINTEXT_RATIO} times its size, at least
 * {@link PLAINTEXT_FLOOR_BYTES}, at most {@link PLAINTEXT_CAP_BYTES}. Past it
 * the log is refused (`SESSION_LOG_TOO_LARGE`) as the frame that crosses it
 * is decompressed, so a few KiB of crafted frames (Zstandard regenerates a
 * 128 KiB block from a few bytes) cost at most this, never the GiBs they
 * stand for, nor the events those would make.
 *
 * Why these figures: dsh compresses each append batch as a frame of its own
 * at Zstandard's default level, so a log gains little from repetition across
 * records. Conversation JSON compresses 3 to 6 times (the public dsh log
 * samples, even compressed whole as one frame: at most 5.8x), and dsh bounds
 * each tool result before it is logged, so 64x is ten times what a real log
 * reaches. Under the floor a log is read whatever it repeats: 32 MiB is many
 * times a whole model context of text. The cap is what dsh itself can hold:
 * its raw read of a log joins every frame's plaintext into one string, which
 * V8 ends at 2^29 - 24 characters (512 MiB), and the events parsed from the
 * plaintext hold its text again: half of that, four records of the longest
 * line this reader takes (64 MiB), keeps one read within about a GiB. The
 * file size bound, {@link MAX_LOG_BYTES}, is Node's `readFile` limit and
 * says nothing of the plaintext.
 */
function plaintextBudget(fileBytes: number): number {
  return Math.min(PLAINTEXT_CAP_BYTES, Math.max(PLAINTEXT_FLOOR_BYTES, PLAINTEXT_RATIO * fileBytes));
}

/** The working directory in effect at the end of `read`: its last change, else the header's (dsh's `workingDirectory` fold). */
export function effectiveCwd(read: Pick<SessionLogRead, 'header' | 'workingDirectory'>): string | undefined {
  return read.workingDirectory ?? read.header.cwd;
}

/** Read the log at `path`, whose file name says generation `version`. */
export function readSessionLog(path: string, version: number, limits: Partial<ReadLimits> = {}): SessionLogRead {
  try {
    const generation = knownGeneration(version, 'its file name says it was');
    const reader = createLogReader(generation);
    const bytes = readFile(path, limits.maxFileBytes ?? DEFAULT_READ_LIMITS.maxFileBytes);
    const torn = forEachLine(bytes, { ...DEFAULT_READ_LIMITS, maxPlaintextBytes: plaintextBudget(bytes.length), ...limits }, reader.line);
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
