/** Small node:http helpers: typed failures, JSON bodies with a size cap, JSON answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonObject } from '@sessref/core/internal';
import { classify } from '../classify.js';
import { describeFailure } from '../errors.js';
import { HTTP_STATUS } from '../failure.js';
import type { ApiError } from './protocol.js';

/** Request bodies above this many bytes are refused with 413. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A failure with the HTTP status and stable code the client sees. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /** What fixes it, as the CLI's `fix:` says it. */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Map anything a handler throws to an {@link HttpError}, its status read off
 * the failure's class (see failure.ts). An unexpected failure is a bare 500:
 * its message may carry anything.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const failure = classify(error);
  if (failure.class === 'unexpected') return new HttpError(HTTP_STATUS.unexpected, 'INTERNAL', 'internal error; see the server log');
  return new HttpError(HTTP_STATUS[failure.class], failure.code, failure.message, {}, describeFailure(error).hint);
}

/**
 * A refused body is drained (read and dropped) up to this many bytes before
 * the 413 goes out: a client still writing its body when the server answers
 * and closes would see a reset instead of the answer.
 */
const MAX_DRAIN_BYTES = 8 * MAX_BODY_BYTES;
/** ...and for at most this long, so a slow sender cannot hold the answer back. */
const MAX_DRAIN_MS = 2_000;

/**
 * Read the whole body, refusing more than `limit` bytes with 413. A client
 * that stops sending midway (an abort, a dropped connection) is a client
 * error, never an internal one.
 */
async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    await drain(req);
    throw tooLarge(limit);
  }
  const body = await new Promise<Buffer | 'too large'>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: Buffer | 'too large' | HttpError) => {
      req.off('data', onData).off('end', onEnd).off('error', onCutShort).off('close', onCutShort);
      if (outcome instanceof HttpError) reject(outcome);
      else resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) settle('too large');
      else chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    const onCutShort = () => settle(new HttpError(400, 'INCOMPLETE_BODY', 'the request body was cut short'));
    req.on('data', onData).on('end', onEnd).on('error', onCutShort).on('close', onCutShort);
  });
  if (body !== 'too large') return body;
  await drain(req);
  throw tooLarge(limit);
}

/** Read and drop what is left of a request body, within {@link MAX_DRAIN_BYTES} and {@link MAX_DRAIN_MS}. */
function drain(req: IncomingMessage): Promise<void> {
  if (req.complete) return Promise.resolve();
  return new Promise((resolve) => {
    let drained = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData).off('end', done).off('close', done).off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > MAX_DRAIN_BYTES) done();
    };
    const timer = setTimeout(done, MAX_DRAIN_MS);
    req.on('data', onData).on('end', done).on('close', done).on('error', done);
    req.resume();
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `request body exceeds ${limit} bytes`, { connection: 'close' });
}

/** A JSON object body; anything else is 400 (or 415 without a JSON content type). */
export async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new HttpError(415, 'UNSUPPORTED_MEDIA_TYPE', 'send a JSON body (Content-Type: application/json)');
  const body = await readBody(req);
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'MALFORMED_JSON', 'the request body is not valid JSON');
  }
  if (!isJsonObject(value)) throw new HttpError(400, 'BAD_REQUEST', 'the request body must be a JSON object');
  return value;
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  const body: ApiError = { error: { code: error.code, message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }) } };
  sendJson(res, error.status, body, error.headers);
}

/** An absolute POSIX path inside a message, up to a quote, a space or closing punctuation; `--project--/id` and `<project>/<session>` are relative. */
const ABSOLUTE_PATH = /(?<![\w.~>-])\/[^\s'"`,;)\]]+/g;

/**
 * The error as the client may see it: files inside the session root named
 * relative to it, and any other absolute path by its last segment. The full
 * layout of the machine is not the browser's business.
 */
export function withRelativePaths(error: HttpError, root: string): HttpError {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const relative = (text: string) =>
    text.replace(ABSOLUTE_PATH, (path) => {
      if (path === root || path === prefix) return '.';
      if (path.startsWith(prefix)) return path.slice(prefix.length);
      return `…/${path.split('/').filter(Boolean).pop() ?? ''}`;
    });
  const [message, hint] = [relative(error.message), error.hint === undefined ? undefined : relative(error.hint)];
  return message === error.message && hint === error.hint ? error : new HttpError(error.status, error.code, message, error.headers, hint);
}
