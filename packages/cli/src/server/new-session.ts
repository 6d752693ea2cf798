/** `POST /api/new`: a new, empty session, as `sessref new` creates it (its title makes it durable at once). */
import type { ApiRequest } from './api.js';
import { HttpError, readJsonObject, stringField } from './http.js';
import type { NewSessionRequest, NewSessionResponse } from './protocol.js';

/** Titles longer than this are refused: a title is a line in a list, not a message. */
const MAX_TITLE_LENGTH = 200;

export async function newSession({ engine, req }: ApiRequest): Promise<NewSessionResponse> {
  const { title, cwd } = parse(await readJsonObject(req));
  return { sessionId: await engine.create({ title, ...(cwd === undefined ? {} : { cwd }) }) };
}

/** The request, trimmed and checked: a title, and an absolute cwd or none. */
function parse(body: Record<string, unknown>): NewSessionRequest {
  const title = stringField(body, 'title', { allowEmpty: true }).trim();
  if (title === '') throw new HttpError(400, 'INVALID_TITLE', 'the new session needs a title');
  if (title.length > MAX_TITLE_LENGTH) throw new HttpError(400, 'INVALID_TITLE', `a title may be at most ${MAX_TITLE_LENGTH} characters long`);
  const cwd = body['cwd'] === undefined || body['cwd'] === '' ? undefined : stringField(body, 'cwd').trim();
  // dsh keys a session's directory off its cwd, which must be absolute (as `sessref new --cwd` requires).
  if (cwd !== undefined && !cwd.startsWith('/')) throw new HttpError(400, 'INVALID_CWD', `the working directory must be an absolute path (starting with /), not "${cwd}"`);
  return cwd === undefined || cwd === '' ? { title } : { title, cwd };
}
