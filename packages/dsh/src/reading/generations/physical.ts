/**
 * A log file's bytes to its committed lines, in either encoding dsh writes:
 * checksummed Zstandard frames (a header frame, then one per append batch) or
 * plain JSONL. What a crash can leave (an incomplete last frame, a last line
 * without its newline) is a torn tail: reported, never handed on as a line.
 * Anything else that is wrong before it is damage.
 */
import { errorCode } from '@sessref/core';
import { SessionLogReadError, corrupt } from './errors.js';
import { ZSTD_MAGIC, nodeZlib, scanFrame, type FrameSpan } from '@sessref/platform';

/** How much a read may take; every bound is a coded refusal, never an allocation. */
export interface ReadLimits {
  /** The largest file read. */
  maxFileBytes: number;
  /** The most plaintext all frames of one file may decompress to (see `plaintextBudget` in read-session-log.ts). */
  maxPlaintextBytes: number;
  /** The longest line, newline excluded. */
  maxLineBytes: number;
}

/**
 * The end of a log a crash left incomplete. `frame`: the file ends inside a
 * Zstandard frame, `bytes` is that frame's size on disk; `line`: a plain log
 * ends without a newline, `bytes` is that last line's size.
 */
export interface TornTail {
  unit: 'frame' | 'line';
  bytes: number;
}

/** Receives each committed line in order, without its newline. */
export type LineSink = (line: Buffer) => void;

/**
 * Hand every committed line of `bytes` to `onLine`; the torn tail, if any,
 * is returned. The encoding is told by the first byte: a Zstandard frame
 * begins with its magic's low byte, a JSONL line with `{`. The file name
 * that also says so is the caller's business (it owns file names).
 */
export function forEachLine(bytes: Buffer, limits: ReadLimits, onLine: LineSink): TornTail | undefined {
  return bytes[0] === (ZSTD_MAGIC & 0xff) ? zstdLines(bytes, limits, onLine) : plainLines(bytes, limits, onLine);
}

function plainLines(bytes: Buffer, limits: ReadLimits, onLine: LineSink): TornTail | undefined {
  const tail = splitLines(bytes, limits.maxLineBytes, onLine);
  return tail === 0 ? undefined : { unit: 'line', bytes: tail };
}

/**
 * The frames are walked, decompressed and split one at a time: what is held
 * at once is one frame's plaintext and the lines handed on, never every
 * frame's span or plaintext, and a file whose plaintext outgrows the budget
 * is refused at the frame that crosses it, having decompressed at most the
 * budget (a few KiB of crafted frames can stand for GiBs of text).
 */
function zstdLines(bytes: Buffer, limits: ReadLimits, onLine: LineSink): TornTail | undefined {
  let budget = limits.maxPlaintextBytes;
  for (let start = 0, index = 0; start < bytes.length; index += 1) {
    const scan = scanFrame(bytes, start);
    if (scan.kind === 'corrupt') throw corrupt(scan.detail);
    if (scan.kind === 'incomplete') return { unit: 'frame', bytes: bytes.length - start };
    const frame = { start, end: scan.end };
    const plaintext = decompressFrame(bytes, frame, budget, limits.maxPlaintextBytes);
    budget -= plaintext.length;
    // dsh writes whole records per frame, and the header alone in the first.
    if (index === 0 && plaintext.indexOf(10) !== plaintext.length - 1) throw corrupt('the header frame is not exactly one line');
    if (splitLines(plaintext, limits.maxLineBytes, onLine) !== 0) throw corrupt(`the frame at byte ${frame.start} does not end with a newline`);
    start = scan.end;
  }
  return undefined;
}

/** One complete frame's plaintext, within what is left of the plaintext budget. */
function decompressFrame(bytes: Buffer, frame: FrameSpan, budget: number, total: number): Buffer {
  if (budget <= 0) throw tooMuchPlaintext(total);
  let plaintext: Buffer;
  try {
    plaintext = nodeZlib().zstdDecompressSync(bytes.subarray(frame.start, frame.end), { maxOutputLength: budget });
  } catch (error) {
    if (errorCode(error) === 'ERR_BUFFER_TOO_LARGE') throw tooMuchPlaintext(total);
    throw corrupt(`the frame at byte ${frame.start} does not decompress (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  // dsh never writes an empty frame; an empty result is a frame zstd could not decode.
  if (plaintext.length === 0) throw corrupt(`the frame at byte ${frame.start} decompresses to nothing`);
  return plaintext;
}

function tooMuchPlaintext(total: number): SessionLogReadError {
  return new SessionLogReadError('SESSION_LOG_TOO_LARGE', `its frames decompress to more than the ${formatBytes(total)} of plaintext a log of its size may hold`);
}

/** Hand each newline-terminated line to `onLine`; returns the length of what follows the last newline. */
function splitLines(bytes: Buffer, maxLineBytes: number, onLine: LineSink): number {
  let start = 0;
  for (let newline = bytes.indexOf(10); newline !== -1; newline = bytes.indexOf(10, start)) {
    onLine(withinLineBudget(bytes.subarray(start, newline), maxLineBytes));
    start = newline + 1;
  }
  return withinLineBudget(bytes.subarray(start), maxLineBytes).length;
}

function withinLineBudget(line: Buffer, maxLineBytes: number): Buffer {
  if (line.length > maxLineBytes) {
    throw new SessionLogReadError('SESSION_LOG_LINE_TOO_LONG', `a line of ${line.length} bytes is over the ${maxLineBytes}-byte line budget`);
  }
  return line;
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MiB` : `${bytes} bytes`;
}
