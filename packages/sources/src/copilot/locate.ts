import { sessionFolders, type WalkTrail, readRegularFile } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { workspaceName } from './workspace-name.js';

/** Session folders one listing looks at in `session-state/`: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;
/** The largest `workspace.yaml` read: Copilot's holds a dozen short fields. */
const MAX_WORKSPACE_BYTES = 64 * 1024;

/**
 * One session per folder of `session-state/`, named by the session id and
 * holding `events.jsonl`; dot folders (`.session-operation-locks`) are not
 * sessions. A folder whose `events.jsonl` cannot be looked at is skipped and
 * named to `onSkipped`. A folder without one yet is watched for it.
 */
export function copilotTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.copilot.home(environment);
  return sessionFolders(home, () => 'events.jsonl', MAX_WALK_ENTRIES, trail, onSkipped).map(({ name, path }) => ({ nativeId: name, path, home }));
}

/**
 * Each session's name from its `workspace.yaml` (`name`, Copilot's title:
 * the first prompt, a generated name or the one the user gave), by session
 * id. A missing, linked, special, oversized or unreadable file gives none.
 */
export function copilotTitles(environment: SourceEnvironment, trail?: WalkTrail): ReadonlyMap<string, string> {
  const titles = new Map<string, string>();
  const home = AGENTS.copilot.home(environment);
  // Only regular files are named (never a link); a name that changes asks the watch for a discovery.
  for (const { name: id, path } of sessionFolders(home, () => 'workspace.yaml', MAX_WALK_ENTRIES, trail, undefined)) {
    trail?.files.add(path);
    const name = readName(path);
    if (name !== undefined) titles.set(id, name);
  }
  return titles;
}

function readName(path: string): string | undefined {
  try {
    const bytes = readRegularFile(path, MAX_WORKSPACE_BYTES);
    return bytes === undefined ? undefined : workspaceName(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}
