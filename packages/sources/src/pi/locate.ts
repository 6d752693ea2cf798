import { basename } from 'node:path';
import { filesInFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Names one listing looks at, across `sessions/` and every working directory's folder in it: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/** A session file: `<start time>_<session id>.jsonl` (`SessionManager`'s `newSession`); the id is what follows the last `_`. */
const SESSION_FILE = /^(?:.*_)?([^_]+)\.jsonl$/;

/**
 * The session files pi's own list reads (`SessionManager.listAll`): every
 * `.jsonl` in each working directory's folder of `sessions/`
 * (`--<cwd with / as ->--`), one level and no deeper. An id found twice is
 * listed once, from the file whose name sorts last (the names start with
 * the start time). A folder that cannot be listed or searched, or a link
 * loop in a folder's place, is skipped alone and named to `onSkipped`.
 */
export function piTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.pi.home(environment);
  const byId = new Map<string, TranscriptFile>();
  for (const entry of filesInFolders(home, MAX_WALK_ENTRIES, trail, onSkipped)) {
    const nativeId = SESSION_FILE.exec(entry.name)?.[1];
    if (nativeId === undefined) continue;
    const known = byId.get(nativeId);
    if (known === undefined || basename(known.path) < entry.name) byId.set(nativeId, { nativeId, path: entry.path, home });
  }
  return [...byId.values()];
}
