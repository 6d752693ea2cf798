/**
 * The inspector's API client. The launch token arrives once in the address
 * fragment, is kept in this tab's sessionStorage (never a cookie, which other
 * local servers would receive) and rides in a header.
 */
import {
  API_METHODS,
  EVENTS_PATH,
  TOKEN_HEADER,
  type ApiError,
  type ApiPath,
  type ApiRequestBody,
  type ApiResponse,
  type ComposeRequest,
  type NewSessionRequest,
} from '../../src/server/protocol.js';
import { UNREACHABLE, explainFailure } from './errors.js';

const TOKEN_KEY = 'sessref-token';

function adoptToken(): string {
  const handed = /^#token=([0-9a-f]+)$/.exec(location.hash)?.[1];
  if (handed !== undefined) {
    sessionStorage.setItem(TOKEN_KEY, handed);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

const token = adoptToken();

/** False in a tab that never received the launch token (opened at the bare address). */
export function hasToken(): boolean {
  return token !== '';
}

class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The body a route takes: none for a GET. */
type BodyArgs<P extends ApiPath> = ApiRequestBody<P> extends undefined ? [] : [body: ApiRequestBody<P>];

function isApiError(data: unknown): data is ApiError {
  if (typeof data !== 'object' || data === null || !('error' in data)) return false;
  const { error } = data;
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && 'message' in error && typeof error.message === 'string';
}

/** One route of the map in protocol.ts: its method, its body and the answer the server's table is typed to give. */
async function call<P extends ApiPath>(path: P, signal: AbortSignal | undefined, ...[body]: BodyArgs<P>): Promise<ApiResponse<P>> {
  const headers: Record<string, string> = { [TOKEN_HEADER]: token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method: API_METHODS[path], headers, cache: 'no-store', credentials: 'same-origin' };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (signal) init.signal = signal;
  const response = await answered(path, init);
  // The server's route table answers this path with exactly this type (api.ts), from the same map.
  return (await response.json()) as ApiResponse<P>;
}

/** A successful response; a failure thrown as an {@link ApiFailure} with the server's code, or UNREACHABLE. */
async function answered(path: string, init: RequestInit): Promise<Response> {
  const response = await fetch(path, init).catch((error: unknown) => {
    // fetch rejects with a TypeError when the server is gone; an abort stays an abort.
    throw error instanceof TypeError ? new ApiFailure(0, 'UNREACHABLE', UNREACHABLE) : error;
  });
  if (response.ok) return response;
  const data = (await response.json().catch(() => undefined)) as unknown;
  const error = isApiError(data) ? data.error : undefined;
  const hint = typeof error?.hint === 'string' ? error.hint : undefined;
  throw new ApiFailure(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText, hint);
}

export const api = {
  sessions: (signal?: AbortSignal) => call('/api/sessions', signal),
  messages: (sessionId: string, signal?: AbortSignal) => call('/api/messages', signal, { sessionId }),
  candidates: (target: string, query: string, signal: AbortSignal) => call('/api/candidates', signal, { target, query }),
  search: (target: string, query: string, signal: AbortSignal) => call('/api/search', signal, { target, query }),
  preview: (request: ComposeRequest, signal?: AbortSignal) => call('/api/preview', signal, request),
  send: (request: ComposeRequest, signal?: AbortSignal) => call('/api/send', signal, request),
  newSession: (request: NewSessionRequest) => call('/api/new', undefined, request),
  indexStatus: (signal?: AbortSignal) => call('/api/index', signal),
};

/**
 * The change stream's response (see `EVENTS_PATH`), its body unread; a
 * refusal is thrown as the API's failures are.
 */
export async function openEvents(): Promise<ReadableStream<Uint8Array>> {
  const response = await answered(EVENTS_PATH, { headers: { [TOKEN_HEADER]: token }, cache: 'no-store', credentials: 'same-origin' });
  if (response.body === null) throw new ApiFailure(response.status, 'NO_STREAM', 'the change stream answered without a body');
  return response.body;
}

/** A failure as a sentence a person can act on, never a bare code (see errors.ts). */
export function describeError(error: unknown): string {
  if (error instanceof ApiFailure) return error.code === 'UNREACHABLE' ? UNREACHABLE : explainFailure(error.code, error.message, error.hint);
  return error instanceof Error ? error.message : String(error);
}

/** The server's stable code of a failure, shown beside the sentence for reference. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ApiFailure ? error.code : undefined;
}
