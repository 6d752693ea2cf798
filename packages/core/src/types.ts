/** Host-neutral records of the session-reference contract. */
import type { TextRange } from './content.js';

/**
 * What part of a session a reference asks for: the message holding `around`
 * (the first one, matched case-insensitively, any run of whitespace in the
 * phrase matching any run in the text) and its neighbours while the budget
 * allows; or the messages `firstMessage` to `lastMessage` of the projected
 * conversation, counted from 1 as a source entry's `originalMessages` counts
 * them (see `selectExcerpt`).
 */
export type ExcerptRequest = { around: string } | { firstMessage: number; lastMessage: number };

/** One source session selected by a user or host. */
export interface SessionReferenceInput {
  /** Opaque source session id; any JavaScript string. */
  sessionId: string;
  /** Display label; the id when absent. */
  label?: string;
  /** Carry only this part of the session (see `ExcerptRequest`) instead of its newest messages; sessref's own, never in the contract's mentions. */
  excerpt?: ExcerptRequest;
}

/** Text with mentions replaced by readable `@label` spans, plus the references in appearance order. */
export interface ParsedSessionReferenceText {
  text: string;
  references: SessionReferenceInput[];
}

/** A text block as a host hands it in (see `isTextBlock`). */
export interface TextBlockLike {
  readonly type: 'text';
  readonly text: string;
}

/** A content block. Only `text` blocks are ever projected; every other type is dropped. */
export type ContentBlockLike = TextBlockLike | { readonly type: string };

/** Where a user-role message came from; only direct input and compaction checkpoints are conversation. */
export type MessageOrigin = 'direct-user' | 'compact-checkpoint' | 'other';

/** One message of a session's current model surface, in host-neutral form. */
export interface SurfaceMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  /** Meaningful for `user` messages; assistant text is always conversation. */
  readonly origin: MessageOrigin;
  readonly content: readonly ContentBlockLike[];
  /** Its raw-log seq, when the host's log numbers events (a dsh surface does): what a content hit reports. */
  readonly seq?: number;
}

/** Session header facts sessref needs. */
export interface SessionHeaderLike {
  readonly id: string;
  readonly createdAt: number;
  /** The directory the session started in (the log header's). */
  readonly cwd?: string;
  /**
   * The directory the session moved to, when its log records a change (dsh
   * 0.2.1+ `working-directory/change`); absent: it is still in `cwd`.
   * Discovery ranks, compares and shows this one where it is set.
   */
  readonly workingDirectory?: string;
  /** The log generation the host read the session from; absent means 0 (rc.8's only one). */
  readonly version?: number;
}

/** One consistent observation of a session's current surface. */
export interface SurfaceSnapshot {
  readonly session: SessionHeaderLike;
  /** Highest raw-log seq included in the observation; `null` for an empty log. */
  readonly capturedThroughSeq: number | null;
  readonly messages: readonly SurfaceMessage[];
}

/** Per-id outcome of a batch title read; one failure never fails the batch. */
export type TitleReadResult =
  | {
      readonly sessionId: string;
      readonly status: 'fulfilled';
      readonly title: string | undefined;
      /** A presentation title that differs from the title (a 0.1.7 host's subagent label), when the host has one. */
      readonly displayTitle?: string;
    }
  | { readonly sessionId: string; readonly status: 'rejected'; readonly reason: unknown };

/** The storage port the core reads through. Read-only by construction. */
export interface SessionReferenceStorage {
  /** Every session header, in creation order. */
  listSessions(signal?: AbortSignal): Promise<readonly SessionHeaderLike[]>;
  /** Latest titles of unique ids, in input order, failures isolated per id. */
  readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<readonly TitleReadResult[]>;
  /** One session's current surface from one observation. */
  readSurface(sessionId: string, signal?: AbortSignal): Promise<SurfaceSnapshot>;
}

/** The session a reference is prepared for. */
export interface ReferenceTarget {
  readonly id: string;
  readonly cwd?: string;
  /** As {@link SessionHeaderLike.workingDirectory}. */
  readonly workingDirectory?: string;
}

/**
 * A discovery candidate. The rc.8 contract has `sessionId`, `label`, `cwd?`,
 * `createdAt`; the 0.1.7 / 0.2 one adds `displayTitle` and `sameWorkspace`
 * (see `CandidateShape`), which its Web client requires.
 */
export interface SessionReferenceCandidate {
  sessionId: string;
  /** Latest title, else the id. */
  label: string;
  /** What a picker shows and the mention is labelled with: a subagent's label when its host has one, else `label`. */
  displayTitle?: string;
  cwd?: string;
  /** Whether `cwd` is recorded and equals the target's. */
  sameWorkspace?: boolean;
  createdAt: number;
}

/** A candidate carrying the canonical mention a composer inserts. */
export interface SessionReferenceMentionCandidate extends SessionReferenceCandidate {
  mention: string;
}

/**
 * A session whose conversation matches a content query: the candidate with
 * its canonical mention, then the matching message (its raw-log `seq`, or
 * for a session of a log without seqs its position in the surface; its
 * role; whether it is a compaction checkpoint), a bounded plain-text excerpt
 * of its projected text around the match, and where the query is in it.
 */
export interface SessionReferenceContentHit extends SessionReferenceMentionCandidate {
  seq: number;
  role: 'user' | 'assistant';
  checkpoint: boolean;
  snippet: string;
  /** UTF-16 `[start, end)` spans of the query in `snippet`: callers mark it up without matching text again. */
  ranges: TextRange[];
}

/** One projected conversation item. */
export interface ReferencedConversationItem {
  role: 'user' | 'assistant';
  text: string;
}

/** The data object serialized for one source; keys in wire order. */
export interface ReferencedSessionData {
  sessionId: string;
  label: string;
  cwd: string | null;
  capturedThroughSeq: number | null;
  conversation: ReferencedConversationItem[];
}

/** Retention facts of one source. */
export interface ReferenceRetentionStats {
  compacted: boolean;
  originalMessages: number;
  retainedMessages: number;
  omittedMessages: number;
  omittedBytes: number;
  truncated: boolean;
}

/** Durable metadata of one source in the context message. */
export interface SessionReferenceSourceEntry extends ReferenceRetentionStats {
  sessionId: string;
  label: string;
  /** The log generation the snapshot was read from (0.1.7 / 0.2 contract); absent means 0. Seqs are that generation's. */
  capturedFormatVersion?: number;
  capturedThroughSeq: number | null;
  inputIndex: number;
  /** How many credential values were redacted from this snapshot (see `redactSecrets`); absent when none was or redaction is off. */
  redactedValues?: number;
  /** The part of the session an excerpt carried; absent for a whole-session snapshot, so its entry is the contract's. */
  excerpt?: ExcerptEntry;
}

/**
 * Which part of a session an excerpt carried: its first and last message,
 * counted from 1 among the projected messages (`originalMessages` of them),
 * and the phrase it was centred on, when it was asked for by one.
 */
export interface ExcerptEntry {
  around?: string;
  firstMessage: number;
  lastMessage: number;
}

/** The context message's source record. */
export interface SessionReferenceSource {
  kind: 'session-reference';
  form: 'recall';
  version: 1;
  references: SessionReferenceSourceEntry[];
}

/** A text block as sessref emits it. */
export interface TextBlock {
  type: 'text';
  text: string;
}

/** One source as prepared: its durable metadata, its data object and the size that object serializes to. */
export interface PreparedSource {
  /** The source's entry in the context message's `source.references`. */
  entry: SessionReferenceSourceEntry;
  /** The data object the context text carries for this source. */
  data: ReferencedSessionData;
  /** UTF-8 length of the serialized (tag-safe) data object: the figure budgeted against `maxReferenceBytes`. */
  bytes: number;
}

/** The prepared context: one user-role message holding every snapshot of a cited message. */
export interface PreparedContext {
  /** The model-facing text; only `prompt.ts` knows its layout. */
  text: string;
  source: SessionReferenceSource;
  /**
   * Each source as prepared, in input order. Never part of the message: a
   * host keeps it beside the message so inspectors need not re-read the text.
   */
  sources: PreparedSource[];
}

/** Result of `prepare()`: detached content and zero or one context. */
export interface PreparedReferences<Block = ContentBlockLike> {
  content: Block[];
  context?: PreparedContext;
}
