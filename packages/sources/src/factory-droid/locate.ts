import { join } from 'node:path';
import { configuredFolder } from '../configured-folder.js';
import { filesInFolders, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';

/** Names one listing looks at, across `sessions/` and every working directory's folder in it: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/** A session file: `<session uuid>.jsonl`; its `<uuid>.settings.json` beside it is not one. */
const SESSION_FILE = /^(.+)\.jsonl$/;

/**
 * Where Factory Droid keeps its sessions: `.factory/sessions` under the
 * folder `$FACTORY_HOME_OVERRIDE` names when set and not empty (a leading
 * `~` read as the home), else under the home. The variable is a string of
 * droid's binary; that it stands for the home `.factory` is appended to
 * (rather than for `.factory` itself) is how Factory's own SDK and desktop
 * app set it, not something run here (format page, "Where sessions live").
 */
export function factoryDroidSessionsDir(environment: SourceEnvironment): string {
  return join(configuredFolder(environment.env['FACTORY_HOME_OVERRIDE'], environment.home) ?? environment.home, '.factory', 'sessions');
}

/**
 * Every `<uuid>.jsonl` in each working directory's folder of `sessions/`
 * (`<cwd with / as ->`), one level and no deeper. An id found in two
 * folders (droid names files by a fresh uuid, so only a copy does that) is
 * listed once, from the folder whose name sorts first. A folder that cannot
 * be listed or searched, or a link loop in a folder's place, is skipped
 * alone and named to `onSkipped`.
 */
export function factoryDroidTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = factoryDroidSessionsDir(environment);
  const byId = new Map<string, TranscriptFile>();
  // Folders in name order: the first one holding an id keeps it.
  for (const { name, path } of filesInFolders(home, MAX_WALK_ENTRIES, trail, onSkipped)) {
    const nativeId = SESSION_FILE.exec(name)?.[1];
    if (nativeId !== undefined && !byId.has(nativeId)) byId.set(nativeId, { nativeId, path, home });
  }
  return [...byId.values()];
}
