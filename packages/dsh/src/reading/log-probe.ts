/**
 * What sessref checks of a log before dsh's JSONL persistence may touch it,
 * within a fixed budget whatever the file is.
 *
 * The host trusts its files: it opens a FIFO in a log's place and waits for a
 * writer forever (blocking a thread of the pool each time); it reads a log
 * whole before looking at its first bytes, so a 1 GiB file of zeros costs
 * 2 GiB of memory to be called damaged; a log over 2 GiB fails in Node's
 * `readFile` without naming the file; and it looks for the end of the header
 * frame by re-scanning a growing buffer from the start for every 8 KiB it
 * reads, so a crafted header frame of a few MiB makes every listing take tens
 * of seconds. The probe answers each of these from at most
 * {@link HEADER_BUDGET_BYTES} of the file, without waiting: the file type
 * (stat, then a non-blocking open and fstat), the size, the first frame's
 * magic and structure, which must end within the budget, the size of its
 * plaintext (at most {@link HEADER_PLAINTEXT_BUDGET_BYTES}: bounded by its
 * block sizes, and decompressed under that budget only when they do not
 * bound it; the host decompresses the header frame whole), and the magic of
 * the frame after it. Only a log that passes goes to the host.
 */
import { closeSync } from 'node:fs';
import { errorCode } from '@sessref/core';
import { NotRegularFileError, ZSTD_MAGIC, nodeZlib, openRegularFile, readFully, scanFrame, type FrameScan } from '@sessref/platform';

/**
 * The header frame must end, and its plaintext fit, within this many bytes.
 * dsh writes the header (id, cwd, times, origin) in one small frame: a few
 * hundred bytes, a few KiB with a very long cwd.
 */
export const HEADER_BUDGET_BYTES = 64 * 1024;

/**
 * The header frame's plaintext may take at most this much: what the host may
 * spend decompressing it. One block of a frame regenerates at most 128 KiB,
 * so dsh's one-block header frame is bounded without decompressing it.
 */
const HEADER_PLAINTEXT_BUDGET_BYTES = 256 * 1024;

/** The largest log the host can read: Node's `readFile` refuses anything over 2 GiB - 1 bytes. */
export const MAX_LOG_BYTES = 2 ** 31 - 1;

/** The first read: every header dsh writes fits, so one read answers for nearly every log. */
const FIRST_READ_BYTES = 4096;

export type LogProbeCode = 'SESSION_LOG_NOT_A_FILE' | 'SESSION_LOG_UNREADABLE' | 'SESSION_LOG_TOO_LARGE' | 'SESSION_LOG_HEADER_TOO_LARGE' | 'SESSION_LOG_CORRUPT';

/** Why a log is refused: `reason` follows the log's name in the message (`log <file> <reason>`). */
export interface LogProblem {
  code: LogProbeCode;
  reason: string;
}

/** What probes have done: bytes read from logs. Tests count it; a probe never reads more than {@link HEADER_BUDGET_BYTES} + 4. */
export interface ProbeCounters {
  bytesRead: number;
}

/** One buffer for every probe: probes are synchronous, so they never overlap. */
const window = Buffer.alloc(HEADER_BUDGET_BYTES);

/**
 * Check the log at `path` as described above; `undefined` when the host may
 * read it (it may still find damage further on: a torn tail, a bad frame, a
 * header of another session). A log cut inside its header frame also passes:
 * the host names that itself, reading less than the budget.
 */
export function probeLog(path: string, counters?: ProbeCounters): LogProblem | undefined {
  let opened: ReturnType<typeof openRegularFile>;
  try {
    opened = openRegularFile(path);
  } catch (error) {
    if (error instanceof NotRegularFileError) {
      if (error.kind === 'a directory') return { code: 'SESSION_LOG_UNREADABLE', reason: 'cannot be read: EISDIR: it is a directory, not a file' };
      return { code: 'SESSION_LOG_NOT_A_FILE', reason: `is ${error.kind}, not a regular file; sessref never opens it` };
    }
    return { code: 'SESSION_LOG_UNREADABLE', reason: `cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  }
  const { fd, stats } = opened;
  try {
    if (stats.size > MAX_LOG_BYTES) {
      return {
        code: 'SESSION_LOG_TOO_LARGE',
        reason: `is ${formatSize(stats.size)} (${stats.size} bytes), over the ${MAX_LOG_BYTES} bytes dsh's JSONL persistence can read a log in`,
      };
    }
    const read = (buffer: Buffer, offset: number, length: number, position: number) => {
      const bytes = readFully(fd, buffer, offset, length, position);
      if (counters !== undefined) counters.bytesRead += bytes;
      return bytes;
    };
    return checkHeader(read, stats.size);
  } catch (error) {
    return { code: 'SESSION_LOG_UNREADABLE', reason: `cannot be read: ${error instanceof Error ? error.message : String(error)}` };
  } finally {
    closeSync(fd);
  }
}

type Read = (buffer: Buffer, offset: number, length: number, position: number) => number;

function checkHeader(read: Read, size: number): LogProblem | undefined {
  let available = read(window, 0, Math.min(FIRST_READ_BYTES, size, HEADER_BUDGET_BYTES), 0);
  for (;;) {
    const scan = scanFirstFrame(window.subarray(0, available));
    if (scan.kind === 'corrupt') return { code: 'SESSION_LOG_CORRUPT', reason: `is damaged: corrupt Zstandard session log: ${scan.detail}` };
    if (scan.kind === 'frame') return checkHeaderFrame(read, size, scan);
    // Incomplete: read on, up to the budget.
    if (available >= size) return undefined; // cut inside its header: the host says so
    if (available >= HEADER_BUDGET_BYTES) {
      return {
        code: 'SESSION_LOG_HEADER_TOO_LARGE',
        reason: `is damaged: its header frame does not end within the first ${HEADER_BUDGET_BYTES / 1024} KiB (dsh writes it in a few hundred bytes)`,
      };
    }
    const more = Math.min(available * 4, size, HEADER_BUDGET_BYTES) - available;
    const got = read(window, available, more, available);
    if (got === 0) return undefined; // shrank meanwhile: the host reads what is there
    available += got;
  }
}

function checkHeaderFrame(read: Read, size: number, { end, plaintextBound }: { end: number; plaintextBound: number }): LogProblem | undefined {
  // Decompressing costs a decoder context (about half a millisecond): only when the block sizes do not bound the plaintext.
  if (plaintextBound > HEADER_PLAINTEXT_BUDGET_BYTES) {
    let plaintext: Buffer;
    try {
      plaintext = nodeZlib().zstdDecompressSync(window.subarray(0, end), { maxOutputLength: HEADER_PLAINTEXT_BUDGET_BYTES });
    } catch (error) {
      if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') {
        return {
          code: 'SESSION_LOG_HEADER_TOO_LARGE',
          reason: `is damaged: its header frame decompresses to more than ${HEADER_PLAINTEXT_BUDGET_BYTES / 1024} KiB (dsh writes a header line of a few hundred bytes)`,
        };
      }
      return { code: 'SESSION_LOG_CORRUPT', reason: 'is damaged: corrupt Zstandard session log: header frame failed validation' };
    }
    if (plaintext.length === 0 || plaintext.indexOf(10) !== plaintext.length - 1) {
      return { code: 'SESSION_LOG_CORRUPT', reason: 'is damaged: corrupt Zstandard session log: first frame is not exactly one header line' };
    }
  }
  // The next frame, when it has begun (a torn write of fewer than 4 bytes is the host's to name).
  if (size - end >= 4) {
    const magic = Buffer.alloc(4);
    if (read(magic, 0, 4, end) === 4 && magic.readUInt32LE(0) !== ZSTD_MAGIC) {
      return { code: 'SESSION_LOG_CORRUPT', reason: `is damaged: corrupt Zstandard session log: invalid frame magic at byte ${end}` };
    }
  }
  return undefined;
}

/**
 * The structure of the first Zstandard frame in `bytes` (see
 * `@sessref/platform`'s zstd-frame.ts), with the most its plaintext can be.
 */
export function scanFirstFrame(bytes: Buffer): FrameScan {
  return scanFrame(bytes, 0);
}

function formatSize(bytes: number): string {
  return bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
