/**
 * Sessions as MCP resources, only under `--resources`: every client that
 * lets a user pick a resource also gives its model tools to list and read
 * them, and a read is a bare `resources/read` either way, so this turns
 * sessions into a lookup the model can run. Every session is listed (clients
 * read no URI that only a template reaches), a page at a time.
 */
import { statSync } from 'node:fs';
import { ProtocolError, ProtocolErrorCode, type ListResourcesResult, type McpServer, type ReadResourceResult, type Resource } from '@modelcontextprotocol/server';
import { encodeSessionReferenceUri, labelOf } from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import type { SessionSummary } from '../engine/engine.js';
import { terminalSafe } from '../output.js';
import { answering } from './errors.js';
import type { CitableSessions } from './sessions.js';

/** The snapshot text: a heading, the warning and tag-safe JSON, shown as written. */
const MIME_TYPE = 'text/plain';

/** How often the sessions' change stamps are compared with the last ones to announce a change; clients re-list on the notice. */
const CHANGE_POLL_MS = 2000;

/** Serve `resources/list` (paged by `pageSize`), `resources/read` and an empty template list; announce listing changes until `server` closes. */
export function serveSessionResources(server: McpServer, sessions: CitableSessions, pageSize: number): void {
  const wire = server.server;
  wire.registerCapabilities({ resources: { listChanged: true } });
  wire.setRequestHandler('resources/list', (request, ctx) => answering(() => listPage(sessions, request.params?.cursor, pageSize, ctx.mcpReq.signal)));
  wire.setRequestHandler('resources/read', (request, ctx) => answering(() => readSession(sessions, request.params.uri, ctx.mcpReq.signal)));
  // Every session is listed, so there is nothing a template would add; answered so clients that ask get an answer.
  wire.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: [] }));
  const stop = announceChanges(sessions, () => server.sendResourceListChanged());
  wire.onclose = stop;
}

/** One page of the listing, from the offset the cursor carries; each entry with its size and, for a dsh log, when it last changed. */
async function listPage(sessions: CitableSessions, cursor: string | undefined, pageSize: number, signal: AbortSignal): Promise<ListResourcesResult> {
  const listed = await sessions.list(signal);
  const start = offsetOf(cursor);
  const page = listed.slice(start, start + pageSize);
  const [sizes, paths] = await Promise.all([Promise.all(page.map((session) => sizeOf(sessions, session.sessionId, signal))), sessions.logPaths(page.map((session) => session.sessionId), signal)]);
  const times = page.map((session) => modifiedAt(paths.get(session.sessionId)));
  const resources = page.map((session, index) => resourceOf(session, sizes[index], times[index]));
  const next = start + pageSize;
  return next < listed.length ? { resources, nextCursor: String(next) } : { resources };
}

/** A cursor is the offset of the next page, as this server wrote it; anything else is the client's error. */
function offsetOf(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,15}$/.test(cursor)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'invalid cursor: pass back a nextCursor this server returned');
  return Number(cursor);
}

function resourceOf(session: SessionSummary, size: number | undefined, lastModified: string | undefined): Resource {
  const title = labelOf(session.sessionId, session.title);
  const where = session.cwd === undefined ? '' : ` in ${session.cwd}`;
  return {
    uri: encodeSessionReferenceUri(session.sessionId),
    name: session.sessionId,
    // Titles and cwds are whatever a session's author wrote, shown in a terminal picker.
    title: terminalSafe(title),
    description: terminalSafe(`${session.source} session${where}: its read-only, untrusted snapshot`),
    mimeType: MIME_TYPE,
    ...(size === undefined ? {} : { size }),
    ...(lastModified === undefined ? {} : { annotations: { lastModified } }),
  };
}

/** The exact byte size of what a read returns now; none for a session that cannot be read (its read says why). */
async function sizeOf(sessions: CitableSessions, sessionId: string, signal: AbortSignal): Promise<number | undefined> {
  try {
    return utf8Length((await sessions.snapshot([encodeSessionReferenceUri(sessionId)], signal)).text);
  } catch {
    return undefined;
  }
}

/** When the log at `path` last changed; a stat is a few microseconds, and a page is bounded. */
function modifiedAt(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  try {
    return statSync(path).mtime.toISOString();
  } catch {
    return undefined;
  }
}

/** The session's snapshot, exactly as the `ref` prompt gives it for that one session. */
async function readSession(sessions: CitableSessions, uri: string, signal: AbortSignal): Promise<ReadResourceResult> {
  const context = await sessions.snapshot([uri], signal);
  return { contents: [{ uri, mimeType: MIME_TYPE, text: context.text }] };
}

/**
 * Compare the sessions' change stamps (see `Engine.changeStamps`: the logs'
 * and transcripts' revisions, no log or transcript read) every
 * {@link CHANGE_POLL_MS} and call `changed` when they differ; one
 * comparison at a time. Returns the stop.
 */
function announceChanges(sessions: CitableSessions, changed: () => void): () => void {
  let last: string | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    const stamps = JSON.stringify([...(await sessions.changeStamps())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    if (last !== undefined && stamps !== last) changed();
    last = stamps;
  };
  const schedule = () => {
    if (stopped) return;
    // A failed comparison (a root being replaced) is retried at the next tick; the reads report their own failures.
    timer = setTimeout(() => void tick().catch(() => undefined).finally(schedule), CHANGE_POLL_MS);
    timer.unref();
  };
  void tick().catch(() => undefined).finally(schedule);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
