import { normalizeContentQuery } from './content.js';
import { SessionReferenceError, isSessionReferenceError } from './errors.js';
import { selectExcerpt } from './excerpt.js';
import { projectConversation, type ProjectedItem } from './projection.js';
import { redactSecrets } from './redaction.js';
import { retainReference, type ExcerptWindow, type RetainedReference } from './retention.js';
import type { ExcerptEntry, ExcerptRequest, SurfaceSnapshot } from './types.js';

/** What a reference to one snapshot would carry, before and after budgeting. */
export interface SnapshotFit {
  /** The snapshot's projected conversation, whole (redacted when the fit was asked to redact). */
  items: ProjectedItem[];
  /** The conversation fitted to the budget; `undefined` when it cannot fit even shortened. */
  retained: RetainedReference | undefined;
  /** How many credential values redaction replaced in `items` (0 without redaction). */
  redactedValues: number;
  /** With an excerpt asked for and fitted: which part of `items` was carried. */
  excerpt?: ExcerptEntry;
}

/** How a fit treats the text it carries. */
export interface FitOptions {
  /** Replace credentials with `[redacted: <kind>]` before budgeting (see `redactSecrets`). */
  redact?: boolean;
  /**
   * Carry this part of the session instead of its newest messages, chosen
   * from the redacted text (a phrase is found only where it would be
   * carried). Throws as `selectExcerpt` does.
   */
  excerpt?: ExcerptRequest;
}

/**
 * The budget-fitting step of every reference: project the snapshot to its
 * conversation, redact it when asked (before budgeting, so the budget and the
 * omission counts measure what is carried), pick the excerpt when one is
 * asked for, then fit that into `maxBytes`. `prepare()` runs it for each
 * source; a host's inspector runs it to show what a reference would carry.
 */
export function fitSnapshot(source: { sessionId: string; label: string }, snapshot: SurfaceSnapshot, maxBytes: number, options: FitOptions = {}): SnapshotFit {
  const { items, redactedValues } = redactItems(projectConversation(snapshot.messages), options.redact === true);
  const window = options.excerpt && excerptWindow(source.sessionId, items, options.excerpt);
  const retained = retainReference({
    sessionId: source.sessionId,
    label: source.label,
    cwd: snapshot.session.cwd ?? null,
    capturedThroughSeq: snapshot.capturedThroughSeq,
    items,
    maxBytes,
    ...(window === undefined ? {} : { window }),
  });
  const excerpt = options.excerpt && retained?.kept && excerptEntry(options.excerpt, retained.kept);
  return { items, retained, redactedValues, ...(excerpt === undefined ? {} : { excerpt }) };
}

/** {@link selectExcerpt}, its not-found failure naming the session, so a host with several sources says which one. */
function excerptWindow(sessionId: string, items: readonly ProjectedItem[], request: ExcerptRequest): ExcerptWindow {
  try {
    return selectExcerpt(items, request);
  } catch (error) {
    if (!isSessionReferenceError(error) || error.code !== 'SESSION_REFERENCE_EXCERPT_NOT_FOUND') throw error;
    throw new SessionReferenceError(`session "${sessionId}": ${error.message}`, error.code, { sessionId });
  }
}

/** The entry's record of an excerpt: the phrase asked for (its whitespace as matched), and the first and last message kept, counted from 1. */
function excerptEntry(request: ExcerptRequest, kept: { first: number; last: number }): ExcerptEntry {
  return { ...('around' in request ? { around: normalizeContentQuery(request.around) } : {}), firstMessage: kept.first + 1, lastMessage: kept.last + 1 };
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
