/**
 * Which sessions another program is writing right now: the same check that
 * makes `send` refuse with SESSION_IN_USE (a process with the log open for
 * writing, or holding the kernel lock a newer dsh keeps beside it), asked for
 * a whole listing at once so the inspector can say so before anyone sends.
 */
import { lockFilesBeside } from '@sessref/dsh/jsonl-root';
import { findForeignWriters, type ForeignWriter } from './open-writers.js';

interface Watched {
  sessionId: string;
  files: string[];
}

/**
 * The sessions among `logs` (each session's log file, see `Engine.logPaths`)
 * that another process is writing, each with one such process. One scan of
 * /proc answers for the whole listing; only when it finds something is the
 * set halved until each writer is pinned to its session (a few scans, never
 * one per session).
 */
export function sessionsInUse(logs: ReadonlyMap<string, string>): Map<string, ForeignWriter> {
  const found = new Map<string, ForeignWriter>();
  const watched = [...logs].map(([sessionId, log]): Watched => ({ sessionId, files: [log, lockFilesBeside(log).dsh] }));
  pin(watched, found);
  return found;
}

function pin(group: readonly Watched[], found: Map<string, ForeignWriter>): void {
  if (group.length === 0) return;
  const [writer] = findForeignWriters(group.flatMap((entry) => entry.files));
  if (writer === undefined) return;
  if (group.length === 1) {
    found.set(group[0]!.sessionId, writer);
    return;
  }
  const half = Math.ceil(group.length / 2);
  pin(group.slice(0, half), found);
  pin(group.slice(half), found);
}
