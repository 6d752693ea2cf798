/**
 * The inspector's API client. The launch token arrives once in the address
 * fragment, is kept in this tab's sessionStorage (never a cookie, which other
 * local servers would receive) and rides in a header.
 */
import {
  TOKEN_HEADER,
  type ApiError,
  type CandidatesResponse,
  type ComposeRequest,
  type MessagesResponse,
  type NewSessionRequest,
  type NewSessionResponse,
  type PreviewResponse,
  type SearchResponse,
  type SendResponse,
  type SessionsResponse,
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
  ) {
    super(message);
  }
}

async function call<T>(path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { [TOKEN_HEADER]: token };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const init: RequestInit = { method: body === undefined ? 'GET' : 'POST', headers, cache: 'no-store', credentials: 'same-origin' };
  if (body !== undefined) init.body = JSON.stringify(body);
  if (signal) init.signal = signal;
  const response = await fetch(path, init).catch((error: unknown) => {
    // fetch rejects with a TypeError when the server is gone; an abort stays an abort.
    throw error instanceof TypeError ? new ApiFailure(0, 'UNREACHABLE', UNREACHABLE) : error;
  });
  const data = (await response.json().catch(() => undefined)) as unknown;
  if (!response.ok) {
    const error = (data as Partial<ApiError> | undefined)?.error;
    throw new ApiFailure(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText);
  }
  return data as T;
}

export const api = {
  sessions: (signal?: AbortSignal) => call<SessionsResponse>('/api/sessions', undefined, signal),
  messages: (sessionId: string, signal?: AbortSignal) => call<MessagesResponse>('/api/messages', { sessionId }, signal),
  candidates: (target: string, query: string, signal: AbortSignal) => call<CandidatesResponse>('/api/candidates', { target, query }, signal),
  search: (target: string, query: string, signal: AbortSignal) => call<SearchResponse>('/api/search', { target, query }, signal),
  preview: (request: ComposeRequest, signal?: AbortSignal) => call<PreviewResponse>('/api/preview', request, signal),
  send: (request: ComposeRequest, signal?: AbortSignal) => call<SendResponse>('/api/send', request, signal),
  newSession: (request: NewSessionRequest) => call<NewSessionResponse>('/api/new', request),
};

/** A failure as a sentence a person can act on, never a bare code (see errors.ts). */
export function describeError(error: unknown): string {
  if (error instanceof ApiFailure) return error.code === 'UNREACHABLE' ? UNREACHABLE : explainFailure(error.code, error.message);
  return error instanceof Error ? error.message : String(error);
}

/** The server's stable code of a failure, shown beside the sentence for reference. */
export function errorCode(error: unknown): string | undefined {
  return error instanceof ApiFailure ? error.code : undefined;
}
