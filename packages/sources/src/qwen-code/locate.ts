import { join } from 'node:path';
import { listDirectory, listSessionFolder, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** Names one listing looks at, across `projects/` and every project's `chats/`: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/** A session file, as Qwen Code's `SESSION_FILE_PATTERN` (`sessionService.ts`) admits it: `<session id>.jsonl`, so never a `.ledger.jsonl`, a `.runtime.json` or `archive/`. */
const SESSION_FILE = /^([0-9a-fA-F-]{32,36})\.jsonl$/;

/**
 * The sessions Qwen Code resumes: `<project>/chats/<session id>.jsonl` in
 * each project folder (`Storage.getProjectDir`, `SessionService.getChatsDir`).
 * Archived sessions (`chats/archive/`) are not listed, as Qwen Code's own
 * list and `loadSession` read active ones only. A `chats/` folder that
 * cannot be listed or searched is skipped alone and named to `onSkipped`.
 */
export function qwenTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS['qwen-code'].home(environment);
  const budget = { entries: MAX_WALK_ENTRIES, trail };
  return listDirectory(home, home, budget, onSkipped).flatMap((project) =>
    project.kind !== 'directory'
      ? []
      : listSessionFolder(join(project.path, 'chats'), home, budget, onSkipped).flatMap((entry) => {
          const nativeId = SESSION_FILE.exec(entry.name)?.[1];
          return entry.kind === 'file' && nativeId !== undefined ? [{ nativeId, path: entry.path, home }] : [];
        }),
  );
}
