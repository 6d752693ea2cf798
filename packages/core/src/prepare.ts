import { raceCancellation, throwIfCancelled } from './cancellation.js';
import type { ResolvedSessionReferenceConfig } from './config.js';
import { SessionReferenceError } from './errors.js';
import { checkExcerptRequest } from './excerpt.js';
import { fitSnapshot } from './fit.js';
import { labelOf } from './label.js';
import {
  renderFullSnapshotTranscript,
  renderReferenceExcerpts,
  renderReferenceOmissions,
  type FullSnapshotOutcome,
  type ReferenceOmission,
  type SavedSnapshot,
} from './omissions.js';
import type { ProjectedItem } from './projection.js';
import { renderReferencedSessionsPrompt } from './prompt.js';
import type { RetainedReference } from './retention.js';
import { readFailed } from './reads.js';
import type {
  ContentBlockLike,
  ExcerptRequest,
  PreparedReferences,
  PreparedSource,
  ReferenceTarget,
  SessionReferenceInput,
  SessionReferenceStorage,
  ReferencedSessionData,
  SurfaceSnapshot,
} from './types.js';

/** A place to save the full projection of a shortened preview (a 0.1.7 host's `ctx.spillStore`). */
export interface FullSnapshotStore {
  save(request: FullSnapshotRequest): Promise<SavedSnapshot>;
}

/** One transcript to save: the source it renders, the reference's position, and the text. */
export interface FullSnapshotRequest {
  sessionId: string;
  label: string;
  inputIndex: number;
  transcript: string;
}

/**
 * What the 0.1.7 / 0.2 contract adds to a preparation; without options it is
 * rc.8's, byte for byte.
 */
export interface PrepareOptions {
  /**
   * This call's budget per source (the model-relative one), asked for after
   * the references pass their checks and before any source is read; its
   * failures propagate as they are, and cancellation wins over them.
   */
  budget?: (signal: AbortSignal | undefined) => Promise<number>;
  /** Record each source's log generation in its entry as `capturedFormatVersion`. */
  recordFormatVersion?: boolean;
  /**
   * Report shortened previews after the snapshots (`## Reference omissions`),
   * each with its full projection saved to `store`, or reported unavailable
   * when the host has no store (`undefined`) or the save fails.
   */
  omissions?: { store: FullSnapshotStore | undefined };
  /**
   * Whether the source `sessionId` has its credentials redacted (see
   * `redactSecrets`) before budgeting; none is when unset. A source with any
   * redacted records how many in its entry as `redactedValues`.
   */
  redact?: (sessionId: string) => boolean;
}

/** A reference after validation and de-duplication, with its position among distinct sources. */
export interface DistinctReference {
  sessionId: string;
  label: string;
  inputIndex: number;
  /** The part of the session to carry, when the reference asks for one. */
  excerpt?: ExcerptRequest;
}

/**
 * Everything {@link prepareReferences} checks before it reads: the references
 * themselves (invalid, self, too many), then cancellation, which only matters
 * once there is something to read.
 * @returns the distinct sources, in first-mention order.
 */
export function checkReferences(
  config: ResolvedSessionReferenceConfig,
  target: ReferenceTarget,
  references: readonly SessionReferenceInput[],
  signal?: AbortSignal,
): DistinctReference[] {
  const distinct = distinctReferences(target, references, config.maxReferences);
  if (distinct.length > 0) throwIfCancelled(signal);
  return distinct;
}

/**
 * Snapshot every distinct source once, in parallel, and build one aggregated
 * context. All or nothing: any invalid reference, failed read, cancellation or
 * budget failure rejects, and nothing partial is ever returned.
 */
export async function prepareReferences<Block extends ContentBlockLike>(
  storage: SessionReferenceStorage,
  config: ResolvedSessionReferenceConfig,
  target: ReferenceTarget,
  content: readonly Block[],
  references: readonly SessionReferenceInput[],
  signal?: AbortSignal,
  options: PrepareOptions = {},
): Promise<PreparedReferences<Block>> {
  const distinct = checkReferences(config, target, references, signal);
  const detached = structuredClone(content) as Block[];
  if (distinct.length === 0) return { content: detached };

  const maxBytes = options.budget ? await raceCancellation(options.budget(signal), signal) : config.maxReferenceBytes;
  const snapshots = await readSources(storage, distinct, signal);
  const fitted = distinct.map((reference, index) => fit(reference, snapshots[index]!, maxBytes, options));
  const omissions = options.omissions ? await reportOmissions(fitted, options.omissions.store, signal) : [];
  const sources = fitted.map((entry) => entry.source);
  return {
    content: detached,
    context: {
      text: renderReferencedSessionsPrompt(fitted.map((entry) => entry.json)) + renderReferenceOmissions(omissions) + renderReferenceExcerpts(sources.map((source) => source.entry)),
      source: { kind: 'session-reference', form: 'recall', version: 1, references: sources.map((source) => source.entry) },
      sources,
    },
  };
}

/**
 * The omission notice of every shortened source, in input order, each with
 * its full projection saved first (all saves in flight together). A failed
 * save is reported, never thrown: an optional store must not fail the step,
 * nor may a preview claim a full snapshot that was not saved. Cancellation
 * during or after the saves rejects, so nothing is published.
 */
async function reportOmissions(fitted: readonly FittedSource[], store: FullSnapshotStore | undefined, signal: AbortSignal | undefined): Promise<ReferenceOmission[]> {
  const shortened = fitted.filter((source) => source.source.entry.truncated);
  const notices = await raceCancellation(Promise.all(shortened.map((source) => omissionOf(source, store))), signal);
  throwIfCancelled(signal);
  return notices;
}

async function omissionOf(source: FittedSource, store: FullSnapshotStore | undefined): Promise<ReferenceOmission> {
  const { entry, data } = source.source;
  return {
    sessionId: data.sessionId,
    capturedThroughSeq: data.capturedThroughSeq,
    omittedMessages: entry.omittedMessages,
    omittedBytes: entry.omittedBytes,
    fullSnapshot: await saveFullSnapshot(source, store),
  };
}

async function saveFullSnapshot(source: FittedSource, store: FullSnapshotStore | undefined): Promise<FullSnapshotOutcome> {
  if (store === undefined) return { status: 'unavailable', reason: 'storage-not-configured' };
  const { entry } = source.source;
  const request = { sessionId: entry.sessionId, label: entry.label, inputIndex: entry.inputIndex, transcript: renderFullSnapshotTranscript(source.full, source.formatVersion) };
  try {
    return { status: 'saved', ...(await store.save(request)) };
  } catch {
    return { status: 'unavailable', reason: 'save-failed' };
  }
}

/** First-mention order, de-duplicated by id before the cap; self and over-cap references reject. */
function distinctReferences(target: ReferenceTarget, references: readonly SessionReferenceInput[], max: number): DistinctReference[] {
  if (!Array.isArray(references)) throw invalidReference('references must be an array');
  const byId = new Map<string, DistinctReference>();
  for (const reference of references) {
    checkReference(reference);
    if (byId.has(reference.sessionId)) continue;
    if (reference.sessionId === target.id) {
      throw new SessionReferenceError(`session "${target.id}" cannot reference itself`, 'SESSION_REFERENCE_SELF_REFERENCE');
    }
    const distinct = { sessionId: reference.sessionId, label: labelOf(reference.sessionId, reference.label), inputIndex: byId.size };
    // A session cited twice is carried once, as its first citation asks.
    byId.set(reference.sessionId, reference.excerpt === undefined ? distinct : { ...distinct, excerpt: reference.excerpt });
  }
  if (byId.size > max) {
    throw new SessionReferenceError(`a message may reference at most ${max} sessions, got ${byId.size}`, 'SESSION_REFERENCE_TOO_MANY');
  }
  return [...byId.values()];
}

function checkReference(reference: SessionReferenceInput): void {
  if (typeof reference !== 'object' || reference === null || typeof reference.sessionId !== 'string') {
    throw invalidReference('each reference needs a string sessionId');
  }
  if (reference.label !== undefined && typeof reference.label !== 'string') {
    throw invalidReference(`reference to "${reference.sessionId}" has a non-string label`);
  }
  if (reference.excerpt !== undefined) checkExcerptRequest(reference.excerpt);
}

function invalidReference(message: string): SessionReferenceError {
  return new SessionReferenceError(message, 'SESSION_REFERENCE_INVALID_REFERENCE');
}

/** One read per distinct source, all in flight together; the first failure in input order wins. */
async function readSources(
  storage: SessionReferenceStorage,
  distinct: readonly DistinctReference[],
  signal: AbortSignal | undefined,
): Promise<SurfaceSnapshot[]> {
  const reads = distinct.map((reference) => readSource(storage, reference.sessionId, signal));
  const settled = await raceCancellation(Promise.allSettled(reads), signal);
  const snapshots: SurfaceSnapshot[] = [];
  for (const result of settled) {
    if (result.status === 'rejected') throw result.reason;
    snapshots.push(result.value);
  }
  return snapshots;
}

async function readSource(storage: SessionReferenceStorage, sessionId: string, signal: AbortSignal | undefined): Promise<SurfaceSnapshot> {
  try {
    // A synchronous throw from the port is a failed read too, hence the async wrapper.
    return await Promise.resolve().then(() => storage.readSurface(sessionId, signal));
  } catch (error) {
    throw readFailed(`could not read session "${sessionId}"`, error, sessionId);
  }
}

/** One source fitted to its budget, with what a shortened preview's transcript needs. */
interface FittedSource {
  source: PreparedSource;
  /** The exact JSON the context text carries for it. */
  json: string;
  /** The whole projection, before retention. */
  full: ReferencedSessionData;
  /** The log generation it was read from (0 when the host names none). */
  formatVersion: number;
}

/** One source fitted to its budget: its prepared record, its JSON and its whole projection. */
function fit(reference: DistinctReference, snapshot: SurfaceSnapshot, maxBytes: number, options: PrepareOptions): FittedSource {
  const redact = options.redact?.(reference.sessionId) === true;
  const { items, retained, redactedValues, excerpt } = fitSnapshot(reference, snapshot, maxBytes, { redact, ...(reference.excerpt === undefined ? {} : { excerpt: reference.excerpt }) });
  if (retained === undefined) {
    throw new SessionReferenceError(
      `session "${reference.sessionId}" does not fit in ${maxBytes} bytes even when shortened; raise maxReferenceBytes`,
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
    );
  }
  const { data, json, bytes, stats } = retained;
  const formatVersion = snapshot.session.version ?? 0;
  const entry = {
    sessionId: data.sessionId,
    label: data.label,
    ...(options.recordFormatVersion === true ? { capturedFormatVersion: formatVersion } : {}),
    capturedThroughSeq: data.capturedThroughSeq,
    ...stats,
    inputIndex: reference.inputIndex,
    // Only when something was: an entry without redaction is the contract's, byte for byte.
    ...(redactedValues > 0 ? { redactedValues } : {}),
    ...(excerpt === undefined ? {} : { excerpt }),
  };
  return { source: { entry, data, bytes }, json, full: wholeProjection(retained, items), formatVersion };
}

/** The data object of the whole projection: the retained one's capture facts with every projected item. */
function wholeProjection(retained: RetainedReference, items: readonly ProjectedItem[]): ReferencedSessionData {
  return { ...retained.data, conversation: items.map(({ role, text }) => ({ role, text })) };
}
