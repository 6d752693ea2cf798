/**
 * What a listing of a root's own sessions is made from, as one string: the
 * name of every session directory, and the name and revision of every file
 * in each. Every fact a listing shows of a session (its header, title and
 * directory, the damage of its log, a log of a generation sessref does not
 * read, a second copy of its id) comes from those files, so two walks that
 * spell the same fingerprint would list the same sessions; an answer kept
 * with its fingerprint answers again while the root spells it.
 */
import { PROCESS_LISTINGS, childPath, revisionToken, type DirectoryListings } from '@sessref/platform';
import { listSubdirectories } from '../jsonl-root/index.js';

/** A root's fingerprint, and whether it can be trusted later (see {@link SETTLED_MS}). */
export interface RootFingerprint {
  readonly text: string;
  /** No file in the root changed within {@link SETTLED_MS} before the walk: a later change shows in its revision. */
  readonly settled: boolean;
}

/**
 * File times come from a coarse clock, and a command's looks at its files
 * may precede this walk by as long as the command has run, so a file
 * changed this recently could change again without its times moving: a
 * fingerprint that saw one is good for this process only (the rule, and the
 * margin, of `DirectoryListings`).
 */
const SETTLED_MS = 2_000;

/**
 * The fingerprint of `root` through `listings` (the process's by default,
 * so under a held first look it costs no more than the walk a listing
 * makes: a listing of each directory and a stat of each log). Names cannot
 * hold NUL or `/`, which separate its fields: a directory record is `D`
 * and its path, a file record `F`, its name and its revision.
 */
export function rootFingerprint(root: string, listings: DirectoryListings = PROCESS_LISTINGS, now = Date.now()): RootFingerprint {
  const settledBeforeNs = BigInt(now - SETTLED_MS) * 1_000_000n;
  let text = '';
  let settled = true;
  for (const project of listSubdirectories(root, listings.list)) {
    const projectPath = childPath(root, project);
    for (const directory of listSubdirectories(projectPath, listings.list)) {
      const directoryPath = childPath(projectPath, directory);
      text += `D${project}/${directory}\0`;
      for (const entry of listings.list(directoryPath)) {
        if (entry.isDirectory()) continue;
        const revision = listings.revision(childPath(directoryPath, entry.name));
        if (revision !== undefined && (revision.ctimeNs >= settledBeforeNs || revision.mtimeNs >= settledBeforeNs)) settled = false;
        text += `F${entry.name}\0${revision === undefined ? '-' : revisionToken(revision)}\0`;
      }
    }
  }
  return { text, settled };
}
