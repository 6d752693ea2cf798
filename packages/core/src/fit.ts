import { projectConversation, type ProjectedItem } from './projection.js';
import { retainReference, type RetainedReference } from './retention.js';
import type { SurfaceSnapshot } from './types.js';

/** What a reference to one snapshot would carry, before and after budgeting. */
export interface SnapshotFit {
  /** The snapshot's projected conversation, whole. */
  items: ProjectedItem[];
  /** The conversation fitted to the budget; `undefined` when it cannot fit even shortened. */
  retained: RetainedReference | undefined;
}

/**
 * The budget-fitting step of every reference: project the snapshot to its
 * conversation, then fit that into `maxBytes`. `prepare()` runs it for each
 * source; a host's inspector runs it to show what a reference would carry.
 */
export function fitSnapshot(source: { sessionId: string; label: string }, snapshot: SurfaceSnapshot, maxBytes: number): SnapshotFit {
  const items = projectConversation(snapshot.messages);
  const retained = retainReference({
    sessionId: source.sessionId,
    label: source.label,
    cwd: snapshot.session.cwd ?? null,
    capturedThroughSeq: snapshot.capturedThroughSeq,
    items,
    maxBytes,
  });
  return { items, retained };
}
