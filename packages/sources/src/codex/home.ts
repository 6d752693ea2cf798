import { accessSync, constants } from 'node:fs';
import { basename, join } from 'node:path';
import { errorCode } from '@sessref/core';
import { listDirectory, type DirectoryBudget, type WalkTrail } from '@sessref/platform';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';

/** The folders under the Codex home that hold rollouts, in the order their copies win (codex-rs/rollout/src/lib.rs). */
const ROLLOUT_FOLDERS = ['sessions', 'archived_sessions'] as const;

/** `sessions/YYYY/MM/DD/`: no rollout lies deeper. */
const MAX_DEPTH = 3;

/** Names a walk looks at, in all: far above 10,000 sessions, and a bound on a hostile tree. */
const MAX_WALK_ENTRIES = 500_000;

const ROLLOUT_NAME = /^rollout-(.+)\.jsonl(\.zst)?$/;
const TRAILING_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_PART = /^\d{1,4}$/;

/** A rollout found on disk, with how strongly it claims its thread id (lower wins). */
interface Found {
  file: TranscriptFile;
  rank: number;
}

/**
 * Every rollout under `sessions/` (dated folders and the legacy flat layout)
 * and `archived_sessions/`, one per thread id: a live copy wins over an
 * archived one, and a plain `.jsonl` over its `.jsonl.zst` sibling, as Codex
 * resolves them. A symbolic link is followed only when it stays inside the
 * Codex home (`listDirectory`). A folder of the walk that cannot be listed
 * or searched, or a link loop in a dated folder's place, is skipped alone
 * and named to `onSkipped`: the rollouts of every other folder are listed.
 */
export function findRollouts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS.codex.home(environment);
  const budget = { entries: MAX_WALK_ENTRIES, trail };
  const byId = new Map<string, Found>();
  ROLLOUT_FOLDERS.forEach((folder, folderIndex) => {
    for (const path of walk(join(home, folder), home, 0, budget, [], onSkipped)) {
      const name = rolloutName(path);
      if (name === undefined) continue;
      const rank = folderIndex * 2 + (name.compressed ? 1 : 0);
      const known = byId.get(name.nativeId);
      if (known === undefined || rank < known.rank) byId.set(name.nativeId, { file: { nativeId: name.nativeId, path, home }, rank });
    }
  });
  return [...byId.values()].map((found) => found.file);
}

/** The thread id a rollout's file name carries (`rollout-<local time>-<uuid>.jsonl[.zst]`), or `undefined` for any other name. */
export function rolloutName(path: string): { nativeId: string; compressed: boolean } | undefined {
  const match = ROLLOUT_NAME.exec(basename(path));
  if (match === null) return undefined;
  const stem = match[1] ?? '';
  return { nativeId: TRAILING_UUID.exec(stem)?.[0] ?? stem, compressed: match[2] !== undefined };
}

/**
 * Regular files under `folder` added to `found`, descending only into
 * date-named folders. Names are read one at a time against the budget the
 * whole walk shares, so a folder of millions of names costs no more than the budget.
 * A folder that is missing adds nothing; one that cannot be listed or
 * searched adds nothing either and is named to `onSkipped`, as is a link
 * loop in a dated folder's place.
 */
function walk(folder: string, home: string, depth: number, budget: DirectoryBudget, found: string[], onSkipped?: SkippedFolderHandler): string[] {
  let entries;
  // Followed even when missing or closed: its creation or a change of mode is a change to the walk.
  budget.trail?.folders.add(folder);
  try {
    // Listing needs read permission, each rollout's stat needs search: a folder with one but not the other hides its rollouts.
    accessSync(folder, constants.R_OK | constants.X_OK);
    const onBrokenLink = onSkipped && depth < MAX_DEPTH ? (path: string, error: unknown) => (DATE_PART.test(basename(path)) ? onSkipped(path, error) : undefined) : undefined;
    entries = listDirectory(folder, home, budget, onBrokenLink);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') onSkipped?.(folder, error);
    return found;
  }
  for (const entry of entries) {
    if (entry.kind === 'file') found.push(entry.path);
    else if (depth < MAX_DEPTH && DATE_PART.test(entry.name)) walk(entry.path, home, depth + 1, budget, found, onSkipped);
  }
  return found;
}
