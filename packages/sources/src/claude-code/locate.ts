import { lstatSync, opendirSync, type Dir } from 'node:fs';
import { join } from 'node:path';
import { errorCode } from '@sessref/core';
import type { SourceEnvironment, TranscriptFile } from '../transcripts/format.js';

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
 * Where Claude Code keeps its transcripts: `projects/` under
 * `$CLAUDE_CONFIG_DIR` when it is set and not empty, else under
 * `~/.claude`. Claude Code writes the NFC form of the variable's path.
 */
export function claudeProjectsDir(environment: SourceEnvironment): string {
  const configured = environment.env['CLAUDE_CONFIG_DIR'];
  const root = configured === undefined || configured === '' ? join(environment.home, '.claude') : configured.normalize('NFC');
  return join(root, 'projects');
}

/**
 * The session transcripts in the projects folder: `<project>/<uuid>.jsonl`,
 * two levels and no deeper (subagents live in `<project>/<uuid>/subagents/`).
 * Symbolic links inside the folder are never followed, so nothing outside it
 * is listed. A session id found in two projects is listed once, from the
 * file modified last. Folders that vanish or cannot be read are skipped.
 */
export function claudeCodeTranscripts(environment: SourceEnvironment): TranscriptFile[] {
  const home = claudeProjectsDir(environment);
  const budget = { entries: MAX_DIRECTORY_ENTRIES };
  const byId = new Map<string, TranscriptFile>();
  for (const project of entriesOf(home, budget, (entry) => entry.isDirectory())) {
    for (const name of entriesOf(join(home, project), budget, (entry) => entry.isFile())) {
      const nativeId = SESSION_FILE.exec(name)?.[1];
      if (nativeId === undefined) continue;
      const file = { nativeId, path: join(home, project, name), home };
      const seen = byId.get(nativeId);
      if (seen === undefined || modifiedAt(file.path) > modifiedAt(seen.path)) byId.set(nativeId, file);
    }
  }
  return [...byId.values()];
}

/** What `opendir` reports of an entry: its type as `lstat` sees it, so a link is neither a file nor a directory. */
interface EntryType {
  isFile(): boolean;
  isDirectory(): boolean;
}

/**
 * The names in `path` whose entries pass `keep`, reading at most the
 * entries left in `budget` (shared by the whole walk); none when `path`
 * cannot be opened. Entries are read one by one, never the whole folder at once.
 */
function entriesOf(path: string, budget: { entries: number }, keep: (entry: EntryType) => boolean): string[] {
  let dir: Dir;
  try {
    dir = opendirSync(path);
  } catch (error) {
    if (isMissingOrDenied(error)) return [];
    throw error;
  }
  const names: string[] = [];
  try {
    for (let entry = dir.readSync(); entry !== null && budget.entries > 0; entry = dir.readSync()) {
      budget.entries -= 1;
      if (keep(entry)) names.push(entry.name);
    }
  } finally {
    dir.closeSync();
  }
  return names;
}

/** Failures that mean "nothing to list here": the folder is gone, is not a folder, or may not be read. */
function isMissingOrDenied(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES' || code === 'EPERM';
}

/** The file's modification time in ms, or -1 when it is gone: what picks between two copies of one session. */
function modifiedAt(path: string): number {
  return lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
}
