import { createHash } from 'node:crypto';
import { closeSync, fstatSync } from 'node:fs';
import { openRegularFile, readFully, type FileRevision } from '@sessref/dsh/jsonl-root';
import { HEADER_BUDGET_BYTES } from './log-probe.js';

/**
 * A log's first bytes, as a digest: they hold its header frame (which ends
 * within {@link HEADER_BUDGET_BYTES}, or the log is refused), so while they
 * are the same the header read from them is too, whatever else the file did.
 */
export interface LogHead {
  /** How many bytes: the log's size when read, at most {@link HEADER_BUDGET_BYTES}. */
  bytes: number;
  sha256: string;
}

/**
 * The head of the log at `path` over its first `bytes` bytes (by default as
 * many as {@link LogHead} covers), when `path` is still the file of
 * `revision` (device and inode) and holds that many; `undefined` otherwise,
 * or when it cannot be read. Never waits on a special file.
 */
export function readLogHead(path: string, revision: FileRevision, bytes = Math.min(Number(revision.size), HEADER_BUDGET_BYTES)): LogHead | undefined {
  let fd: number;
  try {
    fd = openRegularFile(path).fd;
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd, { bigint: true });
    if (stats.dev !== revision.dev || stats.ino !== revision.ino || stats.size < BigInt(bytes)) return undefined;
    const buffer = Buffer.alloc(bytes);
    if (readFully(fd, buffer, 0, bytes, 0) !== bytes) return undefined;
    return { bytes, sha256: createHash('sha256').update(buffer).digest('hex') };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
