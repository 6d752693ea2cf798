import { statSync } from 'node:fs';
import { join } from 'node:path';
import { listDirectory, type WalkTrail, readRegularFile } from '@sessref/platform';
import { asObject, asString, parseJson } from '../json-lines.js';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Names one listing looks at in `sessions/`: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;
/** The session index Continue keeps beside the sessions; never a session itself. */
const INDEX_FILE = 'sessions.json';
/** The largest index read: an entry is a couple of hundred bytes, so this is far above any real one. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/**
 * Every `<id>.json` in `sessions/` but the index, as `cn --resume` looks for
 * sessions (`loadSession`), each with the time it started: its
 * `dateCreated` in `sessions.json` (what Continue records when it first
 * saves the session), else the file's birth time (what `cn`'s session list
 * shows, `getSessionMetadataWithPreview`), else its modification time where
 * the file system keeps no birth time. The index is read within a bound and
 * only when it is a regular file inside the folder; one that cannot be read
 * gives no times.
 */
export function continueTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.continue.home(environment);
  const entries = listDirectory(home, home, { entries: MAX_WALK_ENTRIES, trail }, onSkipped).filter((entry) => entry.kind === 'file');
  // Watched whether or not it is there: a session's start time can come with it.
  trail?.files.add(join(home, INDEX_FILE));
  const index = entries.find((entry) => entry.name === INDEX_FILE);
  const started = index === undefined ? new Map<string, number>() : startTimes(index.path);
  return entries.flatMap((entry): TranscriptFile[] => {
    if (!entry.name.endsWith('.json') || entry.name === INDEX_FILE) return [];
    const nativeId = entry.name.slice(0, -'.json'.length);
    const createdAt = started.get(nativeId) ?? fileTime(entry.path);
    return [{ nativeId, path: entry.path, home, ...(createdAt === undefined ? {} : { createdAt }) }];
  });
}

/** Each indexed session's `dateCreated` (epoch ms as a decimal string, `String(Date.now())` in `core/util/history.ts` `save`), by id; none from an index that cannot be read. */
function startTimes(path: string): Map<string, number> {
  const times = new Map<string, number>();
  let entries: unknown;
  try {
    const bytes = readRegularFile(path, MAX_INDEX_BYTES);
    entries = bytes === undefined ? [] : parseJson(bytes.toString('utf8'), INDEX_FILE);
  } catch {
    return times;
  }
  if (!Array.isArray(entries)) return times;
  for (const entry of entries) {
    const record = asObject(entry);
    const id = asString(record?.['sessionId']);
    const time = startTime(record?.['dateCreated']);
    if (id !== undefined && time !== undefined && !times.has(id)) times.set(id, time);
  }
  return times;
}

/** A `dateCreated`: milliseconds as a decimal string (or number), else a date string. */
function startTime(value: unknown): number | undefined {
  const time = typeof value === 'number' ? value : typeof value !== 'string' ? Number.NaN : /^\d{1,16}$/.test(value) ? Number(value) : Date.parse(value);
  return Number.isFinite(time) ? time : undefined;
}

/** The file's birth time, else its modification time (a file system without birth times reports 0); none when it cannot be looked at. */
function fileTime(path: string): number | undefined {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    return stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.mtimeMs;
  } catch {
    // Not even a stat: the read of the file says why.
    return undefined;
  }
}
