import { join, resolve } from 'node:path';
import { sessionFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';

/** Session folders one listing looks at: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/**
 * Where the Cline CLI keeps its sessions (`resolveSessionDataDir`,
 * `sdk/packages/shared/src/storage/paths.ts`): `$CLINE_SESSION_DATA_DIR`,
 * else `$CLINE_DATA_DIR/sessions`, else `<$CLINE_DIR or ~/.cline>/data/sessions`,
 * each variable counting when it is not blank once trimmed.
 */
export function clineSessionsDir(environment: SourceEnvironment): string {
  const { env, home } = environment;
  const set = (name: string): string | undefined => env[name]?.trim() || undefined;
  const sessions = set('CLINE_SESSION_DATA_DIR');
  if (sessions !== undefined) return resolve(sessions);
  const data = set('CLINE_DATA_DIR') ?? join(set('CLINE_DIR') ?? join(home, '.cline'), 'data');
  return join(resolve(data), 'sessions');
}

/**
 * One session per folder of the sessions folder, named by the session id:
 * its manifest `<id>.json` is the transcript sessref lists, its messages
 * `<id>.messages.json` and compaction sidecar `<id>.compaction.json` are
 * read with it. A folder whose manifest cannot be looked at is skipped and
 * named to `onSkipped`; one without a manifest yet is watched for it.
 */
export function clineTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = clineSessionsDir(environment);
  return sessionFolders(home, (id) => `${id}.json`, MAX_WALK_ENTRIES, trail, onSkipped).map(({ name, folder, path }) => ({
    nativeId: name,
    path,
    home,
    companions: [join(folder, `${name}.messages.json`), join(folder, `${name}.compaction.json`)],
  }));
}
