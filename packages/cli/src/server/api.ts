/** The inspector's JSON endpoints over an {@link Engine}. See protocol.ts for the shapes. */
import type { IncomingMessage } from 'node:http';
import type { Engine } from '../engine/engine.js';
import { explainMissing, listSessions } from '../engine/listing.js';
import { describeFailure } from '../errors.js';
import { readJsonObject, stringField } from './http.js';
import type { ApiPath, ApiRequestBody, ApiResponse, CandidatesResponse, ComposeRequest, MessagesResponse, PreviewResponse, SearchResponse, SendResponse, SessionItem, SessionsResponse } from './protocol.js';
import { formatSessionReferenceMention } from '@sessref/core';
import { sessionsInUse } from '../engine/in-use.js';
import { newSession } from './new-session.js';
import { conversationView, previewView } from './view.js';

export interface ApiRequest {
  engine: Engine;
  req: IncomingMessage;
  /** Aborts when the client goes away before the answer is written, or the server closes. */
  signal: AbortSignal;
}

/** A route's handler, answering the type the route map gives its path. */
type Handler<P extends ApiPath> = (request: ApiRequest) => Promise<ApiResponse<P>>;

async function sessions({ engine, signal }: ApiRequest): Promise<SessionsResponse> {
  const summaries = await listSessions(engine, signal);
  const readable = summaries.filter((summary) => summary.readError === undefined).map((summary) => summary.sessionId);
  const inUse = sessionsInUse(await engine.logPaths(readable, signal));
  // Listing facts, and for a session whose log cannot be read its code and one-line reason (never a stack).
  const items = summaries.map(({ sessionId, title, cwd, createdAt, live, persisted, readError }): SessionItem => {
    const failure = readError === undefined ? undefined : describeFailure(readError, sessionId);
    return {
      sessionId,
      ...(title === undefined ? {} : { title }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(createdAt === undefined ? {} : { createdAt }),
      live,
      persisted,
      ...(failure === undefined ? {} : { readError: { code: failure.code, message: failure.message } }),
      // A session that cannot be read cannot be referenced either: no mention to copy.
      ...(failure === undefined ? { mention: formatSessionReferenceMention({ sessionId, label: title ?? sessionId }) } : {}),
      ...(inUse.has(sessionId) ? { inUse: inUse.get(sessionId)! } : {}),
    };
  });
  return { root: engine.root, maxReferenceBytes: engine.maxReferenceBytes, maxReferences: engine.maxReferences, sessions: items };
}

async function messages({ engine, req }: ApiRequest): Promise<MessagesResponse> {
  const body = await readJsonObject(req);
  const request: ApiRequestBody<'/api/messages'> = { sessionId: stringField(body, 'sessionId') };
  return conversationView(engine, request.sessionId);
}

/** A `{target, query}` body, the query possibly empty (the `@` menu's first keystroke). */
async function menuQuery(req: IncomingMessage): Promise<ApiRequestBody<'/api/candidates' | '/api/search'>> {
  const body = await readJsonObject(req);
  return { target: stringField(body, 'target'), query: stringField(body, 'query', { allowEmpty: true }) };
}

async function candidates({ engine, req, signal }: ApiRequest): Promise<CandidatesResponse> {
  const { target, query } = await menuQuery(req);
  // No limit: the configured candidate limit. Title matches only; content matches come from /api/search.
  return { candidates: await engine.candidates(target, query, undefined, signal) };
}

/** Content hits the `@` menu shows under its title matches. */
export const MENU_SEARCH_LIMIT = 8;

/** Each engine's search in flight: the next keystroke's request stops it (its client may never close the connection). */
const searching = new WeakMap<Engine, AbortController>();

async function search({ engine, req, signal }: ApiRequest): Promise<SearchResponse> {
  searching.get(engine)?.abort(new Error('a newer search arrived'));
  const mine = new AbortController();
  searching.set(engine, mine);
  try {
    const { target, query } = await menuQuery(req);
    const hits = await engine.search(query, { target, limit: MENU_SEARCH_LIMIT, signal: AbortSignal.any([signal, mine.signal]) });
    // The index says where the query is in each snippet, so the client marks it up without matching text itself.
    return { hits: hits.map(({ ranges, ...hit }) => ({ ...hit, highlights: ranges.map(([start, end]): [number, number] => [start, end]) })) };
  } finally {
    if (searching.get(engine) === mine) searching.delete(engine);
  }
}

async function compose(req: IncomingMessage): Promise<ComposeRequest> {
  const body = await readJsonObject(req);
  return { target: stringField(body, 'target'), text: stringField(body, 'text') };
}

async function preview({ engine, req, signal }: ApiRequest): Promise<PreviewResponse> {
  const { target, text } = await compose(req);
  return previewView(await engine.preview(target, text, signal));
}

async function send({ engine, req, signal }: ApiRequest): Promise<SendResponse> {
  const { target, text } = await compose(req);
  const result = await engine.send(target, text, signal);
  return { ...previewView(result), appendedSeqs: result.appendedSeqs, conversation: await conversationView(engine, target) };
}

/** A read of a session whose log is there but cannot be read fails with that log's damage, never "not found". */
function explained<P extends ApiPath>(handle: Handler<P>): Handler<P> {
  return async (request) => {
    try {
      return await handle(request);
    } catch (error) {
      throw await explainMissing(request.engine, error);
    }
  };
}

/** Each route's handler; its method is the route map's (`API_METHODS`). */
export const API_ROUTES: { readonly [P in ApiPath]: Handler<P> } = {
  '/api/sessions': sessions,
  '/api/messages': explained(messages),
  '/api/candidates': explained(candidates),
  '/api/search': explained(search),
  '/api/preview': explained(preview),
  '/api/send': explained(send),
  '/api/new': newSession,
};
