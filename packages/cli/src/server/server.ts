/**
 * The web inspector's HTTP server (node:http). Binds 127.0.0.1 unless told
 * otherwise, answers only requests that carry the per-launch token and are
 * addressed to the served host:port from the served origin, and never logs
 * or puts transcript text in URLs.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Engine } from '../engine/engine.js';
import { API_ROUTES, parseRequest } from './api.js';
import { HttpError, sendError, sendJson, toHttpError, withRelativePaths } from './http.js';
import { ChangeFeed, type ChangeFeedOptions } from './events.js';
import { API_METHODS, EVENTS_PATH, isApiPath, type ApiPath, type ApiResponse } from './protocol.js';
import { allowedHosts, displayHost, hostPort } from './address.js';
import { DEFAULT_HOST } from './listen-defaults.js';
import { SECURITY_HEADERS, checkCredentials, checkOrigin, newToken, pageCookie } from './security.js';
import { DEFAULT_WEB_ROOT, asset, indexPage, isAssetPath, signInPage, type StaticFile } from './static.js';

export interface ServerOptions {
  /** Bind address (default 127.0.0.1). */
  host?: string;
  /** TCP port; 0 picks a free one (default 0). */
  port?: number;
  /** Fixed token (default: 32 random bytes, hex). */
  token?: string;
  /** Built web client (default packages/cli/web-dist). */
  webRoot?: string;
  /** Where failures are reported: method, path, status and code only. */
  log?: (line: string) => void;
  /** Time a client has to send its request headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Time a client has to send its whole request, body included (default 30 s). */
  requestTimeoutMs?: number;
  /** The change stream's pace and bounds (`GET /api/events`). */
  events?: ChangeFeedOptions;
}

const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

export interface RunningServer {
  /** The URL to open, token included. */
  url: string;
  /** `http://host:port`, the only origin the server accepts. */
  origin: string;
  token: string;
  port: number;
  /** Abort in-flight work, drop connections and stop listening. */
  close(): Promise<void>;
}

interface State {
  engine: Engine;
  /** The launch token: the only API credential, sent by header. */
  token: string;
  /** The page cookie's value: opens pages and assets, never the API. */
  pageKey: string;
  port: number;
  hosts: ReadonlySet<string>;
  webRoot: string;
  log: (line: string) => void;
  inflight: Set<AbortController>;
  /** Tells open pages what changed under the root. */
  feed: ChangeFeed;
}

export async function startServer(engine: Engine, options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? DEFAULT_HOST;
  const token = options.token ?? newToken();
  // Explicit bounds, so a client that trickles headers or a body cannot hold a connection open.
  const headersTimeout = options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS;
  const requestTimeout = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, headersTimeout);
  const server = createServer({ headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(1_000, headersTimeout) });
  const port = await listen(server, host, options.port ?? 0);
  const log = options.log ?? (() => {});
  const state: State = {
    engine,
    token,
    pageKey: newToken(),
    port,
    hosts: allowedHosts(host, port),
    webRoot: options.webRoot ?? DEFAULT_WEB_ROOT,
    log,
    inflight: new Set(),
    feed: new ChangeFeed(engine, options.events, log),
  };
  const handlers = new Set<Promise<void>>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const handling = handle(req, res, state).finally(() => handlers.delete(handling));
    handlers.add(handling);
  });
  const origin = `http://${hostPort(displayHost(host), port)}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    port,
    async close() {
      for (const controller of state.inflight) controller.abort(new Error('server closing'));
      state.feed.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.allSettled([...handlers]);
      await closed;
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      // A TCP listener's address is an object; a string would be a pipe or socket path.
      const address = server.address();
      if (typeof address === 'object' && address !== null) resolve(address.port);
      else reject(new Error(`the server listens on ${String(address)}, not a TCP port`));
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, state: State): Promise<void> {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  let path = '?';
  try {
    const url = parseTarget(req.url);
    path = url.pathname;
    checkOrigin(req, state.hosts);
    if (url.pathname.startsWith('/api/')) await handleApi(req, res, url, state);
    else await handlePage(req, res, url, state);
  } catch (error) {
    const failure = toHttpError(error);
    // Method, path, status and code only: never a body, a query string or a token.
    if (failure.status >= 500) state.log(`${req.method} ${path} ${failure.status} ${failure.code}${failure.code === 'INTERNAL' ? ` (${errorName(error)})` : ''}`);
    if (!res.headersSent && !res.destroyed) sendError(res, withRelativePaths(failure, state.engine.root));
  } finally {
    // A refused body is not read to its end; do not leave it half-parsed on a kept-alive socket.
    if (!req.complete) req.resume();
    // A derived file not used as found (rebuilt, bypassed) is logged once, whichever request met it.
    for (const notice of state.engine.takeNotices()) state.log(`note: ${notice}`);
  }
}

function parseTarget(target: string | undefined): URL {
  try {
    return new URL(target ?? '/', 'http://inspector.invalid');
  } catch {
    throw new HttpError(400, 'BAD_REQUEST', 'malformed request target');
  }
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function methodNotAllowed(allow: string): HttpError {
  return new HttpError(405, 'METHOD_NOT_ALLOWED', `use ${allow}`, { allow });
}

async function handleApi(req: IncomingMessage, res: ServerResponse, url: URL, state: State): Promise<void> {
  checkCredentials(req, url, state.port, { header: state.token });
  const path = url.pathname;
  if (path === EVENTS_PATH) {
    if (req.method !== 'GET') throw methodNotAllowed('GET');
    return state.feed.stream(req, res);
  }
  if (!isApiPath(path)) throw new HttpError(404, 'NOT_FOUND', 'no such endpoint');
  if (req.method !== API_METHODS[path]) throw methodNotAllowed(API_METHODS[path]);
  const controller = new AbortController();
  state.inflight.add(controller);
  // 'close' before the answer is finished means the client gave up: stop the work.
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error('client closed the request'));
  };
  res.once('close', onClose);
  try {
    const result = await answer(path, req, state.engine, controller.signal);
    if (!res.destroyed) sendJson(res, 200, result);
  } finally {
    state.inflight.delete(controller);
  }
}

/** One route's answer to a request: its body parsed by its schema, then its handler. */
async function answer<P extends ApiPath>(path: P, req: IncomingMessage, engine: Engine, signal: AbortSignal): Promise<ApiResponse<P>> {
  return API_ROUTES[path]({ engine, body: await parseRequest(path, req), signal });
}

async function handlePage(req: IncomingMessage, res: ServerResponse, url: URL, state: State): Promise<void> {
  const isIndex = url.pathname === '/' || url.pathname === '/index.html';
  try {
    checkCredentials(req, url, state.port, { header: state.token, cookie: state.pageKey, query: state.token });
  } catch (error) {
    // A person at the bare address gets a page that says how to get in, not a JSON blob.
    if (isIndex && error instanceof HttpError) return sendFile(res, signInPage(), error.status);
    throw error;
  }
  if (!isIndex && !isAssetPath(url.pathname)) throw new HttpError(404, 'NOT_FOUND', 'not found');
  if (req.method !== 'GET') throw methodNotAllowed('GET');
  if (url.searchParams.has('token')) return handOver(res, state);
  const file = isIndex ? await indexPage(state.webRoot) : await asset(state.webRoot, url.pathname);
  if (!file) throw new HttpError(404, 'NOT_FOUND', 'not found');
  sendFile(res, file);
}

/**
 * Trade `?token=` for the page cookie, and hand the token to the page in the
 * address fragment, which browsers never send to any server: the page moves
 * it to this tab's sessionStorage and clears the address. The token itself
 * never sits in a cookie (which every local server would receive) or in the
 * served HTML.
 */
function handOver(res: ServerResponse, state: State): void {
  res.writeHead(303, { location: `/#token=${state.token}`, 'set-cookie': pageCookie(state.port, state.pageKey), 'content-length': 0 });
  res.end();
}

function sendFile(res: ServerResponse, file: StaticFile, status = 200): void {
  res.writeHead(status, { 'content-type': file.type, 'content-length': file.body.length });
  res.end(file.body);
}
