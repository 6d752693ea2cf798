/** What the walk needs of one entry of a pi session file. */
export interface TreeEntry {
  /** Its id; absent only in a broken file. */
  readonly id: string | undefined;
  /** The entry it follows; absent for a root. */
  readonly parentId: string | undefined;
  readonly type: string;
  readonly record: Readonly<Record<string, unknown>>;
}

/**
 * The current branch, root first: the path from the file's last entry up
 * through `parentId`, as pi's `buildSessionContext` walks it
 * (`core/session-manager.js`; `_buildIndex` makes the last entry the leaf).
 * Of entries sharing an id the last one is found by id, as pi's `byId` map
 * keeps it. pi's walk has no guard against a cycle; this one stops where it
 * would pass an entry again, so a cycle cuts the branch and the walk is
 * linear in the number of entries.
 */
export function currentBranch<Entry extends TreeEntry>(entries: readonly Entry[]): Entry[] {
  const byId = new Map<string, Entry>();
  for (const entry of entries) if (entry.id !== undefined) byId.set(entry.id, entry);
  const passed = new Set<Entry>();
  const path: Entry[] = [];
  for (let entry = entries.at(-1); entry !== undefined && !passed.has(entry); entry = entry.parentId === undefined ? undefined : byId.get(entry.parentId)) {
    passed.add(entry);
    path.push(entry);
  }
  return path.reverse();
}

/** The current conversation of a branch: the latest compaction on it (if any) and the entries the model is sent after its summary. */
export interface Context<Entry extends TreeEntry> {
  compaction: Entry | undefined;
  entries: Entry[];
}

/**
 * pi's rule after a compaction (`buildSessionContext`; pi's compaction doc):
 * the latest `compaction` on the branch stands for everything before it,
 * except the entries from its `firstKeptEntryId` up to the compaction, which
 * the model still gets after the summary, followed by every entry after the
 * compaction. A `firstKeptEntryId` that is not on the branch before the
 * compaction keeps nothing. Without a compaction, the whole branch.
 */
export function contextOf<Entry extends TreeEntry>(branch: readonly Entry[]): Context<Entry> {
  const at = branch.findLastIndex((entry) => entry.type === 'compaction');
  const compaction = branch[at];
  if (compaction === undefined) return { compaction, entries: [...branch] };
  const firstKept = compaction.record['firstKeptEntryId'];
  const keptFrom = typeof firstKept === 'string' ? branch.findIndex((entry, index) => index < at && entry.id === firstKept) : -1;
  return { compaction, entries: [...(keptFrom < 0 ? [] : branch.slice(keptFrom, at)), ...branch.slice(at + 1)] };
}
