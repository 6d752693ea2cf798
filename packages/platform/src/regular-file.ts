import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from 'node:fs';
import { errorCode } from '@sessref/core';

/**
 * Reading a file that someone else may have replaced with a FIFO, a socket or
 * a device: `open()` of a FIFO waits for a writer forever, one of a device can
 * act on the device, and `readFile()` of `/dev/zero` never ends. These helpers
 * look at the file type before opening, open without ever waiting (a FIFO
 * swapped in after the look opens at once, and is refused by `fstat`), and
 * read at most a given number of bytes.
 */

/** Open flags that never wait: a FIFO opens at once (no writer needed), and a terminal never becomes the controlling one. */
const NON_BLOCKING_READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What a file is, as an error message says it: `a FIFO (named pipe)`, `a socket`, … */
export function describeFileType(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'a special file';
}

/** The path names something other than a regular file; nothing was opened (or it was closed at once). */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREGULAR';

  constructor(
    readonly path: string,
    /** What it is, as {@link describeFileType} says it. */
    readonly kind: string,
  ) {
    super(`${path} is ${kind}, not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

/**
 * Open the regular file at `path` (symbolic links followed) for reading, or
 * throw: {@link NotRegularFileError} for anything else, the system error
 * (`ENOENT`, `EACCES`, …) when it cannot be opened. Never waits. The caller
 * closes the descriptor.
 */
export function openRegularFile(path: string): { fd: number; stats: Stats } {
  const before = statSync(path);
  if (!before.isFile()) throw new NotRegularFileError(path, describeFileType(before));
  const fd = openSync(path, NON_BLOCKING_READ);
  try {
    // Replaced between the look and the open: what was opened is what counts.
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, describeFileType(stats));
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * Read `length` bytes of `fd` from file offset `position` into `buffer` at
 * `offset`, fewer only at the end of the file. Returns the number read.
 */
export function readFully(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
  let total = 0;
  while (total < length) {
    const read = readSync(fd, buffer, offset + total, length - total, position + total);
    if (read === 0) break;
    total += read;
  }
  return total;
}

/** The file is larger than the caller is willing to read. */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';

  constructor(
    readonly path: string,
    readonly size: number,
    readonly maxBytes: number,
  ) {
    super(`${path} is ${size} bytes, over the ${maxBytes} bytes it may have`);
    this.name = 'FileTooLargeError';
  }
}

/**
 * The whole regular file at `path`, at most `maxBytes` long; `undefined`
 * when there is nothing at `path`. Throws {@link NotRegularFileError},
 * {@link FileTooLargeError} or the system error. Never waits on a FIFO or a
 * device, and never allocates more than `maxBytes` (a file that grows while
 * it is read is cut there and refused).
 */
export function readRegularFile(path: string, maxBytes: number): Buffer | undefined {
  let opened: { fd: number; stats: Stats };
  try {
    opened = openRegularFile(path);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  const { fd, stats } = opened;
  try {
    if (stats.size > maxBytes) throw new FileTooLargeError(path, stats.size, maxBytes);
    // Room for one byte more than the size it had, so a file that grew meanwhile is noticed and read on.
    let buffer = Buffer.allocUnsafe(Math.min(stats.size + 1, maxBytes + 1));
    let total = 0;
    for (;;) {
      const read = readFully(fd, buffer, total, buffer.length - total, total);
      total += read;
      if (total < buffer.length) return buffer.subarray(0, total);
      if (total > maxBytes) throw new FileTooLargeError(path, total, maxBytes);
      const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
      buffer.copy(grown);
      buffer = grown;
    }
  } finally {
    closeSync(fd);
  }
}
