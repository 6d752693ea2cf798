/** `POST /api/new`: a new, empty session, as `sessref new` creates it (its title makes it durable at once). */
import type { ApiRequest } from './request.js';
import { refuseAgentFolder } from '../root.js';
import { HttpError } from './http.js';
import type { NewSessionResponse } from './protocol.js';

export async function newSession({ engine, body: { title, cwd } }: ApiRequest<'/api/new'>): Promise<NewSessionResponse> {
  // dsh keys a session's directory off its cwd, which must be absolute (as `sessref new --cwd` requires).
  if (cwd !== undefined && !cwd.startsWith('/')) throw new HttpError(400, 'INVALID_CWD', `the working directory must be an absolute path (starting with /), not "${cwd}"`);
  // As `sessref new`: never a session in another agent's folder.
  refuseAgentFolder(engine.root, process.env);
  return { sessionId: await engine.create({ ...(title === undefined ? {} : { title }), ...(cwd === undefined ? {} : { cwd }) }) };
}
