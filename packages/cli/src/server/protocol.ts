/**
 * The inspector's JSON API, shared by the server and the browser client: the
 * shapes, and {@link ApiRoutes}, each route's method, request body and answer,
 * which the server's route table (api.ts) and the browser's fetch helper
 * (web/src/api.ts) are both typed from, so a route changed on one side alone
 * fails to compile. Request bodies are the route schemas' (routes.ts) input;
 * candidates and hits are the core's types. No Node imports: the web bundle
 * imports this module (types only from routes.ts and zod, so neither is bundled).
 *
 * Every API call carries the launch token in the `X-Sessref-Token` header.
 * Anything that holds transcript text travels in a POST body, never in a URL.
 * Failures answer `ApiError` with a 4xx/5xx status.
 */
import type { SessionReferenceContentHit, SessionReferenceMentionCandidate, SessionReferenceSourceEntry, TextRange } from '@sessref/core';
import type { z } from 'zod';
import type { RequestSchemas } from './routes.js';

export const TOKEN_HEADER = 'x-sessref-token';

export interface ApiError {
  /** `hint`: what fixes it, as the CLI's `fix:` says it, when the failure has a fix. */
  error: { code: string; message: string; hint?: string };
}

/**
 * Where a session is read from. Another agent's session (Claude Code, Codex,
 * …: the agents of `@sessref/sources`) is read in place and read-only: the
 * page never targets it with Send or Preview, and cites it from a dsh
 * session instead.
 */
export interface SessionSource {
  /** `dsh` for the root's own sessions, else the agent's name (`claude-code`, …: `AGENT_NAMES` of `@sessref/sources`). */
  source: string;
  /** Present only for another agent's session: that agent's name as people write it (`Claude Code`). */
  agent?: string;
}

export interface SessionItem extends SessionSource {
  sessionId: string;
  title?: string;
  cwd?: string;
  /** Absent only for a session whose log header cannot be read (it then has `readError`). */
  createdAt?: number;
  /** When the user last sent a message in it, for a v4 log (dsh 0.1.7 and 0.2): its age is given since then, as dsh 0.2 dates it. */
  lastSentAt?: number;
  live: boolean;
  persisted: boolean;
  /** Why this session's log cannot be read: the CLI's stable code and one-line message. Healthy sessions have none. */
  readError?: { code: string; message: string };
  /** Canonical `@[label](dsh-session:…)` mention (label: the title, else the id), to paste into dsh; absent with `readError`. */
  mention?: string;
  /**
   * Present only for a dsh session whose log a later dsh wrote: its log
   * format (1-4; dsh 0.1.3 and later). sessref reads, previews and cites it,
   * and never sends into it: that dsh does.
   */
  logFormat?: number;
  /** Another program is writing this session right now (Send is refused until it lets go): one such process. */
  inUse?: { pid: number; command?: string; how: 'open for writing' | 'locked' };
}

export interface SessionsResponse {
  root: string;
  maxReferenceBytes: number;
  /** Distinct sessions one message may reference (the resolver's `maxReferences`). */
  maxReferences: number;
  /** Newest first (ties by id); then the sessions whose log header cannot be read, by id. */
  sessions: SessionItem[];
  /**
   * What the other agents' sources could not read, one line each: a home
   * skipped because it cannot even be checked, a source whose listing
   * failed, a session or folder left out (`sessionId`, also listed among
   * `sessions` with its `readError`). Empty when nothing failed.
   */
  problems: SourceProblem[];
}

/** One thing another agent's source could not read. */
export interface SourceProblem {
  /** The agent's name (`claude-code`, …). */
  source: string;
  /** The session, or a skipped folder (ending in `/`), it concerns; absent for a whole home or source. */
  sessionId?: string;
  code: string;
  message: string;
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

export interface MessagesResponse {
  sessionId: string;
  title?: string;
  cwd?: string;
  capturedThroughSeq: number | null;
  messages: DisplayMessage[];
}

/** A title match for the `@` menu, as the plugin ranks it, with the canonical `@[label](dsh-session:…)` mention the composer inserts, and where it is read from. */
export type Candidate = SessionReferenceMentionCandidate & SessionSource;

export interface CandidatesResponse {
  candidates: Candidate[];
}

/**
 * A session found by what its conversation says: the core's content hit (its
 * `snippet` is bounded plain text: render it as text, never as HTML), its
 * ranges named for what the menu does with them.
 */
export type SearchHit = Omit<SessionReferenceContentHit, 'ranges'> &
  SessionSource & {
  /** UTF-16 `[start, end)` spans of the query in `snippet`. */
  highlights: TextRange[];
};

export interface SearchResponse {
  hits: SearchHit[];
}

/** What a route's body may be, as the client sends it: the input of its schema in routes.ts. */
type RequestOf<P extends keyof RequestSchemas> = z.input<RequestSchemas[P]>;

/** A message for a target (preview and send). */
export type ComposeRequest = RequestOf<'/api/send'>;

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
export type NewSessionRequest = RequestOf<'/api/new'>;

export interface NewSessionResponse {
  sessionId: string;
}

/**
 * `GET /api/events`: a stream of server-sent events (`data: <ChangeEvent>`),
 * read with `fetch` and the token header. The first event comes at once with
 * no ids; each later one names the sessions of the root that appeared,
 * changed or went since the one before.
 */
export const EVENTS_PATH = '/api/events';

export interface ChangeEvent {
  /** Counts the changes this server has reported; 0 for the first event. */
  revision: number;
  /** Session ids, sorted. */
  changed: string[];
}

/**
 * sessref's content index, which "Found in conversation" searches: while a
 * first build runs, how far it has come (sessions indexed of those to read,
 * and the time left once the pace is known).
 */
export type IndexStatus =
  | { state: 'ready' }
  | { state: 'building'; indexed: number; total?: number; remainingMs?: number }
  /** Content search is off or its index cannot be built: conversations are not searched. */
  | { state: 'unavailable'; code: string };

/** Every route: its method, its JSON request body (none for a GET) and its answer. */
export interface ApiRoutes {
  '/api/sessions': { method: 'GET'; request: RequestOf<'/api/sessions'>; response: SessionsResponse };
  '/api/messages': { method: 'POST'; request: RequestOf<'/api/messages'>; response: MessagesResponse };
  '/api/candidates': { method: 'POST'; request: RequestOf<'/api/candidates'>; response: CandidatesResponse };
  '/api/search': { method: 'POST'; request: RequestOf<'/api/search'>; response: SearchResponse };
  '/api/preview': { method: 'POST'; request: ComposeRequest; response: PreviewResponse };
  '/api/send': { method: 'POST'; request: ComposeRequest; response: SendResponse };
  '/api/new': { method: 'POST'; request: NewSessionRequest; response: NewSessionResponse };
  '/api/index': { method: 'GET'; request: RequestOf<'/api/index'>; response: IndexStatus };
}

export type ApiPath = keyof ApiRoutes;
export type ApiRequestBody<P extends ApiPath> = ApiRoutes[P]['request'];
/** A route's body as its handler gets it: the output of its schema (trimmed, checked, defaults filled). */
export type ParsedRequest<P extends ApiPath> = z.output<RequestSchemas[P]>;
export type ApiResponse<P extends ApiPath> = ApiRoutes[P]['response'];

/** Each route's method: a GET carries no body, a POST one JSON object. */
export const API_METHODS: { readonly [P in ApiPath]: ApiRoutes[P]['method'] } = {
  '/api/sessions': 'GET',
  '/api/messages': 'POST',
  '/api/candidates': 'POST',
  '/api/search': 'POST',
  '/api/preview': 'POST',
  '/api/send': 'POST',
  '/api/new': 'POST',
  '/api/index': 'GET',
};

export function isApiPath(path: string): path is ApiPath {
  return Object.hasOwn(API_METHODS, path);
}
