/**
 * Type tests (checked by `tsc -b`, run by nothing) for the inspector's route
 * map: each route's request is its schema's input for the client and its
 * output for the server's handler, each handler answers the response the map
 * gives its path, and the browser's client calls each route with exactly
 * that body and gets exactly that answer back.
 */
import type { SessionReferenceContentHit, SessionReferenceMentionCandidate, TextRange } from '@sessref/core';
import { expectTypeOf } from 'vitest';
import type { z } from 'zod';
import { api } from '../web/src/api.js';
import type { API_ROUTES } from '../src/server/api.js';
import type { ApiRequest } from '../src/server/request.js';
import type {
  ApiPath,
  ApiRequestBody,
  ApiResponse,
  Candidate,
  CandidatesResponse,
  IndexStatus,
  MessagesResponse,
  NewSessionResponse,
  ParsedRequest,
  PreviewResponse,
  SearchHit,
  SearchResponse,
  SendResponse,
  SessionSource,
  SessionsResponse,
} from '../src/server/protocol.js';
import type { RequestSchemas } from '../src/server/routes.js';

// The client sends a schema's input; the server's handler gets its output, for every route.
expectTypeOf<{ [P in ApiPath]: ApiRequestBody<P> }>().toEqualTypeOf<{ [P in ApiPath]: z.input<RequestSchemas[P]> }>();
expectTypeOf<{ [P in ApiPath]: ApiRequest<P>['body'] }>().toEqualTypeOf<{ [P in ApiPath]: z.output<RequestSchemas[P]> }>();

// Each route's body, as the client writes it and as the handler reads it.
expectTypeOf<ApiRequestBody<'/api/sessions'>>().toEqualTypeOf<undefined>();
expectTypeOf<ApiRequestBody<'/api/messages'>>().toEqualTypeOf<{ sessionId: string }>();
expectTypeOf<ApiRequestBody<'/api/candidates'>>().toEqualTypeOf<{ target: string; query: string }>();
expectTypeOf<ApiRequestBody<'/api/search'>>().toEqualTypeOf<{ target: string; query: string }>();
expectTypeOf<ApiRequestBody<'/api/preview'>>().toEqualTypeOf<{ target: string; text: string }>();
expectTypeOf<ApiRequestBody<'/api/send'>>().toEqualTypeOf<{ target: string; text: string }>();
expectTypeOf<ApiRequestBody<'/api/new'>>().toEqualTypeOf<{ title?: string | undefined; cwd?: string | undefined }>();
// A blank title or cwd reaches the handler as none (the core's title rule; an empty cwd is no cwd).
expectTypeOf<ParsedRequest<'/api/new'>>().toEqualTypeOf<{ title: string | undefined; cwd: string | undefined }>();

// Each handler answers its route's response.
expectTypeOf<(typeof API_ROUTES)['/api/sessions']>().returns.resolves.toEqualTypeOf<SessionsResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/messages']>().returns.resolves.toEqualTypeOf<MessagesResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/candidates']>().returns.resolves.toEqualTypeOf<CandidatesResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/search']>().returns.resolves.toEqualTypeOf<SearchResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/preview']>().returns.resolves.toEqualTypeOf<PreviewResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/send']>().returns.resolves.toEqualTypeOf<SendResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/new']>().returns.resolves.toEqualTypeOf<NewSessionResponse>();
expectTypeOf<(typeof API_ROUTES)['/api/index']>().returns.resolves.toEqualTypeOf<IndexStatus>();
expectTypeOf<ApiRequestBody<'/api/index'>>().toEqualTypeOf<undefined>();

// The browser's client: each call's answer is the route's response.
expectTypeOf(api.sessions).returns.resolves.toEqualTypeOf<ApiResponse<'/api/sessions'>>();
expectTypeOf(api.messages).returns.resolves.toEqualTypeOf<ApiResponse<'/api/messages'>>();
expectTypeOf(api.candidates).returns.resolves.toEqualTypeOf<ApiResponse<'/api/candidates'>>();
expectTypeOf(api.search).returns.resolves.toEqualTypeOf<ApiResponse<'/api/search'>>();
expectTypeOf(api.preview).returns.resolves.toEqualTypeOf<ApiResponse<'/api/preview'>>();
expectTypeOf(api.send).returns.resolves.toEqualTypeOf<ApiResponse<'/api/send'>>();
expectTypeOf(api.newSession).returns.resolves.toEqualTypeOf<ApiResponse<'/api/new'>>();
expectTypeOf(api.indexStatus).returns.resolves.toEqualTypeOf<ApiResponse<'/api/index'>>();
// ...and it takes the route's body.
expectTypeOf(api.preview).parameter(0).toEqualTypeOf<ApiRequestBody<'/api/preview'>>();
expectTypeOf(api.newSession).parameter(0).toEqualTypeOf<ApiRequestBody<'/api/new'>>();

// Candidates and hits are the core's, not restated (a field the core adds reaches the page), plus where each is read from.
expectTypeOf<Candidate>().toEqualTypeOf<SessionReferenceMentionCandidate & SessionSource>();
expectTypeOf<Omit<SearchHit, 'highlights'>>().toEqualTypeOf<Omit<SessionReferenceContentHit & SessionSource, 'ranges'>>();
expectTypeOf<SearchHit['highlights']>().toEqualTypeOf<TextRange[]>();
