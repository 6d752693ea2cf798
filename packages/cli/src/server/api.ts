/** The inspector's JSON endpoints over an {@link Engine}. See protocol.ts for the shapes. */
import type { IncomingMessage } from 'node:http';
import type { Engine } from '../engine/engine.js';
import { readJsonObject, stringField } from './http.js';
import type { CandidatesResponse, MessagesResponse, PreviewResponse, SendResponse, SessionItem, SessionsResponse } from './protocol.js';
import { conversationView, previewView } from './view.js';

export interface ApiRequest {
  engine: Engine;
  req: IncomingMessage;
  /** Aborts when the client goes away before the answer is written, or the server closes. */
  signal: AbortSignal;
}

export interface Route {
  method: 'GET' | 'POST';
  handle(request: ApiRequest): Promise<unknown>;
}

async function sessions({ engine, signal }: ApiRequest): Promise<SessionsResponse> {
  const summaries = await engine.sessions(signal);
  // Only listing facts go out: a failed title read is shown as a missing title, its error stays here.
  const items = summaries.map(({ sessionId, title, cwd, createdAt, live, persisted }): SessionItem => ({
    sessionId,
    ...(title === undefined ? {} : { title }),
    ...(cwd === undefined ? {} : { cwd }),
    createdAt,
    live,
    persisted,
  }));
  return { root: engine.root, maxReferenceBytes: engine.maxReferenceBytes, sessions: items };
}

async function messages({ engine, req }: ApiRequest): Promise<MessagesResponse> {
  const body = await readJsonObject(req);
  return conversationView(engine, stringField(body, 'sessionId'));
}

async function candidates({ engine, req, signal }: ApiRequest): Promise<CandidatesResponse> {
  const body = await readJsonObject(req);
  const target = stringField(body, 'target');
  const query = stringField(body, 'query', { allowEmpty: true });
  // No limit: the plugin's Remote `candidates` face, under the configured candidate limit.
  return { candidates: await engine.candidates(target, query, undefined, signal) };
}

async function compose(req: IncomingMessage): Promise<{ target: string; text: string }> {
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

export const API_ROUTES: Readonly<Record<string, Route>> = {
  '/api/sessions': { method: 'GET', handle: sessions },
  '/api/messages': { method: 'POST', handle: messages },
  '/api/candidates': { method: 'POST', handle: candidates },
  '/api/preview': { method: 'POST', handle: preview },
  '/api/send': { method: 'POST', handle: send },
};
