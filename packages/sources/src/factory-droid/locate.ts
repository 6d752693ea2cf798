import { filesInFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Names one listing looks at, across `sessions/` and every working directory's folder in it: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/** A session file: `<session uuid>.jsonl`; its `<uuid>.settings.json` beside it is not one. */
const SESSION_FILE = /^(.+)\.jsonl$/;

/**
 * Every `<uuid>.jsonl` in each working directory's folder of `sessions/`
 * (`<cwd with / as ->`), one level and no deeper. An id found in two
 * folders (droid names files by a fresh uuid, so only a copy does that) is
 * listed once, from the folder whose name sorts first. A folder that cannot
 * be listed or searched, or a link loop in a folder's place, is skipped
 * alone and named to `onSkipped`.
 */
export function factoryDroidTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS['factory-droid'].home(environment);
  const byId = new Map<string, TranscriptFile>();
  // Folders in name order: the first one holding an id keeps it.
  for (const { name, path } of filesInFolders(home, MAX_WALK_ENTRIES, trail, onSkipped)) {
    const nativeId = SESSION_FILE.exec(name)?.[1];
    if (nativeId !== undefined && !byId.has(nativeId)) byId.set(nativeId, { nativeId, path, home });
  }
  return [...byId.values()];
}
