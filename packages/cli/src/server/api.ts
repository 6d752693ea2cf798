/** The inspector's JSON endpoints over an {@link Engine}. See protocol.ts for the shapes. */
import type { IncomingMessage } from 'node:http';
import { basename } from 'node:path';
import { parseLogFileName } from '@sessref/dsh/jsonl-root';
import type { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { explainMissing, listSessions, sourceWarnings } from '../engine/listing.js';
import { describeFailure } from '../errors.js';
import { refuseAgentFolder } from '../root.js';
import { HttpError, readJsonObject } from './http.js';
import type { ApiPath, ApiResponse, CandidatesResponse, MessagesResponse, ParsedRequest, PreviewResponse, SearchResponse, SendResponse, SessionItem, SessionSource, SessionsResponse } from './protocol.js';
import { REQUEST_SCHEMAS } from './routes.js';
import { formatSessionReferenceMention, labelOf } from '@sessref/core';
import { sessionsInUse } from '../engine/in-use.js';
import { indexStatus } from './index-status.js';
import { newSession } from './new-session.js';
import { conversationView, previewView } from './view.js';
import type { ApiRequest } from './request.js';

/** A route's handler, answering the type the route map gives its path. */
type Handler<P extends ApiPath> = (request: ApiRequest<P>) => Promise<ApiResponse<P>>;

/**
 * A route's body, parsed by its schema (a GET's is none, and is not read).
 * A body of the wrong shape is a 400 naming the first field at fault; a
 * title or text the core's rule refuses is that rule's coded error.
 */
export async function parseRequest<P extends ApiPath>(path: P, req: IncomingMessage): Promise<ParsedRequest<P>> {
  const parsed = SCHEMAS[path].safeParse(API_BODILESS.has(path) ? undefined : await readJsonObject(req));
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const field = issue === undefined || issue.path.length === 0 ? 'the request body' : `"${issue.path.map(String).join('.')}"`;
  throw new HttpError(400, 'BAD_REQUEST', `${field}: ${issue?.message ?? 'not accepted'}`);
}

/** The schemas, each typed by its own path, so indexing with a generic path keeps that path's output type. */
const SCHEMAS: { readonly [P in ApiPath]: z.ZodType<ParsedRequest<P>> } = REQUEST_SCHEMAS;

/** The routes whose method is GET: they take no body. */
const API_BODILESS: ReadonlySet<ApiPath> = new Set(['/api/sessions', '/api/index']);

/** The log format of a session's current log when a later dsh wrote it (its file name says which), for the page to refuse Send up front. */
function laterLogFormat(log: string | undefined): Pick<SessionItem, 'logFormat'> {
  const generation = log === undefined ? undefined : parseLogFileName(basename(log))?.generation;
  return generation === undefined || generation === 0 ? {} : { logFormat: generation };
}

async function sessions({ engine, signal }: ApiRequest<'/api/sessions'>): Promise<SessionsResponse> {
  const summaries = await listSessions(engine, signal);
  const readable = summaries.filter((summary) => summary.readError === undefined).map((summary) => summary.sessionId);
  const logs = await engine.logPaths(readable, signal);
  const inUse = sessionsInUse(logs);
  // Listing facts, and for a session whose log cannot be read its code and one-line reason (never a stack).
  const items = summaries.map(({ sessionId, source, title, cwd, createdAt, lastSentAt, live, persisted, readError }): SessionItem => {
    const failure = readError === undefined ? undefined : describeFailure(readError, sessionId);
    return {
      sessionId,
      ...sourceOf(engine, sessionId, source),
      ...(title === undefined ? {} : { title }),
      ...(cwd === undefined ? {} : { cwd }),
      ...(createdAt === undefined ? {} : { createdAt }),
      ...(lastSentAt === undefined ? {} : { lastSentAt }),
      live,
      persisted,
      ...(failure === undefined ? {} : { readError: { code: failure.code, message: failure.message } }),
      // A session that cannot be read cannot be referenced either: no mention to copy.
      ...(failure === undefined ? { mention: formatSessionReferenceMention({ sessionId, label: labelOf(sessionId, title) }) } : {}),
      ...laterLogFormat(logs.get(sessionId)),
      ...(inUse.has(sessionId) ? { inUse: inUse.get(sessionId)! } : {}),
    };
  });
  return { root: engine.root, maxReferenceBytes: engine.maxReferenceBytes, maxReferences: engine.maxReferences, sessions: items, problems: sourceWarnings(engine) };
}

/** Where a session is read from, and the agent's name when it is another agent's (read-only) session. */
function sourceOf(engine: Engine, sessionId: string, source = engine.sourceOf(sessionId)): SessionSource {
  const agent = engine.agentOf(sessionId);
  return agent === undefined ? { source } : { source, agent };
}

async function messages({ engine, body }: ApiRequest<'/api/messages'>): Promise<MessagesResponse> {
  return conversationView(engine, body.sessionId);
}

async function candidates({ engine, body: { target, query }, signal }: ApiRequest<'/api/candidates'>): Promise<CandidatesResponse> {
  // No limit: the configured candidate limit. Title matches only; content matches come from /api/search.
  const found = await engine.candidates(target, query, undefined, signal);
  return { candidates: found.map((candidate) => ({ ...candidate, ...sourceOf(engine, candidate.sessionId) })) };
}

/** Content hits the `@` menu shows under its title matches. */
export const MENU_SEARCH_LIMIT = 8;

/** Each engine's search in flight: the next keystroke's request stops it (its client may never close the connection). */
const searching = new WeakMap<Engine, AbortController>();

async function search({ engine, body: { target, query }, signal }: ApiRequest<'/api/search'>): Promise<SearchResponse> {
  searching.get(engine)?.abort(new Error('a newer search arrived'));
  const mine = new AbortController();
  searching.set(engine, mine);
  try {
    const hits = await engine.search(query, { target, limit: MENU_SEARCH_LIMIT, signal: AbortSignal.any([signal, mine.signal]) });
    // The index says where the query is in each snippet, so the client marks it up without matching text itself.
    return { hits: hits.map(({ ranges, ...hit }) => ({ ...hit, ...sourceOf(engine, hit.sessionId), highlights: ranges })) };
  } finally {
    if (searching.get(engine) === mine) searching.delete(engine);
  }
}

async function preview({ engine, body: { target, text }, signal }: ApiRequest<'/api/preview'>): Promise<PreviewResponse> {
  return previewView(await engine.preview(target, text, signal));
}

async function send({ engine, body: { target, text }, signal }: ApiRequest<'/api/send'>): Promise<SendResponse> {
  // As `sessref send`: never a write into another agent's folder.
  refuseAgentFolder(engine.root, process.env);
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
  '/api/index': indexStatus,
};
