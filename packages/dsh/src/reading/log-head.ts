import { closeSync, fstatSync } from 'node:fs';
import { nodeCrypto, openRegularFile, readFully, type FileRevision } from '@sessref/platform';
import { HEADER_BUDGET_BYTES, scanFirstFrame } from './log-probe.js';

/**
 * A log's first bytes, as a digest: they hold its header frame (the first
 * Zstandard frame, which ends within {@link HEADER_BUDGET_BYTES}, or the log
 * is refused), so while they are the same the header read from them is too,
 * whatever else the file did.
 */
export interface LogHead {
  /** How many bytes: the header frame's, else the log's size when read, at most {@link HEADER_BUDGET_BYTES}. */
  bytes: number;
  sha256: string;
}

/** Read first: a header frame is a few hundred bytes (a few KiB with a very long cwd). */
const FIRST_READ_BYTES = 4096;

/**
 * The head of the log at `path` over its first `bytes` bytes (by default its
 * header frame, found in its first 4 KiB or else in its first
 * {@link HEADER_BUDGET_BYTES}, or those bytes when there is no whole frame),
 * when `path` is still the file of `revision` (device and inode) and holds
 * that many; `undefined` otherwise, or when it cannot be read. Never waits
 * on a special file.
 */
export function readLogHead(path: string, revision: FileRevision, bytes?: number): LogHead | undefined {
  let fd: number;
  try {
    fd = openRegularFile(path).fd;
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (stats.dev !== revision.dev || stats.ino !== revision.ino) return undefined;
    const size = Number(stats.size);
    if (bytes !== undefined) return size < bytes ? undefined : digest(fd, bytes);
    for (const span of [Math.min(size, FIRST_READ_BYTES), Math.min(size, HEADER_BUDGET_BYTES)]) {
      const head = Buffer.alloc(span);
      if (readFully(fd, head, 0, span, 0) !== span) return undefined;
      const scan = scanFirstFrame(head);
      if (scan.kind === 'frame') return digest(fd, scan.end, head);
      if (scan.kind === 'corrupt' || span === size) break;
    }
    return digest(fd, Math.min(size, HEADER_BUDGET_BYTES));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The head over the first `bytes` bytes of `fd` (taken from `read` when it holds them); `undefined` when the file is shorter now. */
function digest(fd: number, bytes: number, read?: Buffer): LogHead | undefined {
  let head = read?.subarray(0, bytes);
  if (head === undefined || head.length < bytes) {
    head = Buffer.alloc(bytes);
    if (readFully(fd, head, 0, bytes, 0) !== bytes) return undefined;
  }
  return { bytes, sha256: nodeCrypto().createHash('sha256').update(head).digest('hex') };
}
