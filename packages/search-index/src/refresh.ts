import { throwIfCancelled, type SessionSource, type SourceFailure } from '@sessref/core';
import { monotonicMs } from '@sessref/platform';
import { documentOf, type SessionDocument } from './documents.js';
import { describe } from './sqlite.js';
import type { IndexTables } from './tables.js';

/** How far a refresh has come: after each written batch. */
export interface RefreshProgress {
  /** Sessions read and written so far (skipped ones included). */
  indexed: number;
  /** Sessions this refresh has to read: new or changed since the last. */
  total: number;
  elapsedMs: number;
  /** Estimated from the pace so far; undefined before the first batch. */
  remainingMs: number | undefined;
}

/** A session left out of the index because its read failed; it is read again once its stamp changes. */
export interface SkippedSession {
  source: string;
  sessionId: string;
  reason: unknown;
}

/** What one refresh did. */
export interface RefreshReport {
  /** Sessions the sources listed. */
  sessions: number;
  /** Sessions read and indexed (new or changed). */
  indexed: number;
  /** Sessions dropped because their source no longer lists them. */
  removed: number;
  skipped: SkippedSession[];
  /** Sources whose stamps could not be listed: what the index holds of them is kept as it was. */
  failedSources: SourceFailure[];
}

/** A session to read, and the stamp it was listed with (taken before the read, so a change during it is seen next time). */
interface Pending {
  source: SessionSource;
  id: string;
  stamp: string;
}

/** Sessions read before each write: one short write transaction per batch, never held across a read. */
const BATCH = 64;
/** Reads in flight at once. */
const READS = 4;

/**
 * Bring the index up to date with `sources`: per source, drop what it no
 * longer lists and read what is new or whose stamp changed, alone; a read
 * that fails is recorded and skipped. Cancellable between any two steps.
 */
export async function refreshIndex(
  tables: IndexTables,
  sources: readonly SessionSource[],
  signal: AbortSignal | undefined,
  onProgress: ((progress: RefreshProgress) => void) | undefined,
): Promise<RefreshReport> {
  const report: RefreshReport = { sessions: 0, indexed: 0, removed: 0, skipped: [], failedSources: [] };
  const pending: Pending[] = [];
  for (const source of sources) {
    throwIfCancelled(signal, SEARCH_INDEX);
    let stamps: ReadonlyMap<string, string>;
    try {
      stamps = await source.changeStamps(signal);
    } catch (reason) {
      throwIfCancelled(signal, SEARCH_INDEX);
      report.failedSources.push({ source: source.name, reason });
      continue;
    }
    report.sessions += stamps.size;
    const held = tables.sessionsOf(source.name);
    const gone = [...held.keys()].filter((id) => !stamps.has(id));
    if (gone.length > 0) tables.transaction(() => gone.forEach((id) => tables.removeSession(source.name, id)));
    report.removed += gone.length;
    // forEach, not for-of over the entries: in a fresh process this runs cold, where each entry's [key, value] array costs about ten times the call.
    stamps.forEach((stamp, id) => {
      if (held.get(id) !== stamp) pending.push({ source, id, stamp });
    });
  }
  const started = monotonicMs();
  for (let at = 0; at < pending.length; at += BATCH) {
    const batch = await readBatch(pending.slice(at, at + BATCH), signal);
    throwIfCancelled(signal, SEARCH_INDEX);
    tables.transaction(() => batch.forEach((read) => write(tables, read, report)));
    const indexed = Math.min(pending.length, at + BATCH);
    const elapsedMs = monotonicMs() - started;
    onProgress?.({ indexed, total: pending.length, elapsedMs, remainingMs: (elapsedMs / indexed) * (pending.length - indexed) });
  }
  return report;
}

type Read = Pending & ({ document: SessionDocument } | { reason: unknown });

async function readBatch(batch: readonly Pending[], signal: AbortSignal | undefined): Promise<Read[]> {
  const reads: Read[] = [];
  for (let at = 0; at < batch.length; at += READS) {
    throwIfCancelled(signal, SEARCH_INDEX);
    reads.push(...(await Promise.all(batch.slice(at, at + READS).map((pending) => readOne(pending, signal)))));
  }
  return reads;
}

/** One session read and projected; a failure is the session's alone. */
async function readOne(pending: Pending, signal: AbortSignal | undefined): Promise<Read> {
  try {
    return { ...pending, document: documentOf(await pending.source.readSurface(pending.id, signal)) };
  } catch (reason) {
    throwIfCancelled(signal, SEARCH_INDEX);
    return { ...pending, reason };
  }
}

function write(tables: IndexTables, read: Read, report: RefreshReport): void {
  if ('document' in read) {
    tables.put(read.source.name, read.id, read.stamp, read.document);
    tables.addTerms(read.document.words);
    report.indexed += 1;
    return;
  }
  tables.put(read.source.name, read.id, read.stamp, { failure: describe(read.reason), createdAt: 0 });
  report.skipped.push({ source: read.source.name, sessionId: read.id, reason: read.reason });
}

/** The work a cancelled refresh or search names: `the search index was cancelled`. */
export const SEARCH_INDEX = 'the search index';
