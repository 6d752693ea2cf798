import { accessSync, constants, statSync } from 'node:fs';
import { errorCode } from '@sessref/core';
import { listDirectory, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/**
 * Directory entries one listing looks at, across the projects folder and
 * every project in it: far above a real home (Claude Code deletes
 * transcripts after 30 days by default), low enough that a folder with
 * millions of entries cannot stall a listing.
 */
const MAX_DIRECTORY_ENTRIES = 200_000;

/** A session file's name: a UUID and `.jsonl`; anything else (subagents' `agent-*.jsonl`, notes) is not a session. */
const SESSION_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/**
 * The session transcripts in the projects folder: `<project>/<uuid>.jsonl`,
 * two levels and no deeper (subagents live in `<project>/<uuid>/subagents/`).
 * A symbolic link is followed only when it stays inside the projects folder
 * (`listDirectory`), so nothing outside it is listed. A session id found in
 * two projects is listed once, from the file modified last. A project
 * folder that vanishes is nothing; one that cannot be read or searched, or
 * a link loop in a project's place, is skipped alone and named to
 * `onSkipped`: every other project is listed.
 */
export function claudeCodeTranscripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS['claude-code'].home(environment);
  const budget = { entries: MAX_DIRECTORY_ENTRIES, trail };
  const byId = new Map<string, TranscriptFile>();
  for (const project of listDirectory(home, home, budget, onSkipped)) {
    if (project.kind !== 'directory') continue;
    // A project's sessions are gathered apart, so a failure halfway through leaves none of them half-listed.
    const found: TranscriptFile[] = [];
    try {
      // Listing needs read permission, each transcript's stat needs search: a folder with one but not the other hides its sessions.
      accessSync(project.path, constants.R_OK | constants.X_OK);
      for (const entry of listDirectory(project.path, home, budget)) {
        const nativeId = SESSION_FILE.exec(entry.name)?.[1];
        if (entry.kind === 'file' && nativeId !== undefined) found.push({ nativeId, path: entry.path, home });
      }
    } catch (error) {
      if (errorCode(error) === 'ENOENT') continue;
      onSkipped?.(project.path, error);
      continue;
    }
    for (const file of found) {
      const seen = byId.get(file.nativeId);
      if (seen === undefined || modifiedAt(file.path) > modifiedAt(seen.path)) byId.set(file.nativeId, file);
    }
  }
  return [...byId.values()];
}

/** The file's modification time in ms, or -1 when it is gone: what picks between two copies of one session. */
function modifiedAt(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
}
