/**
 * The inspector's JSON API, shared by the server and the browser client.
 * Type-only on purpose: the web bundle imports these types and nothing else.
 *
 * Every API call carries the launch token in the `X-Sessref-Token` header.
 * Anything that holds transcript text travels in a POST body, never in a URL.
 *
 *   GET  /api/sessions    → SessionsResponse
 *   POST /api/messages    MessagesRequest   → MessagesResponse
 *   POST /api/candidates  CandidatesRequest → CandidatesResponse
 *   POST /api/search      SearchRequest     → SearchResponse
 *   POST /api/preview     ComposeRequest    → PreviewResponse
 *   POST /api/send        ComposeRequest    → SendResponse
 *   POST /api/new         NewSessionRequest → NewSessionResponse
 *
 * Failures answer `ApiError` with a 4xx/5xx status.
 */
import type { SessionReferenceSourceEntry } from '@sessref/core';

export const TOKEN_HEADER = 'x-sessref-token';

export interface ApiError {
  error: { code: string; message: string };
}

export interface SessionItem {
  sessionId: string;
  title?: string;
  cwd?: string;
  /** Absent only for a session whose log header cannot be read (it then has `readError`). */
  createdAt?: number;
  live: boolean;
  persisted: boolean;
  /** Why this session's log cannot be read: the CLI's stable code and one-line message. Healthy sessions have none. */
  readError?: { code: string; message: string };
  /** Canonical `@[label](dsh-session:…)` mention (label: the title, else the id), to paste into dsh; absent with `readError`. */
  mention?: string;
  /** Another program is writing this session right now (Send is refused until it lets go): one such process. */
  inUse?: { pid: number; command?: string; how: 'open for writing' | 'locked' };
}

export interface SessionsResponse {
  root: string;
  maxReferenceBytes: number;
  /** Distinct sessions one message may reference (the resolver's `maxReferences`). */
  maxReferences: number;
  sessions: SessionItem[];
}

/** Retention facts the context message records for one source. */
export type ReferenceMeta = SessionReferenceSourceEntry;

/** How a surface message is shown: direct input, model reply, injected snapshot, compaction checkpoint, other injected context. */
export type DisplayKind = 'user' | 'assistant' | 'context' | 'checkpoint' | 'injected';

export interface DisplayMessage {
  seq: number;
  role: 'user' | 'assistant';
  kind: DisplayKind;
  text: string;
  /** Present on `context` messages: the text with the snapshot JSON pretty-printed. */
  display?: string;
  /** Present on `context` messages. */
  references?: ReferenceMeta[];
}

export interface MessagesRequest {
  sessionId: string;
}

export interface MessagesResponse {
  sessionId: string;
  title?: string;
  cwd?: string;
  capturedThroughSeq: number | null;
  messages: DisplayMessage[];
}

export interface CandidatesRequest {
  target: string;
  query: string;
}

export interface Candidate {
  sessionId: string;
  label: string;
  cwd?: string;
  createdAt: number;
  /** Canonical `@[label](dsh-session:…)` mention the composer inserts. */
  mention: string;
}

export interface CandidatesResponse {
  candidates: Candidate[];
}

/** Content search for the `@` menu: sessions other than `target` whose conversation contains `query`. */
export interface SearchRequest {
  target: string;
  query: string;
}

/** A session found by what its conversation says, with the matching message's excerpt. */
export interface SearchHit extends Candidate {
  /** Raw-log seq of the matching message. */
  seq: number;
  role: 'user' | 'assistant';
  /** The match is in a compaction checkpoint. */
  checkpoint: boolean;
  /** Bounded plain text around the match: render it as text, never as HTML. */
  snippet: string;
  /** UTF-16 `[start, end)` spans of the phrase in `snippet`. */
  highlights: [number, number][];
}

export interface SearchResponse {
  hits: SearchHit[];
}

export interface ComposeRequest {
  target: string;
  text: string;
}

/** One model-facing message of the step, in order. */
export interface ModelMessage {
  kind: 'readable' | 'context';
  /** Exactly what the model receives. */
  text: string;
  /** The same text with the snapshot JSON pretty-printed (equal to `text` for the readable message). */
  display: string;
}

export interface ReferenceView extends ReferenceMeta {
  /** UTF-8 length of the serialized data object, bounded by `maxReferenceBytes`. */
  bytes: number;
}

export interface PreviewResponse {
  target: string;
  maxReferenceBytes: number;
  messages: ModelMessage[];
  references: ReferenceView[];
}

export interface SendResponse extends PreviewResponse {
  appendedSeqs: number[];
  conversation: MessagesResponse;
}

/** A new, empty session, as `sessref new` creates it. */
export interface NewSessionRequest {
  title: string;
  /** Absolute working directory; omitted, the session has none. */
  cwd?: string;
}

export interface NewSessionResponse {
  sessionId: string;
}
