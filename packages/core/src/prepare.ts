import { raceCancellation, throwIfCancelled } from './cancellation.js';
import type { ResolvedSessionReferenceConfig } from './config.js';
import { SessionReferenceError } from './errors.js';
import { fitSnapshot } from './fit.js';
import { renderReferencedSessionsPrompt } from './prompt.js';
import { readFailed } from './reads.js';
import type {
  ContentBlockLike,
  PreparedReferences,
  PreparedSource,
  ReferenceTarget,
  SessionReferenceInput,
  SessionReferenceStorage,
  SurfaceSnapshot,
} from './types.js';

/** A reference after validation and de-duplication, with its position among distinct sources. */
export interface DistinctReference {
  sessionId: string;
  label: string;
  inputIndex: number;
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
): Promise<PreparedReferences<Block>> {
  const distinct = checkReferences(config, target, references, signal);
  const detached = structuredClone(content) as Block[];
  if (distinct.length === 0) return { content: detached };

  const snapshots = await readSources(storage, distinct, signal);
  const fitted = distinct.map((reference, index) => fit(reference, snapshots[index]!, config.maxReferenceBytes));
  const sources = fitted.map((entry) => entry.source);
  return {
    content: detached,
    context: {
      text: renderReferencedSessionsPrompt(fitted.map((entry) => entry.json)),
      source: { kind: 'session-reference', form: 'recall', version: 1, references: sources.map((source) => source.entry) },
      sources,
    },
  };
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
    byId.set(reference.sessionId, { sessionId: reference.sessionId, label: reference.label ?? reference.sessionId, inputIndex: byId.size });
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
    throw readFailed(`could not read session "${sessionId}"`, error);
  }
}

/** One source fitted to its budget: its prepared record and the exact JSON the context text carries for it. */
function fit(reference: DistinctReference, snapshot: SurfaceSnapshot, maxBytes: number): { source: PreparedSource; json: string } {
  const { retained } = fitSnapshot(reference, snapshot, maxBytes);
  if (retained === undefined) {
    throw new SessionReferenceError(
      `session "${reference.sessionId}" does not fit in ${maxBytes} bytes even when shortened; raise maxReferenceBytes`,
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
    );
  }
  const { data, json, bytes, stats } = retained;
  const entry = { sessionId: data.sessionId, label: data.label, capturedThroughSeq: data.capturedThroughSeq, ...stats, inputIndex: reference.inputIndex };
  return { source: { entry, data, bytes }, json };
}
