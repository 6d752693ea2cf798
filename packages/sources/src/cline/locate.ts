import { join } from 'node:path';
import { sessionFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Session folders one listing looks at: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/**
 * One session per folder of the sessions folder, named by the session id:
 * its manifest `<id>.json` is the transcript sessref lists, its messages
 * `<id>.messages.json` and compaction sidecar `<id>.compaction.json` are
 * read with it. A folder whose manifest cannot be looked at is skipped and
 * named to `onSkipped`; one without a manifest yet is watched for it.
 */
export function clineTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.cline.home(environment);
  return sessionFolders(home, (id) => `${id}.json`, MAX_WALK_ENTRIES, trail, onSkipped).map(({ name, folder, path }) => ({
    nativeId: name,
    path,
    home,
    companions: [join(folder, `${name}.messages.json`), join(folder, `${name}.compaction.json`)],
  }));
}
