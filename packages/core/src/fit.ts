import { projectConversation, type ProjectedItem } from './projection.js';
import { redactSecrets } from './redaction.js';
import { retainReference, type RetainedReference } from './retention.js';
import type { SurfaceSnapshot } from './types.js';

/** What a reference to one snapshot would carry, before and after budgeting. */
export interface SnapshotFit {
  /** The snapshot's projected conversation, whole (redacted when the fit was asked to redact). */
  items: ProjectedItem[];
  /** The conversation fitted to the budget; `undefined` when it cannot fit even shortened. */
  retained: RetainedReference | undefined;
  /** How many credential values redaction replaced in `items` (0 without redaction). */
  redactedValues: number;
}

/** How a fit treats the text it carries. */
export interface FitOptions {
  /** Replace credentials with `[redacted: <kind>]` before budgeting (see `redactSecrets`). */
  redact?: boolean;
}

/**
 * The budget-fitting step of every reference: project the snapshot to its
 * conversation, redact it when asked (before budgeting, so the budget and the
 * omission counts measure what is carried), then fit that into `maxBytes`.
 * `prepare()` runs it for each source; a host's inspector runs it to show
 * what a reference would carry.
 */
export function fitSnapshot(source: { sessionId: string; label: string }, snapshot: SurfaceSnapshot, maxBytes: number, options: FitOptions = {}): SnapshotFit {
  const { items, redactedValues } = redactItems(projectConversation(snapshot.messages), options.redact === true);
  const retained = retainReference({
    sessionId: source.sessionId,
    label: source.label,
    cwd: snapshot.session.cwd ?? null,
    capturedThroughSeq: snapshot.capturedThroughSeq,
    items,
    maxBytes,
  });
  return { items, retained, redactedValues };
}

function redactItems(items: ProjectedItem[], redact: boolean): { items: ProjectedItem[]; redactedValues: number } {
  if (!redact) return { items, redactedValues: 0 };
  let redactedValues = 0;
  const redacted = items.map((item) => {
    const { text, count } = redactSecrets(item.text);
    redactedValues += count;
    return count === 0 ? item : { ...item, text };
  });
  return { items: redacted, redactedValues };
}
