import type { Engine } from '../engine/engine.js';
import type { ApiPath, ParsedRequest } from './protocol.js';

/** What a route's handler gets: the engine, the body its route's schema parsed, and the request's signal. */
export interface ApiRequest<P extends ApiPath> {
  engine: Engine;
  /** The body, parsed by the route's schema. */
  body: ParsedRequest<P>;
  /** Aborts when the client goes away before the answer is written, or the server closes. */
  signal: AbortSignal;
}
