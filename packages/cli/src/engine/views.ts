/**
 * What the engine hands its faces besides the listing: the view of one
 * session as a reference would carry it, and the preview of one step.
 */
import type { ExcerptEntry, PreparedSource, ProjectedItem, RetainedReference, SessionHeaderLike } from '@sessref/core';
import type { StepMessage } from './own-step.js';

/** What a reference to one session would carry. */
export interface SessionView {
  header: SessionHeaderLike;
  title?: string;
  capturedThroughSeq: number | null;
  surfaceEvents: number;
  items: (ProjectedItem & { bytes: number })[];
  /** The data object under the configured budget, exactly as a reference would serialize it. */
  reference: RetainedReference | undefined;
  /** With an excerpt asked for: which part of `items` the reference carries. */
  excerpt?: ExcerptEntry;
  maxReferenceBytes: number;
}

/** The model-facing result of one step through `agent/pre-step`. */
export interface StepPreview {
  target: string;
  messages: StepMessage[];
  maxReferenceBytes: number;
}

/** Every source the step's context messages carry, in order. */
export function stepSources(preview: StepPreview): PreparedSource[] {
  return preview.messages.flatMap((entry) => entry.prepared?.sources ?? []);
}
