import { join } from 'node:path';
import { sessionFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Session folders one listing looks at in `session-state/`: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/**
 * One session per folder of `session-state/`, named by the session id and
 * holding `events.jsonl`, titled by the `workspace.yaml` beside it (`name`,
 * Copilot's title: the first prompt, a generated name or the one the user
 * gave); dot folders (`.session-operation-locks`) are not sessions. A folder
 * whose `events.jsonl` cannot be looked at is skipped and named to
 * `onSkipped`. A folder without one yet is watched for it.
 */
export function copilotTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.copilot.home(environment);
  return sessionFolders(home, () => 'events.jsonl', MAX_WALK_ENTRIES, trail, onSkipped).map(({ name, folder, path }) => ({
    nativeId: name,
    path,
    home,
    titleFile: join(folder, 'workspace.yaml'),
  }));
}
